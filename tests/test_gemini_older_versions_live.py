"""Real recordings written by older Gemini CLI versions against a loopback fake Gemini API.

The corpus (tests/corpus/gemini-cli-live-versions/<version>/, PROVENANCE.md) holds the CLI's own
session files, byte for byte, named ``<scenario>__<the CLI's file name>``; generate/ holds the
fake server and the scripts that drove each version. The same scenario must read the same on
every version as on 0.61 (tests/corpus/gemini-cli-live/): tool names, outcomes, order, status.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from tests.importkit import cli_import, import_trace

LIVE = CORPUS / "gemini-cli-live-versions"
NEWEST = CORPUS / "gemini-cli-live"
VERSIONS = sorted(p.name for p in LIVE.iterdir() if p.name[0].isdigit())
#: 0.4.0 records no tool calls at all (its CLI never hands them to the recording).
WITH_CALLS = [version for version in VERSIONS if version != "0.4.0"]
#: Free text of the recordings (prompts, commands, outputs, paths) no trace may hold.
RAW = ("inventory", "pear", "wc -l", "sleep 30", "Count the lines", "/home/dev", "Shop")


def recording(version: str, scenario: str) -> Path:
    """The one recording of ``scenario`` written by ``version``."""
    (path,) = (LIVE / version).glob(f"{scenario}__session-*")
    return path


def steps(path: Path) -> list[tuple[str, str, str | None]]:
    """Each span's type, name and outcome, in order."""
    return [(s.type, s.name, s.outcome) for s in import_trace("gemini", path).spans]


@pytest.mark.parametrize("version", WITH_CALLS)
def test_turns_without_text_read_as_the_newest_reads_them(version):
    """Before 0.6x the CLI appends the calls of a model turn with no text and no thoughts to
    the model message before it: the three turns after the first parallel calls were one llm
    span holding five calls (4 model calls missing). Each is its own model call, as 0.61
    records them in messages of their own."""
    newest = steps(NEWEST / "session-2026-12-03T23-20-4cfdc499.jsonl")
    older = steps(recording(version, "02_parallel_fail_edit"))
    if version == "0.18.4":  # (its shell parser refused the test command: an error, no exit 3)
        assert older[2] == ("tool", "run_shell_command", "error")
    assert [s[:2] for s in older] == [s[:2] for s in newest]
    assert older == newest
    assert sum(s[0] == "llm" for s in older) == 5


def test_a_later_turn_is_a_model_call_parenting_its_calls():
    """The llm span of a later turn is placed before its first call, started when the CLI
    made that call (the time in its id), and is the parent of that turn's calls only."""
    trace = import_trace("gemini", recording("0.10.0", "02_parallel_fail_edit"))
    spans = trace.spans
    message_llm = spans[0]
    replace, bad_replace, write = (s for s in spans if s.name in {"replace", "write_file"})
    turns = [s for s in spans if s.type == "llm"][1:4]
    assert [replace.parent_span_id, bad_replace.parent_span_id, write.parent_span_id] == [
        t.span_id for t in turns
    ]
    assert all(t.span_id.startswith(message_llm.span_id + "#") for t in turns)
    assert turns[0].started_at == replace.started_at
    assert len({s.span_id for s in spans}) == len(spans)
    reads = [s for s in spans if s.name in {"read_file", "run_shell_command"}]
    assert {s.parent_span_id for s in reads} == {message_llm.span_id}


@pytest.mark.parametrize(
    ("name", "model_calls"),
    [
        ("codemie__session-2025-12-01T21-45-5b959dae.json", 11 + 2),
        ("codemie__session-2026-01-16T11-01-file-ops-37b7abef.json", 9 + 4),
    ],
)
def test_real_users_recordings_count_every_model_turn(name, model_calls):
    """Users' own recordings hold such messages (gemini messages + later turns): a read, then a
    write made after the read had finished, then another read, in one message (2025-12-01);
    three turns of write_todos and reads in one, and a read then a write twice (2026-01-16)."""
    trace = import_trace("gemini", CORPUS / "gemini-cli" / name)
    assert sum(s.type == "llm" for s in trace.spans) == model_calls


def test_a_subagent_that_finished_short_of_its_goal_is_a_failed_handoff():
    """0.1x-0.4x call a subagent by its own name and return ``Subagent '<name>' finished.
    Termination Reason: …`` with a text display (no progress object): it read as a plain
    tool that succeeded; 0.61 reads the same stop as a failed handoff."""
    (call,) = [
        s
        for s in import_trace("gemini", recording("0.18.4", "07_subagent_goal")).spans
        if s.name == "codebase_investigator"
    ]
    assert (call.type, call.outcome, call.attributes["tool"]) == (
        "handoff",
        "error",
        "codebase_investigator",
    )


