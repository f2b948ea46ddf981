"""``abw import claude`` on every real Claude Code transcript of the corpus.

The expected tool calls are counted here straight from the raw JSONL with a small parser of
its own (``expected_calls``), not with the importer's code.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from abw.importers.base import ImportOptions
from abw.importers.claude import ClaudeImporter
from abw.importers.claude.outcomes import classify_result
from abw.traceio import render_trace
from abw.validate import validate_document
from tests.conftest import CORPUS
from tests.importkit import CLAUDE_NO_RUN, claude_corpus_runs, import_trace

CLAUDE = CORPUS / "claude-code"
FILES = claude_corpus_runs()
PINNED = "2026-01-01T00:00:00.000000Z"


# ----------------------------------------------------------------- independent raw reading
def raw_lines(path: Path) -> list[tuple[int, dict]]:
    return [
        (number, json.loads(text))
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if text.strip()
    ]


def expected_status(block: dict, line: dict) -> str:
    """Status of a tool call from its raw tool_result, by the format's documented markers."""
    content = block.get("content")
    if isinstance(content, list):
        content = "\n".join(b.get("text", "") for b in content if b.get("type") == "text")
    content = content or ""
    result = line.get("toolUseResult")
    failed = block.get("is_error") is True or (
        isinstance(result, str) and result.startswith("Error")
    )
    if result == "User rejected tool use" or (
        failed and content.startswith("The user doesn't want to proceed")
    ):
        return "cancelled"
    if (
        failed and content.startswith(("[Request interrupted", "Permission prompt was aborted"))
    ) or (isinstance(result, dict) and result.get("interrupted") is True):
        return "cancelled"
    return "error" if failed else "success"


#: A background task's final status (task notification, TaskOutput, TaskStop) -> the span status
#: of the call that launched it.
BACKGROUND_STATUS = {"completed": "success", "failed": "error", "killed": "cancelled"}


def _background_end(line: dict, background: dict[str, list]) -> None:
    """Apply a background task's end (as the user line or the poll/stop result reports it)."""
    content = line["message"]["content"]
    texts = [content] if isinstance(content, str) else [b.get("text", "") for b in content]
    for text in texts:
        found = re.match(
            r"<task-notification>\s*<task-id>(\w+)</task-id>.*?<status>(\w+)</status>",
            text or "",
            re.S,
        )
        if found and found[1] in background and found[2] in BACKGROUND_STATUS:
            background[found[1]][1] = BACKGROUND_STATUS[found[2]]
    result = line.get("toolUseResult")
    if not isinstance(result, dict):
        return
    task = result.get("task")
    if isinstance(task, dict) and task.get("task_id") in background:
        if task.get("status") in BACKGROUND_STATUS:
            background[task["task_id"]][1] = BACKGROUND_STATUS[task["status"]]
    elif "task" not in result and result.get("task_id") in background and "message" in result:
        background[result["task_id"]][1] = "cancelled"  # TaskStop
    elif result.get("shellId") in background and result.get("status") in BACKGROUND_STATUS:
        background[result["shellId"]][1] = BACKGROUND_STATUS[result["status"]]  # BashOutput
    elif result.get("shell_id") in background and result.get("success") is True:
        background[result["shell_id"]][1] = "cancelled"  # KillBash / KillShell (before 2.1)


