"""Real Codex CLI and Gemini CLI files of newer versions than the rest of the corpus, imported
and checked against what the raw file itself says (tests/corpus/PROVENANCE.md names them)."""

from __future__ import annotations

import json
from pathlib import Path

from abw.errors import AbwInputError
from abw.importers import get_importer
from abw.importers.base import ImportOptions
from abw.importers.common import parse_argument_fields
from tests.conftest import CORPUS
from tests.importkit import import_trace, import_traces, jsonl_records

#: Codex 0.140.0 (codex-tui), one session as saved mid-turn by the tool that committed it: three
#: ``tool_search_call``s, two compactions, a test run that failed on a test's own timeout.
CODEX = CORPUS / "codex"
CODEX_0140 = (
    CODEX / "agentv__rollout-2026-06-18T07-23-13-019ed99c-d00d-7613-b2e7-d2f512f78afd.jsonl"
)


def test_codex_tool_search_is_a_retriever_call_between_two_model_requests():
    """A ``tool_search_call`` and its ``tool_search_output`` were skipped: the search was no span,
    and the model requests before and after it were read as one llm span."""
    trace = import_trace("codex", CODEX_0140)
    searches = [
        (s.type, s.outcome, s.source_ref.line) for s in trace.path() if s.name == "tool_search"
    ]
    assert searches == [("retriever", "ok", 15), ("retriever", "ok", 19), ("retriever", "ok", 704)]
    # Codex writes one token_count event with usage after each model request; a compaction's
    # request (the ``compacted`` record) is a memory span, not an llm span.
    records = jsonl_records(CODEX_0140)
    requests = sum(
        1
        for r in records
        if r["type"] == "event_msg"
        and r["payload"].get("type") == "token_count"
        and r["payload"].get("info")
    )
    compactions = sum(1 for r in records if r["type"] == "compacted")
    assert (requests, compactions) == (219, 2)
    assert len([s for s in trace.spans if s.type == "llm"]) == requests - compactions
    removed = set(trace.redaction.removed_fields)
    assert {"tool_search_call.arguments", "tool_search_output.tools"} <= removed
    assert "turn_context.workspace_roots" in removed  # (0.140 lists the workspace's paths)


def test_codex_tool_search_arguments_are_argument_fields():
    """``--argument-fields tool_search:limit`` reads the search's ``arguments`` object."""
    options = {"argument_fields": parse_argument_fields("tool_search:limit")}
    trace = import_trace("codex", CODEX_0140, **options)
    limits = [s.attributes.get("arguments") for s in trace.spans if s.name == "tool_search"]
    assert limits == [{"limit": 8}, {"limit": 20}, {"limit": 8}]


def test_codex_a_command_whose_own_output_says_timed_out_failed_it_did_not_time_out():
    """``bun test`` exited 1 after 19 s, its output reporting "this test timed out after 5000ms":
    the command failed (error), Codex did not stop it (timeout); "timed out" anywhere in the
    first 400 characters of the output made it a timeout."""
    trace = import_trace("codex", CODEX_0140)
    (span,) = [s for s in trace.path() if s.source_ref.line == 528]
    (output,) = [
        r["payload"]["output"]
        for r in jsonl_records(CODEX_0140)
        if r["payload"].get("call_id") == span.span_id and r["payload"].get("output")
    ]
    assert "Process exited with code 1" in output and "this test timed out" in output[:400]
    assert (span.name, span.outcome, span.attributes["exit_code"]) == ("exec_command", "error", 1)


#: Codex 0.140.0 (codex-tui), three turns: a ChatGPT GitHub app connector call
#: (``namespace: "mcp__codex_apps__github"``, ``name: "_create_issue"``, line 292) and a
#: ``write_stdin`` poll of a session whose process had exited (line 1707).
CODEX_APPS = (
    CODEX / "agentv__rollout-2026-06-18T02-33-46-019ed893-d2a6-7c30-a8b8-5a8a49cfa23e.jsonl"
)


def _rewritten(tmp_path: Path, path: Path, line: int, **changes) -> Path:
    """``path`` with the payload of its ``line`` updated by ``changes`` (a ``None`` removes)."""
    lines = path.read_text().splitlines()
    record = json.loads(lines[line - 1])
    record["payload"].update(changes)
    record["payload"] = {k: v for k, v in record["payload"].items() if v is not None}
    lines[line - 1] = json.dumps(record)
    out = tmp_path / path.name
    out.write_text("\n".join(lines) + "\n")
    return out


