"""``abw import codex`` on every Codex rollout in the corpus, checked against independent counts."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from abw.importers.codex import classify_output
from abw.importers.common import parse_labels
from abw.models.trace import Trace
from abw.traceio import load_trace, render_trace
from tests.conftest import CORPUS
from tests.importkit import import_trace

CODEX = CORPUS / "codex"
FILES = sorted(CODEX.glob("*.jsonl"))
V040 = CODEX / "agentcmd__rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"
V0125 = CODEX / "codemie__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"


def _import(path: Path, **kwargs) -> Trace:
    return import_trace("codex", path, **kwargs)


def _expected(path: Path) -> list[tuple[str, str]]:
    """(tool name, outcome) per logical call, read straight from the raw lines.

    A small parser of its own: calls in order; ``write_stdin`` polls of a session fold into the
    command that started it (also once its process exited); exit codes from ``exec_command_end``
    win, then the JSON metadata (<= 0.77), then the ``Process exited with code`` text (>= 0.125).
    An MCP call is named ``mcp__<server>__<tool>`` from its ``mcp_tool_call_end`` invocation (the
    raw MCP identity, the tool's disallowed characters made ``_``), its outcome from the result.
    A call never answered is incomplete.
    """
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    calls: dict[str, list] = {}
    order: list[str] = []
    session_of: dict[str, str] = {}
    poll_of: dict[str, str] = {}
    ended: dict[str, int] = {}
    for record in records:
        p = record.get("payload", {})
        kind = p.get("type")
        if record.get("type") == "compacted":
            key = f"compacted{len(order)}"
            calls[key] = ["compaction", "ok"]
            order.append(key)
        elif kind in ("function_call", "custom_tool_call"):
            if p["name"] == "write_stdin":
                sid = str(json.loads(p["arguments"])["session_id"])
                if sid in session_of:
                    poll_of[p["call_id"]] = session_of[sid]
                    continue
            calls[p["call_id"]] = [p["name"], None]
            order.append(p["call_id"])
        elif kind == "tool_search_call":
            calls[p["call_id"]] = ["tool_search", None]
            order.append(p["call_id"])
        elif kind == "tool_search_output":
            calls[p["call_id"]][1] = "ok" if p["status"] == "completed" else "error"
        elif kind == "web_search_call":
            key = f"ws{len(order)}"
            calls[key] = ["web_search", "ok" if p["status"] == "completed" else "error"]
            order.append(key)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            target = poll_of.get(p["call_id"], p["call_id"])
            out = p["output"]
            running = re.search(r"Process running with session ID (\d+)", out)
            if running:
                session_of[running.group(1)] = target
                continue
            if out.startswith("write_stdin failed"):
                continue
            exited = re.search(r"(?:Process exited with code|^Exit code:) (\d+)", out)
            if out.startswith("{"):
                code = json.loads(out)["metadata"]["exit_code"]
                calls[target][1] = "ok" if code == 0 else "error"
            elif exited:
                calls[target][1] = "ok" if exited.group(1) == "0" else "error"
            elif out.startswith("failed in sandbox"):
                calls[target][1] = "denied"
            elif out == "patch rejected by user":
                calls[target][1] = "rejected"
            elif out.startswith("patch rejected: "):  # the patch safety check's refusal
                calls[target][1] = "denied"
            elif out.startswith("apply_patch verification failed"):
                calls[target][1] = "error"
            elif out == "Plan updated":
                calls[target][1] = "ok"
        elif kind == "exec_command_end":
            ended[p["call_id"]] = p["exit_code"]
        elif kind == "mcp_tool_call_end":
            invocation, result = p["invocation"], p["result"]
            tool = re.sub(r"[^A-Za-z0-9_-]", "_", invocation["tool"])
            failed = "Err" in result or result["Ok"].get("isError")
            calls[p["call_id"]] = [
                f"mcp__{invocation['server']}__{tool}",
                "error" if failed else "ok",
            ]
    for call_id, code in ended.items():
        calls[call_id][1] = "ok" if code == 0 else "error"
    return [(name, outcome or "incomplete") for name, outcome in (calls[c] for c in order)]


def test_every_corpus_rollout_is_covered():
    assert len(FILES) == 11


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:40])
def test_tool_sequence_and_outcomes_match_the_raw_file(path):
    trace = _import(path)
    got = [(s.name, s.outcome) for s in trace.path()]
    assert got == _expected(path)
    for span in trace.spans:
        assert (
            span.status
            == {
                "ok": "success",
                "error": "error",
                "denied": "error",
                "timeout": "error",
                "rejected": "cancelled",
                "interrupted": "cancelled",
                "incomplete": "unknown",
            }[span.outcome]
        )
    assert [s.ordinal for s in trace.spans] == list(range(len(trace.spans)))


#: Leaves that hold settings or names, not content, though they may hold a space or a slash.
_NOT_CONTENT = {"turn_context.timezone", "session_meta.originator"}


def _content_leaves(value, path: list[str]):
    """Dotted paths of the strings in ``value`` that look like content (12+ characters, with a
    space or a slash: instructions, paths, messages); lists are looked through."""
    if isinstance(value, str):
        if len(value) >= 12 and (" " in value or "/" in value):
            yield ".".join(path)
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from _content_leaves(inner, [*path, key])
    elif isinstance(value, list):
        for inner in value:
            yield from _content_leaves(inner, path)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:40])
def test_removed_fields_name_every_content_kind_the_rollout_held(path):
    """Instructions (base, user, developer), a compaction's summary and history, a ghost
    snapshot's untracked files and the sandbox's writable paths were held but not named."""
    removed = set(_import(path).redaction.removed_fields)
    unnamed = set()
    for line in path.read_text().splitlines():
        record = json.loads(line) if line.strip() else {}
        kind, payload = record.get("type"), record.get("payload")
        if not isinstance(payload, dict) or kind == "event_msg":  # (named whole: event_msg)
            continue
        kind = payload.get("type") if kind == "response_item" else kind
        for leaf in _content_leaves(payload, [kind]):
            if leaf not in _NOT_CONTENT and not any(
                leaf == name or leaf.startswith(name + ".") for name in removed
            ):
                unnamed.add(leaf)
    assert unnamed == set()


def test_a_compaction_is_named_removed(tmp_path):
    """Codex writes a ``compacted`` record (its summary ``message`` and, from 0.100, the
    ``replacement_history`` it continues from) when the context is compacted."""
    compacted = {
        "timestamp": "2026-05-11T11:40:00.000Z",
        "type": "compacted",
        "payload": {
            "message": "Summary of the work so far: edited src/app.ts",
            "replacement_history": [
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "fix it"}],
                }
            ],
        },
    }
    path = tmp_path / V0125.name
    path.write_text(V0125.read_text() + json.dumps(compacted) + "\n")
    removed = set(_import(path).redaction.removed_fields)
    assert {"compacted.message", "compacted.replacement_history"} <= removed
    assert "compacted.message" not in _import(V0125).redaction.removed_fields


def test_v040_counts_from_provenance():
    trace = _import(V040)
    tools = Counter((s.name, s.outcome) for s in trace.path())
    assert tools == {
        ("shell", "ok"): 108,
        ("shell", "error"): 8,
        ("shell", "denied"): 2,
        ("shell", "rejected"): 2,
        ("update_plan", "ok"): 3,
    }
    # one llm span per model request: Codex writes one token_count event per request
    requests = len(re.findall(r'"type":\s*"token_count"', V040.read_text()))
    assert sum(s.type == "llm" for s in trace.spans) == requests
    assert all(s.name == "gpt-5-codex" for s in trace.spans if s.type == "llm")
    assert trace.run.trace_id == "01997e76-d124-7592-9cac-2ec05abbca08"
    assert trace.run.model_extra["turns_aborted"] == 4  # 4 turn_aborted events
    assert trace.run.model_extra["agent_version"] == "0.40.0"
    durations = [s.duration_ms for s in trace.path() if s.name == "shell" and s.outcome == "ok"]
    assert all(d is not None for d in durations)  # from metadata.duration_seconds


def test_v0125_one_logical_command_across_write_stdin_polls():
    trace = _import(V0125)
    raw = V0125.read_text()
    assert len(re.findall(r'"name":\s*"write_stdin"', raw)) == 54
    names = Counter(s.name for s in trace.path())
    assert names == {"exec_command": 43, "apply_patch": 3, "web_search": 3, "update_plan": 2}
    commands = [s for s in trace.path() if s.name == "exec_command"]
    assert sum(s.attributes.get("polls", 0) for s in commands) == 54
    assert sum(s.attributes.get("poll_errors", 0) for s in commands) == 1  # stdin closed
    assert [s.attributes["exit_code"] for s in commands if s.status == "error"] == [2, 1, 1, 1]
    assert all(s.attributes["duration_source"] == "exec_command_end" for s in commands)
    # exec_command_end gave 9.963642292 s for `git status --short`
    assert any(s.duration_ms == 9963.642 for s in commands)
    assert next(s for s in trace.path() if s.name == "web_search").type == "retriever"
    assert trace.run.final_status == "success"


def test_labels_apply_to_shell_commands():
    labels = parse_labels("rg:retriever,sed")
    trace = _import(V0125, labels=labels)
    raw_cmds = [
        json.loads(json.loads(line)["payload"]["arguments"])["cmd"]
        for line in V0125.read_text().splitlines()
        if re.search(r'"name":\s*"exec_command"', line)
    ]
    want_rg = sum(1 for c in raw_cmds if re.search(r"(?<![\w])rg(?![\w])", c))
    want_sed = sum(
        1 for c in raw_cmds if not re.search(r"(?<![\w])rg(?![\w])", c) and re.search(r"\bsed\b", c)
    )
    got = Counter((s.name, s.type) for s in trace.path())
    assert got[("rg", "retriever")] == want_rg > 0
    assert got[("sed", "tool")] == want_sed > 0
    labelled = next(s for s in trace.path() if s.name == "rg")
    assert labelled.attributes["tool"] == "exec_command"
    old = _import(V040, labels=parse_labels("pnpm"))
    assert any(s.name == "pnpm" for s in old.path())


def _write(tmp_path: Path, lines: list[dict]) -> Path:
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _rec(kind: str, **payload) -> dict:
    return {"timestamp": "2026-03-01T10:00:00.000Z", "type": kind, "payload": payload}


def test_desktop_mcp_namespace_aborted_turn_and_timeouts(tmp_path):
    path = _write(
        tmp_path,
        [
            _rec("session_meta", id="sess-1", cli_version="0.128.0-alpha.1"),
            _rec("event_msg", type="user_message", message="secret prompt"),
            _rec("turn_context", model="gpt-5.3"),
            _rec(
                "response_item",
                type="function_call",
                namespace="mcp__node_repl__",
                name="js",
                arguments='{"code": "1+1"}',
                call_id="c1",
            ),
            _rec("response_item", type="function_call_output", call_id="c1", output="2"),
            _rec(
                "response_item",
                type="function_call",
                name="shell",
                arguments='{"command": ["bash", "-lc", "sleep 99"]}',
                call_id="c2",
            ),
            _rec(
                "response_item",
                type="function_call_output",
                call_id="c2",
                output="command timed out after 10000 milliseconds",
            ),
            _rec(
                "response_item",
                type="local_shell_call",
                call_id="c3",
                status="in_progress",
                action={"type": "exec", "command": ["ls"]},
            ),
            _rec("event_msg", type="turn_aborted", reason="interrupted"),
        ],
    )
    trace = _import(path)
    spans = trace.path()
    assert [(s.name, s.outcome, s.status) for s in spans] == [
        ("mcp__node_repl__js", "ok", "success"),
        ("shell", "timeout", "error"),
        ("local_shell", "interrupted", "cancelled"),
    ]
    assert spans[0].attributes["mcp_server"] == "node_repl"
    assert trace.run.final_status == "cancelled"
    assert "secret prompt" not in render_trace(trace)


def test_unanswered_call_without_abort_is_incomplete(tmp_path):
    path = _write(
        tmp_path,
        [
            _rec("session_meta", id="s"),
            _rec("response_item", type="function_call", name="shell", arguments="{}", call_id="x"),
        ],
    )
    (span,) = _import(path).path()
    assert (span.outcome, span.status) == ("incomplete", "unknown")


def test_legacy_bare_items(tmp_path):
    path = tmp_path / "rollout-legacy.jsonl"
    lines = [
        {"id": "legacy-1", "timestamp": "2025-06-01T00:00:00Z", "instructions": None},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {
            "type": "function_call",
            "name": "shell",
            "arguments": '{"command":["ls"]}',
            "call_id": "a",
        },
        {
            "type": "function_call_output",
            "call_id": "a",
            "output": '{"output":"x","metadata":{"exit_code":2,"duration_seconds":0.5}}',
        },
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    trace = _import(path)
    assert trace.run.trace_id == "legacy-1"
    (span,) = trace.path()
    assert (span.name, span.outcome, span.duration_ms) == ("shell", "error", 500.0)


@pytest.mark.parametrize(
    ("output", "outcome"),
    [
        ('{"output":"ok","metadata":{"exit_code":0,"duration_seconds":0.1}}', "ok"),
        ('{"output":"boom","metadata":{"exit_code":1,"duration_seconds":0.1}}', "error"),
        ("failed in sandbox MacosSeatbelt with execution error: sandbox denied exec", "denied"),
        ("exec command rejected by user", "rejected"),
        ("patch rejected by user", "rejected"),
        ("patch rejected: empty patch", "denied"),  # Codex's patch safety check
        ("apply_patch verification failed: Failed to find expected lines in src/a.py", "error"),
        (
            "patch rejected: writing outside of the project; rejected by user approval settings",
            "denied",
        ),
        ("aborted", "interrupted"),
        ("Chunk ID: 1\nWall time: 1.0 seconds\nProcess exited with code 3\nOutput:\n", "error"),
        ("Exit code: 0\nWall time: 0.2 seconds\nOutput:\nfine", "ok"),
        # Codex's timeout note opens the output; a test runner's own "timed out" is a failure
        ("Exit code: 1\nWall time: 10 seconds\nOutput:\ncommand timed out after 10 s", "timeout"),
        ("Process exited with code 1\nOutput:\nbun test\n^ this test timed out after 5s", "error"),
        ("execution error: No such file or directory", "error"),
        ("Plan updated", "ok"),
    ],
)
def test_classify_output(output, outcome):
    assert classify_output(output).outcome == outcome


def test_cli_writes_a_valid_trace(run_cli, tmp_path):
    out = tmp_path / "t.json"
    code, _, err = run_cli("import", "codex", "--input", V0125, "--out", out, "-q")
    assert code == 0, err
    assert load_trace(out).trace.run.trace_id == "019e1625-789d-76c0-80ab-3724b5ddb799"


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("not json at all\n", "invalid JSON"),
        ('{"hello": "world"}\n', "not a Codex rollout"),
        ("[1, 2]\n", "JSON object"),
    ],
)
def test_bad_input_is_one_line_exit_2(run_cli, tmp_path, content, needle):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    code, _, err = run_cli("import", "codex", "--input", bad, "--out", tmp_path / "o.json")
    assert code == 2
    assert needle in err and "bad.jsonl" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_folder_import_skips_the_prompt_history(run_cli, tmp_path):
    home = tmp_path / "codex"
    (home / "sessions").mkdir(parents=True)
    (home / "sessions" / V0125.name).write_bytes(V0125.read_bytes())
    (home / "history.jsonl").write_text('{"session_id": "x", "ts": 1, "text": "hi"}\n')
    code, _, err = run_cli("import", "codex", "--input", home, "--out", tmp_path / "out", "-q")
    assert code == 0, err
    assert len(list((tmp_path / "out").glob("*.json"))) == 1


def test_a_session_left_before_any_prompt_is_no_run(run_cli, tmp_path):
    """A rollout holding only its setup (``session_meta``, ``turn_context``) was a run with no
    span and ``final_status`` unknown: an incomplete run in every gate over its folder. In a
    folder it is skipped with a warning; given alone it is refused in one line; a rollout whose
    turn started stays a run."""
    lines = V0125.read_text().splitlines(keepends=True)
    setup = [line for line in lines if json.loads(line)["type"] in ("session_meta", "turn_context")]
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "rollout-left.jsonl").write_text("".join(setup))
    (sessions / V0125.name).write_bytes(V0125.read_bytes())
    code, _, err = run_cli("import", "codex", "--input", sessions, "--out", tmp_path / "out")
    assert code == 0, err
    assert [p.name for p in (tmp_path / "out").glob("*.json")] == [V0125.stem + ".json"]
    assert "rollout-left.jsonl: no turn" in err
    out = tmp_path / "left.json"
    code, _, err = run_cli(
        "import", "codex", "--input", sessions / "rollout-left.jsonl", "--out", out
    )
    assert code == 2 and not out.exists()
    assert len(err.strip().splitlines()) == 1 and err.count("rollout-left.jsonl") == 1, err
    started = tmp_path / "started.jsonl"
    started.write_text("".join(lines[: len(setup) + 2]))
    assert {json.loads(line)["type"] for line in lines[: len(setup) + 2]} - {
        "session_meta",
        "turn_context",
    }
    code, _, err = run_cli("import", "codex", "--input", started, "--out", tmp_path / "s.json")
    assert code == 0, err


def test_a_turn_cut_off_after_an_answer_is_not_a_success(tmp_path):
    """A rollout that records its turns' ends (``task_started`` ... ``task_complete``) and stops
    inside a turn — the process died after the model's message but before the turn ended (here
    before the turn's automatic compaction and its further calls) — was ``success`` on that
    message. The turn never ended: ``unknown``, as a cut after a call's output already was; the
    whole rollout is ``success``."""
    (whole,) = (CORPUS / "codex-live").glob("compact__rollout-*.jsonl")
    lines = whole.read_text().splitlines(keepends=True)
    records = [json.loads(line) for line in lines]
    assert sum(r["payload"].get("type") == "task_complete" for r in records) == 1
    answer = next(n for n, r in enumerate(records) if r["payload"].get("role") == "assistant")
    assert records[answer + 3]["type"] == "compacted"  # the turn went on
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[: answer + 3]))
    assert import_trace("codex", cut).run.final_status == "unknown"
    assert import_trace("codex", whole).run.final_status == "success"
