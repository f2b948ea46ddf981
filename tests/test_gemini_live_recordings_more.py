"""More real recordings written by Gemini CLI 0.61.0 against a loopback fake Gemini API.

tests/corpus/gemini-cli-live-more/ holds the CLI's own session files, byte for byte (MCP tools,
a max-session-turns stop, a quota error after retries, a loop-detection stop, interactive
sessions); generate/ holds the fake server, the MCP server and the scripts that drove the CLI.
A recording of the first round (tests/corpus/gemini-cli-live/) is read where it shows a case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from tests.importkit import cli_import, json_steps

MORE = CORPUS / "gemini-cli-live-more"
#: First round: Esc while a read had finished, a shell ran and an edit waited (no notice).
PARALLEL_ESC = CORPUS / "gemini-cli-live" / "session-2026-12-03T23-30-8c6b0781.jsonl"


@pytest.fixture
def imported(run_cli, tmp_path):
    """Import one recording with the real CLI; its trace as JSON, and the CLI's stderr."""

    def run(path: Path) -> tuple[dict, str]:
        (trace,), err = cli_import(run_cli, "gemini", path, tmp_path / f"{path.stem}.json")
        return trace, err

    return run


def test_a_turn_stopped_by_esc_after_one_of_its_calls_finished_is_cancelled(imported):
    """Esc while a parallel read had finished: 0.61 records no ``Request cancelled.`` (only when
    no call of the turn finished), only the cancelled calls, and returns nothing to the model.
    The user stopped the run: cancelled, not unknown (a file cut off mid-turn)."""
    trace, _ = imported(PARALLEL_ESC)
    assert [step[2] for step in json_steps(trace)] == ["ok", "ok", "rejected", "rejected"]
    assert trace["run"]["final_status"] == "cancelled"


CHAT_RESUMED = MORE / "session-2026-12-04T00-07-b0fc1784.jsonl"
#: The lines of CHAT_RESUMED up to the checkpoint ``/chat resume snap`` wrote (its copies
#: recorded on lines 23-29), and up to the first answer (line 10).
RESUMED_LINES, FIRST_ANSWER_LINES = 31, 10


def test_chat_resume_copies_no_model_call_and_its_copied_answer_ends_the_run(imported, tmp_path):
    """``/chat resume snap`` writes the saved turns into the recording again under new ids
    (``gemini`` messages with Part lists, no model, ``tokens`` null): no llm step, whose
    name was ``gemini``; a session that ends right there ends on the saved answer."""
    trace, err = imported(CHAT_RESUMED)
    llm = ("llm", "gemini-2.5-pro", "ok")
    assert json_steps(trace) == [
        llm,
        ("retriever", "read_file", "ok"),
        llm,
        llm,
        ("tool", "run_shell_command", "ok"),
        llm,
        llm,
    ]
    assert [s["source_ref"]["line"] for s in trace["spans"]] == [7, 7, 10, 18, 18, 21, 34]
    assert "6 steps a later checkpoint left out" in err
    assert trace["run"]["final_status"] == "success"
    lines = CHAT_RESUMED.read_text().splitlines(keepends=True)
    ended, first = tmp_path / "resumed.jsonl", tmp_path / "first.jsonl"
    ended.write_text("".join(lines[:RESUMED_LINES]))
    first.write_text("".join(lines[:FIRST_ANSWER_LINES]))
    resumed, _ = imported(ended)
    answered, _ = imported(first)
    assert len(resumed["spans"]) == 6
    assert resumed["run"]["final_status"] == answered["run"]["final_status"] == "success"
    assert resumed["run"]["final_output_hash"] == answered["run"]["final_output_hash"]


