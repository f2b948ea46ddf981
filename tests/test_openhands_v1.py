"""OpenHands V1 conversations as the newest software-agent-sdk persists them (base_state.json
beside events/event-*.json): an interrupted tool call, a conversation that got stuck.

The conversations in tests/corpus/openhands-v1 were written by the real openhands-sdk (PyPI
1.58.2) against a loopback stub model (tests/corpus/PROVENANCE.md, section openhands-v1); each
test reads what it expects from the raw files with a few lines of its own.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from abw.models.trace import Trace
from abw.traceio import render_trace
from tests.conftest import CORPUS
from tests.importkit import import_traces

FOLDER = CORPUS / "openhands-v1"
INTERRUPTED = FOLDER / "gen__openhands-sdk-1-58-2__interrupted-tool-call"
STUCK = FOLDER / "gen__openhands-sdk-1-58-2__stuck-loop"


def _import(path: Path, **kwargs) -> list[Trace]:
    return import_traces("openhands", path, **kwargs)


def _events(conversation: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((conversation / "events").glob("event-*"))]


def _state(conversation: Path) -> dict:
    return json.loads((conversation / "base_state.json").read_text())


def test_a_tool_call_cut_short_by_an_interrupt_is_interrupted_not_an_error():
    """``interrupt()`` during a tool call: the SDK answers the call in flight with an
    AgentErrorEvent ("interrupted before completion") and then writes the InterruptEvent. The
    call was read as a failed one (outcome error, status error) in a cancelled run."""
    events = _events(INTERRUPTED)
    kinds = [e["kind"] for e in events]
    assert kinds[-3:] == ["ActionEvent", "AgentErrorEvent", "InterruptEvent"]
    action, error = events[-3], events[-2]
    assert error["tool_call_id"] == action["tool_call_id"] and "action_id" not in error
    assert _state(INTERRUPTED)["execution_status"] == "paused"

    (trace,) = _import(INTERRUPTED)
    (tool,) = [s for s in trace.spans if s.type == "tool"]
    assert (tool.name, tool.span_id) == (action["tool_name"], f"event-{action['id']}")
    assert (tool.outcome, tool.status) == ("interrupted", "cancelled")
    assert trace.run.final_status == "cancelled"
    assert error["error"] not in render_trace(trace)


def test_an_agent_error_not_cut_by_an_interrupt_stays_an_error(tmp_path):
    """The same conversation without its InterruptEvent: the AgentErrorEvent is a failed call."""
    conversation = tmp_path / "c"
    shutil.copytree(INTERRUPTED, conversation)
    (interrupt,) = (conversation / "events").glob("event-00004-*.json")
    interrupt.unlink()
    (conversation / "base_state.json").unlink()
    (trace,) = _import(conversation)
    (tool,) = [s for s in trace.spans if s.type == "tool"]
    assert (tool.outcome, tool.status) == ("error", "error")


def test_a_stuck_conversation_is_an_error():
    """The stuck detector stops a local conversation that repeats one action: it sets the
    state's ``execution_status`` to stuck and writes no event (the agent server's state update
    is not written by a local conversation). The run was read as ``unknown``."""
    events = _events(STUCK)
    actions = [e for e in events if e["kind"] == "ActionEvent"]
    assert len(actions) == 4 and len({json.dumps(a["action"]) for a in actions}) == 1
    assert events[-1]["kind"] == "ObservationEvent"
    assert not any(e["kind"].startswith("Conversation") for e in events)
    state = _state(STUCK)
    assert state["execution_status"] == "stuck"

    (trace,) = _import(STUCK)
    assert trace.run.final_status == "error"
    assert [s.outcome for s in trace.spans if s.type == "tool"] == ["ok"] * 4
    rendered = render_trace(trace)  # nothing of the state but its status
    for raw in (state["workspace"]["working_dir"], state["agent"]["llm"]["base_url"], state["id"]):
        assert raw not in rendered


def test_a_state_that_is_no_json_is_not_read_with_a_warning(tmp_path):
    conversation = tmp_path / "c"
    shutil.copytree(STUCK, conversation)
    raw = (conversation / "base_state.json").read_bytes()
    (conversation / "base_state.json").write_bytes(raw[: len(raw) // 2])
    warnings: list[str] = []
    (trace,) = _import(conversation, warnings=warnings)
    assert trace.run.final_status == "unknown"  # what the events alone say
    assert len(warnings) == 1 and "base_state.json" in warnings[0] and "c:" in warnings[0]
    assert str(tmp_path) not in warnings[0]


def test_the_same_conversation_imports_to_the_same_trace():
    first, second = (render_trace(_import(STUCK)[0]) for _ in range(2))
    strip = [line for line in first.splitlines() if "exported_at" not in line]
    assert strip == [line for line in second.splitlines() if "exported_at" not in line]


def test_conversation_folders_with_dots_in_their_names_keep_their_whole_names(tmp_path, run_cli):
    """A folder's trace is named after the whole folder name (``Path.stem`` cut
    ``sdk-1.58.2-stuck`` to ``sdk-1.58``, so two such conversations were refused as writing
    the same file)."""
    import shutil

    from conftest import REPO

    source = REPO / "tests" / "corpus" / "openhands-v1"
    folder = tmp_path / "conversations"
    for name, copy in (("interrupted-tool-call", "sdk-1.58.2-a"), ("stuck-loop", "sdk-1.58.2-b")):
        shutil.copytree(source / f"gen__openhands-sdk-1-58-2__{name}", folder / copy)
    code, _, err = run_cli("import", "openhands", "--input", folder, "--out", tmp_path / "out")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "sdk-1.58.2-a.json",
        "sdk-1.58.2-b.json",
    ]
