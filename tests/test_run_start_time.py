"""A run whose recording holds no span with a time still has a start: the session's first
timestamp. Without it one such run (a prompt a hook blocked) put its whole scenario in
trace-id order, and the anytime-valid statistics held for a single look only."""

from __future__ import annotations

import json
import shutil

from abw.gating.sequence import recording_order
from abw.traceio import load_traces
from tests.conftest import CORPUS
from tests.importkit import cli_import, cli_import_one

SHOP = CORPUS / "claude-code-live-more" / "shop"
BLOCKED = SHOP / "84ee75da-9e72-419c-b69f-84c038bd5787.jsonl"  # a prompt a hook blocked


def test_a_session_with_no_span_starts_at_its_first_record(run_cli, tmp_path):
    trace = cli_import_one(run_cli, "claude", BLOCKED, tmp_path / "run.json")
    assert trace["spans"] == []
    first = json.loads(BLOCKED.read_text().splitlines()[0])["timestamp"]
    assert trace["run"]["started_at"] == first.replace("Z", "000Z")


def test_runs_with_span_times_keep_the_earliest_span_as_their_start(run_cli, tmp_path):
    traces, _ = cli_import(run_cli, "claude", SHOP, tmp_path / "out")
    timed = [t for t in traces if any(s["started_at"] for s in t["spans"])]
    assert timed and all("started_at" not in t["run"] for t in timed)


def test_a_blocked_prompt_keeps_its_scenario_in_recording_order(run_cli, tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    for session in [*sorted(SHOP.glob("*.jsonl"))[:4], BLOCKED]:
        shutil.copy(session, folder)
    cli_import(run_cli, "claude", folder, tmp_path / "traces", "--scenario-id", "shop")
    _, order = recording_order(load_traces(tmp_path / "traces"))
    assert order == "recording"


def test_a_codex_turn_aborted_before_any_step_starts_at_its_first_record(run_cli, tmp_path):
    """Codex 0.47 writes nothing of a call whose turn was aborted while it ran: no span."""
    (rollout,) = (CORPUS / "codex-live-versions").glob("sleepy-0.47.0__rollout-*.jsonl")
    trace = cli_import_one(run_cli, "codex", rollout, tmp_path / "run.json")
    assert not [s for s in trace["spans"] if s["started_at"]]
    first = json.loads(rollout.read_text().splitlines()[0])["timestamp"]
    assert trace["run"]["started_at"][:23] == first[:23]


def test_a_gemini_session_cut_before_any_model_reply_starts_at_its_start_time(run_cli, tmp_path):
    """A real interactive session kept to its header, the prompt and the API error that ended
    it: no model call answered, no span; the session's ``startTime`` is the run's start."""
    source = CORPUS / "gemini-cli-live" / "session-2026-12-03T23-29-a727ed17.jsonl"
    lines = source.read_text().splitlines()
    kept = [lines[0]] + [
        line
        for line in lines[1:]
        if ('"type":"user"' in line[:200] and "functionResponse" not in line)
        or '"type":"error"' in line
    ]
    cut = tmp_path / "session-cut.jsonl"
    cut.write_text("\n".join(kept) + "\n")
    trace = cli_import_one(run_cli, "gemini", cut, tmp_path / "run.json")
    assert trace["spans"] == [] and trace["run"]["final_status"] == "error"
    start = json.loads(lines[0])["startTime"]
    assert trace["run"]["started_at"] == start.replace("Z", "000Z")
