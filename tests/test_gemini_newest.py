"""Gemini CLI recordings of the newest versions (0.5x): subagents called by their own name.

The corpus file is GENERATED from the exact types of google-gemini/gemini-cli's source
(``chatRecordingTypes.ts``, ``agents/local-invocation.ts``; tests/corpus/PROVENANCE.md, section
gemini-cli-newest): no real recording of this shape was found in a public repository."""

from __future__ import annotations

import json
from pathlib import Path

from abw.models.trace import Trace
from tests.conftest import CORPUS
from tests.importkit import import_trace

NEWEST = CORPUS / "gemini-cli-newest" / "gen__session-2026-08-06T10-00-7f3c2a10.jsonl"


def _import(path: Path) -> Trace:
    return import_trace("gemini", path)


def _calls(path: Path) -> dict[str, dict]:
    """The last-written copy of every tool call in the raw recording, by id."""
    calls: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        for call in record.get("toolCalls") or []:
            calls[call["id"]] = call
    return calls


def test_a_subagent_called_by_its_name_is_a_handoff_and_its_failure_an_error():
    """From 0.3x a subagent is a tool of its own name (``generalist``, ``cli_help``), no longer
    ``delegate_to_agent``. A failed subagent's call is recorded ``success`` (local-invocation.ts
    returns the failure as the call's output, ``Subagent 'generalist' failed. Error: …``): only
    ``resultDisplay.state: error`` says so. It read as an ok plain tool call."""
    raw = _calls(NEWEST)
    generalist = raw["generalist__1786010405000_0"]
    assert generalist["status"] == "success"
    assert generalist["resultDisplay"]["isSubagentProgress"] is True
    assert generalist["resultDisplay"]["state"] == "error"
    assert raw["cli_help__1786010410000_0"]["resultDisplay"]["state"] == "completed"
    trace = _import(NEWEST)
    steps = [(s.type, s.name, s.status, s.outcome) for s in trace.path() if s.type != "llm"]
    assert steps == [
        ("handoff", "generalist", "error", "error"),
        ("handoff", "cli_help", "success", "ok"),
        ("tool", "write_file", "cancelled", "rejected"),
    ]
    handoffs = [s for s in trace.path() if s.type == "handoff"]
    assert [s.attributes["tool"] for s in handoffs] == ["generalist", "cli_help"]
    assert trace.run.final_status == "success"


def test_an_agent_id_alone_marks_a_subagent_call(tmp_path):
    """``agentId`` (the run the subagent call started) marks it even without its progress."""
    lines = NEWEST.read_text().splitlines()
    out = []
    for line in lines:
        record = json.loads(line)
        for call in record.get("toolCalls") or []:
            if call["name"] == "cli_help":
                call["resultDisplay"] = "done"
        out.append(json.dumps(record))
    path = tmp_path / "session-2026-08-06T10-00-7f3c2a10.jsonl"
    path.write_text("\n".join(out) + "\n")
    (cli_help,) = [s for s in _import(path).path() if s.name == "cli_help"]
    assert (cli_help.type, cli_help.outcome) == ("handoff", "ok")


def test_newest_recording_leaks_no_text_and_is_deterministic(tmp_path):
    """Every free text of the file (prompt, thoughts, args, results, resultDisplay's activity and
    description) carries LEAKCHECK; none reaches the trace, and two imports are byte-identical."""
    assert NEWEST.read_text().count("LEAKCHECK") > 10
    first = _import(NEWEST).model_dump_json()
    assert "LEAKCHECK" not in first
    assert first == _import(NEWEST).model_dump_json()


def test_a_json_session_resumed_into_jsonl_is_one_run(run_cli, tmp_path):
    """Gemini CLI 0.39 on resumes a ``.json`` session into ``<name>.jsonl`` (its metadata and
    every message copied, then the new turn) and leaves the ``.json`` where it was: a folder
    import reads the run once, from the ``.jsonl``; the ``.json`` alone imports with a warning."""
    source = CORPUS / "gemini-cli" / "codemie__session-2026-01-16T11-01-file-ops-37b7abef.json"
    session = json.loads(source.read_text())
    chats = tmp_path / "chats"
    chats.mkdir()
    old = chats / "session-2026-01-16T11-01-37b7abef.json"
    old.write_bytes(source.read_bytes())
    head = {k: session[k] for k in ("sessionId", "projectHash", "startTime", "lastUpdated")}
    added = [
        {"id": "u-2", "timestamp": "2026-01-17T10:00:00.000Z", "type": "user",
         "content": [{"text": "one more thing"}]},
        {"id": "g-2", "timestamp": "2026-01-17T10:00:05.000Z", "type": "gemini",
         "content": "Done.", "model": "gemini-2.5-pro"},
    ]  # fmt: skip
    records = [head, *session["messages"], *added]
    new = chats / (old.name + "l")
    new.write_text("".join(json.dumps(r) + "\n" for r in records))

    code, _, err = run_cli("import", "gemini", "--input", chats, "--out", tmp_path / "out")
    assert code == 0, err
    (written,) = (tmp_path / "out").iterdir()
    trace = Trace.model_validate_json(written.read_bytes())
    assert trace.run.final_status == "success"
    assert trace.source.export_format == "gemini-chat-jsonl"
    assert len(trace.spans) == len(_import(old).spans) + 1  # the new turn's model call

    code, _, err = run_cli("import", "gemini", "--input", old, "--out", tmp_path / "old.json")
    assert code == 0
    assert f"resumed this session into {new.name}" in err


