"""OpenHands V1 (software-agent-sdk) events, and files in which no OpenHands event is found.

Each test reads the real file with a few lines of its own (tests/corpus/openhands: an
evaluation's output.jsonl of V1 ``ActionEvent``/``ObservationEvent`` histories, and a V1
conversation persisted one event a file) and compares what the importer wrote.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from abw.adapter_kit import run_adapter_kit
from abw.importers.common import parse_argument_fields, parse_labels
from abw.models.trace import Trace
from abw.traceio import render_trace
from tests.conftest import CORPUS
from tests.importkit import import_traces

FOLDER = CORPUS / "openhands"
V1_OUTPUT = FOLDER / "openhands_v1__openagentsafety_output.jsonl"
V1_EVENTS = FOLDER / "v1-events"
SWE_AGENT = CORPUS / "swe-agent" / "sweagent__pydicom__pydicom-1458.traj"


def _import(path: Path, **kwargs) -> list[Trace]:
    return import_traces("openhands", path, **kwargs)


def _instances() -> list[dict]:
    return [json.loads(line) for line in V1_OUTPUT.read_text().splitlines() if line.strip()]


def _expected_tools(history: list[dict]) -> list[tuple[str, str]]:
    """(tool_name, status) of every ActionEvent, from its ObservationEvent (paired by
    action_id): an error or a non-zero exit code is an error; FinishAction is a success."""
    answers = {e["action_id"]: e["observation"] for e in history if e["kind"] == "ObservationEvent"}
    expected = []
    for event in history:
        if event["kind"] != "ActionEvent":
            continue
        observation = answers.get(event["id"])
        if event["action"]["kind"] == "FinishAction":
            status = "success"
        elif observation is None:
            status = "unknown"
        else:
            failed = observation.get("error") or observation["metadata"]["exit_code"] != 0
            status = "error" if failed else "success"
        expected.append((event["tool_name"], status))
    return expected


def test_v1_actions_are_tool_spans_named_by_their_tool():
    """V1 histories were read as V0: every span named str() of its action dict, status
    unknown, no llm span, final status unknown though the run ends in a FinishAction."""
    instances = _instances()
    traces = _import(V1_OUTPUT)
    assert [t.run.scenario_id for t in traces] == [i["instance_id"] for i in instances]
    for trace, instance in zip(traces, instances, strict=True):
        history = instance["history"]
        assert [(s.name, s.status) for s in trace.path()] == _expected_tools(history)
        actions = [e for e in history if e["kind"] == "ActionEvent"]
        assert [s.attributes["action"] for s in trace.path()] == [
            e["action"]["kind"] for e in actions
        ]
        shells = [s for s in trace.path() if s.name == "execute_bash"]
        assert {s.attributes["tool_alias"] for s in shells} == {"shell"}
        # one llm span per model response, named by the model the evaluation ran
        llm = [s for s in trace.spans if s.type == "llm"]
        assert [s.span_id for s in llm] == list(
            dict.fromkeys(e["llm_response_id"] for e in actions)
        )
        assert {s.name for s in llm} == {instance["metadata"]["llm"]["model"]}
        finished = any(e["action"]["kind"] == "FinishAction" for e in actions)
        assert trace.run.final_status == ("success" if finished else "unknown")
    assert [t.run.final_status for t in traces] == ["success", "unknown"]


def test_v1_output_holds_none_of_the_commands():
    """The redaction leak: raw command text (``curl -u user:password``) was the span's name and
    ``attributes.action``. Only hashes of content may come out."""
    text = V1_OUTPUT.read_text()
    distinctive = ["curl -u theagentcompany", 'chat_npc \\"David\\"', "openpyxl.load_workbook"]
    assert all(s in text for s in distinctive)
    rendered = "\n".join(render_trace(t) for t in _import(V1_OUTPUT))
    commands = [
        e["action"].get("command") or e["action"]["message"]
        for instance in _instances()
        for e in instance["history"]
        if e["kind"] == "ActionEvent"
    ]
    outputs = [
        e["observation"].get("output") or e["observation"]["message"]
        for instance in _instances()
        for e in instance["history"]
        if e["kind"] == "ObservationEvent"
    ]
    for raw in [*distinctive, "chat_npc", "openpyxl", *commands, *outputs]:
        if len(raw) >= 8:
            assert raw.replace('\\"', '"') not in rendered
            assert raw not in rendered
    report = run_adapter_kit("openhands", [V1_OUTPUT])  # canaries planted in every content field
    assert report.ok, report.problems


def test_v1_removed_fields_name_the_content_held():
    (trace, _) = _import(V1_OUTPUT)
    history = _instances()[0]["history"]
    held = {key for e in history for key in ("action", "observation", "tool_call") if e.get(key)}
    assert held == {"action", "observation", "tool_call"}
    assert held | {"instance", "instruction", "metadata"} <= set(trace.redaction.removed_fields)


def test_v1_argument_fields_read_the_model_arguments():
    (first, _) = _import(V1_OUTPUT, argument_fields=parse_argument_fields("execute_bash:command"))
    history = _instances()[0]["history"]
    calls = [e for e in history if e["kind"] == "ActionEvent" and e["tool_name"] == "execute_bash"]
    shells = [s for s in first.path() if s.name == "execute_bash"]
    assert [s.attributes["arguments"]["command"] for s in shells] == [
        json.loads(e["tool_call"]["arguments"])["command"] for e in calls
    ]
    (labelled, _) = _import(V1_OUTPUT, labels=parse_labels("chat_npc"))
    named = [s.name for s in labelled.path()]
    assert named.count("chat_npc") == sum("chat_npc" in e["action"]["command"] for e in calls)


# ----------------------------------------------------------------- one event a file


def _events() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(V1_EVENTS.glob("event-*.json"))]


def test_v1_event_folder_is_one_conversation(run_cli, tmp_path):
    events = _events()
    kinds = [e["kind"] for e in events]
    assert kinds == [
        "SystemPromptEvent",
        "MessageEvent",
        "ActionEvent",
        "ObservationEvent",
        "MessageEvent",
    ]
    (trace,) = _import(V1_EVENTS)
    action, observation, answer = events[2], events[3], events[4]
    assert [(s.type, s.name, s.status) for s in trace.spans] == [
        ("llm", "llm", "success"),
        ("tool", action["tool_name"], "success"),
        ("llm", "llm", "success"),
    ]
    tool = trace.spans[1]
    assert tool.attributes == {
        "action": action["action"]["kind"],
        "exit_code": observation["observation"]["exit_code"],
        "tool_alias": "shell",
    }
    assert [s.span_id for s in trace.spans] == [
        action["llm_response_id"],
        f"event-{action['id']}",
        answer["llm_response_id"],
    ]
    files = sorted(p.name for p in V1_EVENTS.glob("event-*.json"))
    assert [s.source_ref.file for s in trace.spans] == [files[2], files[2], files[4]]
    assert trace.run.final_status == "success"  # the agent answered: it waits for the user
    rendered = render_trace(trace)
    for raw in (action["action"]["command"], answer["llm_message"]["content"][0]["text"]):
        assert raw not in rendered

    # as a conversation persists it: <conversation>/events/event-*.json beside base_state.json
    conversation = tmp_path / "conversations" / "c0ffee" / "events"
    shutil.copytree(V1_EVENTS, conversation)
    (conversation.parent / "base_state.json").write_text('{"id": "c0ffee"}')
    code, _, err = run_cli("import", "openhands", "--input", tmp_path, "--out", tmp_path / "out")
    assert code == 0, err
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["c0ffee.json"]

    code, _, err = run_cli(
        "import", "openhands", "--input", conversation / files[2], "--out", tmp_path / "one"
    )
    assert code == 2
    assert files[2] in err and "folder" in err and len(err.strip().splitlines()) == 1


def _variant(tmp_path: Path, change) -> Path:
    """A copy of the event folder whose ObservationEvent (event 3) ``change`` rewrites."""
    folder = tmp_path / "events"
    shutil.copytree(V1_EVENTS, folder)
    path = sorted(folder.glob("event-00003-*.json"))[0]
    event = json.loads(path.read_text())
    path.write_text(json.dumps(change(event)))
    return folder


def _observed(**fields):
    def change(event):
        event["observation"].update(fields)
        return event

    return change


def _as(kind: str, **fields):
    """The observation replaced by another answer to the same tool call."""

    def change(event):
        keep = ("id", "timestamp", "tool_name", "tool_call_id", "action_id")
        return {"kind": kind, **{k: event[k] for k in keep}, **fields}

    return change


@pytest.mark.parametrize(
    ("change", "outcome"),
    [
        (_observed(exit_code=2, metadata={"exit_code": 2}), "error"),
        (_observed(is_error=True), "error"),
        (
            _observed(
                exit_code=-1,
                metadata={
                    "exit_code": -1,
                    "suffix": "\n[The command timed out after 10.0 seconds.",
                },
            ),
            "timeout",
        ),
        (_as("UserRejectObservation", rejection_reason="no"), "rejected"),
        (_as("UserRejectObservation", rejection_reason="no", rejection_source="hook"), "denied"),
        (_as("AgentErrorEvent", source="agent", error="boom"), "error"),
        (_as("CondensationRequest"), "incomplete"),
    ],
    ids=["exit-2", "is-error", "timed-out", "rejected", "hook", "agent-error", "unanswered"],
)
def test_v1_observation_statuses(tmp_path, change, outcome):
    (trace,) = _import(_variant(tmp_path, change))
    assert [s.outcome for s in trace.path()] == [outcome]


# ----------------------------------------------------------------- not OpenHands at all


def test_a_file_with_no_openhands_event_is_refused(run_cli, tmp_path):
    """A SWE-agent trajectory (its history entries carry an ``action``) was imported as an
    empty OpenHands run, exit 0."""
    history = json.loads(SWE_AGENT.read_text())["history"]
    assert any("action" in entry for entry in history)
    code, _, err = run_cli("import", "openhands", "--input", SWE_AGENT, "--out", tmp_path / "o")
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert SWE_AGENT.name in err and "history" in err and "no OpenHands event" in err
    assert not (tmp_path / "o").exists()


def test_every_openhands_corpus_file_still_imports():
    files = [p for p in sorted(FOLDER.iterdir()) if p.suffix in (".json", ".jsonl")]
    for path in [*files, V1_EVENTS]:
        traces = _import(path)
        assert traces and all(t.spans for t in traces), path.name


def test_v0_a_command_that_timed_out_is_a_timeout_too(tmp_path):
    """V0 and V1 share the rule: exit -1 with "timed out" (a hard timeout) or "no new output"
    (the soft one) is a timeout, as V1's ``timeout`` flag says."""
    source = FOLDER / "openhands__basic_gui_mode.json"
    events = json.loads(source.read_text())
    (soft,) = [e for e in events if e.get("extras", {}).get("metadata", {}).get("exit_code") == -1]
    soft["extras"]["metadata"]["suffix"] = "\n[The command timed out after 120.0 seconds.]"
    copy = tmp_path / source.name
    copy.write_text(json.dumps(events, indent=2))
    (trace,) = _import(copy)
    assert [s.outcome for s in trace.path() if s.attributes.get("exit_code") == -1] == ["timeout"]


