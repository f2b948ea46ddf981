"""One rollout read into span drafts, record by record: model output between two inputs is one
``llm`` span, each call a span paired with its output by ``call_id`` (``write_stdin`` polls
folded into their command), ``event_msg`` records refining outcomes and durations."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.base import ImportOptions
from abw.importers.codex.exec_json import exec_refusal, note_exec_output
from abw.importers.codex.items import note_item_completed
from abw.importers.codex.outputs import Verdict, classify_output, command_outcome
from abw.importers.codex.records import RECORD_TYPES, rollout_records
from abw.importers.codex.removed import note_held
from abw.importers.codex.settle import settle
from abw.importers.codex.state import Call, RolloutState
from abw.importers.codex.tools import (
    HANDOFF_TOOLS,
    MEMORY_TOOLS,
    RETRIEVER_TOOLS,
    shell_command_text,
    tool_name,
)
from abw.importers.codex.values import as_int, duration_ms, nonempty_str, plain_name
from abw.importers.common import extract_arguments, identifier, shown_id
from abw.importers.rawio import decode_json_string
from abw.importers.spans import SHELL_TOOLS, Draft, parse_time

_CALLS = {"function_call", "custom_tool_call", "local_shell_call", "tool_search_call"}
_OUTPUTS = {
    "function_call_output",
    "custom_tool_call_output",
    "local_shell_call_output",
    "tool_search_output",
}
_MODEL_ITEMS = {"reasoning", "web_search_call", *_CALLS}
#: A context compaction's item (``compaction_summary``: an older name Codex still reads as one).
_COMPACTION_ITEMS = {"compaction", "compaction_summary", "compacted"}
#: ``response_item`` types that hold no behavior: a ghost commit snapshot, request controls
#: (``compaction_trigger``, ``configuration_update``), the tools declared to the model
#: (``additional_tools``) and what Codex could not read itself (``other``).
_HARMLESS_ITEMS = {
    "ghost_snapshot",
    "compaction_trigger",
    "configuration_update",
    "additional_tools",
    "other",
}
#: Records that hold no behavior (0.171+): the context Codex keeps in sync with the model
#: (``world_state``: environment, instructions, skills), each response's token usage, and
#: whether a message between agents starts a turn (``inter_agent_communication_metadata``).
_STATE_RECORDS = {"world_state", "token_usage_record", "inter_agent_communication_metadata"}
#: A ``tool_search_output``'s status -> outcome (an unfinished search stays unanswered).
_SEARCH_STATUS = {"completed": "ok", "failed": "error", "incomplete": "error"}


def read_rollout(
    raw: bytes,
    path: Path,
    options: ImportOptions,
    own: Callable[[int, dict[str, Any]], bool] | None = None,
    records: Iterable[tuple[int, dict[str, Any]]] | None = None,
) -> tuple[RolloutState, dict[str, list[Any]]]:
    """One rollout read into its drafts (only the records ``own`` keeps), settled; and the
    payloads it held, by kind, for ``removed_fields``."""
    state = RolloutState(options, path)
    held: dict[str, list[Any]] = {}  # record kind -> its payloads, for removed_fields
    for line, record in records if records is not None else rollout_records(raw, path, options):
        note_held(held, record)
        if own is None or own(line, record):
            _step(state, line, record)
    if state.recognised == 0 and state.exec_output is not None:
        line, key = state.exec_output
        raise AbwInputError(exec_refusal(state.exec_thread), file=path, line=line, field=key)
    if state.recognised == 0:
        raise AbwInputError(
            "not a Codex rollout: no session_meta, response_item or event_msg records",
            file=path,
        )
    _close_llm(state)
    settle(state)
    return state, held


def _step(state: RolloutState, line: int, record: dict[str, Any]) -> None:
    kind = nonempty_str(record.get("type"))
    payload = record.get("payload")
    if record.get("record_type") == "state":  # (legacy: around each request's batch)
        state.batched = True
        _close_llm(state)
        return
    if kind in _STATE_RECORDS:
        state.recognised += 1
        return
    if kind not in RECORD_TYPES or not isinstance(payload, dict):
        state.unknown_types.add(str(kind))
        note_exec_output(state, line, record)
        return
    state.recognised += 1
    when = parse_time(record.get("timestamp"))
    state.first_time = state.first_time or when
    if kind == "session_meta":
        state.trace_id = state.trace_id or nonempty_str(payload.get("id"))
        state.meta.setdefault("agent_version", identifier(payload.get("cli_version")))
        state.meta.setdefault("originator", plain_name(payload.get("originator")))
        state.batched = state.batched or _batched(payload.get("cli_version"))
    elif kind == "turn_context":
        _close_llm(state)
        state.model = nonempty_str(payload.get("model")) or state.model
    elif kind == "compacted":
        _close_llm(state)
        state.drafts.append(
            Draft((line,), "memory", "compaction", "ok", payload.get("message"), line=line)
        )
        state.drafts[-1].started_at = when
    elif kind == "event_msg":
        _event(state, line, payload, when)
    else:
        _item(state, line, payload, when)


def _turn_start(state: RolloutState, line: int) -> None:
    _close_llm(state)
    if state.turn_before is None:  # (``task_started`` then ``user_message``: one turn)
        state.turn_before = (state.final_status, state.final_text)
    state.turn_starts.append(line)
    state.cancelled_turn = state.failed_turn = state.after_output = False
    state.final_status = "unknown"


def _user_turn(state: RolloutState, line: int) -> None:
    """A person's message opens a user turn: the unit ``thread_rolled_back`` counts."""
    _turn_start(state, line)
    state.user_turns.append(state.turn_before or (state.final_status, state.final_text))
    state.turn_before = None


