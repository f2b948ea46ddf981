"""Rollouts written by the real Codex CLI 0.171.0 (``codex exec`` against a loopback fake of the
Responses API: tests/corpus/codex-live/generate/), imported and checked against what each
recording itself says, call by call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abw.importers.base import ImportOptions
from abw.models.trace import Trace
from tests.conftest import CORPUS
from tests.importkit import import_trace, rollout, tool_spans
from tests.test_import_codex import _NOT_CONTENT, _content_leaves

LIVE = CORPUS / "codex-live"
FILES = sorted(LIVE.glob("*__rollout-*.jsonl"))


def _import(scenario: str | Path, options: ImportOptions | None = None) -> Trace:
    return import_trace(
        "codex", scenario if isinstance(scenario, Path) else rollout(LIVE, scenario), options
    )


def _raw_calls(path: Path) -> list[tuple[str, str]]:
    """(name, call id) of every call the recording holds, in order."""
    calls = []
    for line in path.read_text().splitlines():
        payload = json.loads(line)["payload"]
        if payload.get("type") in {"function_call", "custom_tool_call"}:
            calls.append((payload["name"], payload["call_id"]))
    return calls


def test_every_call_is_a_step_with_the_outcome_it_had():
    """ls ok, cat of a missing file exit 1, two parallel calls (git status 128, python ok), the
    plan, a patch applied, a patch that did not match, a command exiting 3; then the answer."""
    trace = _import("tools")
    assert tool_spans(trace) == [
        ("exec_command", "ok", "call_ls"),
        ("exec_command", "error", "call_cat"),
        ("exec_command", "error", "call_p1"),
        ("exec_command", "ok", "call_p2"),
        ("update_plan", "error", "call_plan"),  # 0.171: "unsupported call: update_plan"
        ("apply_patch", "ok", "call_patch"),
        ("apply_patch", "error", "call_badpatch"),
        ("exec_command", "error", "call_test"),
    ]
    assert [(n, i) for n, _, i in tool_spans(trace)] == _raw_calls(rollout(LIVE, "tools"))
    codes = [s.attributes.get("exit_code") for s in trace.spans if s.name == "exec_command"]
    assert codes == [0, 1, 128, 0, 3]
    assert (trace.run.final_status, trace.run.agent_version) == ("success", "0.171.0")
    assert trace.run.originator == "codex_exec"
    assert sum(s.type == "llm" for s in trace.spans) == 8  # one per request the fake answered


@pytest.mark.parametrize("scenario", ["fail", "streamfail"])
def test_a_turn_that_failed_is_an_error_though_task_complete_ends_it(scenario):
    """0.171 writes no ``error`` event for a turn the API failed (HTTP 500, response.failed):
    its ``task_complete`` carries the error, and the run read success."""
    trace = _import(scenario)
    assert trace.run.final_status == "error"
    assert trace.run.final_output_hash is None
    assert tool_spans(trace) == [("exec_command", "ok", "call_ok")]


def test_an_escalation_the_approval_policy_refuses_is_denied():
    """Codex's answer "approval policy is Never; reject command — you cannot ask for escalated
    permissions …" ran nothing: the call read ok."""
    trace = _import("escalate")
    assert tool_spans(trace) == [("exec_command", "denied", "call_esc")]
    assert trace.run.final_status == "success"


def test_a_command_cut_short_by_an_interrupt_is_interrupted_with_its_wall_time():
    """0.171 answers it "Wall time: 5.8 seconds\\naborted by user": the header hid the abort
    (read ok) and the wall time was lost."""
    trace = _import("interrupt")
    (span,) = [s for s in trace.spans if s.type != "llm"]
    assert (span.name, span.outcome, span.duration_ms) == ("exec_command", "interrupted", 5800.0)
    assert span.attributes["duration_source"] == "wall_time"
    assert (trace.run.final_status, trace.run.turns_aborted) == ("cancelled", 1)


def test_a_polled_command_is_one_step_and_the_resumed_session_one_run(tmp_path):
    """write_stdin polling a running command folds into it; ``codex exec resume`` appends its
    turn to the same rollout, which ends on the second turn's answer."""
    poll = _import("poll")
    (span,) = [s for s in poll.spans if s.type != "llm"]
    assert (span.outcome, span.attributes["polls"], span.attributes["exit_code"]) == ("ok", 1, 0)
    # the command's own output printing "Exit code: 2" before it ended: still running
    path = rollout(LIVE, "poll")
    marked = path.read_text().replace(
        "Process running with session ID 87801\\nOriginal token count: 0\\nOutput:\\n",
        "Process running with session ID 87801\\nOriginal token count: 9\\nOutput:\\n"
        "[step 1/3] lint Exit code: 2 (warnings only)\\n",
    )
    assert marked != path.read_text()
    copy = tmp_path / path.name
    copy.write_text(marked)
    (span,) = [s for s in _import(copy).spans if s.type != "llm"]
    assert (span.outcome, span.attributes["polls"], span.attributes["exit_code"]) == ("ok", 1, 0)
    resumed = _import("resume")
    assert tool_spans(resumed) == [
        ("exec_command", "ok", "call_r0"),
        ("exec_command", "ok", "call_r1"),
    ]
    assert resumed.run.final_status == "success"


def test_an_automatic_compaction_is_a_memory_step():
    trace = _import("compact")
    assert [(s.type, s.name) for s in trace.spans if s.type != "llm"] == [
        ("tool", "exec_command"),
        ("memory", "compaction"),
        ("tool", "exec_command"),
    ]
    assert "compacted.message" in trace.redaction.removed_fields


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name.split("__")[0])
def test_new_records_are_read_quietly_and_their_content_named_removed(path):
    """``world_state`` (environment, paths, skills) and ``token_usage_record`` are in every 0.171
    rollout: each import warned of unknown record types, and world_state's content was not named
    in removed_fields; no raw text of the recording reaches the trace."""
    options = ImportOptions()
    trace = _import(path, options)
    assert options.warnings == []
    removed = set(trace.redaction.removed_fields)
    unnamed = set()
    for line in path.read_text().splitlines():
        record = json.loads(line)
        kind, payload = record["type"], record["payload"]
        if kind == "event_msg":
            continue
        kind = payload.get("type") if kind == "response_item" else kind
        for leaf in _content_leaves(payload, [kind]):
            if leaf not in _NOT_CONTENT and not any(
                leaf == name or leaf.startswith(name + ".") for name in removed
            ):
                unnamed.add(leaf)
    assert unnamed == set()
    text = trace.model_dump_json()
    for raw in ("/home/dev", "cart.py", "please work", "missing.txt", "Skills", "sleep 60"):
        assert raw not in text