def test_v1_condensation_is_a_compaction_not_an_agent_turn(tmp_path):
    """A ``Condensation`` left no span (the context cut was invisible). As an SDK of late 2025
    writes it after a ``CondensationRequest`` (a context-window error, a user's request), with
    the ``llm_response_id`` of the condenser's own model call: a ``memory`` span
    ``compaction``, trigger ``other``; that call is no agent turn, not an llm span (as the
    summariser of a Claude Code compaction)."""
    folder = tmp_path / "events"
    shutil.copytree(V1_EVENTS, folder)
    forgotten = [_events()[2]["id"], _events()[3]["id"]]
    added = [
        {"kind": "CondensationRequest", "id": "0c0ffee0-0000-4000-8000-000000000005"},
        {
            "kind": "Condensation",
            "id": "0c0ffee0-0000-4000-8000-000000000006",
            "source": "environment",
            "forgotten_event_ids": forgotten,
            "summary": "USER_CONTEXT: echo hello world",
            "summary_offset": 1,
            "llm_response_id": "chatcmpl-condenser-0001",
        },
    ]
    for number, event in enumerate(added, 5):
        (folder / f"event-{number:05d}-{event['id']}.json").write_text(json.dumps(event))
    (trace,) = _import(folder)
    assert [(s.type, s.name) for s in trace.spans] == [
        ("llm", "llm"),
        ("tool", _events()[2]["tool_name"]),
        ("llm", "llm"),
        ("memory", "compaction"),
    ]
    memory = trace.spans[-1]
    assert memory.attributes == {"trigger": "other", "forgotten_events": 2}
    assert memory.span_id == f"event-{added[1]['id']}" and memory.status == "success"
    assert "chatcmpl-condenser-0001" not in render_trace(trace)
    assert "echo hello world" not in render_trace(trace)