def test_codex_app_connector_call_is_named_like_every_codex_version_names_it(tmp_path):
    """0.140 writes an app connector's call as ``namespace`` + ``name`` with the connector's name
    cut off the tool (``_create_issue``); abw joined them into ``..._github___create_issue`` with
    server ``codex_apps__github``, a name no other Codex version writes for the tool. It is the
    flat ``mcp__<server>__<tool>`` of the MCP identity ``mcp_tool_call_end`` reports."""
    trace = import_trace("codex", CODEX_APPS)
    (span,) = [s for s in trace.path() if s.source_ref.line == 292]
    (end,) = [
        r["payload"]
        for r in jsonl_records(CODEX_APPS)
        if r["payload"].get("type") == "mcp_tool_call_end"
        and r["payload"]["call_id"] == span.span_id
    ]
    assert end["invocation"]["server"] == "codex_apps"
    assert end["invocation"]["tool"] == "github.create_issue"
    assert span.name == "mcp__codex_apps__github_create_issue"
    assert (span.attributes["mcp_server"], span.attributes["mcp_tool"]) == (
        "codex_apps",
        "github_create_issue",
    )
    assert span.attributes["namespace"] == "mcp__codex_apps__github"
    # the same call as other Codex versions write it: one flat name (before namespaces), and a
    # namespace keeping its trailing delimiter (Desktop) — the same span name
    for changes in (
        {"namespace": None, "name": "mcp__codex_apps__github_create_issue"},
        {"namespace": "mcp__codex_apps__github", "name": "mcp__codex_apps__github_create_issue"},
    ):
        other = import_trace("codex", _rewritten(tmp_path, CODEX_APPS, 292, **changes))
        (same,) = [s for s in other.path() if s.source_ref.line == 292]
        assert (same.name, same.attributes["mcp_tool"]) == (span.name, "github_create_issue")


def test_codex_mcp_server_call_is_named_alike_across_namespace_shapes(tmp_path):
    """An MCP server's tool: flat (before namespaces), ``mcp__deepwiki__`` + tool (Desktop) and
    ``mcp__deepwiki`` + tool (0.142) all read ``mcp__deepwiki__ask_question``."""
    names = set()
    for changes in (
        {"namespace": None, "name": "mcp__deepwiki__ask_question"},
        {"namespace": "mcp__deepwiki__", "name": "ask_question"},
        {"namespace": "mcp__deepwiki", "name": "ask_question"},
    ):
        trace = import_trace("codex", _rewritten(tmp_path, CODEX_APPS, 292, **changes))
        (span,) = [s for s in trace.path() if s.source_ref.line == 292]
        names.add((span.name, span.attributes["mcp_server"], span.attributes["mcp_tool"]))
    assert names == {("mcp__deepwiki__ask_question", "deepwiki", "ask_question")}


def test_codex_a_poll_after_the_process_exited_is_a_failed_poll_of_its_command():
    """Line 1707 polls session 33370 after its process exited 1 (line 1694): Codex answers
    "write_stdin failed: Unknown process id 33370". It was a write_stdin error span of its own
    while a failed poll of a live session folds into the command: one call counted twice."""
    records = jsonl_records(CODEX_APPS)
    assert json.loads(records[1706]["payload"]["arguments"])["session_id"] == 33370
    assert records[1707]["payload"]["output"] == "write_stdin failed: Unknown process id 33370"
    assert "Process exited with code 1" in records[1693]["payload"]["output"]
    trace = import_trace("codex", CODEX_APPS)
    assert [s for s in trace.spans if s.name == "write_stdin"] == []
    (command,) = [s for s in trace.path() if s.source_ref.line == 1511]
    assert (command.name, command.outcome, command.attributes["exit_code"]) == (
        "exec_command",
        "error",
        1,
    )
    assert (command.attributes["polls"], command.attributes["poll_errors"]) == (29, 1)


