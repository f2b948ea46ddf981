"""OpenHands V0 trajectories as a real session can record them beyond the corpus: confirmation
mode, the stop button.

Each file is the real ``openhands__basic_gui_mode.json`` (tests/corpus/PROVENANCE.md) changed
only as OpenHands' own controller writes such a session (``agent_controller.py``:
``set_agent_state_to``, ``_reset``; ``runtime/base.py``: ``run_action``).
"""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS

from tests.importkit import cli_import_one

GUI = CORPUS / "openhands" / "openhands__basic_gui_mode.json"
REJECTED = "Action has been rejected by the user! Waiting for further user input."
#: The controller's answer to the call in flight when the agent stops: (error_id, content).
STOPPED = (
    "AGENT_ERROR$ERROR_ACTION_NOT_EXECUTED_STOPPED",
    "Stop button pressed. The action has not been executed.",
)
CRASHED = (
    "AGENT_ERROR$ERROR_ACTION_NOT_EXECUTED_ERROR",
    "The action has not been executed due to a runtime error.",
)


def _state(event_id: int, state: str, when: str) -> dict[str, Any]:
    """An ``AgentStateChangedObservation`` as the controller adds it."""
    extras = {"agent_state": state, "reason": ""}
    return {
        "id": event_id,
        "timestamp": when,
        "source": "environment",
        "message": "",
        "observation": "agent_state_changed",
        "content": "",
        "extras": extras,
    }


def as_args(event: dict[str, Any]) -> dict[str, Any]:
    """An event's ``args``, or nothing."""
    args = event.get("args")
    return args if isinstance(args, dict) else {}


def _cut_short(
    events: list[dict[str, Any]], answer: tuple[str, str], state: str
) -> list[dict[str, Any]]:
    """The trajectory up to its last call (a command), then the controller's ``_reset``: an
    ErrorObservation for the call in flight (its ``cause`` and metadata), then ``state``."""
    call = events[13]
    assert call["action"] == "run" and events[14]["cause"] == call["id"]
    error_id, text = answer
    error = {"id": 14, "timestamp": events[14]["timestamp"], "source": "agent", "message": text}
    error.update(observation="error", content=text, extras={"error_id": error_id})
    error.update(cause=call["id"], tool_call_metadata=call["tool_call_metadata"])
    return [*events[:14], error, _state(15, state, events[14]["timestamp"])]


def _import(run_cli, tmp_path: Path, events: list[dict[str, Any]]) -> dict[str, Any]:
    source, out = tmp_path / "trajectory.json", tmp_path / "run.json"
    source.write_text(json.dumps(events, indent=2))
    return cli_import_one(run_cli, "openhands", source, out)


def _confirmation_mode(events: list[dict[str, Any]], answer: str) -> list[dict[str, Any]]:
    """Each ``confirmed`` call as confirmation mode records it: first the agent's action
    ``awaiting_confirmation`` (the runtime answers it with a NullObservation, never written),
    the states, the user's ``change_agent_state``, then the same action added again with a
    new id and the user's answer (``confirmed`` or ``rejected``), which the runtime answers."""
    out: list[dict[str, Any]] = []
    ids: dict[int, int] = {}

    def add(event: dict[str, Any]) -> dict[str, Any]:
        event = copy.deepcopy(event)
        event["id"] = len(out)
        out.append(event)
        return event

    for event in events:
        if as_args(event).get("confirmation_state") == "confirmed":
            awaiting = copy.deepcopy(event)
            awaiting["args"]["confirmation_state"] = "awaiting_confirmation"
            add(awaiting)
            when = event["timestamp"]
            add(_state(0, "awaiting_user_confirmation", when))
            change = {"agent_state": f"user_{answer}", "thought": ""}
            add({"id": 0, "timestamp": when, "source": "user", "action": "change_agent_state"})
            out[-1]["args"] = change
            add(_state(0, f"user_{answer}", when))
            decided = copy.deepcopy(event)
            decided["args"]["confirmation_state"] = answer
            ids[event["id"]] = add(decided)["id"]
        else:
            event = copy.deepcopy(event)
            if event.get("cause") in ids:
                event["cause"] = ids[event["cause"]]
            ids.setdefault(event["id"], add(event)["id"])
    return out