def expected_calls(path: Path) -> dict[str, list[tuple[str, str, int]]]:
    """Tool calls per agent: ``main``, or the root uuid of an inline sidechain.

    Each call is (tool name, status, raw line); calls never answered are ``cancelled`` when an
    interrupt marker follows in their agent, else ``unknown``. A call that launched a background
    task takes the status its end reports.
    """
    calls: dict[str, list[list]] = defaultdict(list)
    by_id: dict[str, list] = {}
    root_of: dict[str, str] = {}
    background: dict[str, list] = {}  # task id -> the call that launched it
    for number, line in raw_lines(path):
        if line.get("type") not in ("user", "assistant"):
            continue
        agent = "main"
        if line.get("isSidechain") and not line.get("agentId"):
            agent = root_of.get(line.get("parentUuid"), line["uuid"])
            root_of[line["uuid"]] = agent
        content = line["message"]["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content:
            if block.get("type") == "tool_use" and block["id"] not in by_id:
                call = [block["name"], "unknown", number, agent]
                by_id[block["id"]] = call
                calls[agent].append(call)
            elif block.get("type") == "tool_result":
                call = by_id.get(block["tool_use_id"])
                if call is not None and call[1] == "unknown":
                    call[1] = expected_status(block, line)
                    result = line.get("toolUseResult")
                    if call[1] == "success" and isinstance(result, dict):
                        task_id = result.get("backgroundTaskId") or (
                            result.get("isAsync") is True and result.get("agentId")
                        )
                        if task_id:
                            background[task_id] = call
            elif block.get("type") == "text" and block["text"].startswith("[Request interrupted"):
                for call in calls[agent]:
                    if call[1] == "unknown":
                        call[1] = "cancelled"
        _background_end(line, background)
    return {agent: [tuple(c[:3]) for c in agent_calls] for agent, agent_calls in calls.items()}


def first_user_text(path: Path, root: str) -> str:
    for _, line in raw_lines(path):
        if line.get("uuid") == root:
            return line["message"]["content"] if isinstance(line["message"]["content"], str) else ""
    return ""


def import_one(path: Path, **options) -> tuple[object, ImportOptions]:
    opts = ImportOptions(exported_at=PINNED, **options)
    return import_trace(ClaudeImporter(), path, opts), opts


def tool_spans(trace) -> list:
    return [s for s in trace.spans if "tool" in s.attributes]


# ----------------------------------------------------------------- every corpus file
def test_corpus_is_there():
    assert len(FILES) >= 22


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_tool_spans_match_raw_file(path: Path):
    trace, _ = import_one(path)
    expected = expected_calls(path)
    spans = tool_spans(trace)
    sidechain_file = raw_lines(path)[0][1].get("isSidechain") is True

    # the session's own calls: same count, order, names and statuses
    own = [s for s in spans if s.parent_span_id is None]
    want_own = expected.get("main", [])
    if sidechain_file:
        assert all(s.attributes["agent"] == "subagent" for s in spans)
    assert [(s.attributes["tool"], s.status, s.source_ref.line) for s in own] == want_own
    # no labels given: the name is the tool's, the subagent tool's current one (Task -> Agent)
    assert all(s.name == {"Task": "Agent"}.get(t, t) for s in spans if (t := s.attributes["tool"]))

    # inline sidechains (1.0.x): one group of spans per sidechain, under its Task handoff
    groups: dict[str, list] = defaultdict(list)
    for span in spans:
        if span.parent_span_id is not None and span.source_ref.file == path.name:
            groups[span.parent_span_id].append(
                (span.attributes["tool"], span.status, span.source_ref.line)
            )
    want_inline = [
        calls
        for agent, calls in expected.items()
        if agent != "main" and first_user_text(path, agent) != "Warmup"
    ]
    assert sorted(groups.values()) == sorted(want_inline)

    # never success for a call without a result; every span is located in the raw file
    by_line = dict(raw_lines(path))
    for span in trace.spans:
        assert span.source_ref.line >= 1
        if span.source_ref.file == path.name and "tool" in span.attributes:
            line = by_line[span.source_ref.line]
            names = [b.get("name") for b in line["message"]["content"] if isinstance(b, dict)]
            assert span.attributes["tool"] in names
    assert [s.ordinal for s in trace.spans] == list(range(len(trace.spans)))
    assert validate_document(json.loads(render_trace(trace)), path.name) == []


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_reimport_is_byte_identical(path: Path):
    first, _ = import_one(path)
    second, _ = import_one(path)
    assert render_trace(first) == render_trace(second)
    other = ClaudeImporter().import_file(path, ImportOptions(exported_at="2030-01-01T00:00:00Z"))
    assert render_trace(other[0]).replace("2030-01-01T00:00:00Z", PINNED) == render_trace(first)


def test_subagent_spans_follow_their_handoff():
    """Every subagent group sits right after its handoff span, with parent_span_id set."""
    for path in FILES:
        trace, _ = import_one(path)
        by_id = {s.span_id: s for s in trace.spans}
        for index, span in enumerate(trace.spans):
            if span.parent_span_id is None:
                continue
            parent = by_id[span.parent_span_id]
            assert parent.type == "handoff" and parent.ordinal < span.ordinal
            before = trace.spans[index - 1]
            assert before.span_id in (parent.span_id,) or before.parent_span_id in (
                parent.span_id,
            ), f"{path.name}: span {span.ordinal} does not follow its handoff"
            assert span.attributes["agent"] == "subagent"


# ----------------------------------------------------------------- specific facts of the corpus
def spans_named(trace, name):
    return [s for s in trace.spans if s.name == name]


def test_outcomes_are_distinct():
    short, _ = import_one(CLAUDE / "spotter__short.jsonl")
    assert [(s.name, s.status, s.outcome) for s in tool_spans(short)] == [
        ("Bash", "cancelled", "rejected"),
        ("Glob", "cancelled", "rejected"),
    ]
    assert short.run.final_status == "cancelled"
    denied, _ = import_one(CLAUDE / "ccviewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
    assert [(s.name, s.outcome) for s in tool_spans(denied) if s.outcome != "ok"] == [
        ("Write", "denied")
    ]
    errors, _ = import_one(CLAUDE / "spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl")
    outcomes = [s.outcome for s in tool_spans(errors)]
    assert outcomes.count("error") == 6 and outcomes.count("rejected") == 1


def test_successful_read_of_a_transcript_is_ok():
    """A Read whose output is itself a transcript holding the rejection and interrupt texts
    succeeded: the result's structure (no is_error, a toolUseResult file record) decides."""
    path = CLAUDE / "spotter__8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
    trace, _ = import_one(path)
    reads = {s.source_ref.line: s for s in tool_spans(trace) if s.name == "Read"}
    result_line = dict(raw_lines(path))[78]
    text = result_line["message"]["content"][0]["content"]
    assert "The user doesn't want to proceed with this tool use" in text  # the real file holds it
    call = next(
        s
        for s in reads.values()
        if any(
            b.get("id") == result_line["message"]["content"][0]["tool_use_id"]
            for b in dict(raw_lines(path))[s.source_ref.line]["message"]["content"]
        )
    )
    assert (call.status, call.outcome) == ("success", "ok")
    assert not [s for s in tool_spans(trace) if s.outcome in ("rejected", "interrupted")]


def test_cut_off_call_is_incomplete_never_success():
    trace, _ = import_one(CLAUDE / "agentcmd__06381696-0074-49f8-863e-6ad4fac507f9.jsonl")
    last = tool_spans(trace)[-1]
    assert (last.name, last.status, last.outcome) == ("ExitPlanMode", "unknown", "incomplete")
    assert last.duration_ms is None
    assert trace.run.final_status == "unknown"


def test_mcp_tool_keeps_name_and_server():
    trace, _ = import_one(CLAUDE / "agentcmd__individual__tool-mcp__happy__change_title.jsonl")
    (span,) = tool_spans(trace)
    assert span.name == "mcp__happy__change_title"
    assert span.attributes["mcp_server"] == "happy"
    assert span.attributes["mcp_tool"] == "change_title"
    assert span.outcome == "incomplete"


def test_one_llm_span_per_api_response():
    path = CLAUDE / "codemie__session-196820da.jsonl"
    trace, _ = import_one(path)
    ids = {line["message"]["id"] for _, line in raw_lines(path) if line.get("type") == "assistant"}
    assert len([s for s in trace.spans if s.type == "llm"]) == len(ids)


def test_span_types():
    trace, _ = import_one(CLAUDE / "spotter__subagent.jsonl")
    types = {s.attributes["tool"]: s.type for s in tool_spans(trace)}
    assert types["Task"] == "handoff"
    assert types["WebSearch"] == "retriever" and types["WebFetch"] == "retriever"
    heavy, _ = import_one(CLAUDE / "ccviewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    assert {s.type for s in heavy.spans if s.name == "TodoWrite"} == {"memory"}
    assert {s.type for s in heavy.spans if s.name == "Bash"} == {"tool"}


def test_compaction_is_a_memory_span_and_acompact_is_left_out():
    trace, _ = import_one(CLAUDE / "spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl")
    (compaction,) = spans_named(trace, "compaction")
    assert compaction.type == "memory" and compaction.attributes["trigger"] == "auto"
    files = {s.source_ref.file for s in trace.spans}
    assert "spotter__258c7280__subagents__agent-acompact-fffbd0.jsonl" not in files
    assert "spotter__258c7280__subagents__agent-a881341.jsonl" in files


def test_durations_never_negative_and_timestamps_going_back(tmp_path: Path):
    source = CLAUDE / "spotter__tool_heavy.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines()
    rewound = []
    for text in lines:  # every tool result now claims to come before its call
        line = json.loads(text)
        if line.get("type") == "user" and "toolUseResult" in line:
            line["timestamp"] = "2000-01-01T00:00:00.000Z"
        rewound.append(json.dumps(line))
    path = tmp_path / "rewound.jsonl"
    path.write_text("\n".join(rewound) + "\n", encoding="utf-8")
    original, _ = import_one(source)
    trace, _ = import_one(path)
    assert [(s.name, s.status) for s in trace.spans] == [(s.name, s.status) for s in original.spans]
    for span in trace.spans:
        assert span.duration_ms is None or span.duration_ms >= 0


def test_unknown_record_types_are_skipped(tmp_path: Path):
    source = CLAUDE / "spotter__short.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines()
    strange = [json.dumps({"type": "brand-new-record", "payload": {"x": 1}}), json.dumps({"a": 1})]
    path = tmp_path / "strange.jsonl"
    path.write_text("\n".join([lines[0], *strange, *lines[1:]]) + "\n", encoding="utf-8")
    trace, _ = import_one(path)
    original, _ = import_one(source)
    assert [(s.name, s.status) for s in trace.spans] == [(s.name, s.status) for s in original.spans]


def test_trailing_partial_line_is_a_warning(tmp_path: Path):
    source = CLAUDE / "spotter__tool_heavy.jsonl"
    text = source.read_text(encoding="utf-8")
    path = tmp_path / "live.jsonl"
    path.write_text(text + text.splitlines()[5][:40], encoding="utf-8")
    trace, options = import_one(path)
    original, _ = import_one(source)
    assert len(trace.spans) == len(original.spans)
    assert any("cut-off last line" in w for w in options.warnings)


def test_cut_off_file_mid_session(tmp_path: Path):
    """A file cut right after a tool call: the call is incomplete, the run unknown."""
    source = CLAUDE / "codemie__4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines()
    cut = next(
        i
        for i, text in enumerate(lines)
        if '"tool_use"' in text and json.loads(text).get("type") == "assistant"
    )
    path = tmp_path / "cut.jsonl"
    path.write_text("\n".join(lines[: cut + 1]) + "\n", encoding="utf-8")
    trace, _ = import_one(path)
    last = tool_spans(trace)[-1]
    assert (last.status, last.outcome) == ("unknown", "incomplete")
    assert trace.run.final_status == "unknown"


# ----------------------------------------------------------------- labels and canonical output
def test_bash_labels_name_and_type_spans():
    path = CLAUDE / "spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    commands = [
        block["input"]["command"]
        for _, line in raw_lines(path)
        if line.get("type") == "assistant"
        for block in line["message"]["content"]
        if block.get("type") == "tool_use" and block["name"] == "Bash"
    ]
    git_calls = sum(1 for c in commands if "git" in c.replace("-", " ").split())
    from abw.importers.common import parse_labels

    trace, _ = import_one(path, labels=parse_labels("git:guardrail"))
    labelled = spans_named(trace, "git")
    assert len(labelled) == git_calls > 0
    assert {(s.type, s.attributes["tool"], s.attributes["label"]) for s in labelled} == {
        ("guardrail", "Bash", "git")
    }
    rendered = render_trace(trace)
    assert all(command not in rendered for command in commands)


def _session_with_final_answer(tmp_path: Path, answer: str) -> Path:
    source = CLAUDE / "codemie__4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
    lines = [json.loads(t) for t in source.read_text(encoding="utf-8").splitlines()]
    last = next(line for line in reversed(lines) if line.get("type") == "assistant")
    final = json.loads(json.dumps(last))
    final["uuid"] = "final-answer"
    final["message"]["id"] = "msg_final"
    final["message"]["content"] = [{"type": "text", "text": answer}]
    path = tmp_path / "final.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in [*lines, final]) + "\n", encoding="utf-8")
    return path


def test_output_fields_and_final_output_hash(tmp_path: Path):
    from abw.hashing import content_hash

    answer = 'Done.\n```json\n{"refund": {"amount": 12}, "approved": true, "note": "SECRET"}\n```'
    path = _session_with_final_answer(tmp_path, answer)
    trace, _ = import_one(path, output_fields=("approved", "refund.amount", "missing"))
    assert trace.run.canonical_output == {"approved": True, "refund.amount": 12}
    assert trace.run.final_output_hash == content_hash(answer)
    assert trace.run.final_status == "success"
    assert "SECRET" not in render_trace(trace)


# ----------------------------------------------------------------- project folders
def _project(tmp_path: Path) -> Path:
    """A ~/.claude/projects/<dir> with both subagent layouts, built from corpus files."""
    project = tmp_path / "-home-user-project"
    sub = project / "258c7280-ae70-4798-800f-63464d01a85d" / "subagents"
    sub.mkdir(parents=True)
    copies = {
        "spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl": project
        / "258c7280-ae70-4798-800f-63464d01a85d.jsonl",
        "spotter__258c7280__subagents__agent-a881341.jsonl": sub / "agent-a881341.jsonl",
        "spotter__258c7280__subagents__agent-acompact-fffbd0.jsonl": sub
        / "agent-acompact-fffbd0.jsonl",
        "codemie__4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl": project
        / "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
        "codemie__agent-36541525.jsonl": project / "agent-36541525.jsonl",
        "codemie__agent-50243ee8.jsonl": project / "agent-50243ee8.jsonl",
        "ccviewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl": project
        / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
    }
    for name, target in copies.items():
        target.write_bytes((CLAUDE / name).read_bytes())
    return project


def test_discover_returns_only_sessions(tmp_path: Path):
    project = _project(tmp_path)
    found = [p.name for p in ClaudeImporter().discover(project)]
    assert found == [
        "258c7280-ae70-4798-800f-63464d01a85d.jsonl",
        "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
        "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
    ]
    # the flattened corpus folder works the same way: sidechain files are recognised by content
    corpus_found = {p.name for p in ClaudeImporter().discover(CLAUDE)}
    assert "codemie__agent-36541525.jsonl" not in corpus_found
    assert "spotter__258c7280__subagents__agent-a881341.jsonl" not in corpus_found
    assert "spotter__short.jsonl" in corpus_found


def test_subagents_folder_layout(tmp_path: Path):
    project = _project(tmp_path)
    trace, options = import_one(project / "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
    (task,) = [s for s in trace.spans if s.type == "handoff"]
    children = [s for s in trace.spans if s.parent_span_id == task.span_id]
    raw = expected_calls(CLAUDE / "spotter__258c7280__subagents__agent-a881341.jsonl")["main"]
    assert [(s.name, s.status) for s in children if "tool" in s.attributes] == [
        (name, status) for name, status, _ in raw
    ]
    assert {s.source_ref.file for s in children} == {"agent-a881341.jsonl"}
    assert {s.attributes["agent_id"] for s in children} == {"a881341"}
    assert children[0].ordinal == task.ordinal + 1
    assert [f["file"] for f in trace.source.subagent_files] == ["agent-a881341.jsonl"]
    assert options.warnings == []


def test_warmup_agents_are_left_out(tmp_path: Path):
    project = _project(tmp_path)
    trace, _ = import_one(project / "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl")
    alone, _ = import_one(CLAUDE / "codemie__4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl")
    assert all(s.attributes["agent"] == "main" for s in trace.spans)
    assert {s.source_ref.file for s in trace.spans} == {
        "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
    }
    assert len(trace.spans) == len(alone.spans)


def test_a_subagent_transcript_without_its_session_in_a_folder_imports_alone(run_cli, tmp_path):
    """A subagent transcript whose session was not exported with it was silently dropped from a
    folder import ('no claude exports found' when alone); it imports on its own, said so."""
    folder = tmp_path / "project"
    nested = folder / "258c7280-ae70-4798-800f-63464d01a85d" / "subagents"
    nested.mkdir(parents=True)
    for name, target in {
        "spotter__258c7280__subagents__agent-a881341.jsonl": nested / "agent-a881341.jsonl",
        "spotter__258c7280__subagents__agent-acompact-fffbd0.jsonl": nested
        / "agent-acompact-fffbd0.jsonl",
        "spotter__short.jsonl": folder / "short.jsonl",
    }.items():
        target.write_bytes((CLAUDE / name).read_bytes())
    found = ClaudeImporter().discover(folder)
    assert [p.name for p in found] == ["agent-a881341.jsonl", "short.jsonl"]  # not the helper
    code, _, err = run_cli("import", "claude", "--input", folder, "--out", tmp_path / "out")
    assert code == 0, err
    assert "agent-a881341.jsonl: a subagent transcript" in err and "imported on its own" in err
    assert sorted(p.name for p in (tmp_path / "out").glob("*.json")) == [
        "agent-a881341.json",
        "short.json",
    ]
    # with its session beside it, it is read with the session, never twice
    (folder / "258c7280-ae70-4798-800f-63464d01a85d.jsonl").write_bytes(
        (CLAUDE / "spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl").read_bytes()
    )
    found = ClaudeImporter().discover(folder)
    assert [p.name for p in found] == ["258c7280-ae70-4798-800f-63464d01a85d.jsonl", "short.jsonl"]


PROJECT = CORPUS / "claude-code-projects" / "kfischer-okarin__-Users-user-project"


def test_a_real_project_folder_imports_its_sessions(run_cli, tmp_path):
    """A real ~/.claude/projects folder (2.0.74): two sessions resumed and left at once are
    empty files (one failed the whole import: 'empty file'), the cache warm-up sidechains
    of those sessions are no agent work (they would have been runs of their own), and six
    files hold only bookkeeping (titles of other sessions, file snapshots): they were six runs
    with no span and an unknown status, each an incomplete run in a gate."""
    files = sorted(PROJECT.glob("*.jsonl"))
    empty = {p.stem for p in files if p.stat().st_size == 0}
    sessions = {
        p.stem
        for p in files
        if p.stat().st_size and not json.loads(p.read_text().splitlines()[0]).get("isSidechain")
    }
    assert len(empty) == 2 and len(sessions) == 8
    warmups = {
        p.stem
        for p in files
        if p.stat().st_size
        and json.loads(p.read_text().splitlines()[0]).get("message", {}).get("content") == "Warmup"
    }
    assert len(warmups) > 2
    code, _, err = run_cli("import", "claude", "--input", PROJECT, "--out", tmp_path / "out")
    assert code == 0, err
    kinds = {
        p.stem: {json.loads(line)["type"] for line in p.open()} for p in files if p.stem in sessions
    }
    bookkeeping = {s for s, types in kinds.items() if types <= {"summary", "file-history-snapshot"}}
    cleared = {
        s for s in sessions if "<command-name>/clear<" in (PROJECT / f"{s}.jsonl").read_text()
    }
    assert len(bookkeeping) == 6 and len(cleared) == 1  # (a `/clear` alone: no prompt either)
    assert {p.stem for p in (tmp_path / "out").glob("*.json")} == sessions - bookkeeping - cleared
    skipped = [line for line in err.splitlines() if "no prompt and no step" in line]
    no_runs = bookkeeping | cleared
    assert sorted(line.split()[2] for line in skipped) == sorted(f"{s}.jsonl:" for s in no_runs)
    trace = json.loads((tmp_path / "out" / "b3edadab-bca0-4054-9b41-f7ffa6941260.json").read_text())
    task = [s for s in trace["spans"] if s["type"] == "handoff"]
    assert task and any(s.get("parent_span_id") == task[0]["span_id"] for s in trace["spans"])


def test_a_subagent_of_a_resumed_session_is_not_taken_for_an_orphan(run_cli, tmp_path):
    """A resumed session's first lines carry its new id and its later lines the earlier one its
    subagent transcript names: that transcript is read with the session, not imported again
    on its own."""
    main = CLAUDE / "spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    lines = main.read_text().splitlines(keepends=True)
    first = next(n for n, line in enumerate(lines) if '"sessionId"' in line)
    old_id = json.loads(lines[first])["sessionId"]
    lines[first] = lines[first].replace(old_id, "0a0a0a0a-0000-4000-8000-000000000000")
    assert any(old_id in line for line in lines[first + 1 :])
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "resumed.jsonl").write_text("".join(lines))
    agent = folder / "agent-a881341.jsonl"  # beside the session (the 2.0.x layout)
    agent.write_bytes((CLAUDE / "spotter__258c7280__subagents__agent-a881341.jsonl").read_bytes())
    assert json.loads(agent.read_text().splitlines()[0])["sessionId"] == old_id
    assert [p.name for p in ClaudeImporter().discover(folder)] == ["resumed.jsonl"]
    code, _, err = run_cli("import", "claude", "--input", folder, "--out", tmp_path / "out")
    assert code == 0, err
    assert [p.name for p in (tmp_path / "out").glob("*.json")] == ["resumed.json"]


def test_subagent_file_alone_imports_with_a_warning():
    trace, options = import_one(CLAUDE / "spotter__258c7280__subagents__agent-a881341.jsonl")
    assert trace.run.trace_id == "258c7280-ae70-4798-800f-63464d01a85d/agent-a881341"
    assert {s.attributes["agent"] for s in trace.spans} == {"subagent"}
    assert any("subagent transcript" in w for w in options.warnings)


def test_missing_subagent_transcript_is_a_warning():
    _, options = import_one(CLAUDE / "spotter__subagent.jsonl")
    assert any("no transcript found for subagent afb92ff" in w for w in options.warnings)


def test_a_task_call_without_its_inline_sidechain_is_a_warning():
    """1.0.x writes a Task's subagent inline; a session without it (an SDK run) has lost the
    subagent's spans, which is said, as for the later layouts."""
    path = CLAUDE / "happy__task_sdk.jsonl"
    task_lines = [
        n for n, line in raw_lines(path) for b in _blocks(line) if b.get("name") == "Task"
    ]
    assert not any(line.get("isSidechain") for _, line in raw_lines(path))
    _, options = import_one(path)
    assert [w for w in options.warnings if "Task call" in w] == [
        f"{path.name}:{task_lines[0]}: no transcript found for the subagent of this Task call; "
        "its spans are missing"
    ]
    _, linked = import_one(CLAUDE / "ccviewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    assert not any("Task call" in w for w in linked.warnings)


def _blocks(line: dict) -> list[dict]:
    content = (line.get("message") or {}).get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def test_an_aborted_permission_prompt_is_an_interrupt_not_a_failure():
    path = CLAUDE / "happy__permission-prompt-aborted-with-interrupt.jsonl"
    results = [
        b for _, line in raw_lines(path) for b in _blocks(line) if b.get("type") == "tool_result"
    ]
    assert [(b["content"], b["is_error"]) for b in results] == [
        ("Permission prompt was aborted.", True)
    ]
    trace, _ = import_one(path)
    (call,) = tool_spans(trace)
    assert (call.outcome, call.status) == ("interrupted", "cancelled")


def test_attachment_records_are_claude_code_records(run_cli, tmp_path: Path):
    """Claude Code 2.1.x writes ``attachment`` records (goal status, hook output): a folder
    holding a session of only one imports whole (it was refused as 'not a Claude Code
    transcript', failing the folder); that session asked its agent nothing, so it is no run
    (it was a run with no span, status unknown), skipped with a warning."""
    path = CLAUDE / "happy__goal-status-active.jsonl"
    assert [line["type"] for _, line in raw_lines(path)] == ["attachment"]
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name in (path.name, "spotter__short.jsonl"):
        (folder / name).write_bytes((CLAUDE / name).read_bytes())
    code, _, err = run_cli("import", "claude", "--input", folder, "--out", tmp_path / "out")
    assert code == 0, err
    assert [p.name for p in (tmp_path / "out").glob("*.json")] == ["spotter__short.json"]
    assert f"{path.name}: no prompt and no step" in err
    assert "keep this goal active" not in err


@pytest.mark.parametrize("name", sorted(CLAUDE_NO_RUN))
def test_a_session_that_asked_its_agent_nothing_is_no_run(name):
    """A shell-mode command alone (the user's own shell), a goal-status attachment alone: no
    prompt, no step. Each was a run with no span and status unknown (an incomplete run in a
    gate); now no trace, with a warning naming the file."""
    options = ImportOptions(exported_at="2026-01-01T00:00:00Z")
    assert ClaudeImporter().import_file(CLAUDE / name, options) == []
    (warning,) = options.warnings
    assert warning.startswith(f"{name}: no prompt and no step") and "no run, skipped" in warning


def test_resumed_session_takes_the_last_session_id(tmp_path: Path):
    lines = [json.loads(t) for t in (CLAUDE / "spotter__short.jsonl").read_text().splitlines()]
    for line in lines[len(lines) // 2 :]:
        if "sessionId" in line:
            line["sessionId"] = "resumed-session"
    path = tmp_path / "resumed.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    trace, _ = import_one(path)
    assert trace.run.trace_id == "resumed-session"


def test_top_level_agent_file_layout(tmp_path: Path):
    """2.0.x layout: ``agent-<id>.jsonl`` next to the session, linked by session and agent id."""
    project = tmp_path / "project"
    project.mkdir()
    session = project / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    session.write_bytes(
        (CLAUDE / "spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl").read_bytes()
    )
    for name in ("agent-a881341.jsonl", "agent-acompact-fffbd0.jsonl"):
        source = CLAUDE / f"spotter__258c7280__subagents__{name}"
        (project / name).write_bytes(source.read_bytes())
    assert ClaudeImporter().discover(project) == [session]
    trace, options = import_one(session)
    (task,) = [s for s in trace.spans if s.type == "handoff"]
    children = [s for s in trace.spans if s.parent_span_id == task.span_id]
    assert {s.source_ref.file for s in children} == {"agent-a881341.jsonl"}
    assert [s.name for s in children if "tool" in s.attributes] == ["WebFetch", "WebFetch"]
    assert options.warnings == []


def test_api_error_ending(tmp_path: Path):
    """A session that ends on a synthetic API-error message ends in error; it is no answer."""
    source = CLAUDE / "codemie__4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
    lines = [json.loads(t) for t in source.read_text(encoding="utf-8").splitlines()]
    last = next(x for x in reversed(lines) if x.get("type") == "assistant")
    error = json.loads(json.dumps(last))
    error.update(uuid="api-error", isApiErrorMessage=True)
    error["message"].update(id="msg_err", model="<synthetic>")
    error["message"]["content"] = [{"type": "text", "text": "API Error: 529 overloaded"}]
    path = tmp_path / "api-error.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in [*lines, error]), encoding="utf-8")
    trace, _ = import_one(path)
    before, _ = import_one(source)
    assert trace.run.final_status == "error"
    assert trace.run.final_output_hash == before.run.final_output_hash
    assert (trace.spans[-1].name, trace.spans[-1].status) == ("api_error", "error")


def _with_lines(tmp_path: Path, source: Path, extra: list[dict], before_last: bool = True) -> Path:
    """``source`` with ``extra`` records put before its last assistant response (or at the
    end), in the shape Claude Code writes them."""
    lines = [json.loads(t) for t in source.read_text(encoding="utf-8").splitlines()]
    at = (
        max(i for i, x in enumerate(lines) if x.get("type") == "assistant")
        if before_last
        else len(lines)
    )
    while (
        before_last
        and at > 0
        and lines[at - 1].get("type") == "assistant"
        and (lines[at - 1]["message"].get("id") == lines[at]["message"].get("id"))
    ):
        at -= 1  # the first line of that API response
    path = tmp_path / source.name
    rows = [*lines[:at], *extra, *lines[at:]]
    path.write_text("".join(json.dumps(x) + "\n" for x in rows), encoding="utf-8")
    return path


def _retry(attempt: int, session: str) -> dict:
    return {
        "type": "system",
        "subtype": "api_error",
        "level": "error",
        "sessionId": session,
        "uuid": f"retry-{attempt}",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "error": {"status": 529, "error": {"type": "overloaded_error"}},
        "retryInMs": 500.0 * attempt,
        "retryAttempt": attempt,
        "maxRetries": 10,
    }


def test_api_retries_are_recorded_on_the_request(tmp_path: Path):
    """system/api_error retry records (attempts 1-8 of 10) before an answer are kept on the
    llm span of the request that answered; they are not the agent's errors."""
    source = CLAUDE / "codemie__4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
    session = json.loads(source.read_text(encoding="utf-8").splitlines()[0]).get("sessionId", "s")
    path = _with_lines(tmp_path, source, [_retry(n, session) for n in range(1, 9)])
    trace, _ = import_one(path)
    before, _ = import_one(source)
    llm = [s for s in trace.spans if s.type == "llm"]
    assert len(llm) == len([s for s in before.spans if s.type == "llm"])
    (retried,) = [s for s in llm if "api_retries" in s.attributes]
    assert retried == llm[-1]
    assert retried.attributes["api_retries"] == 8 and retried.attributes["api_retry_max"] == 10
    assert retried.attributes["api_error_statuses"] == [529] * 8
    assert [s.status for s in trace.spans] == [s.status for s in before.spans]
    assert trace.run.final_status == before.run.final_status
    # cut off while retrying: the request has no outcome
    path = _with_lines(tmp_path, source, [_retry(1, session), _retry(2, session)], False)
    trace, _ = import_one(path)
    assert (trace.spans[-1].name, trace.spans[-1].status) == ("api_error", "unknown")
    assert trace.spans[-1].attributes["api_retries"] == 2
    assert trace.run.final_status == "unknown"


def test_synthetic_messages_are_not_llm_spans(tmp_path: Path):
    """Claude Code's own "No response requested." (model <synthetic>) is no model call and
    no answer."""
    source = CLAUDE / "codemie__4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
    lines = [json.loads(t) for t in source.read_text(encoding="utf-8").splitlines()]
    last = json.loads(json.dumps(next(x for x in reversed(lines) if x.get("type") == "assistant")))
    last.update(uuid="synthetic-1")
    last["message"].update(id="synthetic-msg", model="<synthetic>", usage={})
    last["message"]["content"] = [{"type": "text", "text": "No response requested."}]
    path = _with_lines(tmp_path, source, [last], False)
    trace, _ = import_one(path)
    before, _ = import_one(source)
    assert [(s.type, s.name) for s in trace.spans] == [(s.type, s.name) for s in before.spans]
    assert trace.run.final_output_hash == before.run.final_output_hash


# Results of refused calls, as Claude Code writes them (texts seen in real transcripts:
# 2.1.204 and 2.1.281 captures of a PreToolUse hook exiting 2, a 2.1.280 session whose hook
# answered a JSON ``deny`` with ``toolDenialKind: permission-rule``, the auto-mode classifier).
_HOOK_EXIT_2 = (
    "PreToolUse:Bash hook error: [/p/.claude/hooks/pre-bash.sh]: Blocked: rm is not allowed\n"
)
_HOOK_DENY = "PreToolUse:Read hook error: Blocked by the secrets hook (path: /p/.env)"
_CLASSIFIER = (
    "Permission for this action was denied by the Claude Code auto mode classifier. Reason: x"
)


@pytest.mark.parametrize(
    ("is_error", "content", "tool_use_result", "kind", "outcome"),
    [
        (True, _HOOK_EXIT_2, None, None, "denied"),  # exit code 2: a policy refusal
        (True, [{"type": "text", "text": _HOOK_DENY}], "Error: " + _HOOK_DENY, None, "denied"),
        (True, _HOOK_DENY, "Error: " + _HOOK_DENY, "permission-rule", "denied"),
        (True, _CLASSIFIER, "Error: " + _CLASSIFIER, None, "denied"),
        (True, "blocked", None, "automode-blocked", "denied"),
        # 2.1.1xx: the hook's reason withheld from the model (anthropics/claude-code#59643)
        (True, "Hook PreToolUse:Bash denied this tool", None, None, "denied"),
        (True, "Hook PreToolUse:Edit denied this tool", "Error: x", None, "denied"),
        (
            True,
            "The user doesn't want to proceed",
            "User rejected tool use",
            "user-rejected",
            "rejected",
        ),
        (
            True,
            "This Bash command contains multiple operations.",
            None,
            "user-rejected",
            "rejected",
        ),
        (False, _HOOK_EXIT_2, {"stdout": _HOOK_EXIT_2}, None, "ok"),  # a command that printed it
        (False, "ok", {"stdout": "ok"}, "permission-rule", "ok"),  # it ran: not refused
        (True, "Exit code 1\nPreToolUse:Bash hook error: [x]: y", None, None, "error"),
    ],
)
def test_a_call_a_hook_or_a_policy_refused_is_denied(
    is_error, content, tool_use_result, kind, outcome
):
    """A PreToolUse hook that blocks a call (exit code 2, or a JSON ``deny``) writes
    ``PreToolUse:<tool> hook error: …``: the policy refused the call, it did not fail (it was
    read ``error``). ``toolDenialKind`` (2.1.2xx) says who refused it."""
    assert classify_result(is_error, content, tool_use_result, kind) == outcome


def test_a_hook_blocked_call_in_a_session_is_denied(tmp_path: Path):
    """The result of a real session's first Bash call replaced by a hook's block (the shape of
    Claude Code 2.1.280): that span is ``denied`` (status ``error``), nothing else changes."""
    source = CLAUDE / "entireio__cli__checkpoint-7662d755ef9f-2-microcompact-d8e36d5.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines()
    records = [json.loads(t) for t in lines]
    call = next(
        b["id"]
        for r in records
        if r.get("type") == "assistant"
        for b in r["message"]["content"]
        if b.get("type") == "tool_use" and b.get("name") == "Bash"
    )
    at = next(
        i
        for i, r in enumerate(records)
        if r.get("type") == "user"
        and isinstance(r["message"]["content"], list)
        and any(b.get("tool_use_id") == call for b in r["message"]["content"])
    )
    blocked = records[at]
    blocked["message"]["content"] = [
        {"type": "tool_result", "content": _HOOK_EXIT_2, "is_error": True, "tool_use_id": call}
    ]
    blocked["toolUseResult"] = "Error: " + _HOOK_EXIT_2
    blocked["toolDenialKind"] = "permission-rule"
    lines[at] = json.dumps(blocked)
    path = tmp_path / source.name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before, _ = import_one(source)
    trace, _ = import_one(path)
    changed = [
        (a.source_ref.line, b.outcome, a.outcome, a.status)
        for a, b in zip(trace.spans, before.spans, strict=True)
        if (a.outcome, a.status) != (b.outcome, b.status)
    ]
    (span,) = [s for s in trace.spans if s.source_ref.line == changed[0][0] and s.name == "Bash"]
    assert changed == [(span.source_ref.line, "ok", "denied", "error")]
    rendered = render_trace(trace)
    assert "pre-bash.sh" not in rendered and "rm is not allowed" not in rendered


def test_a_bookkeeping_only_file_is_no_run(run_cli, tmp_path):
    """A real session file holding only ``summary`` records (titles Claude Code wrote for other
    sessions) was imported as a run with no span, ``final_status`` unknown; given alone, it is
    refused in one line that names it once, and nothing is written."""
    source = PROJECT / "be89c3cd-bfbf-4c4f-a515-5af6e13249bf.jsonl"
    assert {json.loads(line)["type"] for line in source.open()} == {"summary"}
    out = tmp_path / "out.json"
    code, _, err = run_cli("import", "claude", "--input", source, "--out", out)
    assert code == 2 and not out.exists(), err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].count(source.name) == 1, err
    assert "no prompt and no step" in lines[0]


@pytest.mark.parametrize(
    "more", [(), ("-q",), ("--workers", "2")], ids=["plain", "quiet", "workers"]
)
def test_a_folder_holding_no_run_is_refused(run_cli, tmp_path, more):
    """A folder whose every export holds no run (here the real project folder's
    bookkeeping-only files) wrote nothing and said "wrote 0 traces", then failed on its own
    empty --out folder ("no trace files found", exit 2); with -q it exited 0 having written
    nothing. It is refused in one line saying why, and no --out folder is left."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name in (
        "be89c3cd-bfbf-4c4f-a515-5af6e13249bf.jsonl",
        "3f6ddfee-788c-48a5-8f7a-d43377b51472.jsonl",
    ):
        (folder / name).write_bytes((PROJECT / name).read_bytes())
    out = tmp_path / "out"
    code, _, err = run_cli("import", "claude", "--input", folder, "--out", out, *more)
    assert code == 2 and not out.exists(), err
    (line,) = err.strip().splitlines()
    assert "no trace to write: none of its 2 exports holds a run; " in line
