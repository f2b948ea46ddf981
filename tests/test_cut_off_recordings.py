"""A recording cut off mid-write (the agent killed while it wrote a line, a disk full, a
session still being written) is never a run that ended well: its lost last line may have held
calls, or more. The partial line is skipped with a warning, as before; the run is ``unknown``
where it read ``success`` — the same in every importer of a file a run is recorded in alone
(docs/traces.md: "no result ever came (file cut off …) … never success")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CORPUS

from tests.importkit import cli_import

CLAUDE = next((CORPUS / "claude-code-live-versions" / "2.0.76").glob("b90494c6-*.jsonl"))
CODEX = next((CORPUS / "codex-live").glob("compact__rollout-*.jsonl"))
GEMINI = CORPUS / "gemini-cli-newest" / "gen__session-2026-08-06T10-00-7f3c2a10.jsonl"
OH_EVENTS = sorted((CORPUS / "openhands" / "v1-events").glob("event-*.json"))


def _cut(source: Path, folder: Path) -> Path:
    """``source`` with the first half of its last line written again after it, and no line
    break: the next record, cut off mid-write."""
    raw = source.read_bytes()
    last = raw.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    folder.mkdir()
    cut = folder / source.name
    cut.write_bytes(raw + last[: len(last) // 2])
    return cut


@pytest.mark.parametrize(
    ("importer", "source"),
    [("claude", CLAUDE), ("codex", CODEX), ("gemini", GEMINI)],
    ids=["claude", "codex", "gemini"],
)
def test_a_recording_cut_off_mid_write_never_ends_in_success(run_cli, tmp_path, importer, source):
    (whole,), _ = cli_import(run_cli, importer, source, tmp_path / "whole")
    assert whole["run"]["final_status"] == "success"
    cut = _cut(source, tmp_path / "cut")
    (trace,), err = cli_import(run_cli, importer, cut, tmp_path / "out")
    assert "skipped a cut-off last line" in err
    assert trace["run"]["final_status"] == "unknown"
    assert [s["name"] for s in trace["spans"]] == [s["name"] for s in whole["spans"]]


def test_openhands_headless_output_cut_off_mid_event_never_ends_in_success(run_cli, tmp_path):
    events = [json.loads(p.read_text()) for p in OH_EVENTS]
    printed = [json.dumps(e) for e in events if e["kind"] != "SystemPromptEvent"]
    whole = tmp_path / "whole.jsonl"
    whole.write_text("\n".join(printed) + "\n", encoding="utf-8")
    (done,), _ = cli_import(run_cli, "openhands", whole, tmp_path / "a")
    assert done["run"]["final_status"] == "success"
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(printed) + "\n" + printed[-1][:40], encoding="utf-8")
    (trace,), err = cli_import(run_cli, "openhands", cut, tmp_path / "b")
    assert "skipped a cut-off last line" in err and trace["run"]["final_status"] == "unknown"
