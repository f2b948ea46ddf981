"""V0 action/observation events read into drafts, a final status and a final text."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from abw.importers.base import ImportOptions
from abw.importers.common import identifier
from abw.importers.openhands.common import SHELL, compaction, event_span_id
from abw.importers.openhands.outcomes import STATE_STATUS, not_executed, observe, stopped
from abw.importers.rawio import as_dict, as_list
from abw.importers.spans import ABSENT, Draft, parse_time

_NOT_TOOLS = {"message", "change_agent_state", "system", "recall", "null", "condensation"}
#: The controller's error when a run reaches its iteration or budget limit: headless it ends
#: the run in the ``error`` state, in the GUI it pauses it (``_handle_traffic_control``).
_LIMIT_REACHED = re.compile(r"Agent reached maximum (iteration|budget)")


REMOVED_FIELDS = (
    "message",
    "args",
    "content",
    "extras",
    "tool_call_metadata.model_response",
)


def _confirmation(event: dict[str, Any]) -> Any:
    """A V0 action's ``confirmation_state`` (confirmation mode), if any."""
    return as_dict(event.get("args")).get("confirmation_state")


def _decided(event: dict[str, Any], pending: Draft) -> bool:
    """Whether ``event`` is the call ``pending`` awaited confirmation for, added again (with a
    new id) once the user confirmed or rejected it: the same call, not a second one."""
    return (
        pending.outcome is None
        and _confirmation(event) in {"confirmed", "rejected"}
        and pending.attributes.get("action") == event.get("action")
    )


def _function_arguments(meta: dict[str, Any]) -> Any:
    """The arguments the model sent with the function call ``tool_call_metadata`` names (the
    ones that match the span's ``function_name``), or ``None`` when the response lacks it."""
    response = as_dict(meta.get("model_response"))
    for choice in as_list(response.get("choices")):
        for call in as_list(as_dict(as_dict(choice).get("message")).get("tool_calls")):
            call = as_dict(call)
            if call.get("id") == meta.get("tool_call_id"):
                return as_dict(call.get("function")).get("arguments")
    return None


