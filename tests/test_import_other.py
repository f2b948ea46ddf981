"""LangSmith, Gemini CLI, OpenHands, SWE-agent and OpenAI Agents SDK importers on the corpus.

Each test reads the raw file with a few lines of its own and compares the tool sequence and
statuses with what the importer wrote.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from abw.errors import AbwInputError
from abw.importers import get_importer
from abw.importers.base import ImportOptions
from abw.importers.common import parse_labels
from abw.traceio import render_trace
from tests.conftest import CORPUS
from tests.importkit import import_traces, path_statuses

# ----------------------------------------------------------------- LangSmith

LANGSMITH = sorted((CORPUS / "langsmith").glob("gen__*.json"))  # one agent run, two encodings
LANGSMITH_JS = CORPUS / "langsmith" / "langsmithjs__wrap_openai_default.json"


def _langsmith_expected(path: Path) -> list[tuple[str, str]]:
    document = json.loads(path.read_text())
    runs: dict[str, dict] = {}
    if isinstance(document, dict):
        for run in document.get("post", []) + document.get("patch", []):
            runs.setdefault(run["id"], {}).update(run)
    else:
        for part in document:
            pieces = part["name"].split(".")
            run = runs.setdefault(pieces[1], {})
            if len(pieces) == 2:
                run.update(part["value"])
            else:
                run[pieces[2]] = part["value"]
    ordered = sorted(runs.values(), key=lambda r: r["dotted_order"])
    return [
        (r["name"], "error" if r.get("error") else "success")
        for r in ordered
        if r["run_type"] in ("tool", "retriever")
    ]


@pytest.mark.parametrize("path", LANGSMITH, ids=lambda p: p.name)
def test_langsmith_batch_and_multipart(path):
    (trace,) = import_traces("langsmith", path)
    assert path_statuses(trace) == _langsmith_expected(path)
    assert path_statuses(trace) == [
        ("vector_search", "success"),
        ("web_fetch", "error"),
        ("calculator", "success"),
    ]
    assert trace.path()[1].outcome == "timeout"
    assert trace.path()[1].attributes["error_type"] == "TimeoutError"
    assert [s.name for s in trace.spans if s.type == "llm"] == ["gpt-4o-mini"]


@pytest.mark.parametrize("absent", [None, "drop"])
def test_langsmith_runs_without_a_trace_id_are_one_trace_by_their_dotted_order(tmp_path, absent):
    """Runs that give no ``trace_id`` (null or no key) were a trace each: the root an empty
    run that passed, every tool call a run of its own. Their ``dotted_order`` names the root."""
    path = next(p for p in LANGSMITH if p.name.endswith("batch_payload.json"))
    document = json.loads(path.read_text())
    for run in document["post"] + document.get("patch", []):
        if absent == "drop":
            run.pop("trace_id", None)
        else:
            run["trace_id"] = None
    bare = tmp_path / path.name
    bare.write_text(json.dumps(document))
    (whole,) = import_traces("langsmith", path)
    (trace,) = import_traces("langsmith", bare)
    assert trace.run.trace_id == whole.run.trace_id
    assert path_statuses(trace) == path_statuses(whole) == _langsmith_expected(path)
    assert trace.run.final_status == whole.run.final_status


def test_langsmith_js_patch_without_id_and_epoch_millisecond_times():
    """langsmith-js sends a run's PATCH to /runs/{id}: the body has no id (it was refused:
    "patch.id: a run has no id"), but its dotted_order ends with it; its times are epoch
    milliseconds (read as seconds, they were past the year 9999: no start, no duration)."""
    (trace,) = import_traces("langsmith", LANGSMITH_JS)
    (span,) = trace.spans
    assert (span.type, span.name, span.status) == ("llm", "gpt-4o-mini", "success")
    assert span.span_id == trace.run.trace_id == "dc34609e-3eeb-459d-bc2a-6fedb01d2e6e"
    assert span.started_at == "2024-10-13T07:05:37.170000Z"  # as its dotted_order says
    assert span.duration_ms == 1115.0
    assert trace.run.final_status == "success" and trace.run.final_output_hash
    text = render_trace(trace)
    assert "howdy" not in text.lower() and "assist you" not in text


def test_langsmith_batch_and_multipart_agree_on_content_hashes():
    a, b = (import_traces("langsmith", p)[0] for p in LANGSMITH)
    assert [s.input_hash for s in a.spans] == [s.input_hash for s in b.spans]


def test_langsmith_post_then_patch_and_output_fields(tmp_path):
    root = {
        "id": "r",
        "trace_id": "r",
        "name": "agent",
        "run_type": "chain",
        "dotted_order": "20260101T000000000000Zr",
        "start_time": "2026-01-01T00:00:00Z",
    }
    tool = {
        "id": "t",
        "trace_id": "r",
        "parent_run_id": "r",
        "name": "charge",
        "run_type": "tool",
        "dotted_order": "20260101T000000000000Zr.20260101T000001000000Zt",
        "start_time": "2026-01-01T00:00:01Z",
    }
    patches = [
        {"id": "t", "end_time": "2026-01-01T00:00:02Z", "outputs": {"ok": 1}},
        {"id": "r", "end_time": "2026-01-01T00:00:03Z", "outputs": {"refund": True, "note": "x"}},
    ]
    path = tmp_path / "runs.json"
    path.write_text(json.dumps({"post": [root, tool], "patch": patches}))
    (trace,) = import_traces("langsmith", path, output_fields=("refund",))
    (span,) = trace.path()
    assert (span.name, span.status, span.duration_ms) == ("charge", "success", 1000.0)
    assert trace.run.final_status == "success"
    assert trace.run.canonical_output == {"refund": True}


def test_langsmith_traces_in_run_order(tmp_path):
    """Two traces in one file: each is its own trace, the one that started first comes first."""
    (source,) = [p for p in LANGSMITH if "batch" in p.name]
    runs = json.loads(source.read_text())["post"]
    earlier = []
    for run in runs:  # the same runs as another trace, a year earlier
        copy = {**run, "id": run["id"] + "-b", "trace_id": run["trace_id"] + "-b"}
        if run.get("parent_run_id"):
            copy["parent_run_id"] = run["parent_run_id"] + "-b"
        copy["dotted_order"] = ".".join(
            f"2025{part[4:]}-b" for part in run["dotted_order"].split(".")
        )
        earlier.append(copy)
    path = tmp_path / "two.json"
    path.write_text(json.dumps({"post": runs + earlier}))
    first, second = import_traces("langsmith", path)
    assert first.run.trace_id == runs[0]["trace_id"] + "-b"
    assert second.run.trace_id == runs[0]["trace_id"]
    assert path_statuses(first) == path_statuses(second) == _langsmith_expected(source)


# ----------------------------------------------------------------- Gemini CLI

GEMINI = sorted((CORPUS / "gemini-cli").glob("codemie__session-*.json"))
#: The model turns a recording holds beyond its gemini messages: calls made after the calls
#: before them in the message had finished (tests/test_gemini_older_versions_live.py).
GEMINI_LATER_TURNS = {
    "codemie__session-2025-12-01T21-45-5b959dae.json": 2,
    "codemie__session-2026-01-16T11-01-file-ops-37b7abef.json": 4,
}


@pytest.mark.parametrize("path", GEMINI, ids=lambda p: p.name[:40])
def test_gemini_tool_calls_in_order(path):
    document = json.loads(path.read_text())
    expected = []
    for message in document["messages"]:
        for call in message.get("toolCalls", []):
            name = call["name"]
            if name == "delegate_to_agent":
                name = call["args"]["agent_name"]
            expected.append((name, {"success": "success", "error": "error"}[call["status"]]))
    (trace,) = import_traces("gemini", path)
    assert path_statuses(trace) == expected
    gemini_messages = sum(m["type"] == "gemini" for m in document["messages"])
    later_turns = GEMINI_LATER_TURNS[path.name]  # (turns older versions recorded in one message)
    assert sum(s.type == "llm" for s in trace.spans) == gemini_messages + later_turns
    assert trace.run.trace_id == document["sessionId"]
    assert all(s.duration_ms is not None for s in trace.path())


def test_gemini_subagent_is_a_handoff():
    path = CORPUS / "gemini-cli" / "codemie__session-2026-01-16T11-01-file-ops-37b7abef.json"
    (trace,) = import_traces("gemini", path)
    (handoff,) = [s for s in trace.spans if s.type == "handoff"]
    assert handoff.name == "codebase_investigator"
    assert handoff.attributes["tool"] == "delegate_to_agent"


def test_gemini_logs_json_is_refused_clearly(run_cli, tmp_path):
    logs = CORPUS / "gemini-cli" / "codemie__logs.json"
    code, _, err = run_cli("import", "gemini", "--input", logs, "--out", tmp_path / "o.json")
    assert code == 2 and "logs.json" in err and "session-" in err
    # a folder holding logs.json next to the sessions still imports the sessions
    code, _, err = run_cli(
        "import", "gemini", "--input", CORPUS / "gemini-cli", "--out", tmp_path / "d"
    )
    assert code == 0, err
    sessions = [p for p in (CORPUS / "gemini-cli").iterdir() if p.name != logs.name]
    assert len(list((tmp_path / "d").glob("*.json"))) == len(sessions) == 3


def test_another_tools_messages_are_not_a_gemini_recording(run_cli, tmp_path):
    """mini-swe-agent writes ``{"messages": [...], "info": ...}`` too: given to the Gemini
    importer it was an empty run (exit 0, no span) that a gate would count."""
    messages = json.loads(
        (CORPUS / "mini-swe-agent" / "miniswe__github_issue.traj.json").read_text()
    )
    mini = tmp_path / "run.traj.json"
    mini.write_text(json.dumps({"messages": messages, "info": {"exit_status": "Submitted"}}))
    code, _, err = run_cli("import", "gemini", "--input", mini, "--out", tmp_path / "o.json")
    assert code == 2, err
    assert err.strip().endswith(
        "run.traj.json: messages: not a Gemini CLI chat recording: no sessionId and no user, "
        "gemini, info, warning or error message"
    )
    assert not (tmp_path / "o.json").exists()


def test_gemini_tool_calls_that_are_not_a_list_are_refused(run_cli, tmp_path):
    """A ``toolCalls`` that is not a list was read as no call at all (exit 0, calls lost)."""
    path = CORPUS / "gemini-cli" / "codemie__session-2026-01-16T11-01-file-ops-37b7abef.json"
    document = json.loads(path.read_text())
    index = next(n for n, m in enumerate(document["messages"]) if m.get("toolCalls"))
    document["messages"][index]["toolCalls"] = document["messages"][index]["toolCalls"][0]
    broken = tmp_path / "session.json"
    broken.write_text(json.dumps(document, indent=2))
    code, _, err = run_cli("import", "gemini", "--input", broken, "--out", tmp_path / "o.json")
    assert code == 2
    lines = broken.read_text().splitlines()
    opened = next(
        n
        for n, text in enumerate(lines, 1)
        if text.strip().startswith('"id": ' + json.dumps(document["messages"][index]["id"]))
    )
    line = next(n for n in range(opened, len(lines) + 1) if '"toolCalls":' in lines[n - 1])
    assert f"session.json:{line}: messages.{index}.toolCalls: expected a list" in err


def test_a_gemini_turn_the_user_cancelled_ends_the_run_cancelled():
    """Gemini CLI records ``{"type": "info", "content": "Request cancelled."}`` when the user
    presses Esc; the run read as 'unknown'."""
    path = CORPUS / "gemini-cli" / "vibecodingtracker__test_conversation_gemini.jsonl"
    messages = [json.loads(line) for line in path.read_text().splitlines()]
    last = [m for m in messages if m.get("type")][-1]
    assert (last["type"], last["content"]) == ("info", "Request cancelled.")
    (trace,) = import_traces("gemini", path)
    assert trace.run.final_status == "cancelled"
    assert trace.source.export_format == "gemini-chat-jsonl"


def test_gemini_cancelled_and_error_calls(tmp_path):
    doc = {
        "sessionId": "s",
        "messages": [
            {"type": "user", "content": "do it"},
            {
                "type": "gemini",
                "model": "g",
                "content": "",
                "toolCalls": [
                    {
                        "id": "run_shell_command-1768561360195-aa",
                        "name": "run_shell_command",
                        "args": {"command": "deploy --prod"},
                        "status": "cancelled",
                        "timestamp": "2026-01-16T11:02:41.195Z",
                    },
                    {"id": "x", "name": "write_file", "args": {}, "status": "error"},
                ],
            },
        ],
    }
    path = tmp_path / "session.json"
    path.write_text(json.dumps(doc))
    (trace,) = import_traces("gemini", path, labels=parse_labels("deploy"))
    assert [(s.name, s.outcome) for s in trace.path()] == [
        ("deploy", "rejected"),
        ("write_file", "error"),
    ]
    assert trace.path()[0].duration_ms == 1000.0
    assert "--prod" not in render_trace(trace)


@pytest.mark.parametrize("path", GEMINI, ids=lambda p: p.name[:40])
def test_gemini_source_lines_point_at_messages_and_calls(path):
    """Each llm span's line is where its message object opens, each tool span's where its
    toolCalls entry opens (the object's first key, its id, is on the next line)."""
    raw_lines = path.read_text().splitlines()
    document = json.loads(path.read_text())
    ids = [m["id"] for m in document["messages"] if m["type"] == "gemini"]
    ids += [c["id"] for m in document["messages"] for c in m.get("toolCalls", [])]
    (trace,) = import_traces("gemini", path)
    assert len(trace.spans) == len(ids) + GEMINI_LATER_TURNS[path.name]
    for span in trace.spans:
        line = span.source_ref.line
        assert raw_lines[line - 1].strip() == "{"
        opened = span  # a later model turn (<message id>#<place>): the first call it made
        if "#" in span.span_id:
            opened = next(s for s in trace.spans if s.parent_span_id == span.span_id)
        assert raw_lines[line].strip() == f'"id": {json.dumps(opened.span_id)},'
    assert sorted(s.span_id for s in trace.spans if "#" not in s.span_id) == sorted(ids)


def _as_jsonl(document: dict, path: Path, extra: list | None = None) -> Path:
    """A pre-0.39 recording as Gemini CLI 0.39+ appends one: a metadata line, then each message
    on its own line, first without its tool calls' results, then again whole under its id (as
    the calls finish), a ``$set`` of lastUpdated after each; ``extra`` records go last."""
    head = {k: v for k, v in document.items() if k != "messages"}
    lines = [head]
    for message in document["messages"]:
        if message.get("toolCalls"):
            lines.append(
                {**message, "toolCalls": [{**c, "result": None} for c in message["toolCalls"]]}
            )
        lines += [message, {"$set": {"lastUpdated": message.get("timestamp")}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines + (extra or [])))
    return path


def _same_spans(a, b) -> bool:
    fields = ("span_id", "type", "name", "status", "outcome", "input_hash", "output_hash")
    return [[getattr(s, f) for f in fields] for s in a.spans] == [
        [getattr(s, f) for f in fields] for s in b.spans
    ]


@pytest.mark.parametrize("path", GEMINI, ids=lambda p: p.name[:40])
def test_gemini_jsonl_recording_reads_as_the_session_it_records(path, tmp_path, run_cli):
    """Gemini CLI 0.39 on appends JSON Lines; a session so written was refused ("invalid JSON:
    Extra data"), and a folder of them was "no gemini exports found". Replayed as Gemini CLI
    replays it, it is the same session: the same spans as the one-document recording, each on
    the line its message was last written on."""
    document = json.loads(path.read_text())
    (legacy,) = import_traces("gemini", path)
    jsonl = _as_jsonl(document, tmp_path / "session-x.jsonl")
    (trace,) = import_traces("gemini", jsonl)
    assert _same_spans(trace, legacy) and trace.run.trace_id == legacy.run.trace_id
    assert trace.run.final_status == legacy.run.final_status
    assert trace.source.export_format == "gemini-chat-jsonl"
    raw_lines = jsonl.read_text().splitlines()
    for span in trace.spans:
        record = json.loads(raw_lines[span.source_ref.line - 1])
        calls = [c["id"] for c in record.get("toolCalls", [])]
        assert span.span_id.split("#")[0] in (record["id"], *calls)
        assert all(c.get("result") is not None for c in record.get("toolCalls", []))

    # a message rewound away, or one a checkpoint ($set with messages) leaves out, ran: its
    # steps stay; the run ends as the conversation does (tests/test_history_rewrites.py)
    last = document["messages"][-1]
    kept = {"messages": document["messages"][:-1]}
    (expected,) = import_traces("gemini", _write_json(tmp_path / "kept.json", {**document, **kept}))
    for name, extra in (("rewound", {"$rewindTo": last["id"]}), ("checkpoint", {"$set": kept})):
        (trace,) = import_traces("gemini", _as_jsonl(document, tmp_path / f"{name}.jsonl", [extra]))
        assert _same_spans(trace, legacy)
        assert trace.run.final_status == expected.run.final_status
        assert trace.run.final_output_hash == expected.run.final_output_hash

    chats = tmp_path / "chats"
    chats.mkdir()
    _as_jsonl(document, chats / "session-1.jsonl")
    code, _, err = run_cli("import", "gemini", "--input", chats, "--out", tmp_path / "out")
    assert code == 0, err
    assert len(list((tmp_path / "out").glob("*.json"))) == 1


def _write_json(path: Path, document: dict) -> Path:
    path.write_text(json.dumps(document, indent=2))
    return path


def test_gemini_jsonl_subagent_recording_and_other_lines(tmp_path):
    """A subagent's own recording (kind: subagent, under chats/<parent id>/) is not a session:
    skipped with a warning. A pre-0.39 document laid out over lines in a .jsonl file is read
    as one document; a recording with no session line is refused."""
    sub = tmp_path / "session-sub.jsonl"
    sub.write_text(
        json.dumps({"sessionId": "p-sub", "projectHash": "h", "kind": "subagent"})
        + "\n"
        + json.dumps({"id": "m1", "type": "gemini", "model": "g", "content": "x"})
        + "\n"
    )
    options = ImportOptions()
    assert get_importer("gemini").import_file(sub, options) == []
    assert "session-sub.jsonl: a subagent's own recording" in options.warnings[0]
    path = CORPUS / "gemini-cli" / "codemie__session-2025-12-01T21-45-5b959dae.json"
    laid_out = tmp_path / "session-old.jsonl"
    laid_out.write_bytes(path.read_bytes())
    (legacy,) = import_traces("gemini", path)
    (trace,) = import_traces("gemini", laid_out)
    assert _same_spans(trace, legacy) and trace.source.export_format == "gemini-chat-json"
    headless = tmp_path / "session-headless.jsonl"
    headless.write_text(json.dumps({"id": "m1", "type": "user", "content": "x"}) + "\n")
    with pytest.raises(AbwInputError, match="no session line"):
        import_traces("gemini", headless)


def test_gemini_shell_exit_code_decides_the_outcome(tmp_path):
    """A shell call the recording marks success only ran: its output's ``Exit Code: N`` line
    decides (127, 1 -> error; 0 -> ok). The real session's write_file calls are turned into
    run_shell_command calls whose output is written in the shell tool's own format."""
    document = json.loads(GEMINI[0].read_text())
    calls = [c for m in document["messages"] for c in m.get("toolCalls", [])]
    codes = {0: "127", 1: "1", 2: "0", 3: "(none)"}
    for position, code in codes.items():
        call = calls[position]
        call["name"] = "run_shell_command"
        call["args"] = {"command": "pip install nothing-here", "description": "install"}
        output = (
            "Command: pip install nothing-here\nDirectory: (root)\nOutput: some text\n"
            f"Error: (none)\nExit Code: {code}\nSignal: (none)\nBackground PIDs: (none)"
        )
        call["result"] = [
            {
                "functionResponse": {
                    "id": call["id"],
                    "name": "run_shell_command",
                    "response": {"output": output},
                }
            }
        ]
        call["status"] = "success"
    path = tmp_path / GEMINI[0].name
    path.write_text(json.dumps(document, indent=2))
    (trace,) = import_traces("gemini", path)
    shell = [s for s in trace.path() if s.name == "run_shell_command"]
    assert [(s.status, s.attributes.get("exit_code")) for s in shell] == [
        ("error", 127),
        ("error", 1),
        ("success", 0),
        ("success", None),
    ]


def test_removed_fields_name_only_what_the_input_held():
    """removed_fields lists the content kinds the file held, not a fixed list."""
    (gemini,) = import_traces("gemini", GEMINI[0])
    document = json.loads(GEMINI[0].read_text())
    calls = [c for m in document["messages"] for c in m.get("toolCalls", [])]
    held = {f"toolCalls.{k}" for c in calls for k, v in c.items() if v not in (None, "", [], {})}
    held |= {f"messages.{k}" for m in document["messages"] for k, v in m.items() if v}
    held |= {"projectHash"} if document.get("projectHash") else set()
    assert set(gemini.redaction.removed_fields) <= held
    assert "toolCalls.args" in gemini.redaction.removed_fields
    # the same importer on a session without thoughts or descriptions does not list them
    for message in document["messages"]:
        message.pop("thoughts", None)
        for call in message.get("toolCalls", []):
            call.pop("description", None)
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        bare = Path(folder) / "session.json"
        bare.write_text(json.dumps(document))
        (trimmed,) = import_traces("gemini", bare)
    assert set(gemini.redaction.removed_fields) - set(trimmed.redaction.removed_fields) == {
        "messages.thoughts",
        "toolCalls.description",
    }
    for path in OPENHANDS:
        (trace,) = import_traces("openhands", path)
        events = json.loads(path.read_text())
        for name in trace.redaction.removed_fields:
            top = name.split(".")[0]
            assert any(e.get(top) for e in events), (path.name, name)


# ----------------------------------------------------------------- OpenHands

OPENHANDS = sorted((CORPUS / "openhands").glob("*.json"))


@pytest.mark.parametrize("path", OPENHANDS, ids=lambda p: p.name)
def test_openhands_actions_paired_with_observations(path):
    events = json.loads(path.read_text())
    observations = {e.get("cause"): e for e in events if "observation" in e}
    expected = []
    for e in events:
        if e.get("source") != "agent" or e.get("action") in (None, "message"):
            continue
        name = e["tool_call_metadata"]["function_name"]
        obs = observations.get(e["id"])
        if e["action"] == "finish":
            expected.append((name, "success"))
            continue
        code = (obs.get("extras", {}).get("metadata") or {}).get("exit_code", 0)
        expected.append((name, "success" if code == 0 else "error"))
    (trace,) = import_traces("openhands", path)
    assert path_statuses(trace) == expected
    responses = {
        e["tool_call_metadata"]["model_response"]["id"]
        for e in events
        if e.get("tool_call_metadata")
    }
    plain_messages = sum(
        1 for e in events if e.get("action") == "message" and e.get("source") == "agent"
    )
    assert sum(s.type == "llm" for s in trace.spans) == len(responses) + plain_messages


@pytest.mark.parametrize("path", OPENHANDS, ids=lambda p: p.name)
def test_openhands_source_lines_point_at_events(path):
    raw_lines = path.read_text().splitlines()
    events = json.loads(path.read_text())
    (trace,) = import_traces("openhands", path)
    for span in trace.spans:
        line = span.source_ref.line
        assert raw_lines[line - 1].strip() == "{"
        event_id = int(raw_lines[line].strip().removeprefix('"id": ').rstrip(","))
        assert any(e["id"] == event_id for e in events)
    tools = [s for s in trace.spans if s.type != "llm"]
    assert [s.span_id for s in tools] == [
        f"event-{int(raw_lines[s.source_ref.line].split(':')[1].strip(' ,'))}" for s in tools
    ]


def test_openhands_llm_spans_before_the_first_model_response_name_its_model():
    """The agent's plain messages before its first tool call carry no model_response: they are
    the run's model too, not a span named 'llm' beside the model's (two names for one model)."""
    path = CORPUS / "openhands" / "openhands__basic_interactions.json"
    events = json.loads(path.read_text())
    models = {
        e["tool_call_metadata"]["model_response"]["model"]
        for e in events
        if e.get("tool_call_metadata")
    }
    assert models == {"gpt-4o-2024-08-06"}
    (trace,) = import_traces("openhands", path)
    assert {s.name for s in trace.spans if s.type == "llm"} == models
    assert sum(s.type == "llm" for s in trace.spans) == 3


def test_openhands_copies_no_action_text_into_a_span(tmp_path):
    """An action or function name that is not a plain identifier (an object, a command) was
    copied into the span's name and ``attributes.action`` by ``str()``; only identifiers are."""
    path = CORPUS / "openhands" / "openhands__basic.json"
    events = json.loads(path.read_text())
    run = next(e for e in events if e.get("action") == "edit" and e.get("source") == "agent")
    run["action"] = "edit /etc/secret-plan.txt now"
    run["tool_call_metadata"]["function_name"] = "str_replace_editor --path /etc/secret-plan.txt"
    obj = next(e for e in events if e.get("action") == "finish")
    obj["action"] = {"command": "curl -u user:secret-token https://example.invalid"}
    hostile = tmp_path / path.name
    hostile.write_text(json.dumps(events, indent=2))
    (trace,) = import_traces("openhands", hostile)
    text = render_trace(trace)
    assert "secret-plan" not in text and "secret-token" not in text
    assert [s.name for s in trace.path()] == ["tool"]  # the edit, nameless; the object skipped
    assert "action" not in trace.path()[0].attributes


def test_openhands_soft_timeout():
    (trace,) = import_traces("openhands", CORPUS / "openhands" / "openhands__basic_gui_mode.json")
    server = [s for s in trace.path() if s.attributes.get("exit_code") == -1]
    assert [(s.outcome, s.status) for s in server] == [("timeout", "error")]
    assert trace.run.final_status == "success"


EVAL_OUTPUT = CORPUS / "openhands" / "openhands__multi_swe_bench_output.jsonl"


def test_openhands_evaluation_output_is_a_trace_per_instance(run_cli, tmp_path):
    """An evaluation's output.jsonl (one EvalOutput a line) was refused as invalid JSON, and a
    folder import skipped it without a word. Each line is a run: its instance is its scenario,
    its spans point at its line, an ``error`` (the iteration limit here) ends it in error."""
    instances = [json.loads(line) for line in EVAL_OUTPUT.read_text().splitlines()]
    traces = import_traces("openhands", EVAL_OUTPUT, scenario_id="ignored")
    assert [t.run.scenario_id for t in traces] == [i["instance_id"] for i in instances]
    assert [t.run.final_status for t in traces] == ["success", "success", "error"]
    assert len({t.run.trace_id for t in traces}) == 3
    for number, (trace, instance) in enumerate(zip(traces, instances, strict=True), 1):
        tools = [
            e.get("tool_call_metadata", {}).get("function_name")
            for e in instance["history"]
            if e.get("source") == "agent" and e.get("action") not in (None, "message", "system")
        ]
        assert [s.name for s in trace.path()] == tools
        assert {s.source_ref.line for s in trace.spans} == {number}
        assert {"instruction", "instance", "test_result"} <= set(trace.redaction.removed_fields)
        text = render_trace(trace)
        for raw in ("uploaded_files", "diff --git", instance["instance"]["problem_statement"][:30]):
            assert raw not in text
    options = ImportOptions(scenario_id="mine")
    get_importer("openhands").import_file(EVAL_OUTPUT, options)
    assert options.warnings == [
        "openhands__multi_swe_bench_output.jsonl: an evaluation's instance id is the scenario "
        "of its run; --scenario-id does not override it"
    ]

    folder = tmp_path / "eval"
    folder.mkdir()
    (folder / "output.jsonl").write_bytes(EVAL_OUTPUT.read_bytes())
    code, _, err = run_cli("import", "openhands", "--input", folder, "--out", tmp_path / "out")
    assert code == 0, err
    assert len(list((tmp_path / "out").glob("*.json"))) == 3


# ----------------------------------------------------------------- SWE-agent

SWE = sorted((CORPUS / "swe-agent").glob("*.traj"))
SWE_OWN = {"create", "edit", "insert", "open", "find_file", "submit"}


@pytest.mark.parametrize("path", SWE, ids=lambda p: p.name[:40])
def test_swe_agent_steps(path):
    document = json.loads(path.read_text())
    expected = []
    for step in document["trajectory"]:
        first = step["action"].split()[0]
        failed = re.search(
            r"Traceback|command not found|introduced new syntax error", step["observation"]
        )
        expected.append((first if first in SWE_OWN else "bash", "error" if failed else "success"))
    (trace,) = import_traces("swe-agent", path)
    assert path_statuses(trace) == expected
    assert sum(s.type == "llm" for s in trace.spans) == len(document["trajectory"])
    assert trace.run.final_status == "success"  # exit_status: submitted
    text = render_trace(trace)
    assert "reproduce" not in text and "diff --git" not in text


def test_swe_agent_bash_labels_and_durations():
    path = CORPUS / "swe-agent" / "sweagent__demo_function_calling_replace__marshmallow-1867.traj"
    (trace,) = import_traces("swe-agent", path, labels=parse_labels("python:tool"))
    assert [s.name for s in trace.path()].count("python") == 2
    assert trace.run.model_extra["replayed"] is True
    durations = [s.duration_ms for s in trace.path()]
    assert all(d is not None and d > 0 for d in durations)


def test_swe_agent_replay_config_is_not_a_replay():
    """SWE-agent 1.x writes replay_config on every run: a real gpt-4o run (cost and tokens
    recorded) is not a replay; a replayed demonstration (no tokens exchanged) is."""
    real = CORPUS / "swe-agent" / "sweagent__test-repo__6e44b9__sweagenttestrepo-1c2844.traj"
    document = json.loads(real.read_text())
    assert "replay_config" in document and document["info"]["model_stats"]["tokens_sent"] > 0
    (trace,) = import_traces("swe-agent", real)
    assert "replayed" not in trace.run.model_extra
    assert next(s.name for s in trace.spans if s.type == "llm") == "gpt-4o"
    demo = CORPUS / "swe-agent" / "sweagent__demo_function_calling_replace__marshmallow-1867.traj"
    (replay,) = import_traces("swe-agent", demo)
    assert replay.run.model_extra["replayed"] is True


@pytest.mark.parametrize("path", SWE, ids=lambda p: p.name[:40])
def test_swe_agent_source_lines_point_at_their_steps(path):
    raw_lines = path.read_text().splitlines()
    steps = json.loads(path.read_text())["trajectory"]
    (trace,) = import_traces("swe-agent", path)
    lines = [s.source_ref.line for s in trace.spans if s.type == "llm"]
    assert len(lines) == len(steps) and lines == sorted(set(lines))
    for line, step in zip(lines, steps, strict=True):
        # the step object opens on that line; its action is written within it
        assert raw_lines[line - 1].strip() == "{"
        nxt = lines[lines.index(line) + 1] if line != lines[-1] else len(raw_lines)
        assert json.dumps(step["action"])[1:20] in "\n".join(raw_lines[line - 1 : nxt])
    assert all(s.source_ref.line for s in trace.spans)


def test_removed_fields_are_what_the_file_held():
    held = {
        path.name: set(import_traces("swe-agent", path)[0].redaction.removed_fields) for path in SWE
    }
    old = held["sweagent__pydicom__pydicom-1458.traj"]  # 0.x: no replay_config, no history use
    assert "replay_config" not in old and "messages.content" not in old
    assert "replay_config" in held["sweagent__test-repo__6e44b9__sweagenttestrepo-1c2844.traj"]
    for path in SWE:
        document = json.loads(path.read_text())
        for name in held[path.name]:
            top = name.split(".")[0]
            assert document.get(top), (path.name, name)
    (mini,) = import_traces("swe-agent", MINI_LIST)
    assert mini.redaction.removed_fields == ["messages.content"]


SWE_DEMO = CORPUS / "swe-agent" / "demonstrations" / "sweagent__demo_function_calling_simple.traj"


def test_swe_agent_history_only_demonstration():
    """A demonstration holds only ``history``: each assistant message is an llm span, its
    ``action`` a tool span answered by the next tool message (it was refused as 'not a SWE-agent
    trajectory')."""
    history = json.loads(SWE_DEMO.read_text())["history"]
    assert "trajectory" not in json.loads(SWE_DEMO.read_text())
    actions = [m["action"] for m in history if m["role"] == "assistant"]
    expected = [(a.split()[0] if a.split()[0] in SWE_OWN else "bash", "success") for a in actions]
    (trace,) = import_traces("swe-agent", SWE_DEMO)
    assert path_statuses(trace) == expected
    assert sum(s.type == "llm" for s in trace.spans) == len(actions)
    assert [s.type for s in trace.path()][:2] == ["retriever", "retriever"]  # find_file, open
    assert trace.run.final_status == "unknown"  # no info.exit_status
    assert trace.redaction.removed_fields == ["history"]
    text = render_trace(trace)
    assert "missing_colon" not in text and "diff --git" not in text


def _without_trajectory(path: Path, tmp_path: Path, cut: int | None = None) -> Path:
    document = json.loads(path.read_text())
    del document["trajectory"]
    document["history"] = document["history"][:cut]
    out = tmp_path / path.name
    out.write_text(json.dumps(document, indent=2))
    return out


def test_a_runs_history_alone_gives_its_steps(tmp_path):
    """A real run's history without its trajectory gives the same steps: the in-context
    demonstration it starts with (``is_demo``) is not the run's, and the ``submit`` that ended
    the run, never answered in the history, succeeded."""
    path = CORPUS / "swe-agent" / "sweagent__pydicom__pydicom-1458.traj"
    assert any(m.get("is_demo") for m in json.loads(path.read_text())["history"])
    (full,) = import_traces("swe-agent", path)
    (alone,) = import_traces("swe-agent", _without_trajectory(path, tmp_path))
    assert [(s.type, s.name, s.status) for s in alone.spans] == [
        (s.type, s.name, s.status) for s in full.spans
    ]
    assert alone.path()[-1].name == "submit"


def test_an_unanswered_action_in_a_history_is_incomplete(tmp_path):
    path = CORPUS / "swe-agent" / "sweagent__pydicom__pydicom-1458.traj"
    history = json.loads(path.read_text())["history"]
    last_edit = max(
        i
        for i, m in enumerate(history)
        if m["role"] == "assistant" and m["action"].startswith("edit")
    )
    (trace,) = import_traces("swe-agent", _without_trajectory(path, tmp_path, cut=last_edit + 1))
    assert (trace.path()[-1].name, trace.path()[-1].status) == ("edit", "unknown")
    assert trace.path()[-1].outcome == "incomplete"


MINI_LIST = CORPUS / "mini-swe-agent" / "miniswe__github_issue.traj.json"


def test_mini_swe_agent_bare_message_list():
    """mini-swe-agent's bare list of messages (its inspector reads them) imports: one bash span
    per fenced ``mswea_bash_command``, its status from the next ``<returncode>``."""
    messages = json.loads(MINI_LIST.read_text())
    assert isinstance(messages, list)
    expected = []
    for message, reply in zip(messages, [*messages[1:], None], strict=True):
        if message["role"] == "assistant" and "```mswea_bash_command" in message["content"]:
            code = re.search(r"<returncode>(\d+)</returncode>", (reply or {}).get("content", ""))
            # the submit command's reply is the submitted diff itself, with no return code
            expected.append(("bash", "success" if not code or code.group(1) == "0" else "error"))
    assert expected.count(("bash", "error")) == 2  # non-zero return codes (a missing file, ...)
    (trace,) = import_traces("swe-agent", MINI_LIST)
    assert len(expected) >= 5 and path_statuses(trace) == expected
    assert sum(s.type == "llm" for s in trace.spans) == sum(
        m["role"] == "assistant" for m in messages
    )
    raw_lines = MINI_LIST.read_text().splitlines()
    for span in trace.spans:
        assert raw_lines[span.source_ref.line - 1].strip() == "{"
    assert "missing_colon" not in render_trace(trace)


def test_mini_swe_agent_list_in_a_folder_imports(run_cli, tmp_path):
    """A folder import is atomic: a bare-list file used to block every run beside it."""
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / MINI_LIST.name).write_bytes(MINI_LIST.read_bytes())
    (runs / SWE[0].name).write_bytes(SWE[0].read_bytes())
    code, _, err = run_cli("import", "swe-agent", "--input", runs, "--out", tmp_path / "out")
    assert code == 0, err
    assert len(list((tmp_path / "out").glob("*.json"))) == 2