def test_codex_unknown_response_item_types_are_skipped_with_a_warning(tmp_path):
    """A ``response_item`` of a type abw does not know was dropped without a word: a newer
    Codex's tool item (``image_generation_call``, an inter-agent ``agent_message``) vanished
    from the trace unseen. Known items that hold no behavior stay silent."""
    assert _import_warnings(CODEX_APPS) == []
    extra = [
        {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": "iVBO"},
        {"type": "agent_message", "author": "a", "recipient": "b", "content": []},
        {"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}},
        {"type": "compaction_trigger"},
    ]
    path = tmp_path / CODEX_APPS.name
    lines = [json.dumps({"type": "response_item", "payload": item}) for item in extra]
    path.write_text(CODEX_APPS.read_text().rstrip("\n") + "\n" + "\n".join(lines) + "\n")
    (warning,) = _import_warnings(path)
    assert warning.endswith(
        "skipped unknown response_item types: agent_message, image_generation_call"
    )


def _import_warnings(path: Path) -> list[str]:
    options = ImportOptions()
    import_traces("codex", path, options)
    return options.warnings


#: Gemini CLI chat recording (December 2025): 10 tool calls whose ids Gemini CLI made in its
#: pre-0.29 form ``<name>-<epoch ms>-<hex>``.
GEMINI_2025 = CORPUS / "gemini-cli" / "codemie__session-2025-12-01T21-45-5b959dae.json"

#: How Gemini CLI's ``Turn.handlePendingFunctionCall`` (packages/core/src/core/turn.ts) makes a
#: call id when the model gave none, by version: 0.29 (``${name}_${Date.now()}_${callCounter}``)
#: and 0.42 (that, or ``synth_${prompt_id}_…`` with context management, prefixed ``${name}__``;
#: the prompt id is ``${sessionId}########${promptCount}``).
_GEMINI_CLI_IDS = {
    "0.29": lambda name, ms, n, session: f"{name}_{ms}_{n}",
    "0.42": lambda name, ms, n, session: f"{name}__{name}_{ms}_{n}",
    "0.42 synth": lambda name, ms, n, session: f"{name}__synth_{session}########1_{ms}_{n}",
}


def test_gemini_call_ids_of_every_gemini_cli_version_give_the_call_its_start(tmp_path):
    """From 0.29 Gemini CLI writes ``read_file_1774383200640_0`` (and from 0.42 prefixes the
    tool's name again): the start time in it was read only from the older
    ``read_file-1774383200640-<hex>``, so those calls got no duration. No licensed recording of
    0.29+ with such ids was found: the real 2025 recording's ids are rewritten into each form
    exactly as gemini-cli's source makes them, keeping their epoch-ms."""
    calls = [s for s in import_trace("gemini", GEMINI_2025).spans if s.type != "llm"]
    durations = [s.duration_ms for s in calls]
    assert len(calls) == 10 and all(d is not None for d in durations)
    text = GEMINI_2025.read_text()
    session = json.loads(text)["sessionId"]
    for version, make in _GEMINI_CLI_IDS.items():
        rewritten, ids = text, []
        for n, span in enumerate(calls):
            name, ms, _ = span.span_id.split("-")
            ids.append(make(name, ms, n, session))
            rewritten = rewritten.replace(f'"{span.span_id}"', json.dumps(ids[-1]))
        path = tmp_path / version.replace(" ", "-") / GEMINI_2025.name
        path.parent.mkdir()
        path.write_text(rewritten)
        got = [s for s in import_trace("gemini", path).spans if s.type != "llm"]
        assert [s.span_id for s in got] == ids
        assert [(s.duration_ms, s.attributes.get("duration_source")) for s in got] == [
            (d, "id_epoch_ms") for d in durations
        ], version
    # an id the model's API gave (a 0.39+ recording, April 2026) holds no time: no duration
    api_ids = import_trace(
        "gemini", CORPUS / "gemini-cli" / "vibecodingtracker__test_conversation_gemini.jsonl"
    )
    assert all(s.duration_ms is None for s in api_ids.spans if s.type != "llm")


#: ``codex exec --json`` output of Codex 0.46.0 (what a CI job running Codex headless saves): the
#: ``thread.started`` / ``item.*`` / ``turn.completed`` events, one ``command_execution``.
CODEX_EXEC_JSON = (
    CORPUS / "codex-headless" / "jnarowski__agentcmd__codex-0.46-exec-json-ls-958c494.jsonl"
)


def test_codex_exec_json_output_is_refused_naming_the_rollout_to_import(run_cli, tmp_path):
    """It was refused as "no session_meta, response_item or event_msg records": true, but not
    what the file is nor what to import. It is not read as a run (no timestamps, no model, every
    command ``command_execution``, calls without an item left out): the one line names the
    rollout Codex wrote for the same thread, whose file name ends with the thread id."""
    (started, *_) = jsonl_records(CODEX_EXEC_JSON)
    assert started["type"] == "thread.started"
    code, out, err = run_cli("import", "codex", "--input", CODEX_EXEC_JSON, "--out", tmp_path / "o")
    assert (code, out) == (2, "")
    (line,) = err.strip().splitlines()
    assert f"{CODEX_EXEC_JSON.name}:1: type: not a Codex rollout: " in line
    assert "`codex exec --json` output" in line
    assert f"~/.codex/sessions/YYYY/MM/DD/rollout-*-{started['thread_id']}.jsonl" in line
    assert not (tmp_path / "o").exists()


def test_codex_exec_json_of_older_versions_is_refused_not_an_empty_run(tmp_path):
    """Before its ``thread.started`` events, ``codex exec --json`` printed each protocol event as
    ``serde_json`` writes ``Event {id, msg}``, after a config summary and the prompt (0.39) or
    from the first line (earlier: an empty summary). A first line with an ``id`` and no ``type``
    was read as a legacy rollout's session line: an empty run, exit 0, trace id "0". No licensed
    file of that output was found; these are written exactly as the CLI wrote it."""
    events = [
        {"id": "0", "msg": {"type": "session_configured", "session_id": "67e55044-10b1-426f-9247",
                            "model": "codex-mini-latest", "history_log_id": 1,
                            "history_entry_count": 0}},
        {"id": "1", "msg": {"type": "task_started"}},
        {"id": "1", "msg": {"type": "exec_command_begin", "call_id": "call_1",
                            "command": ["bash", "-lc", "ls"], "cwd": "/work"}},
        {"id": "1", "msg": {"type": "exec_command_end", "call_id": "call_1", "stdout": "a\n",
                            "stderr": "", "exit_code": 0}},
        {"id": "1", "msg": {"type": "task_complete", "last_agent_message": "done"}},
    ]  # fmt: skip
    summary = [
        {"provider": "openai", "workdir": "/work", "approval": "never", "model": "gpt-5-codex",
         "sandbox": "read-only"},
        {"prompt": "Reply with exactly: PONG"},
    ]  # fmt: skip
    for name, lines, line, thread in (
        ("first.jsonl", events, 1, "67e55044-10b1-426f-9247"),
        ("summary.jsonl", summary + events[1:], 3, None),
    ):
        path = tmp_path / name
        path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in lines))
        try:
            get_importer("codex").import_file(path, ImportOptions())
        except AbwInputError as exc:
            assert (exc.line, exc.field) == (line, "msg")
            assert "`codex exec --json` output" in exc.message
            rollout = f"rollout-*-{thread}.jsonl" if thread else "rollout-*.jsonl"
            assert f"~/.codex/sessions/YYYY/MM/DD/{rollout} instead" in exc.message
        else:
            raise AssertionError(f"{name} was imported")


