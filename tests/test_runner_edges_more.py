"""More edges of ``abw sample``, scale-out and the runners around the gate, each driven as a
user drives it, on real recordings from tests/corpus/."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from conftest import CORPUS, REPO

REFUND = REPO / "examples" / "refund-policy"
BASELINE, SPEC = REFUND / "traces" / "baseline", REFUND / "behavior.yaml"
CLAUDE_SUBAGENTS = CORPUS / "claude-code-live-more" / "shop"
SUBAGENT_SESSION = CLAUDE_SUBAGENTS / "a8f2e4fa-fd77-4c1d-a8af-88856bab32bd"
OPENHANDS_SDK = CORPUS / "python-agents-live" / "openhands-sdk-1.58.2__terminal-finish"


def _sample_one(run_cli, tmp_path: Path, run: str, transcript: str, importer: str) -> list[dict]:
    """One ``abw sample`` run of ``run`` (in ``tmp_path``); the recorded traces."""
    scenarios = tmp_path / "scenarios.yaml"
    body = f"    run: {json.dumps(run)}\n    transcript: {json.dumps(transcript)}\n"
    scenarios.write_text(
        f"scenarios:\n  - id: a\n{body}    importer: {importer}\n", encoding="utf-8"
    )
    out = tmp_path / "out"
    code, stdout, stderr = run_cli(
        "sample", "--scenarios", scenarios, "--baseline", BASELINE, "--spec", SPEC,
        "--out", out, "--max-runs", "1", "--quiet",
    )  # fmt: skip
    assert code in (0, 1, 3), stdout + stderr
    return [json.loads(p.read_text()) for p in sorted(out.rglob("*.json"))]


@pytest.mark.parametrize(
    ("copy", "transcript", "importer", "spans"),
    [
        # a Claude Code session that ran a subagent: **/*.jsonl also finds subagents/agent-*.jsonl
        (
            f"mkdir -p proj && cp -r {shlex.quote(str(SUBAGENT_SESSION))}* proj/",
            "proj/**/*.jsonl",
            "claude",
            5,
        ),
        # an OpenHands SDK conversation folder: base_state.json and events/event-*.json
        (
            f"mkdir -p convs && cp -r {shlex.quote(str(OPENHANDS_SDK))} convs/run$ABW_RUN",
            "convs/**/*.json",
            "openhands",
            11,
        ),
    ],
    ids=["claude-subagent", "openhands-conversation"],
)
def test_a_glob_that_finds_a_runs_side_files_records_the_one_run(
    tmp_path, run_cli, copy, transcript, importer, spans
):
    (trace,) = _sample_one(run_cli, tmp_path, copy, transcript, importer)
    assert trace["run"].get("execution_problem") is None
    assert trace["run"]["final_status"] == "success"
    assert len(trace["spans"]) == spans