def test_mini_swe_agent(tmp_path):
    doc = {
        "trajectory_format": "mini-swe-agent-1",
        "info": {"exit_status": "Submitted"},
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "assistant", "content": "Run it\n```bash\nmake test\n```"},
            {"role": "user", "content": "<returncode>2</returncode>\n<output>fail</output>"},
            {"role": "assistant", "content": "Again\n```bash\nls\n```"},
            {"role": "user", "content": "<returncode>0</returncode>"},
        ],
    }
    path = tmp_path / "run.traj.json"
    path.write_text(json.dumps(doc))
    (trace,) = import_traces("swe-agent", path, labels=parse_labels("make"))
    assert path_statuses(trace) == [("make", "error"), ("bash", "success")]


# ----------------------------------------------------------------- OpenAI Agents SDK

NATIVE = CORPUS / "openai-agents" / "gen__openai-agents-sdk__native-trace-export.json"


def test_openai_agents_native_export():
    data = json.loads(NATIVE.read_text())["data"]
    spans = {s["id"]: s for s in data if s["object"] == "trace.span"}

    def start(s):
        return s["started_at"]

    children: dict = {}
    for s in spans.values():
        children.setdefault(s["parent_id"] if s["parent_id"] in spans else None, []).append(s)
    walk = []

    def visit(parent):
        for s in sorted(children.get(parent, []), key=start):
            walk.append(s)
            visit(s["id"])

    visit(None)
    expected = []
    for s in walk:
        d = s["span_data"]
        status = "error" if s.get("error") else "success"
        if d["type"] == "function":
            expected.append((d["name"], status))
        elif d["type"] == "handoff":
            expected.append((d["to_agent"], status))
        elif d["type"] == "guardrail":
            expected.append((d["name"], status))
    (trace,) = import_traces("openai-agents", NATIVE)
    assert path_statuses(trace) == expected
    assert sum(s.type == "llm" for s in trace.spans) == sum(
        s["span_data"]["type"] == "generation" for s in spans.values()
    )
    assert trace.run.model_extra["workflow_name"] == "refund-workflow"
    refund_agent = [s for s in trace.path() if s.name == "issue_refund"]
    assert {s.attributes["agent"] for s in refund_agent} == {"Refunds agent"}