def _tools(trace: dict[str, Any]) -> list[tuple[str, str]]:
    return [(s["name"], s["status"]) for s in trace["spans"] if s["type"] == "tool"]


def test_a_confirmed_call_is_one_call_not_an_incomplete_one_beside_it(run_cli, tmp_path):
    """Confirmation mode (the V0 CLI's default): a confirmed call is written twice, awaiting
    and confirmed, with two ids; only the second is executed. Each confirmed call was read as
    two, the first never answered (``incomplete``)."""
    original = _tools(_import(run_cli, tmp_path, json.loads(GUI.read_text())))
    events = _confirmation_mode(json.loads(GUI.read_text()), "confirmed")
    assert len(events) > len(json.loads(GUI.read_text()))
    trace = _import(run_cli, tmp_path, events)
    assert _tools(trace) == original
    calls = [s for s in trace["spans"] if s["type"] == "tool"]
    first = next(e for e in events if as_args(e).get("confirmation_state"))
    assert as_args(first)["confirmation_state"] == "awaiting_confirmation"
    assert calls[0]["span_id"] == f"event-{first['id']}"  # the call the model made


def test_a_rejected_call_is_one_rejected_call(run_cli, tmp_path):
    """The user rejects a call: the action is added again, ``rejected``, and the runtime answers
    it with a ``user_rejected`` observation; the awaiting copy is the same call."""
    events = _confirmation_mode(json.loads(GUI.read_text()), "rejected")
    for decided, event in itertools.pairwise(events):
        if as_args(decided).get("confirmation_state") == "rejected":
            assert event["observation"] == "run" and event["cause"] == decided["id"]
            event.update(observation="user_rejected", extras={}, content=REJECTED)
    trace = _import(run_cli, tmp_path, events)
    shells = [status for name, status in _tools(trace) if name == "execute_bash"]
    assert len(shells) == 2
    assert all(s["outcome"] == "rejected" for s in trace["spans"] if s["name"] == "execute_bash")


def test_a_call_the_stop_button_cut_short_is_interrupted_not_an_error(run_cli, tmp_path):
    """The user stops the agent while a command runs: the controller answers the call in flight
    with an ErrorObservation ("Stop button pressed. The action has not been executed.") and then
    writes the ``stopped`` state, as V1's AgentErrorEvent before an InterruptEvent. It was read
    as a failed call."""
    events = json.loads(GUI.read_text())
    trace = _import(run_cli, tmp_path, _cut_short(events, STOPPED, "stopped"))
    last = [s for s in trace["spans"] if s["type"] == "tool"][-1]
    assert (last["name"], last["outcome"]) == ("execute_bash", "interrupted")
    assert (last["status"], trace["run"]["final_status"]) == ("cancelled", "cancelled")
    assert STOPPED[1] not in json.dumps(trace)


def test_a_call_not_executed_before_the_stop_is_interrupted_in_2025s_earlier_form(
    run_cli, tmp_path
):
    """From 2025-04 to 2025-08 the controller answered it with one error_id, for a stop and a
    crash alike; the state that follows tells them apart."""
    events = json.loads(GUI.read_text())
    older = ("AGENT_ERROR$ERROR_ACTION_NOT_EXECUTED", "The action has not been executed.")
    for state, outcome in (("stopped", "interrupted"), ("error", "error")):
        trace = _import(run_cli, tmp_path, _cut_short(events, older, state))
        assert [s for s in trace["spans"] if s["type"] == "tool"][-1]["outcome"] == outcome


def test_a_failed_call_before_a_stop_stays_an_error(run_cli, tmp_path):
    """A call that failed (an error observation of its own, no ``error_id``), then the user
    stops the agent during its next model call: the failure is no interruption."""
    events = json.loads(GUI.read_text())
    trace = _import(run_cli, tmp_path, _cut_short(events, ("", "File not found"), "stopped"))
    last = [s for s in trace["spans"] if s["type"] == "tool"][-1]
    assert (last["outcome"], trace["run"]["final_status"]) == ("error", "cancelled")