def _rolled_back(state: RolloutState, payload: dict[str, Any]) -> None:
    """``thread_rolled_back``: Codex drops the last ``num_turns`` user turns from the
    conversation, so its final status and output are again those before the first of them (the
    rolled-back turns' spans stay: their calls ran)."""
    count = as_int(payload.get("num_turns"))
    if count is None or count < 1 or not state.user_turns:
        return
    keep = max(len(state.user_turns) - count, 0)
    state.final_status, state.final_text = state.user_turns[keep]
    del state.user_turns[keep:]
    state.turn_before = None
    state.cancelled_turn = state.failed_turn = False


def _unanswered(state: RolloutState, payload: dict[str, Any]) -> bool:
    """Whether a turn completed with no answer while the model never saw its last call's
    output: the request after it failed, and Codex before 0.160 wrote no error for it."""
    return state.after_output and not isinstance(payload.get("last_agent_message"), str)


def _set_final(state: RolloutState, status: str) -> None:
    """The run's status so far, unless the turn being read was aborted or failed: Codex ends
    a turn that failed (``error``: a stream cut, a usage limit) with ``task_complete`` too."""
    if not (state.cancelled_turn or state.failed_turn):
        state.final_status = status


def _event(state: RolloutState, line: int, payload: dict[str, Any], when: datetime | None) -> None:
    kind = nonempty_str(payload.get("type"))
    if kind == "task_started":
        state.turn_events = state.task_events = True
        _turn_start(state, line)
    elif kind == "user_message":
        state.turn_events = True
        _user_turn(state, line)
    elif kind == "thread_rolled_back":
        _rolled_back(state, payload)
    elif kind == "task_complete":
        state.turn_before = None
        if payload.get("error") or _unanswered(state, payload):  # (0.160+ write the error)
            _set_final(state, "error")
            state.failed_turn = True
        _set_final(state, "success")
        message = payload.get("last_agent_message")
        if isinstance(message, str):
            state.final_text = message
    elif kind == "turn_aborted":
        state.turn_before = None
        state.aborts.append(line)
        state.final_status = "cancelled"
        state.cancelled_turn = True
    elif kind == "error" or (kind == "hook_completed" and _prompt_blocked(payload)):
        _set_final(state, "error")
        state.failed_turn = True
    elif kind == "collab_agent_spawn_end":  # (older versions persisted it)
        thread = nonempty_str(payload.get("new_thread_id"))
        call_id = nonempty_str(payload.get("call_id"))
        if thread and call_id and call_id not in state.spawned:
            state.spawned[call_id] = (thread, None)
    elif kind == "exec_command_end":
        call = state.calls.get(str(payload.get("call_id")))
        if call is not None:
            code = as_int(payload.get("exit_code"))
            call.exit_code = code if code is not None else call.exit_code
            call.ended = True
            milliseconds = duration_ms(payload.get("duration"))
            if milliseconds is not None:
                call.explicit_ms, call.duration_source = milliseconds, "exec_command_end"
            if code is not None:
                call.draft.outcome = command_outcome(code, "")
            elif payload.get("status") == "failed":
                call.draft.outcome = "error"
    elif kind == "token_count" and isinstance(payload.get("info"), dict):
        _request_ended(state)
    elif kind == "item_completed":
        note_item_completed(state, payload)
    elif kind == "patch_apply_end":
        call = state.calls.get(str(payload.get("call_id")))
        if call is not None and isinstance(payload.get("success"), bool):
            call.draft.outcome = "ok" if payload["success"] else "error"
            call.ended = True
    elif kind == "mcp_tool_call_end":
        call = state.calls.get(str(payload.get("call_id")))
        if call is not None:
            result = payload.get("result")
            failed = isinstance(result, dict) and (
                "Err" in result
                or (isinstance(result.get("Ok"), dict) and result["Ok"].get("isError"))
            )
            call.draft.outcome = "error" if failed else "ok"
            call.ended = True


