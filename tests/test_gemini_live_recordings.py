"""Real recordings written by Gemini CLI 0.61.0 against a loopback fake Gemini API.

The corpus (tests/corpus/gemini-cli-live/, PROVENANCE.md) holds the CLI's own session files,
byte for byte; generate/ holds the fake server and the scripts that drove the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from tests.importkit import cli_import, json_steps

LIVE = CORPUS / "gemini-cli-live"
SHELL = LIVE / "session-2026-12-03T23-20-9873db1d.jsonl"
PARALLEL = LIVE / "session-2026-12-03T23-20-4cfdc499.jsonl"
NO_YOLO = LIVE / "session-2026-12-03T23-20-d11c4ece.jsonl"
API_ERROR = LIVE / "session-2026-12-03T23-20-208fb9fa.jsonl"
SUBAGENT_FAILED_RESUMED = LIVE / "session-2026-12-03T23-21-e0deb04d.jsonl"
SUBAGENT_GOAL = LIVE / "session-2026-12-03T23-22-d0eea6e8.jsonl"
ESC = LIVE / "session-2026-12-03T23-22-771aed43.jsonl"
APPROVAL_CANCELLED = LIVE / "session-2026-12-03T23-25-4d4b7f34.jsonl"
INTERACTIVE_API_ERROR = LIVE / "session-2026-12-03T23-29-a727ed17.jsonl"
PARALLEL_ESC = LIVE / "session-2026-12-03T23-30-8c6b0781.jsonl"
COMPRESSED = LIVE / "session-2026-12-03T23-31-6c54279f.jsonl"
#: Free text of the recordings (prompts, commands, outputs, paths) no trace may hold.
RAW = ("inventory", "pear", "wc -l", "sleep 30", "Count the lines", "/home/dev", "untrusted")


@pytest.fixture
def imported(run_cli, tmp_path):
    """Import one recording with the real CLI; its trace as JSON, and the CLI's stderr."""

    def run(path: Path) -> tuple[dict, str]:
        (trace,), err = cli_import(run_cli, "gemini", path, tmp_path / f"{path.stem}.json")
        return trace, err

    return run


def _raw_calls(path: Path) -> dict[str, dict]:
    """The last-written copy of every tool call in the recording, by id."""
    calls: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        for call in json.loads(line).get("toolCalls") or []:
            calls[call["id"]] = call
    return calls


def test_every_recording_imports_field_by_field_and_leaks_nothing(imported):
    """Every tool call that ran is a step, in order, with its outcome: a command exiting 3 and a
    missing file are errors, a failed edit too; the shell the headless CLI left out is one."""
    llm = ("llm", "gemini-2.5-pro", "ok")
    expected = {
        SHELL: ([llm, ("tool", "run_shell_command", "ok"), llm], "success"),
        PARALLEL: (
            [
                llm,
                ("retriever", "read_file", "ok"),
                ("tool", "run_shell_command", "error"),
                ("retriever", "read_file", "error"),
                llm,
                ("tool", "replace", "ok"),
                llm,
                ("tool", "replace", "error"),
                llm,
                ("tool", "write_file", "ok"),
                llm,
            ],
            "success",
        ),
        NO_YOLO: ([llm, ("tool", "run_shell_command", "error"), llm], "success"),
        API_ERROR: ([llm, ("retriever", "glob", "ok")], "unknown"),
    }
    for path, (steps, final) in expected.items():
        trace, _ = imported(path)
        assert json_steps(trace) == steps, path.name
        assert trace["run"]["final_status"] == final, path.name
        text = json.dumps(trace)
        assert not [s for s in RAW if s in text], path.name
    trace, _ = imported(PARALLEL)
    assert trace["spans"][2]["attributes"]["exit_code"] == 3
    for path in sorted(LIVE.glob("session-*.jsonl")):
        text = json.dumps(imported(path)[0])
        assert not [s for s in RAW if s in text], path.name