MCP = MORE / "session-2026-12-04T00-01-dd2f62c3.jsonl"
MCP_UNTRUSTED = MORE / "session-2026-12-04T00-01-ee713fd9.jsonl"
MAX_TURNS = MORE / "session-2026-12-04T00-01-a7c4e426.jsonl"
LOOP = MORE / "session-2026-12-04T00-03-7cb482d8.jsonl"
QUOTA = MORE / "session-2026-12-04T00-04-88f54d03.jsonl"
CRASH_RESUMED = MORE / "session-2026-12-04T00-11-544e4ffd.jsonl"
SHELLS_ESC = MORE / "session-2026-12-04T00-11-71b7a58b.jsonl"
SUBAGENT = MORE / "session-2026-12-04T00-12-90f9c5ed.jsonl"
#: Free text of the recordings (prompts, arguments, outputs, paths) no trace may hold.
RAW = ("pear", "plum", "no such item", "Connection closed", "/home/dev", "README", "sleep 2")


def test_every_recording_imports_and_leaks_nothing(imported):
    """Each recording imports; no prompt, argument, output or path reaches its trace."""
    for path in sorted(MORE.glob("session-*.jsonl")):
        trace, _ = imported(path)
        text = json.dumps(trace)
        assert [raw for raw in RAW if raw in text] == [], path.name


def test_mcp_tools_read_by_their_recorded_names_and_outcomes(imported):
    """A trusted stdio MCP server: ``mcp_<server>_<tool>`` as recorded; an ``isError`` result,
    the call that crashed the server and a call after it are errors. An untrusted server's
    tool is not registered in headless mode without --yolo: the model's call is an error."""
    trace, _ = imported(MCP)
    llm = ("llm", "gemini-2.5-pro", "ok")
    assert json_steps(trace) == [
        llm,
        ("tool", "mcp_shopdb_lookup", "ok"),
        llm,
        ("tool", "mcp_shopdb_fail", "error"),
        llm,
        ("tool", "mcp_shopdb_crash", "error"),
        llm,
        ("tool", "mcp_shopdb_lookup", "error"),
        llm,
    ]
    assert trace["run"]["final_status"] == "success"
    trace, _ = imported(MCP_UNTRUSTED)
    assert json_steps(trace)[1] == ("tool", "mcp_shopdb_lookup", "error")


def test_running_parallel_shells_stopped_by_esc_end_the_run_cancelled(imported):
    """Esc while two shells ran and a read had finished: the CLI records both shells
    ``cancelled`` (``Reason: Operation cancelled by user``, as for a queued call: rejected) and
    no notice; the run is cancelled."""
    trace, _ = imported(SHELLS_ESC)
    assert json_steps(trace)[1:] == [
        ("tool", "run_shell_command", "rejected"),
        ("tool", "run_shell_command", "rejected"),
        ("retriever", "read_file", "ok"),
    ]
    assert trace["run"]["final_status"] == "cancelled"


def test_stops_the_recording_does_not_show_leave_the_run_unknown(imported):
    """A max-session-turns stop, a quota error after the CLI's retries (headless: it exits 1)
    and a loop-detection stop write nothing of the stop into the recording: it ends on the
    last call's result, as a crash would, and the run is unknown (never success)."""
    for path, calls in ((MAX_TURNS, 2), (QUOTA, 1), (LOOP, 4)):
        trace, _ = imported(path)
        assert len(trace["spans"]) == 2 * calls, path.name
        assert trace["run"]["final_status"] == "unknown", path.name


