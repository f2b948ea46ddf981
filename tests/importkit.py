"""Importing a recording in tests, the two ways the importer tests do it: in-process through an
importer (:func:`import_traces`, :func:`import_trace`), or through the real ``abw import`` CLI
(:func:`cli_written`, :func:`cli_import`, :func:`cli_import_one`); and the small readers of
recordings and traces that several test files share."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from abw.importers import get_importer
from abw.importers.base import Importer, ImportOptions
from abw.models.trace import Trace

#: The ``run_cli`` fixture of tests/conftest.py: ``abw *args`` → (exit code, stdout, stderr).
RunCli = Callable[..., tuple[int, str, str]]

#: The files of tests/corpus/claude-code that ask their agent nothing (a shell-mode command
#: alone; a goal-status attachment alone): no run, no trace.
CLAUDE_NO_RUN = frozenset(
    {
        "alfredjeanlab__claudeless__v2.1.29-shell-mode-2de0d6a.jsonl",
        "happy__goal-status-active.jsonl",
    }
)


def claude_corpus_runs() -> list[Path]:
    """The session files of tests/corpus/claude-code that are runs, in name order."""
    from tests.conftest import CORPUS

    return sorted(
        p for p in (CORPUS / "claude-code").glob("*.jsonl") if p.name not in CLAUDE_NO_RUN
    )


def import_traces(
    importer: str | Importer,
    path: Path,
    options: ImportOptions | None = None,
    **option_fields: Any,
) -> list[Trace]:
    """The traces ``importer`` (a registered name, or an importer) reads from ``path``, with
    ``options``, or else ``ImportOptions(**option_fields)``."""
    if options is not None and option_fields:
        raise TypeError("pass options or option fields, not both")
    if isinstance(importer, str):
        importer = get_importer(importer)
    return importer.import_file(
        path, ImportOptions(**option_fields) if options is None else options
    )


def import_trace(
    importer: str | Importer,
    path: Path,
    options: ImportOptions | None = None,
    **option_fields: Any,
) -> Trace:
    """The one trace ``importer`` reads from ``path`` (fails unless exactly one); arguments as
    :func:`import_traces`."""
    (trace,) = import_traces(importer, path, options, **option_fields)
    return trace


def cli_written(
    run_cli: RunCli, importer: str, source: Path, out: Path, *extra: str
) -> tuple[list[Path], str]:
    """``abw import <importer> --input <source> --out <out> *extra``, which must exit 0 (stderr is
    the assertion message): the trace files written, and stderr. As the CLI decides, an ``out``
    named ``*.json`` is the one file written; any other is a folder: its ``*.json``, by name."""
    code, _, err = run_cli("import", importer, "--input", source, "--out", out, *extra)
    assert code == 0, err
    return ([out] if out.suffix == ".json" else sorted(out.glob("*.json"))), err


def cli_import(
    run_cli: RunCli, importer: str, source: Path, out: Path, *extra: str
) -> tuple[list[dict[str, Any]], str]:
    """As :func:`cli_written`: the traces written, as JSON, by file name; and stderr."""
    files, err = cli_written(run_cli, importer, source, out, *extra)
    return [json.loads(file.read_text()) for file in files], err


def cli_import_one(
    run_cli: RunCli, importer: str, source: Path, out: Path, *extra: str
) -> dict[str, Any]:
    """As :func:`cli_import`: the one trace written (fails unless exactly one)."""
    (trace,), _ = cli_import(run_cli, importer, source, out, *extra)
    return trace


def rollout(folder: Path, scenario: str) -> Path:
    """The one rollout of ``scenario`` in a folder of live Codex recordings
    (``<scenario>__rollout-*.jsonl``)."""
    (path,) = folder.glob(f"{scenario}__rollout-*.jsonl")
    return path


def jsonl_records(path: Path) -> list[dict]:
    """The records of a JSON Lines file, blank lines skipped."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def tool_spans(trace: Trace) -> list[tuple[str, str, str | None]]:
    """(name, outcome, call id) of every span that is no model request, in order."""
    return [(s.name, s.outcome, s.span_id) for s in trace.spans if s.type != "llm"]


def path_statuses(trace: Trace) -> list[tuple[str, str]]:
    """(name, status) of every span on the trace's path."""
    return [(s.name, s.status) for s in trace.path()]


def json_steps(trace: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(type, name, outcome) of every span of a trace written as JSON."""
    return [(s["type"], s["name"], s["outcome"]) for s in trace["spans"]]


def json_agent_steps(trace: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(type, name, outcome, agent attribute) of every span of a trace written as JSON."""
    return [
        (s["type"], s["name"], s["outcome"], s["attributes"].get("agent")) for s in trace["spans"]
    ]