def test_removed_fields_name_the_session_metadata_held(tmp_path):
    """Gemini CLI's ``$set`` records hold the workspace's folders (absolute paths), a
    model-written ``summary`` and the ``memoryScratchpad`` (touched paths, a workflow summary),
    and a message may hold ``displayContent``: content the trace leaves out, so
    ``redaction.removed_fields`` names it (it did not)."""
    source = CORPUS / "gemini-cli-newest" / "gen__session-2026-08-06T10-00-7f3c2a10.jsonl"
    lines = source.read_text().splitlines()
    user = json.loads(lines[1])
    user["displayContent"] = [{"text": "create hello files"}]
    scratch = {"touchedPaths": ["/home/alice/p/a.py"], "workflowSummary": "edited a.py"}
    added = [
        {"$set": {"directories": ["/home/alice/p"]}},
        {"$set": {"summary": "Fix the login bug"}},
        {"$set": {"memoryScratchpad": scratch}},
    ]
    records = [lines[0], json.dumps(user), *lines[2:], *(json.dumps(r) for r in added)]
    path = tmp_path / source.name.removeprefix("gen__")
    path.write_text("\n".join(records) + "\n")
    removed = set(_import(path).redaction.removed_fields)
    assert {"directories", "summary", "memoryScratchpad", "messages.displayContent"} <= removed
    assert not {"directories", "summary", "memoryScratchpad"} & set(
        _import(source).redaction.removed_fields
    )


VERSIONS = CORPUS / "gemini-cli-live-versions"
SHELL_SESSION = VERSIONS / "0.47.0" / "01_shell__session-2026-12-04T03-57-51c03f4f.jsonl"
KILLED = CORPUS / "gemini-cli-live-more" / "session-2026-12-04T00-11-544e4ffd.jsonl"


def _written(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_recording_cut_off_mid_write_never_reads_success(tmp_path):
    """Cut off inside the line that rewrites the model message with its calls (a kill, a full
    disk): the line is skipped with a warning, and what is left ended on a model message, so
    the run read ``success`` with its shell call lost."""
    lines = SHELL_SESSION.read_text().split("\n")
    cut = _written(
        tmp_path, SHELL_SESSION.name.split("__")[1], "\n".join(lines[:6]) + "\n" + lines[6][:300]
    )
    assert _import(cut).run.final_status == "unknown"
    assert _import(SHELL_SESSION).run.final_status == "success"


def test_a_session_killed_while_its_calls_ran_never_reads_success(tmp_path):
    """Gemini CLI records a model turn that only calls tools with no text, and its calls once
    they complete: killed while they ran, the recording ends on a model message with no text,
    no thoughts and no calls, which read as a finished answer (``success``)."""
    lines = KILLED.read_text().splitlines()[:6]
    turn = json.loads(lines[4])
    assert turn["type"] == "gemini" and not turn.get("toolCalls") and not turn.get("thoughts")
    turn["content"] = ""
    lines[4] = json.dumps(turn)
    path = _written(tmp_path, KILLED.name, "\n".join(lines) + "\n")
    assert _import(path).run.final_status == "unknown"


def test_a_shell_command_killed_at_its_inactivity_timeout_timed_out(tmp_path):
    """The shell tool kills a command that printed nothing for too long and answers "Command
    was automatically cancelled because it exceeded the timeout of …", with no exit code; the
    call is recorded ``success``, and read ``ok``."""
    text = (
        "Command was automatically cancelled because it exceeded the timeout of 5.0 minutes "
        "without output. There was no output before it was cancelled."
    )
    records = []
    for line in SHELL_SESSION.read_text().splitlines():
        record = json.loads(line)
        for call in record.get("toolCalls") or []:
            call["result"][0]["functionResponse"]["response"]["output"] = text
        records.append(json.dumps(record))
    path = _written(tmp_path, SHELL_SESSION.name.split("__")[1], "\n".join(records) + "\n")
    shells = [s for s in _import(path).spans if s.name == "run_shell_command"]
    assert [s.outcome for s in shells] == ["timeout"]