def test_v0_condensation_is_a_compaction_too(tmp_path):
    """V0 means the same: a ``condensation_request`` was a tool span, ``incomplete`` (nothing
    answers it), and a ``condensation`` (its forgotten events a range of ids) no span."""
    source = FOLDER / "openhands__basic_gui_mode.json"
    events = json.loads(source.read_text())
    last = max(e["id"] for e in events)
    events += [
        {"id": last + 1, "source": "agent", "action": "condensation_request", "args": {}},
        {
            "id": last + 2,
            "source": "agent",
            "action": "condensation",
            "message": "Summary: ...",
            "args": {
                "forgotten_events_start_id": 2,
                "forgotten_events_end_id": 9,
                "summary": "USER_CONTEXT: ...",
                "summary_offset": 1,
            },
        },
    ]
    copy = tmp_path / source.name
    copy.write_text(json.dumps(events, indent=2))
    (before,) = _import(source)
    (trace,) = _import(copy)
    assert [(s.type, s.name) for s in trace.spans][:-1] == [(s.type, s.name) for s in before.spans]
    memory = trace.spans[-1]
    assert (memory.type, memory.name) == ("memory", "compaction")
    assert memory.attributes == {"trigger": "other", "forgotten_events": 8}


def test_an_evaluation_model_that_is_no_plain_identifier_is_not_copied(tmp_path):
    """The model an evaluation's record names becomes the llm spans' name only when it is a
    plain identifier: free text there (a note, a path with spaces) stays out of the trace."""
    record = json.loads(
        (FOLDER / "OpenHands__opendevin-v1.5__gorilla_torch_output_head5__fc7b6bba.jsonl")
        .read_text()
        .splitlines()[0]
    )
    record["metadata"]["model_name"] = record["model_id"] = "my model, tuned on our tickets"
    path = tmp_path / "output.jsonl"
    path.write_text(json.dumps(record) + "\n")
    (trace,) = _import(path)
    assert {s.name for s in trace.spans if s.type == "llm"} == {"llm"}
    assert "tuned on our tickets" not in render_trace(trace)


