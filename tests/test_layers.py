"""The module layers: trace semantics sit below everything that reads a run, and nothing
imports upwards (rules never reach into the gate)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "abw"


def _imports(path: Path) -> set[str]:
    """Every abw module a file imports, at module level or inside functions."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name == "abw" or name.startswith("abw.")}


def _files(package: str) -> list[Path]:
    target = ROOT / package
    return sorted(target.rglob("*.py")) if target.is_dir() else [ROOT / f"{package}.py"]


@pytest.mark.parametrize("path", _files("rules"), ids=lambda p: p.name)
def test_rules_never_import_the_gate(path: Path) -> None:
    assert not {m for m in _imports(path) if m.startswith("abw.gating")}


def test_semantics_import_nothing_of_abw() -> None:
    assert _imports(ROOT / "semantics.py") == set()


def test_the_readers_never_import_upwards() -> None:
    """JSON rules (abw.reader) below YAML rules (abw.yamlreader) below the document read by its
    suffix (abw.documents): neither reader imports the one above it, even inside a function."""
    reader, yaml_reader = _imports(ROOT / "reader.py"), _imports(ROOT / "yamlreader.py")
    assert not {m for m in reader if m.startswith(("abw.yamlreader", "abw.documents"))}
    assert not {m for m in yaml_reader if m.startswith("abw.documents")}
    tree = ast.parse((ROOT / "reader.py").read_text(encoding="utf-8"))
    imported = {
        a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names
    }
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "yaml" not in imported  # a trace or raw export is read without PyYAML


DEFINED_ONCE = {"retries", "errors", "successful", "successes", "attempts", "in_order"}


@pytest.mark.parametrize(
    "package", ["gating", "rules", "diffing", "fingerprint", "spec_init", "latent", "traceio"]
)
def test_no_second_definition_of_retries_or_paths(package: str) -> None:
    """Retries, errors and paths are defined in abw.semantics only; the readers call it."""
    for path in _files(package):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined = {
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        assert not defined & DEFINED_ONCE, path


def test_semantics_on_a_run_out_of_order() -> None:
    from abw import semantics
    from abw.models.trace import Span

    def span(ordinal: int, name: str, status: str, digest: str | None, kind: str = "tool") -> Span:
        return Span(
            span_id=f"s{ordinal}",
            ordinal=ordinal,
            type=kind,
            name=name,
            status=status,
            input_hash=digest,
            started_at=f"2025-01-01T00:00:0{ordinal}Z",
        )

    spans = [
        span(3, "Bash", "success", "h1"),
        span(0, "think", "success", None, "llm"),
        span(1, "Bash", "error", "h1"),
        span(2, "Bash", "error", None),
        span(4, "Bash", "success", None),
    ]
    ordered = semantics.in_order(spans)
    assert [s.ordinal for s in ordered] == [0, 1, 2, 3, 4]
    assert [s.ordinal for s in semantics.path(ordered)] == [1, 2, 3, 4]
    assert [s.ordinal for s in semantics.errors(ordered)] == [1, 2]
    assert [s.ordinal for s in semantics.retries(ordered)] == [3]  # no hash: never a retry
    assert [s.ordinal for s in semantics.attempts(ordered, "Bash")] == [1, 2, 3, 4]
    assert [s.ordinal for s in semantics.successes(ordered, "B*", glob=True)] == [3, 4]
    assert semantics.order_violations(ordered, "think", "Bash") == []
    assert [s.ordinal for s in semantics.order_violations(ordered, "Read", "Bash")] == [3, 4]
    start = semantics.start_time(spans)
    assert start is not None and start.isoformat() == "2025-01-01T00:00:00+00:00"
    assert semantics.start_time([]) is None