def test_an_error_before_an_error_state_stays_an_error(run_cli, tmp_path):
    """A runtime crash: the call in flight is answered "not executed due to a runtime error",
    then the ``error`` state; the call failed."""
    events = json.loads(GUI.read_text())
    trace = _import(run_cli, tmp_path, _cut_short(events, CRASHED, "error"))
    last = [s for s in trace["spans"] if s["type"] == "tool"][-1]
    assert (last["outcome"], trace["run"]["final_status"]) == ("error", "error")


def _history(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A trajectory as ``save_trajectory_path`` and evaluation histories keep it: the
    controller's state history holds no agent state change (``state_tracker`` filters them)."""
    return [e for e in events if e.get("observation") != "agent_state_changed"]


def test_a_stop_the_error_id_names_is_an_interruption_without_a_state(run_cli, tmp_path):
    """From 2025-08 the not-executed error's id says a stop did it; a saved trajectory holds
    no ``stopped`` state to wait for, so that call read as failed."""
    events = json.loads(GUI.read_text())
    trace = _import(run_cli, tmp_path, _history(_cut_short(events, STOPPED, "stopped")))
    last = [s for s in trace["spans"] if s["type"] == "tool"][-1]
    assert last["outcome"] == "interrupted"
    trace = _import(run_cli, tmp_path, _history(_cut_short(events, CRASHED, "error")))
    assert [s for s in trace["spans"] if s["type"] == "tool"][-1]["outcome"] == "error"


def test_a_saved_trajectory_ending_on_the_agents_reply_is_a_finished_turn(run_cli, tmp_path):
    """The agent answered and waits for the user (``wait_for_response``), as V1's agent
    message: the run read ``unknown`` where its file holds no ``awaiting_user_input`` state."""
    events = json.loads(GUI.read_text())
    reply = next(
        i
        for i, e in enumerate(events)
        if e.get("action") == "message" and e.get("source") == "agent"
    )
    trace = _import(run_cli, tmp_path, _history(events[: reply + 1]))
    assert trace["run"]["final_status"] == "success"


def test_a_model_response_id_that_is_no_identifier_is_not_copied(run_cli, tmp_path):
    """A proxy that echoes text as the response id: the V0 llm span's id took it raw (the
    docs say ids are copied only when they are plain identifiers, in V0 too)."""
    events = json.loads(GUI.read_text())
    call = next(e for e in events if e.get("tool_call_metadata"))
    call["tool_call_metadata"]["model_response"]["id"] = "secret: rm -rf / --password=hunter2"
    trace = _import(run_cli, tmp_path, events)
    assert "hunter2" not in json.dumps(trace)


def test_an_evaluation_instance_with_no_history_is_a_failed_run(run_cli, tmp_path):
    """An instance that timed out (or ran out of retries) is written with ``history: null`` and
    its ``error``: the whole output.jsonl was refused, good instances too."""
    source = CORPUS / "openhands" / "openhands__multi_swe_bench_output.jsonl"
    first = source.read_text().splitlines()[0]
    timed_out = {
        "instance_id": "org__repo-1234",
        "test_result": {},
        "instruction": None,
        "metadata": None,
        "history": None,
        "metrics": None,
        "error": "Timeout after 3600 seconds",
        "instance": None,
    }
    output = tmp_path / "output.jsonl"
    output.write_text(first + "\n" + json.dumps(timed_out) + "\n")
    code, _, err = run_cli("import", "openhands", "--input", output, "--out", tmp_path / "out")
    assert code == 0, err
    traces = [json.loads(p.read_text()) for p in sorted((tmp_path / "out").iterdir())]
    assert len(traces) == 2
    (failed,) = [t for t in traces if not t["spans"]]
    assert failed["run"]["final_status"] == "error"


V1_EVENTS = CORPUS / "openhands" / "v1-events"
#: The ids of the ACP events (a digit appended), the title of the ACP server's call.
ACP = "5a1f0c2e-0000-4000-8000-00000000000"
ACP_TITLE = "`echo hello world`"


def _acp_conversation(tmp_path: Path, status: str) -> Path:
    """The real V1 conversation (``echo hello world``) as ``ACPAgent`` (the SDK driving an ACP
    server: Claude Code, Codex, Gemini CLI) records it (``acp_agent.py``): the server's tool
    call as an ``ACPToolCallEvent`` when it starts, again (same ``tool_call_id``) when it ends
    with ``status``, then the ``FinishAction`` that closes the turn and its observation."""
    system, user, action, _, _ = (json.loads(p.read_text()) for p in sorted(V1_EVENTS.glob("*")))
    call = {"source": "agent", "tool_call_id": "toolu_01AcpEcho", "kind": "ACPToolCallEvent"}
    call.update(title=ACP_TITLE, tool_kind="execute", raw_input={"command": "echo hello world"})
    start = dict(call, id=f"{ACP}1", timestamp=action["timestamp"], status="pending")
    end = dict(call, id=f"{ACP}2", timestamp="2026-01-27T03:56:23.718970", status=status)
    end.update(raw_output="hello world\n", is_error=status == "failed")
    finish = {"id": f"{ACP}3", "source": "agent", "kind": "ActionEvent", "tool_name": "finish"}
    finish.update(action={"message": "done", "kind": "FinishAction"}, tool_call_id="t1")
    finish.update(timestamp="2026-01-27T03:56:24.0", llm_response_id=f"{ACP}9")
    answer = {"id": f"{ACP}4", "source": "environment", "kind": "ObservationEvent"}
    answer.update(action_id=f"{ACP}3", tool_call_id="t1", observation={"kind": "FinishObservation"})
    folder = tmp_path / "acp"
    (folder / "events").mkdir(parents=True)
    for n, event in enumerate([system, user, start, end, finish, answer]):
        (folder / "events" / f"event-{n:05d}-{event['id']}.json").write_text(json.dumps(event))
    return folder


def _import_folder(run_cli, folder: Path, *options: str) -> dict[str, Any]:
    return cli_import_one(run_cli, "openhands", folder, folder.parent / "out", *options)


def test_an_acp_servers_tool_call_is_a_tool_span(run_cli, tmp_path):
    """An ACPAgent conversation's tool calls are ``ACPToolCallEvent``s, no ActionEvents: they
    were read as nothing (a run of no tool call). One span a ``tool_call_id``, named by its
    ``tool_kind``, its status the last event's; its title and input are never copied."""
    trace = _import_folder(run_cli, _acp_conversation(tmp_path, "completed"))
    assert _tools(trace) == [("execute", "success"), ("finish", "success")]
    shell = trace["spans"][0]
    assert (shell["span_id"], shell["attributes"]["tool_alias"]) == (f"event-{ACP}1", "shell")
    assert shell["duration_ms"] == 1000.0
    assert {"title", "raw_input", "raw_output"} <= set(trace["redaction"]["removed_fields"])
    assert ACP_TITLE not in json.dumps(trace) and "echo hello" not in json.dumps(trace)


def test_a_failed_acp_tool_call_is_an_error(run_cli, tmp_path):
    """The ACP server reports the call ``failed``."""
    trace = _import_folder(run_cli, _acp_conversation(tmp_path, "failed"))
    assert _tools(trace)[0] == ("execute", "error")


def _interrupted(folder: Path, kept: int) -> Path:
    """The conversation's first ``kept`` events, then an ``InterruptEvent``."""
    for path in sorted((folder / "events").glob("*"))[kept:]:
        path.unlink()
    interrupt = {"id": f"{ACP}5", "source": "user", "kind": "InterruptEvent"}
    (folder / "events" / f"event-{kept:05d}-{ACP}5.json").write_text(json.dumps(interrupt))
    return folder


def test_an_acp_tool_call_cut_short_by_an_interrupt_is_interrupted(run_cli, tmp_path):
    """The run is interrupted while the ACP server's call runs: only its start is recorded,
    or the SDK closes it ``failed`` (``_cancel_inflight_tool_calls``) just before."""
    for status, kept in (("completed", 3), ("failed", 4)):
        folder = _interrupted(_acp_conversation(tmp_path / status, status), kept)
        trace = _import_folder(run_cli, folder)
        assert _tools(trace) == [("execute", "cancelled")]
        assert trace["spans"][0]["outcome"] == "interrupted"
        assert trace["run"]["final_status"] == "cancelled"


def test_a_browser_action_that_failed_is_an_error(run_cli, tmp_path):
    """A ``browse`` observation whose browser action failed (``extras.error: true``, as the
    runtime's ``browser/utils.py`` writes it; no ``success`` field, no exit code) was ``ok``."""
    events = json.loads(GUI.read_text())
    action, answer = events[13], events[14]
    action.update(action="browse_interactive", args={"browser_actions": "goto('http://x')"})
    action["tool_call_metadata"]["function_name"] = "browser"
    answer.pop("success")
    failed = "Error: Page.goto: net::ERR_CONNECTION_REFUSED at http://x/"
    answer.update(observation="browse", content=failed, message="Visited http://x")
    answer["extras"] = {"url": "http://x", "trigger_by_action": "browse_interactive"}
    for error, outcome in ((True, "error"), (False, "ok")):
        answer["extras"].update(error=error, last_browser_action_error=failed if error else "")
        trace = _import(run_cli, tmp_path, events)
        last = trace["spans"][-2]
        assert (last["type"], last["name"], last["outcome"]) == ("retriever", "browser", outcome)
        assert "ERR_CONNECTION" not in json.dumps(trace)


SAFETY = CORPUS / "openhands" / "openhands_v1__openagentsafety_output.jsonl"


def test_a_state_update_of_autumn_2025_names_the_status_agent_status(run_cli, tmp_path):
    """From 2025-09-30 to 2025-11-04 the agent server recorded each state change as
    ``ConversationStateUpdateEvent(key=<field>)``, the field then ``agent_status`` (a remote
    conversation's events, an evaluation's history, hold them): a run that got stuck or
    failed was read by its other events (``unknown`` here)."""
    record = json.loads(SAFETY.read_text().splitlines()[1])
    last = record["history"][-1]
    assert last["kind"] == "ObservationEvent" and record["error"] is None
    update = {"id": "0d4f4e0e-2c4e-4f0e-9c1e-6f7f1b2b3c4d", "timestamp": last["timestamp"]}
    update.update(source="environment", kind="ConversationStateUpdateEvent")
    record["history"].append(update)
    for key, value, status in (
        ("agent_status", "stuck", "error"),
        ("agent_status", "paused", "cancelled"),
        ("full_state", {"agent_status": "error", "confirmation_policy": {}}, "error"),
    ):
        update.update(key=key, value=value)
        source, out = tmp_path / "output.jsonl", tmp_path / f"out-{status}-{key}"
        source.write_text(json.dumps(record) + "\n")
        trace = cli_import_one(run_cli, "openhands", source, out)
        assert trace["run"]["final_status"] == status


def _delegation(when: str, answered: bool) -> list[dict[str, Any]]:
    """A V0 delegation as the controller writes it (``start_delegate``, ``end_delegate``): the
    parent's ``delegate`` action, then the delegate's own events on the shared stream — its
    state, a call, its ``finish`` and its ``finished`` state — and, when ``answered``, the
    ``AgentDelegateObservation`` that hands back to the parent (``cause``: the action)."""
    agent = {"source": "agent", "timestamp": when, "message": ""}
    delegate = {"id": 100, "action": "delegate", **agent}
    delegate["args"] = {"agent": "BrowsingAgent", "inputs": {"task": "find the docs"}}
    browse = {"id": 102, "action": "browse", "args": {"url": "https://example.org"}, **agent}
    seen = {"id": 103, "observation": "browse", "cause": 102, "content": "docs", **agent}
    seen["extras"] = {"url": "https://example.org", "error": False}
    finish = {"id": 104, "action": "finish", **agent}
    finish["args"] = {"outputs": {"content": "docs found"}, "final_thought": "browsed"}
    events = [delegate, _state(101, "running", when), browse, seen, finish]
    events.append(_state(105, "finished", when))
    if answered:
        back = {"id": 106, "observation": "delegate", "cause": 100, **agent}
        back.update(content="BrowsingAgent finishes task with content: docs found")
        back["extras"] = {"outputs": {"content": "docs found"}}
        events.append(back)
    return events


def test_a_delegates_finish_is_not_the_runs(run_cli, tmp_path):
    """The delegate's ``finish`` and ``finished`` state ended the parent run in success: a
    parent cut off after the delegate handed back (or before it could) read success. Only
    the parent's own finish or state ends the run."""
    events = json.loads(GUI.read_text())
    when = events[8]["timestamp"]
    handed_back = [*events[:9], *_delegation(when, answered=True), *events[9:15]]
    trace = _import(run_cli, tmp_path, handed_back)
    assert trace["run"]["final_status"] == "unknown"  # the parent never answered
    spans = [(s["type"], s["name"], s["status"]) for s in trace["spans"] if s["type"] != "llm"]
    assert ("handoff", "delegate", "success") in spans, spans
    assert ("tool", "finish", "success") in spans, spans
    cut = [*events[:9], *_delegation(when, answered=False)]
    assert _import(run_cli, tmp_path, cut)["run"]["final_status"] == "unknown"
    whole = [*events[:9], *_delegation(when, answered=True), *events[9:]]
    trace = _import(run_cli, tmp_path, whole)
    assert trace["run"]["final_status"] == "success"  # the parent's reply and state


def test_a_delegate_stopped_with_the_run_ends_it_so(run_cli, tmp_path):
    """A run stopped while its delegate works: the delegate's ``stopped`` state is the run's
    end (cancelled), as the parent never resumes."""
    events = json.loads(GUI.read_text())
    when = events[8]["timestamp"]
    cut = [*events[:9], *_delegation(when, answered=False)[:-1], _state(105, "stopped", when)]
    assert _import(run_cli, tmp_path, cut)["run"]["final_status"] == "cancelled"


def _limit_error(event_id: int, when: str, mode: str) -> dict[str, Any]:
    """The controller's ``report_error`` when the run reaches its iteration limit
    (``_handle_traffic_control``): "task paused" in the GUI, "task stopped" headless."""
    text = (
        f"Agent reached maximum iteration{' in headless mode' if mode == 'stopped' else ''}, "
        f"task {mode}. Current iteration: 15.00, max iteration: 15.00."
    )
    return {"id": event_id, "timestamp": when, "source": "environment", "message": text,
            "observation": "error", "content": text, "extras": {"error_id": ""}}  # fmt: skip


@pytest.mark.parametrize("order", ["paused-first", "error-first", "headless"])
def test_a_run_at_its_iteration_limit_is_an_error_however_the_controller_stopped_it(
    run_cli, tmp_path, order
):
    """At its iteration limit the V0 controller pauses a GUI run (headless: the error state):
    the GUI run read ``cancelled``, a person's stop, where the same limit headless, in V1 and
    in every other importer reads ``error``."""
    events = json.loads(GUI.read_text())[:15]
    when = events[-1]["timestamp"]
    if order == "paused-first":
        end = [_state(15, "paused", when), _limit_error(16, when, "paused")]
    elif order == "error-first":
        end = [_limit_error(15, when, "paused"), _state(16, "paused", when)]
    else:
        end = [_state(15, "error", when), _limit_error(16, when, "stopped")]
    assert _import(run_cli, tmp_path, [*events, *end])["run"]["final_status"] == "error"
    paused = _import(run_cli, tmp_path, [*events, _state(15, "paused", when)])
    assert paused["run"]["final_status"] == "cancelled"  # a person's pause stays so