RESPONSES = CORPUS / "openai-agents" / "gen__openai-agents-sdk__responses-api-export.json"


def test_openai_agents_responses_api_spans_keep_their_token_counts():
    """The SDK's default model (the Responses API) records ``response`` spans, whose ``usage``
    was dropped (only ``generation`` spans' was read)."""
    data = json.loads(RESPONSES.read_text())["data"]
    usages = [
        s["span_data"]["usage"]
        for s in sorted(
            (s for s in data if s["object"] == "trace.span"), key=lambda s: s["started_at"]
        )
        if s["span_data"]["type"] == "response"
    ]
    assert len(usages) == 4
    (trace,) = import_traces("openai-agents", RESPONSES)
    llm = [s for s in trace.spans if s.type == "llm"]
    assert [(s.attributes["input_tokens"], s.attributes["output_tokens"]) for s in llm] == [
        (u["input_tokens"], u["output_tokens"]) for u in usages
    ]
    assert path_statuses(trace)[1:3] == [("get_weather", "success"), ("charge_card", "error")]
    assert "CANARY" not in render_trace(trace)


@pytest.mark.parametrize("key", ["span", "trace"])
@pytest.mark.parametrize("pretty", [False, True])
def test_openai_agents_objects_naming_no_trace_id_are_refused(run_cli, tmp_path, key, pretty):
    """Two runs whose objects name no trace id (null) were one run under the literal id
    "None" (both runs' tools on one path); such an object is refused, its line named."""
    data = []
    for path in (
        NATIVE,
        CORPUS / "openai-agents" / "gen__openai-agents-sdk-0.24.0__tool-error-raised.json",
    ):
        data += json.loads(path.read_text())["data"]
    nulled = next(
        i
        for i, item in enumerate(data)
        if item["object"] == f"trace{'.span' if key == 'span' else ''}"
    )
    data[nulled]["trace_id" if key == "span" else "id"] = None
    export = tmp_path / "export.json"
    export.write_text(json.dumps({"data": data}, indent=2 if pretty else None))
    code, _, err = run_cli("import", "openai-agents", "--input", export, "--out", tmp_path / "out")
    field = "trace_id" if key == "span" else "id"
    line = (
        next(
            n
            for n, text in enumerate(export.read_text().splitlines(), 1)
            if f'"{field}": null' in text
        )
        if pretty
        else 1
    )
    assert code == 2
    assert err.strip().splitlines() == [
        f"abw: error: {export}:{line}: {field}: a {key} names no trace id"
    ]
    assert not (tmp_path / "out").exists()