def test_invoke_agent_is_a_handoff_named_by_the_agent_it_calls(imported):
    """0.61 calls every subagent through ``invoke_agent`` (``args.agent_name``), as
    ``delegate_to_agent`` did: the handoff read ``invoke_agent`` whatever agent it called, so a
    spec's ``generalist`` and a 0.5x baseline's ``generalist`` call no longer matched."""
    (call,) = _raw_calls(SUBAGENT_GOAL).values()
    assert call["name"] == "invoke_agent" and call["args"]["agent_name"] == "generalist"
    assert call["resultDisplay"]["terminateReason"] == "GOAL"
    trace, _ = imported(SUBAGENT_GOAL)
    handoff = trace["spans"][1]
    assert (handoff["type"], handoff["name"], handoff["outcome"]) == ("handoff", "generalist", "ok")
    assert handoff["attributes"]["tool"] == "invoke_agent"


def test_a_subagent_that_stopped_short_of_its_goal_is_an_error_and_the_resume_is_one_run(
    imported,
):
    """A subagent that never called ``complete_task`` ends ``state: completed`` with
    ``terminateReason: ERROR_NO_COMPLETE_TASK_CALL`` and its call is recorded ``success``: it
    read ok. The same file was then resumed (``--resume latest``): one run, no step twice."""
    (call,) = (
        c for c in _raw_calls(SUBAGENT_FAILED_RESUMED).values() if c["name"] == "invoke_agent"
    )
    assert call["status"] == "success"
    assert call["resultDisplay"]["state"] == "completed"
    assert call["resultDisplay"]["terminateReason"] == "ERROR_NO_COMPLETE_TASK_CALL"
    trace, err = imported(SUBAGENT_FAILED_RESUMED)
    llm = ("llm", "gemini-2.5-pro", "ok")
    assert json_steps(trace) == [
        llm,
        ("handoff", "generalist", "error"),
        llm,
        llm,
        ("tool", "run_shell_command", "ok"),
        llm,
    ]
    assert trace["run"]["final_status"] == "success"
    assert "warning" not in err


def test_calls_cancelled_by_esc_are_the_turns_and_the_run_ends_cancelled(imported):
    """Esc while a command ran: 0.61 records ``Request cancelled.`` first, then the cancelled
    call in a ``gemini`` message of its own (no text, no tokens: ``recordToolCalls`` makes one
    when the last message is not the model's), then the call's result. That holder read as a
    second model call, the call hung under it, and the run ended ``unknown``."""
    kinds = [json.loads(line).get("type") for line in ESC.read_text().splitlines()]
    assert [k for k in kinds if k] == ["user", "gemini", "info", "gemini", "user"]
    trace, _ = imported(ESC)
    assert json_steps(trace) == [
        ("llm", "gemini-2.5-pro", "ok"),
        ("tool", "run_shell_command", "rejected"),
    ]
    assert trace["spans"][1]["parent_span_id"] == trace["spans"][0]["span_id"]
    assert trace["run"]["final_status"] == "cancelled"


def test_parallel_calls_cut_by_esc_keep_the_order_the_model_made_them(imported):
    """Esc during the second of three parallel calls: Gemini CLI lists the two cancelled calls
    first and the read that had already run last. The trace showed the write before the read;
    the ids' ``_<ms>_<n>`` give the model's order."""
    raw = [c["name"] for c in _raw_calls(PARALLEL_ESC).values()]
    assert raw == ["run_shell_command", "write_file", "read_file"]
    trace, _ = imported(PARALLEL_ESC)
    assert json_steps(trace)[1:] == [
        ("retriever", "read_file", "ok"),
        ("tool", "run_shell_command", "rejected"),
        ("tool", "write_file", "rejected"),
    ]
    assert [s["source_ref"]["line"] for s in trace["spans"]] == [7, 7, 7, 7]


def test_a_call_cancelled_at_the_approval_prompt_and_an_api_error_at_the_end(imported):
    """A call the user cancelled while asked to approve it: rejected, the run cancelled. An API
    error after a tool result: Gemini CLI nudges the model twice, then the run ends in error."""
    trace, _ = imported(APPROVAL_CANCELLED)
    assert json_steps(trace) == [
        ("llm", "gemini-2.5-pro", "ok"),
        ("tool", "run_shell_command", "rejected"),
    ]
    assert trace["run"]["final_status"] == "cancelled"
    trace, _ = imported(INTERACTIVE_API_ERROR)
    assert json_steps(trace) == [("llm", "gemini-2.5-pro", "ok"), ("retriever", "read_file", "ok")]
    assert trace["run"]["final_status"] == "error"


