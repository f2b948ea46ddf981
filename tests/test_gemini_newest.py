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