#: What Gemini CLI 0.11.0 printed in headless mode (``gemini -p … --output-format stream-json``
#: and ``--output-format json``), as quoted whole in the owner's notes.
GEMINI_HEADLESS = CORPUS / "gemini-cli-headless"
GEMINI_STREAM_JSON = GEMINI_HEADLESS / "jnarowski__agentcmd__stream-json-453aa339-958c494.jsonl"
GEMINI_OUTPUT_JSON = GEMINI_HEADLESS / "jnarowski__agentcmd__output-json-958c494.json"


def test_gemini_stream_json_output_is_refused_naming_the_recording_to_import(run_cli, tmp_path):
    """It was refused as "no session line {sessionId, projectHash, ...}", and saved as ``.json``
    as "line 2: invalid JSON: Extra data": neither says what it is. It is not read as a run (a
    cancelled call reads ``success``; a shell call's output is its display text, with no exit
    code): the line names the session's own recording, ``session-<time>-<8 of the id>.json``
    (the agentcmd fixture ``session-2025-10-29T10-36-453aa339.json`` for this one)."""
    (init, *events) = jsonl_records(GEMINI_STREAM_JSON)
    assert init["type"] == "init" and [e["type"] for e in events].count("tool_use") == 3
    copy = tmp_path / "stream.json"  # (as saved by `> out.json`)
    copy.write_bytes(GEMINI_STREAM_JSON.read_bytes())
    for path in (GEMINI_STREAM_JSON, copy):
        code, out, err = run_cli("import", "gemini", "--input", path, "--out", tmp_path / "o")
        assert (code, out) == (2, "")
        (line,) = err.strip().splitlines()
        assert f"{path.name}:1: type: not a Gemini CLI chat recording: " in line
        assert "`gemini --output-format stream-json` output" in line
        assert "~/.gemini/tmp/<project>/chats/session-*-453aa339.json" in line
        assert init["session_id"].startswith("453aa339-")
    assert not (tmp_path / "o").exists()


def test_gemini_json_output_is_refused_naming_the_recording_to_import(run_cli, tmp_path):
    """``{response, stats}`` holds no step at all; it was refused as "expected an object with
    messages[]", without saying what it is or what to import. Saved as ``.jsonl`` too."""
    document = json.loads(GEMINI_OUTPUT_JSON.read_text())
    assert set(document) == {"response", "stats"}
    copy = tmp_path / "answer.jsonl"
    copy.write_bytes(GEMINI_OUTPUT_JSON.read_bytes())
    for path in (GEMINI_OUTPUT_JSON, copy):
        code, out, err = run_cli("import", "gemini", "--input", path, "--out", tmp_path / "o")
        assert (code, out) == (2, "")
        (line,) = err.strip().splitlines()
        assert f"{path.name}: response: not a Gemini CLI chat recording: " in line
        assert "`gemini --output-format json` output" in line
        assert "~/.gemini/tmp/<project>/chats/session-*.json" in line