@pytest.mark.parametrize(("source", "outcome"), [("hook", "denied"), ("user", "rejected")])
def test_v1_a_rejected_finish_leaves_the_run_unfinished(tmp_path, source, outcome):
    """A PreToolUse hook (or the user, in confirmation mode) may reject the ``finish`` call:
    the SDK then does not mark the conversation finished and the agent goes on. Cut off
    there, the run is no success and its finish was refused."""
    folder = tmp_path / "events"
    shutil.copytree(V1_EVENTS, folder)
    action_path, answer_path, message_path = (
        sorted(folder.glob(f"event-0000{n}-*.json"))[0] for n in (2, 3, 4)
    )
    action = json.loads(action_path.read_text())
    action["tool_name"] = action["tool_call"]["name"] = "finish"
    action["action"] = {"kind": "FinishAction", "message": "All done."}
    action_path.write_text(json.dumps(action))
    answer = json.loads(answer_path.read_text())
    keep = ("id", "timestamp", "tool_name", "tool_call_id", "action_id")
    rejection = {k: answer[k] for k in keep} | {
        "kind": "UserRejectObservation",
        "tool_name": "finish",
        "rejection_reason": "tests still failing",
        "rejection_source": source,
    }
    answer_path.write_text(json.dumps(rejection))
    message_path.unlink()  # the run was cut off after the rejection
    hook = {
        "kind": "HookExecutionEvent",
        "id": "hook-1",
        "timestamp": answer["timestamp"],
        "source": "hook",
        "hook_event_type": "PreToolUse",
        "hook_command": "./check-tests-pass.sh",
        "hook_input": {"tool_name": "finish"},
        "blocked": True,
        "stdout": "",
        "stderr": "tests still failing",
        "reason": "tests still failing",
        "action_id": action["id"],
    }
    (folder / answer_path.name.replace("00003", "00002-1")).write_text(json.dumps(hook))
    (trace,) = _import(folder)
    assert [(s.name, s.outcome) for s in trace.path()] == [("finish", outcome)]
    assert trace.run.final_status == "unknown"
    assert trace.run.final_output_hash is None  # the finish message was no answer
    held = {"hook_command", "hook_input", "stderr", "reason"}  # (its stdout is empty)
    assert held <= set(trace.redaction.removed_fields)