def test_a_compression_adds_no_model_call_and_keeps_the_answer(imported, tmp_path):
    """``/compress`` writes a checkpoint holding only the summary and Gemini CLI's own
    ``Got it. Thanks for the additional context!`` reply, under new ids: that reply read as a
    model call (an llm span named ``gemini``), and the run's answer was lost (the conversation
    left ends on it). The trace is that of the session before the compression."""
    lines = COMPRESSED.read_text().splitlines(keepends=True)
    checkpoint = json.loads(lines[12])["$set"]["messages"]
    assert [m["type"] for m in checkpoint] == ["user", "user", "gemini"]
    assert checkpoint[2]["content"] == [{"text": "Got it. Thanks for the additional context!"}]
    before = tmp_path / "before" / COMPRESSED.name
    before.parent.mkdir()
    before.write_text("".join(lines[:12]))
    trace, err = imported(COMPRESSED)
    expected, _ = imported(before)
    assert [(s["type"], s["name"]) for s in trace["spans"]] == [
        ("llm", "gemini-2.5-pro"),
        ("retriever", "read_file"),
        ("llm", "gemini-2.5-pro"),
    ]
    assert trace["spans"] == expected["spans"]
    assert trace["run"] == {**expected["run"], "final_status": "success"}
    assert "3 steps a later checkpoint left out" in err


def test_a_session_opened_and_left_is_no_run(run_cli, tmp_path):
    """Gemini CLI records a session opened and left before any prompt as its header (0.39 on:
    the first line; its context message, which the CLI made, may follow; earlier: ``messages``
    empty). Each was a run with no span and ``final_status`` unknown, an incomplete run in
    every gate over the folder; in a folder each is skipped with a warning, alone it is refused
    in one line, and a session with a prompt stays a run."""
    lines = API_ERROR.read_text().splitlines(keepends=True)
    assert json.loads(lines[0]).get("messages") is None and "$set" in json.loads(lines[1])
    chats = tmp_path / "chats"
    chats.mkdir()
    (chats / "session-header.jsonl").write_text(lines[0])
    (chats / "session-context.jsonl").write_text("".join(lines[:2]))
    whole = json.loads(
        (
            CORPUS / "gemini-cli" / "codemie__session-2026-01-16T11-01-file-ops-37b7abef.json"
        ).read_text()
    )
    (chats / "session-empty.json").write_text(json.dumps({**whole, "messages": []}))
    (chats / API_ERROR.name).write_bytes(API_ERROR.read_bytes())
    traces, err = cli_import(run_cli, "gemini", chats, tmp_path / "out")
    assert [t["run"]["trace_id"] for t in traces] == [json.loads(lines[0])["sessionId"]]
    for name in ("session-header.jsonl", "session-context.jsonl", "session-empty.json"):
        assert f"{name}: no conversation" in err
    out = tmp_path / "one.json"
    code, _, err = run_cli(
        "import", "gemini", "--input", chats / "session-empty.json", "--out", out
    )
    assert code == 2 and not out.exists()
    assert len(err.strip().splitlines()) == 1 and err.count("session-empty.json") == 1, err


def _pretty(value: object) -> str:
    """JSON as Gemini CLI writes its files (``JSON.stringify(value, null, 2)``)."""
    return json.dumps(value, indent=2)