@pytest.mark.parametrize("version", ["0.18.4", "0.26.0"])
def test_a_subagents_messages_in_the_sessions_file_are_no_steps(version):
    """Before 0.3x a subagent's chat recorded itself under the session's id, here into the
    session's own file: its task (a user message), its answers and the CLI's nudge, the
    session's call appended to its last answer. They read as the session's model calls (two
    llm spans, no model call for the session's turn); now the session's turn is one model
    call making the handoff, as 0.47 records it."""
    trace = import_trace("gemini", recording(version, "07_subagent_goal"))
    turn, handoff, _ = trace.spans
    assert [(s.type, s.outcome) for s in trace.spans] == [
        ("llm", "ok"),
        ("handoff", "error"),
        ("llm", "ok"),
    ]
    assert handoff.name == "codebase_investigator" and handoff.parent_span_id == turn.span_id
    newer = steps(recording("0.47.0", "07_subagent_goal"))
    assert [s[0] for s in newer] == [s.type for s in trace.spans]
    assert trace.run.final_status == "success"


def test_a_subagent_that_reached_its_goal_is_a_handoff():
    """0.35 calls the generalist by its own name; once it finished, its display is text (the
    progress object only while it runs): it read as a plain tool ``generalist``."""
    trace = import_trace("gemini", recording("0.35.3", "07_subagent_goal"))
    (call,) = [s for s in trace.spans if s.type != "llm"]
    assert (call.type, call.name, call.outcome) == ("handoff", "generalist", "ok")
    assert steps(NEWEST / "session-2026-12-03T23-22-d0eea6e8.jsonl") == steps(
        recording("0.35.3", "07_subagent_goal")
    )


@pytest.mark.parametrize("version", ["0.10.0", "0.18.4"])
def test_parallel_calls_stopped_by_esc_in_the_order_the_model_made_them(version):
    """Ids before 0.29 carry the time the CLI read each call: 0.18 listed the shell call
    cancelled by Esc after the later write; by that time the order is the model's, as on
    0.10 and 0.61. (0.26 made the shell and the write in one millisecond and listed the write
    first: nothing recorded tells their order, and they stay as recorded.)"""
    older = steps(recording(version, "11_interactive_parallel_esc"))
    assert [s[1] for s in older if s[0] != "llm"] == [
        "read_file",
        "run_shell_command",
        "write_file",
    ]


@pytest.mark.parametrize("version", VERSIONS)
def test_every_recording_imports_without_raw_text(version, run_cli, tmp_path):
    """The version's folder imports through the real CLI, a trace for each session, and no
    trace holds the prompts, commands, outputs or paths of the session."""
    traces, _ = cli_import(run_cli, "gemini", LIVE / version, tmp_path / "traces")
    sessions = {p.name.split("-")[-1] for p in (LIVE / version).glob("*__session-*")}
    assert len(traces) == len(sessions)
    for trace in traces:
        text = json.dumps(trace)
        assert not [raw for raw in RAW if raw in text], trace["run"]["trace_id"]


def test_a_subagents_own_file_beside_its_session_is_no_session(run_cli, tmp_path):
    """A subagent started a minute after its session wrote its chat (its task, its answers, the
    CLI's nudge) to a file of its own under the session's id, with no ``kind``: it was imported
    as a second run of the session (same trace id, two model calls, success). It is skipped,
    as a ``kind: subagent`` recording is; the session's file holds the call."""
    session, own = sorted((LIVE / "0.26.0").glob("13_subagent_late_minute__session-*"))
    code, _, err = run_cli("import", "gemini", "--input", own, "--out", tmp_path / "own.json")
    assert code != 0 and f"{own.name}: no trace to write: a subagent's own recording" in err
    trace = import_trace("gemini", session)
    assert [(s.type, s.name, s.outcome) for s in trace.spans][1] == (
        "handoff",
        "codebase_investigator",
        "error",
    )


def test_a_recording_without_tool_calls_holds_only_model_calls():
    """0.4.0 recorded the user's prompts and the model's texts only: the calls that ran (a
    read, a failing shell command, edits) are not in the file, and the trace cannot show them."""
    assert steps(recording("0.4.0", "02_parallel_fail_edit")) == [
        ("llm", "gemini-2.5-pro", "ok"),
        ("llm", "gemini-2.5-pro", "ok"),
    ]
