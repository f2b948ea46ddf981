"""Start-up stays light: `abw --help` loads no heavy module (speed itself is benchmarked in
benchmarks/bench_startup.py, never timed here)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pydantic", "numpy", "jinja2", "github", "torch", "transformers", "yaml", "scipy")

CODE = """
import json, sys
from abw.cli import cli, run
code = run(cli, sys.argv[1:])
print(json.dumps([code, sorted(sys.modules)]))
"""


def _loaded(*args: str) -> tuple[int, set[str]]:
    out = subprocess.run(
        [sys.executable, "-c", CODE, *args], capture_output=True, text=True, timeout=60
    ).stdout
    code, modules = json.loads(out.strip().splitlines()[-1])
    return code, set(modules)


def _top(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_help_loads_no_heavy_module():
    code, modules = _loaded("--help")
    assert code == 0
    assert not _top(modules) & set(HEAVY), sorted(_top(modules) & set(HEAVY))


def test_help_lists_commands_without_importing_them():
    code, modules = _loaded("--help")
    assert code == 0
    assert "abw.cli.verify_cmd" not in modules and "abw.verify_report" not in modules
    assert "abw.cli.gate_cmd" not in modules and "abw.gating" not in modules
    out = subprocess.run(
        [sys.executable, "-c", "from abw.cli import main; main()", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    assert "verify-report" in out and "gate" in out


def test_import_help_builds_no_model():
    """`abw import NAME --help` (and the list of importers) reads each importer's help without
    importing pydantic or the trace models, which only an import itself needs (it was 0.2 s
    of every such help), or PyYAML, which only a YAML document needs (abw.yamlreader)."""
    from abw.importers import BUILTIN

    for args in (("import", "--help"), *(("import", name, "--help") for name in BUILTIN)):
        code, modules = _loaded(*args)
        assert code == 0, args
        assert not _top(modules) & set(HEAVY), (args, _top(modules) & set(HEAVY))
        assert not {m for m in modules if m.startswith("abw.models.")}, args


def test_every_listed_command_resolves():
    """Each COMMANDS entry names a real click command (`abw --help` lists them unimported)."""
    import click

    from abw.cli import COMMANDS, cli

    ctx = click.Context(cli)
    assert cli.list_commands(ctx) == sorted(COMMANDS)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert isinstance(command, click.Command), name
        assert command.name == name, (name, command.name)


def test_the_gate_loads_no_numpy_torch_or_transformers(tmp_path):
    """The gate's path: the nearest-path search and the baseline spread use rapidfuzz's C
    loops without numpy (its import alone was a quarter of a small gate's time)."""
    from conftest import REPO

    example = REPO / "examples" / "refund-policy"
    code, modules = _loaded(
        "gate",
        "--baseline", str(example / "traces" / "baseline"),
        "--candidate", str(example / "traces" / "regressed"),
        "--spec", str(example / "behavior.yaml"),
        "--out", str(tmp_path / "gate-report.json"),
    )  # fmt: skip
    assert code == 1  # the regressed candidates FAIL: every check ran
    assert not _top(modules) & {"numpy", "torch", "transformers", "scipy"}
