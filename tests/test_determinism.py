"""Identical inputs give byte-identical outputs across runs, file orders and PYTHONHASHSEED.

Everything runs through the real console script in fresh processes, so hash randomisation,
directory listing order and import order really differ between runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import CORPUS, REPO

ABW = str(Path(sys.executable).with_name("abw"))
EXAMPLE = REPO / "examples" / "refund-policy"
GATE_ARGS = [
    "gate",
    "--baseline",
    "baseline",
    "--candidate",
    "candidate",
    "--spec",
    "behavior.yaml",
    "--report-dir",
    "out",
]
IMPORT_ARGS = [
    "import",
    "claude",
    "--input",
    "in",
    "--out",
    "out",
    "--exported-at",
    "2026-01-01T00:00:00Z",
    "-q",
]
REPORTS = ("gate-report.json", "report.html", "report.md", "report.sarif", "report.junit.xml")


def _copy_in_order(source: Path, target: Path, reverse: bool) -> None:
    """Copy a folder's files one by one in the given order (directory order follows creation)."""
    target.mkdir(parents=True)
    for path in sorted(source.iterdir(), reverse=reverse):
        shutil.copyfile(path, target / path.name)


def _workspace(root: Path, reverse: bool) -> Path:
    _copy_in_order(EXAMPLE / "traces" / "baseline", root / "baseline", reverse)
    _copy_in_order(EXAMPLE / "traces" / "regressed", root / "candidate", reverse)
    shutil.copyfile(EXAMPLE / "behavior.yaml", root / "behavior.yaml")
    return root


def _run(args: list[str], cwd: Path, seed: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONHASHSEED": seed, "ABW_NO_PROGRESS": "1"}
    return subprocess.run(
        [ABW, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def _gate(root: Path, seed: str) -> dict[str, bytes]:
    proc = _run(
        GATE_ARGS,
        root,
        seed,
    )
    assert proc.returncode == 1, proc.stderr  # the regressed candidate FAILs
    return {name: (root / "out" / name).read_bytes() for name in REPORTS}


def test_gate_reports_are_byte_identical(tmp_path):
    runs = [
        _gate(_workspace(tmp_path / "a", reverse=False), "0"),
        _gate(_workspace(tmp_path / "b", reverse=True), "1"),
        _gate(_workspace(tmp_path / "c", reverse=True), "random"),
    ]
    for name in REPORTS:
        assert runs[0][name] == runs[1][name] == runs[2][name], name
    assert b"generated_at" not in runs[0]["gate-report.json"] or (
        b'"generated_at": null' in runs[0]["gate-report.json"]
    )


def test_gate_report_does_not_depend_on_folder_location(tmp_path):
    first = _gate(_workspace(tmp_path / "x" / "deep", reverse=False), "3")
    second = _gate(_workspace(tmp_path / "y", reverse=True), "4")
    assert first["gate-report.json"] == second["gate-report.json"]


def test_import_is_byte_identical(tmp_path):
    sources = sorted((CORPUS / "claude-code").glob("*.jsonl"))[:6]
    outputs = []
    for index, (seed, reverse) in enumerate((("0", False), ("1", True), ("random", True))):
        root = tmp_path / f"r{index}"
        (root / "in").mkdir(parents=True)
        for path in sorted(sources, reverse=reverse):
            shutil.copyfile(path, root / "in" / path.name)
        proc = _run(
            IMPORT_ARGS,
            root,
            seed,
        )
        assert proc.returncode == 0, proc.stderr
        outputs.append({p.name: p.read_bytes() for p in sorted((root / "out").glob("*.json"))})
    assert outputs[0] and outputs[0] == outputs[1] == outputs[2]


def test_cli_library_and_mcp_write_the_same_report_for_a_dotted_spec_path(tmp_path, monkeypatch):
    """``--spec ./behavior.yaml`` is ``behavior.yaml`` to the CLI (a Path), but the library
    and the MCP server stored the string as given: their reports differed in ``spec_file``."""
    import asyncio

    from abw.gating import report_json, run_gate
    from abw.mcp_server import build_server

    root = _workspace(tmp_path / "w", reverse=False)
    monkeypatch.chdir(root)
    args = ["gate", "--baseline", "baseline", "--candidate", "candidate", "--spec"]
    proc = _run([*args, "./behavior.yaml", "--out", "cli.json", "-q"], root, "0")
    assert proc.returncode == 1, proc.stderr
    cli = (root / "cli.json").read_bytes()
    library = report_json(run_gate("./baseline/", "./candidate/", "./behavior.yaml"))
    assert library.encode() == cli
    server = build_server()
    result = asyncio.run(
        server.call_tool(
            "abw_render",
            {
                "format": "json",
                "baseline": "./baseline/",
                "candidate": "./candidate/",
                "spec": "./behavior.yaml",
            },
        )
    )
    if isinstance(result, tuple):  # (content, structured), as the SDK's versions return it
        result = result[0]
    text = result[0].text if isinstance(result, list) else result.content[0].text
    assert text.encode() == cli