def _prompt_blocked(payload: dict[str, Any]) -> bool:
    """A ``hook_completed`` of a UserPromptSubmit hook that blocked (or stopped) the turn: its
    prompt never reached the model, and the turn ends with no work done (Codex returns before
    recording it), as a turn that failed."""
    run = payload.get("run")
    return (
        isinstance(run, dict)
        and run.get("event_name") == "user_prompt_submit"
        and run.get("status") in ("blocked", "stopped")
    )


def _request_ended(state: RolloutState) -> None:
    """A request's usage (``token_count``): in a batched rollout the request before it is over."""
    if state.batched:
        _close_llm(state)


def _batched(version: Any) -> bool:
    """Whether Codex ``version`` wrote a request's items in one batch once its calls ran (each
    output beside its call before 0.59; all calls, then all outputs, until 0.66); a source build
    (0.0.0) is no release."""
    parts = version.split(".")[:2] if isinstance(version, str) else []
    if len(parts) < 2 or not all(p.isdigit() for p in parts):
        return False
    major, minor = int(parts[0]), int(parts[1])
    return major == 0 and 0 < minor < 66


def _open_llm(state: RolloutState, line: int, when: datetime | None) -> Draft:
    if state.llm is None:
        state.llm = Draft((line,), "llm", state.model or "model", "ok", line=line)
        state.llm.started_at = when
        state.llm_items = []
        state.drafts.append(state.llm)
    return state.llm


def _close_llm(state: RolloutState) -> None:
    if state.llm is not None:
        state.llm.output = state.llm_items
        state.llm = None
        state.llm_items = []


def _item(state: RolloutState, line: int, payload: dict[str, Any], when: datetime | None) -> None:
    kind = nonempty_str(payload.get("type"))
    if kind == "message":
        role = payload.get("role")
        if role == "assistant":
            state.after_output = False
            _open_llm(state, line, when)
            state.llm_items.append(payload.get("content"))
            text = _message_text(payload.get("content"))
            if text is not None:
                state.final_text = text
            # an answer ends the run only where no turn end is recorded (else: task_complete)
            _set_final(state, "unknown" if state.task_events else "success")
        else:
            _close_llm(state)
            if role == "user" and not state.turn_events and not _injected(payload):
                _user_turn(state, line)
        return
    if kind in _MODEL_ITEMS:
        state.after_output = False
        _open_llm(state, line, when)
        state.llm_items.append(payload)
        _set_final(state, "unknown")
        if kind == "web_search_call":
            _web_search(state, line, payload, when)
        elif kind in _CALLS:
            _call(state, line, kind, payload, when)
        return
    if kind in _OUTPUTS:
        state.after_output = True
        if not state.batched:  # (a batch's outputs sit among its calls: one request)
            _close_llm(state)
        _output(state, line, payload, when)
        return
    if kind in _COMPACTION_ITEMS:
        _close_llm(state)
        draft = Draft((line,), "memory", "compaction", "ok", payload, line=line)
        draft.started_at = when
        state.drafts.append(draft)
    elif kind not in _HARMLESS_ITEMS:
        state.unknown_items.add(str(kind))


_INJECTED = ("<environment_context>", "<user_instructions>", "<permissions", "# AGENTS.md")


def _injected(payload: dict[str, Any]) -> bool:
    """Context Codex adds to the history (environment, AGENTS.md), not a person's prompt."""
    text = _message_text(payload.get("content")) or ""
    return text.lstrip().startswith(_INJECTED)


def _message_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [
        c.get("text") for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)
    ]
    return "\n".join(texts) if texts else None