# ----------------------------------------------------------------- bad input, every importer


@pytest.mark.parametrize("name", ["langsmith", "gemini", "openhands", "swe-agent", "openai-agents"])
@pytest.mark.parametrize("content", ["{broken", '{"unrelated": true}', "[]"])
def test_bad_input_is_one_line_exit_2(run_cli, tmp_path, name, content):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    code, _, err = run_cli("import", name, "--input", bad, "--out", tmp_path / "o.json")
    assert code in (0, 2), err
    if content == "[]" and name == "openhands":
        assert code == 0  # an empty trajectory is a valid, empty run
        return
    assert code == 2, err
    assert "bad.json" in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_folder_discovery_skips_files_that_are_not_runs(run_cli, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    for path in SWE:
        (runs / path.name).write_bytes(path.read_bytes())
    (runs / "preds.json").write_text('{"pydicom__pydicom-1458": {"model_patch": "diff"}}')
    code, _, err = run_cli("import", "swe-agent", "--input", runs, "--out", tmp_path / "out")
    assert code == 0, err
    assert len(list((tmp_path / "out").glob("*.json"))) == len(SWE)


JSON_IMPORTERS = {  # a real export of each
    "langsmith": LANGSMITH[0],
    "gemini": GEMINI[0],
    "openhands": OPENHANDS[0],
    "swe-agent": SWE[0],
    "openai-agents": NATIVE,
    "otel": CORPUS / "otel" / "packetpanic__jaeger_get-inventory.json",
}


@pytest.mark.parametrize("name", sorted(JSON_IMPORTERS))
@pytest.mark.parametrize("content", [b"", b" \n\n", b"\xef\xbb\xbf", b"\xef\xbb\xbf \n"])
def test_an_empty_file_is_named_empty(tmp_path, name, content):
    empty = tmp_path / "empty.json"
    empty.write_bytes(content)
    with pytest.raises(AbwInputError, match="the file is empty"):
        import_traces(name, empty)


@pytest.mark.parametrize("name", sorted(JSON_IMPORTERS))
def test_a_byte_order_mark_is_skipped(tmp_path, name):
    source = JSON_IMPORTERS[name]
    marked = tmp_path / source.name
    marked.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
    plain, with_bom = import_traces(name, source), import_traces(name, marked)
    assert plain and len(with_bom) == len(plain)
    for a, b in zip(with_bom, plain, strict=True):
        assert a.source.source_hash != b.source.source_hash  # the hash is of the bytes as given
        assert [s.model_dump() for s in a.spans] == [s.model_dump() for s in b.spans]
        assert a.run.final_status == b.run.final_status


def test_a_time_past_the_last_utc_moment_is_no_time(tmp_path):
    """9999-12-31T23:59:59-05:00 parses but overflows in UTC: no start time, not a crash."""
    from abw.importers.spans import parse_time

    assert parse_time("9999-12-31T23:59:59-05:00") is None
    assert parse_time("9999-12-31T23:59:59+05:00") is not None
    document = json.loads(GEMINI[0].read_text())
    for message in document["messages"]:
        message["timestamp"] = "9999-12-31T23:59:59-05:00"
    late = tmp_path / GEMINI[0].name
    late.write_text(json.dumps(document))
    (trace,) = import_traces("gemini", late)
    (plain,) = import_traces("gemini", GEMINI[0])
    assert path_statuses(trace) == path_statuses(plain)
    messages = [s for s in trace.spans if s.type == "llm" and "#" not in s.span_id]
    assert all(s.started_at is None for s in messages)  # (a later turn's: its call's id time)


def test_folder_import_names_and_collisions(run_cli, tmp_path):
    """Many traces of one file are <stem>-000.json...; two inputs with one stem are refused
    before anything is written."""
    runs = tmp_path / "runs"
    for sub in ("a", "b"):
        (runs / sub).mkdir(parents=True)
    (source,) = [p for p in LANGSMITH if "batch" in p.name]
    (runs / "a" / "same.json").write_bytes(source.read_bytes())
    (runs / "b" / "same.json").write_bytes(source.read_bytes())
    out = tmp_path / "out"
    code, _, err = run_cli("import", "langsmith", "--input", runs, "--out", out)
    assert code == 2 and "would both be written to same.json" in err, err
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["runs"]
    code, _, err = run_cli("import", "langsmith", "--input", runs / "a", "--out", out)
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["same.json"]
    document = json.loads(source.read_text())
    copy = [{**r, "trace_id": r["trace_id"] + "-2", "id": r["id"] + "-2"} for r in document["post"]]
    for run in copy:
        if run.get("parent_run_id"):
            run["parent_run_id"] += "-2"
    two = tmp_path / "two.json"
    two.write_text(json.dumps({"post": document["post"] + copy}))
    for target in (tmp_path / "many", tmp_path / "many.json"):
        code, _, err = run_cli("import", "langsmith", "--input", two, "--out", target)
        if target.suffix == ".json":
            assert code == 2 and "2 traces to write: --out must be a folder" in err, err
        else:
            assert code == 0, err
            assert sorted(p.name for p in target.iterdir()) == ["two-000.json", "two-001.json"]


def _held_independently(objects: list[dict], field: str) -> bool:
    return any(o.get(field) not in (None, "", [], {}) for o in objects)


def test_removed_fields_of_every_json_importer_are_what_the_input_held():
    """Each importer lists the content kinds its input held: no fixed list (a session with no
    tool calls does not list tool arguments; an export without events does not list events)."""
    codex = CORPUS / "codex" / "agenthistory__real_sessions_codex_session-01.jsonl"
    payloads = [json.loads(line).get("payload", {}) for line in codex.read_text().splitlines()]
    (trace,) = import_traces("codex", codex)
    assert not any(p.get("type") == "function_call" for p in payloads)
    assert "function_call.arguments" not in trace.redaction.removed_fields
    assert "message.content" in trace.redaction.removed_fields
    batch = CORPUS / "langsmith" / "gen__langsmith__runs-batch_payload.json"
    document = json.loads(batch.read_text())
    runs = document["post"] + document.get("patch", [])
    for trace in import_traces("langsmith", batch):
        assert trace.redaction.removed_fields
        for name in trace.redaction.removed_fields:
            assert _held_independently(runs, name), name
    for name in ("tags", "events"):
        held = _held_independently(runs, name)
        assert (
            any(name in t.redaction.removed_fields for t in import_traces("langsmith", batch))
            == held
        )
    (native,) = import_traces("openai-agents", NATIVE)
    spans = [o for o in json.loads(NATIVE.read_text())["data"] if o.get("object") == "trace.span"]
    assert ("error.message" in native.redaction.removed_fields) == _held_independently(
        [s.get("error") or {} for s in spans], "message"
    )
    assert "trace.metadata" not in native.redaction.removed_fields  # the trace has none
    any_agent = CORPUS / "any-agent" / "anyagent__OPENAI_trace.json"
    (trace,) = import_traces("otel", any_agent)
    assert not _held_independently(json.loads(any_agent.read_text())["spans"], "events")
    assert trace.redaction.removed_fields == ["span.attributes", "span.name"]


def test_an_export_of_many_traces_hashes_its_bytes_once(monkeypatch, tmp_path):
    """Every trace of a file records the file's SHA-256; it was computed once a trace (and
    OpenHands hashed the file once more per trace for its id): an evaluation output of
    thousands of instances, or an OTLP export of thousands of traces, hashed its whole bytes
    thousands of times. Real files: OpenHands' evaluation output, two OTLP exports in one."""
    import hashlib

    otlp = tmp_path / "two.jsonl"
    otlp.write_bytes(
        b"".join(
            (CORPUS / "otel" / name).read_bytes()
            for name in (
                "gen__otlp-json__openai-agents__openinference.jsonl",
                "gen__otlp-json__pydantic-ai__genai-semconv.jsonl",
            )
        )
    )
    real = hashlib.sha256
    for name, path in (("openhands", EVAL_OUTPUT), ("otel", otlp)):
        raw = path.read_bytes()
        whole: list[int] = []

        def counting(data=b"", *args, raw=raw, whole=whole, **kwargs):
            if data == raw:
                whole.append(1)
            return real(data, *args, **kwargs)

        monkeypatch.setattr(hashlib, "sha256", counting)
        traces = import_traces(name, path)
        monkeypatch.setattr(hashlib, "sha256", real)
        assert len(traces) > 1 and len(whole) == 1, (name, len(traces), len(whole))
        assert {t.source.source_hash for t in traces} == {real(raw).hexdigest()}