def read_v0(
    events: list[dict[str, Any]],
    options: ImportOptions,
    path: Path,
    configured: str | None,
) -> tuple[list[Draft], str, str | None]:
    """The drafts, final status and final text of a V0 trajectory; an llm span is named by
    its model response's ``model``, else the run's first, else ``configured`` (the model its
    evaluation names), else ``llm``."""
    drafts: list[Draft] = []
    calls: dict[Any, Draft] = {}
    by_tool_call: dict[str, Draft] = {}
    responses: set[str] = set()
    final_status, final_text, model = "unknown", None, None
    unnamed: list[Draft] = []  # llm spans before the run's first model_response
    first_model, requested = None, False
    pending: Draft | None = None  # a call awaiting the user's confirmation
    cut: list[Draft] = []  # calls just answered "not executed": a stop writes one a call
    # the delegations under way (their actions' ids): a delegate shares the parent's event
    # stream, and its own finish and agent states are not the run's; the parent resumes at
    # the ``delegate`` observation that answers the action
    delegations: list[str] = []
    delegate_state: Any = None
    limit = False  # the controller reported a limit reached (it pauses a GUI run there)
    # a run before function calling (CodeAct's text actions, OpenDevin): no model response
    # is recorded, and every agent action answered one model call
    text_actions = not any("tool_call_metadata" in event for event in events)
    for index, event in enumerate(events):
        when = parse_time(event.get("timestamp"))
        meta = as_dict(event.get("tool_call_metadata"))
        response = as_dict(meta.get("model_response"))
        action = event.get("action")
        if event.get("observation") not in ("error", "agent_state_changed"):
            cut.clear()
        if action == "condensation_request":  # (the agent's, on a context-window error)
            requested = True
            continue
        if action == "condensation":
            drafts.append(compaction(index, event, when, requested))
            requested = False
            continue
        if action == "message" and event.get("source") == "user":
            final_status = "unknown"  # the user sets the run going again (as in V1)
            continue
        if isinstance(action, str) and event.get("source") == "agent":
            if pending is not None and _decided(event, pending):  # (confirmation mode)
                calls[repr(event.get("id"))], pending.started_at, pending = pending, when, None
                continue
            response_id = response.get("id")
            model = identifier(response.get("model")) or model
            first_model = first_model or model
            if isinstance(response_id, str) and response_id not in responses:
                responses.add(response_id)
                llm = Draft(
                    (index, 0), "llm", str(model or "llm"), "ok", span_id=identifier(response_id)
                )
                if model is None:
                    unnamed.append(llm)
                llm.output = response.get("choices", ABSENT)
                llm.started_at = when
                usage = as_dict(response.get("usage"))
                for source, target in (
                    ("prompt_tokens", "input_tokens"),
                    ("completion_tokens", "output_tokens"),
                ):
                    if isinstance(usage.get(source), int):
                        llm.attributes[target] = usage[source]
                drafts.append(llm)
            if action == "message":
                args = as_dict(event.get("args"))
                content = args.get("content")
                if not delegations:  # (a delegate's message is not the run's answer)
                    final_text = content if isinstance(content, str) else final_text
                if args.get("wait_for_response") is not False and not delegations:
                    final_status = "success"  # it waits for the user (as V1)
                if response_id is None:
                    llm = Draft((index, 0), "llm", str(model or "llm"), "ok")
                    llm.output = content if content is not None else ABSENT
                    llm.started_at = when
                    drafts.append(llm)
                    if model is None:
                        unnamed.append(llm)
                continue
            if action in _NOT_TOOLS:
                continue
            if text_actions:  # (each action of such a run is the answer of one model call)
                llm = Draft((index, 0), "llm", str(model or "llm"), "ok")
                llm.output, llm.started_at = event.get("args", ABSENT), when
                drafts.append(llm)
                if model is None:
                    unnamed.append(llm)
            draft = _action(event, index, action, meta, when, options, path)
            drafts.append(draft)
            calls[repr(event.get("id"))] = draft
            if _confirmation(event) == "awaiting_confirmation":
                pending = draft
            if isinstance(meta.get("tool_call_id"), str):
                by_tool_call[meta["tool_call_id"]] = draft
            if action == "delegate":
                delegations.append(repr(event.get("id")))
            if action == "finish":  # the terminal tool call: it has no observation
                draft.outcome = "ok"
            if action == "finish" and not delegations:  # (a delegate's: the parent goes on)
                final_status = "success"
                outputs = as_dict(event.get("args")).get("final_thought") or as_dict(
                    event.get("args")
                ).get("outputs")
                final_text = outputs if isinstance(outputs, str) else final_text
        elif "observation" in event:
            observation = str(event.get("observation"))
            if observation == "agent_state_changed":
                state = as_dict(event.get("extras")).get("agent_state")
                if delegations:
                    delegate_state = state
                elif state == "paused" and limit:  # (a GUI run at its limit: as headless)
                    final_status = "error"
                else:
                    final_status = STATE_STATUS.get(str(state), final_status)
                limit = limit and state == "paused"
                stopped(cut, state)
                continue
            if observation == "error" and _LIMIT_REACHED.match(str(event.get("content"))):
                limit = True  # (its paused state may come before this error, or after it)
                if final_status == "cancelled" and not delegations:
                    final_status = "error"
            if observation == "delegate" and repr(event.get("cause")) in delegations:
                del delegations[delegations.index(repr(event.get("cause"))) :]
                delegate_state = None
            draft = calls.get(repr(event.get("cause")))
            if draft is None:
                draft = by_tool_call.get(str(meta.get("tool_call_id")))
            if draft is None or draft.outcome is not None:
                continue
            observe(draft, event, observation, when)
            unrun = not_executed(event) if observation == "error" else None
            if unrun == "stopped":
                draft.outcome = "interrupted"  # the id says the stop cut it short
            elif unrun:
                cut.append(draft)
    if delegations:  # the run ended in a delegation: how its delegate stopped, never success
        status = STATE_STATUS.get(str(delegate_state))
        final_status = "unknown" if status in (None, "success") else status
    for llm in unnamed:  # one run, one model: its first model_response names it
        llm.name = str(first_model or configured or llm.name)
    return drafts, final_status, final_text


def _action(
    event: dict[str, Any],
    index: int,
    action: str,
    meta: dict[str, Any],
    when: Any,
    options: ImportOptions,
    path: Path,
) -> Draft:
    # only plain identifiers become a name or an attribute (as in V1): an action kind
    name = identifier(meta.get("function_name")) or identifier(action) or "tool"
    args = event.get("args", ABSENT)
    draft = Draft((index, 1), "tool", name, None, args, span_id=event_span_id(event))
    if identifier(action):
        draft.attributes["action"] = action
    draft.started_at = when
    if action == "delegate":
        draft.type = "handoff"
    if action in {"read", "browse", "browse_interactive"}:
        draft.type = "retriever"
    if action in SHELL or name in SHELL:
        command = args.get("command") or args.get("code") if isinstance(args, dict) else None
        draft.mark_shell(options.labels, command)
    called = _function_arguments(meta) if meta.get("function_name") else None
    draft.keep_arguments(options.argument_fields, args if called is None else called, path)
    return draft