def test_a_session_resumed_after_a_crash_mid_tool_and_the_subagent_recording(
    imported, run_cli, tmp_path
):
    """kill -9 while a shell ran, then ``--resume latest``: the running call was never recorded
    (no step), the resumed turn answers. A subagent's own recording beside its session is
    skipped with a warning in a folder import; the session holds the handoff."""
    trace, _ = imported(CRASH_RESUMED)
    assert json_steps(trace) == [("llm", "gemini-2.5-pro", "ok")] * 2
    assert trace["run"]["final_status"] == "success"
    folder = tmp_path / "chats"
    folder.mkdir()
    (folder / SUBAGENT.name).write_bytes(SUBAGENT.read_bytes())
    sub = MORE / "90f9c5ed-b0b9-4b53-bb1a-c6c9ef552f94"
    (folder / sub.name).mkdir()
    for path in sub.iterdir():
        (folder / sub.name / path.name).write_bytes(path.read_bytes())
    code, _, err = run_cli("import", "gemini", "--input", folder, "--out", tmp_path / "out")
    assert code == 0, err
    assert "a subagent's own recording (kind: subagent), not a session: skipped" in err
    traces = [json.loads(p.read_text()) for p in (tmp_path / "out").glob("*.json")]
    assert [json_steps(t)[1] for t in traces] == [("handoff", "generalist", "ok")]


RESTORED = MORE / "session-2026-12-04T00-13-97e9e32c.jsonl"


def test_restore_copies_no_model_call_and_its_rerun_edit_is_a_step(imported):
    """Checkpointing on, an approved edit, then ``/restore <checkpoint>``: the CLI writes the
    restored history again (its model turn a copy: no llm step) and re-runs the edit (a new
    call, ``replace-<ms>-<hex>``, recorded after its notice). The restored conversation ends
    on that call with no answer: unknown, and the answer before the restore is not its."""
    trace, err = imported(RESTORED)
    llm = ("llm", "gemini-2.5-pro", "ok")
    assert json_steps(trace) == [llm, ("tool", "replace", "ok"), llm, ("tool", "replace", "ok")]
    assert [s["source_ref"]["line"] for s in trace["spans"]] == [7, 7, 10, 19]
    assert "3 steps a later checkpoint left out" in err
    assert trace["run"]["final_status"] == "unknown"
    assert trace["run"].get("final_output_hash") is None


INTERACTIVE_MAX_TURNS = MORE / "session-2026-12-04T00-14-98816415.jsonl"


def test_an_interactive_max_session_turns_stop_is_an_error(imported):
    """``model.maxSessionTurns`` 2, interactive: the CLI stops the third turn and records its
    notice (``The session has reached the maximum number of turns: 2. …``, once per prompt
    after it): the run ended at the CLI's limit, an error (as a Claude Code --max-turns stop)."""
    trace, _ = imported(INTERACTIVE_MAX_TURNS)
    assert [s["outcome"] for s in trace["spans"]] == ["ok"] * 4
    assert trace["run"]["final_status"] == "error"


SUBAGENT_ESC = MORE / "session-2026-12-04T00-17-46f4bb5e.jsonl"


def test_a_running_subagent_stopped_by_esc_is_interrupted(imported):
    """Esc while the generalist subagent ran a shell: ``invoke_agent`` is recorded ``cancelled``
    with ``Reason: Operation cancelled by user`` (what a declined call says too) but holds the
    subagent's progress (``state: running``, its cancelled shell): it ran, so interrupted, not
    a call the user declined; the run is cancelled."""
    trace, _ = imported(SUBAGENT_ESC)
    assert json_steps(trace) == [
        ("llm", "gemini-2.5-pro", "ok"),
        ("handoff", "generalist", "interrupted"),
    ]
    assert trace["run"]["final_status"] == "cancelled"


def test_importing_only_a_subagents_recording_into_a_file_says_why_nothing_is_written(
    run_cli, tmp_path
):
    """`--out x.json` with an input the importer skips said '0 traces to write: --out must be a
    folder', losing the importer's reason; now the one line gives it."""
    from tests.conftest import one_line

    (recording,) = (MORE / "90f9c5ed-b0b9-4b53-bb1a-c6c9ef552f94").glob("*.jsonl")
    code, _, err = run_cli("import", "gemini", "--input", recording, "--out", tmp_path / "x.json")
    assert code == 2
    assert "no trace to write" in one_line(err) and "subagent's own recording" in err
    assert "--out must be a folder" not in err
    assert not (tmp_path / "x.json").exists()
