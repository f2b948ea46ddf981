"""More rollouts written by the real Codex CLI 0.171.0 against a loopback fake of the Responses
API (tests/corpus/codex-live-more/generate/): MCP calls, a multi-agent v2 sub-agent, a tool
Codex does not have, patches, and the interactive TUI (a person approving, declining, pressing
Esc), each checked against what the recording itself says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abw.importers.base import ImportOptions
from abw.models.trace import Trace
from tests.conftest import CORPUS
from tests.importkit import import_trace, rollout, tool_spans

LIVE = CORPUS / "codex-live-more"
FILES = sorted(LIVE.glob("*__rollout-*.jsonl"))


def _import(scenario: str | Path, options: ImportOptions | None = None) -> Trace:
    return import_trace(
        "codex", scenario if isinstance(scenario, Path) else rollout(LIVE, scenario), options
    )


def _mcp_items(path: Path) -> dict[str, dict]:
    """The ``McpToolCall`` items of the recording's ``item_completed`` events, by call id."""
    items = {}
    for line in path.read_text().splitlines():
        item = json.loads(line)["payload"].get("item")
        if isinstance(item, dict) and item.get("type") == "McpToolCall":
            items[item["id"]] = item
    return items


def test_mcp_calls_have_the_outcome_and_duration_codex_recorded():
    """0.171 writes no ``mcp_tool_call_end``: a result with ``isError`` and a server that died
    mid-call (and the call after it) are ``failed`` only in their ``item_completed`` item; the
    outputs ("Wall time: …\\nOutput:" + the text) were read ok."""
    path = rollout(LIVE, "mcp")
    trace = _import(path)
    assert tool_spans(trace) == [
        ("tool_search", "ok", "call_search"),
        ("mcp__shopdb__lookup", "ok", "call_lookup"),
        ("mcp__shopdb__broken", "error", "call_broken"),
        ("mcp__shopdb__crash", "error", "call_crash"),
        ("mcp__shopdb__lookup", "error", "call_again"),
    ]
    items = _mcp_items(path)
    for span in trace.spans:
        if span.span_id in items:
            duration = items[span.span_id]["duration"]
            assert span.duration_ms == round(duration["secs"] * 1000 + duration["nanos"] / 1e6, 3)
            assert span.attributes["duration_source"] == "item_completed"


def test_an_mcp_call_the_person_cancelled_is_rejected_and_one_cut_by_esc_interrupted():
    """The TUI asks before an MCP call runs: "Cancel" leaves only a ``failed`` item whose error
    is "user cancelled MCP tool call" (read ok: the output is a list of text parts); Esc while
    the call runs answers it "aborted by user after 4.4s" and aborts the turn."""
    denied = _import("mcpdeny")
    assert tool_spans(denied)[1:] == [("mcp__shopdb__slow", "rejected", "call_slow")]
    assert denied.run.final_status == "success"
    cut = _import("mcpslow")
    assert tool_spans(cut)[1:] == [("mcp__shopdb__slow", "interrupted", "call_slow")]
    assert cut.run.final_status == "cancelled"


def test_a_call_of_a_tool_codex_does_not_have_is_an_error():
    """Codex answers it "unsupported call: run_tests"; it did nothing, and was read ok."""
    trace = _import("ghost")
    assert tool_spans(trace) == [("run_tests", "error", "call_ghost")]
    assert trace.run.final_status == "success"


def test_a_v2_sub_agent_folds_into_its_parent():
    """multi_agent_v2: spawn_agent answers ``{"task_name"}``; the child's command is a step
    under the spawn. ``inter_agent_communication_metadata`` records (``{"trigger_turn"}``) are
    read quietly (they were warned of as unknown record types); ``agent_message`` items (the
    task, the child's answer) stay skipped with a warning, as docs/importers.md says."""
    options = ImportOptions()
    trace = _import("spawn", options)
    assert [w.split(": ", 1)[1] for w in options.warnings] == [
        "skipped unknown response_item types: agent_message",
        "skipped unknown response_item types: agent_message",
    ]
    steps = [(s.name, s.outcome, s.span_id, s.parent_span_id) for s in trace.spans]
    assert [s for s in steps if s[0] != "gpt-5.5"] == [
        ("spawn_agent", "ok", "call_spawn", None),
        ("exec_command", "ok", "call_child_ls", "call_spawn"),
        ("wait_agent", "ok", "call_wait", None),
    ]
    assert "agent_message.content" in trace.redaction.removed_fields
    assert trace.run.final_status == "success"


def test_patches_and_a_failing_command():
    trace = _import("patch")
    assert tool_spans(trace) == [
        ("apply_patch", "ok", "call_add"),
        ("apply_patch", "error", "call_bad"),
        ("apply_patch", "ok", "call_fix"),
        ("exec_command", "error", "call_false"),
    ]


def test_tui_approvals_declines_and_esc():
    """In the TUI a person approving two escalations runs them (the second exits 2); declining
    one ("No, and tell Codex what to do differently") and pressing Esc on a running command
    both abort the turn: Codex records "aborted by user" and ``turn_aborted`` alike."""
    approved = _import("approve")
    assert tool_spans(approved) == [
        ("exec_command", "ok", "call_stamp"),
        ("exec_command", "error", "call_nope"),
    ]
    assert approved.run.final_status == "success"
    for scenario, call_id, wall_ms in [
        ("escalate", "call_esc", 300.0),
        ("sleepy", "call_sleep", 7600.0),
    ]:
        trace = _import(scenario)
        (span,) = [s for s in trace.spans if s.type != "llm"]
        assert (span.span_id, span.outcome, span.duration_ms) == (call_id, "interrupted", wall_ms)
        assert trace.run.final_status == "cancelled"


@pytest.mark.parametrize(
    "path", [p for p in FILES if not p.name.startswith("child")], ids=lambda p: p.name[:8]
)
def test_no_raw_text_reaches_the_trace(path):
    options = ImportOptions()
    text = _import(path, options).model_dump_json()
    assert all(w.endswith("types: agent_message") for w in options.warnings)
    for raw in (
        "/home/dev",
        "please work",
        "price: 12.50",
        "database is locked",
        "count the test files",
        "One test file",
        "stamp.txt",
        "Transport closed",
        "sleep 60",
    ):
        assert raw not in text