def test_the_project_temp_folder_imports_its_sessions_only(run_cli, tmp_path):
    """``~/.gemini/tmp/<project>/`` holds, beside ``chats/``, Gemini CLI's own files:
    ``logs.json`` (written ``[]`` when the CLI first starts there), ``checkpoint-<tag>.json``
    saved chats (``/chat save``: the model history, ``{history, authType}`` since, a bare list
    before) and ``checkpoints/`` files (``{history, clientHistory, toolCall, commitHash,
    messageId}``, kept for ``/restore``), laid out as packages/core/src/core/logger.ts and
    utils/checkpointUtils.ts write them. Each failed the whole folder (exit 2); the folder now
    imports its sessions, and each file given alone is refused saying what it is."""
    project = tmp_path / "project"
    (project / "chats").mkdir(parents=True)
    (project / "chats" / API_ERROR.name).write_bytes(API_ERROR.read_bytes())
    history = [{"role": "user", "parts": [{"text": "CANARY-SAVED"}]}]
    (project / "logs.json").write_text("[]")
    (project / "checkpoint-mine.json").write_text(_pretty({"history": history}))
    (project / "checkpoint-old.json").write_text(_pretty(history))
    (project / "checkpoints").mkdir()
    restore = project / "checkpoints" / "2026-12-03T23-20-54_337Z-cart.py-replace.json"
    call = {"name": "replace", "args": {"file_path": "cart.py"}}
    restore.write_text(
        _pretty({"history": [], "clientHistory": history, "toolCall": call, "commitHash": "a1"})
    )
    traces, err = cli_import(run_cli, "gemini", project, tmp_path / "out")
    assert [t["run"]["trace_id"] for t in traces] == [
        json.loads(API_ERROR.read_text().splitlines()[0])["sessionId"]
    ]
    for own, kind in [
        (project / "checkpoint-mine.json", "saved chat"),
        (project / "checkpoint-old.json", "saved chat"),
        (restore, "tool checkpoint"),
        (project / "logs.json", "logs.json"),
    ]:
        out = tmp_path / "one.json"
        code, _, err = run_cli("import", "gemini", "--input", own, "--out", out)
        assert code == 2 and not out.exists() and f"Gemini CLI {kind}" in err, err
        assert len(err.strip().splitlines()) == 1 and "CANARY" not in err


def test_gemini_clis_own_folder_imports_the_sessions_under_tmp(run_cli, tmp_path):
    """``abw import gemini --input ~/.gemini``: beside ``tmp/`` Gemini CLI keeps its settings,
    credentials and ids, ``extensions/``, ``commands/`` and ``history/<project hash>/``, the
    shadow git repository of its checkpoints — a copy of the project's own files, any JSON
    among them (storage.ts, gitService.ts). The first of those files failed the whole import
    (exit 2: "not a Gemini CLI chat recording"); only ``tmp/`` is read now."""
    home = tmp_path / ".gemini"
    chats = home / "tmp" / "9f86d081884c7d65" / "chats"
    chats.mkdir(parents=True)
    (chats / API_ERROR.name).write_bytes(API_ERROR.read_bytes())
    (chats.parent / "logs.json").write_text("[]")
    (home / "tmp" / "bin").mkdir()
    (home / "settings.json").write_text(_pretty({"security": {"auth": {"selectedType": "x"}}}))
    (home / "oauth_creds.json").write_text(_pretty({"access_token": "CANARY-TOKEN"}))
    (home / "google_accounts.json").write_text(_pretty({"active": "a@example.com", "old": []}))
    (home / "installation_id").write_text("6a1d0c6e-0000-4000-8000-000000000000")
    (home / "extensions" / "tools").mkdir(parents=True)
    (home / "extensions" / "tools" / "gemini-extension.json").write_text(_pretty({"name": "t"}))
    (home / "commands").mkdir()
    (home / "commands" / "review.toml").write_text('prompt = "review"\n')
    shadow = home / "history" / "9f86d081884c7d65"
    shadow.mkdir(parents=True)
    (shadow / "package.json").write_text(_pretty({"name": "the-project", "version": "1.0.0"}))
    traces, err = cli_import(run_cli, "gemini", home, tmp_path / "out")
    assert [t["run"]["trace_id"] for t in traces] == [
        json.loads(API_ERROR.read_text().splitlines()[0])["sessionId"]
    ]
    assert "CANARY" not in err and "package.json" not in err

    # A folder that merely has a tmp/ is no Gemini folder: every session file counts.
    plain = tmp_path / "exports"
    (plain / "tmp").mkdir(parents=True)
    (plain / API_ERROR.name).write_bytes(API_ERROR.read_bytes())
    traces, _ = cli_import(run_cli, "gemini", plain, tmp_path / "plain-out")
    assert len(traces) == 1