def _call(
    state: RolloutState, line: int, kind: str, payload: dict[str, Any], when: datetime | None
) -> None:
    if kind == "local_shell_call":
        name, attributes = "local_shell", {}
        args: Any = payload.get("action")
        call_id = nonempty_str(payload.get("call_id")) or nonempty_str(payload.get("id"))
    elif kind == "tool_search_call":
        name, attributes = "tool_search", {}
        args = decode_json_string(payload.get("arguments"), state.path, line)
        call_id = nonempty_str(payload.get("call_id")) or nonempty_str(payload.get("id"))
    else:
        name, attributes = tool_name(payload)
        args = payload.get("arguments") if kind == "function_call" else payload.get("input")
        args = decode_json_string(args, state.path, line) if kind == "function_call" else args
        call_id = nonempty_str(payload.get("call_id"))
    if name == "write_stdin" and isinstance(args, dict):
        session = str(args.get("session_id"))
        # a poll of a session whose process already exited is still a poll of its command:
        # Codex answers it "write_stdin failed: Unknown process id N" (a failed poll)
        target = state.sessions.get(session) or state.exited.get(session)
        if target is not None and call_id:
            target.polls += 1
            state.polls[call_id] = target
            return
    is_shell = name in SHELL_TOOLS
    span_type = "handoff" if name in HANDOFF_TOOLS else "tool"
    span_type = "memory" if name in MEMORY_TOOLS else span_type
    span_type = "retriever" if name in RETRIEVER_TOOLS else span_type
    draft = Draft((line,), span_type, name, None, args, span_id=call_id, line=line)
    draft.started_at = when
    draft.attributes.update(attributes)
    if is_shell:
        draft.mark_shell(state.options.labels, shell_command_text(name, args))
    _extract_arguments(state, draft, args)
    if kind == "local_shell_call" and payload.get("status") == "completed":
        draft.outcome = "ok"
    call = Call(draft, is_shell, line)
    state.drafts.append(draft)
    state.order.append(call)
    if call_id:
        state.calls[call_id] = call


def _output(state: RolloutState, line: int, payload: dict[str, Any], when: datetime | None) -> None:
    call_id = str(payload.get("call_id"))
    if payload.get("type") == "tool_search_output":  # the tools found, and a status
        output = payload.get("tools")
        verdict = Verdict(_SEARCH_STATUS.get(str(payload.get("status"))))
    else:
        output = payload.get("output")
        verdict = classify_output(output, state.path, line)
    poll_target = state.polls.get(call_id)
    if poll_target is not None:
        call = poll_target
        if verdict.outcome == "error" and verdict.exit_code is None:
            call.poll_errors += 1  # a failed poll does not end the command
            return
    else:
        call = state.calls.get(call_id)
        if call is None:
            state.options.warn(
                f"{state.path.name}: an output has no matching call ({shown_id(call_id)})"
            )
            return
    if call.draft.name == "spawn_agent" and poll_target is None:
        _note_spawned(state, call_id, output, line)
    call.outputs.append(output)
    call.last_output_at = when
    if verdict.seconds is not None:
        call.wall_seconds += verdict.seconds
        call.saw_wall = True
    if verdict.running_session is not None:
        call.session = verdict.running_session
        state.sessions[verdict.running_session] = call
        return
    if verdict.exit_code is not None:
        call.exit_code = verdict.exit_code
    single = call.polls == 0 and len(call.outputs) == 1
    if verdict.seconds is not None and verdict.exit_code is not None and single:
        call.explicit_ms = call.explicit_ms or round(verdict.seconds * 1000, 3)
        call.duration_source = call.duration_source or "metadata"
    if not call.ended or call.draft.outcome is None:
        call.draft.outcome = verdict.outcome
    if verdict.outcome == "interrupted":  # (a person stopped the turn; 0.80 exec writes no
        state.final_status = "cancelled"  # ``turn_aborted`` after it when ^C ends the process)
    if call.session is not None and verdict.outcome is not None:
        state.sessions.pop(call.session, None)
        state.exited[call.session] = call


def _note_spawned(state: RolloutState, call_id: str, output: Any, line: int) -> None:
    """The child a ``spawn_agent`` call's output names: ``{"agent_id", "nickname"}`` (multi-agent
    v1: the child's thread id) or ``{"task_name", "nickname"}`` (v2: the child's agent path)."""
    value = decode_json_string(output, state.path, line)
    if isinstance(value, dict):
        thread, task = nonempty_str(value.get("agent_id")), nonempty_str(value.get("task_name"))
        if thread or task:
            state.spawned[call_id] = (thread, task)


def _web_search(
    state: RolloutState, line: int, payload: dict[str, Any], when: datetime | None
) -> None:
    status = payload.get("status")
    outcome = {"completed": "ok", "failed": "error"}.get(str(status))
    draft = Draft((line,), "retriever", "web_search", outcome, payload.get("action"), line=line)
    draft.started_at = when
    draft.span_id = nonempty_str(payload.get("id"))
    _extract_arguments(state, draft, payload.get("action"))
    state.drafts.append(draft)


def _extract_arguments(state: RolloutState, draft: Draft, args: Any) -> None:
    """Copy the ``--argument-fields`` named for this span (after labels) out of its input."""
    arguments = extract_arguments(
        state.options.argument_fields, draft.name, args, file=state.path, line=draft.line
    )
    if arguments is not None:
        draft.attributes["arguments"] = arguments
