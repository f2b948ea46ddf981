"""How each call and the run ended: a span's own outcome (an error it only inherited is none),
Claude Code's tool outcomes recorded on the tool's children, and a run that failed though its
root span did not say so."""

from __future__ import annotations

import re
from typing import Any

from abw.importers.common import identifier
from abw.importers.otel.attributes import error_type
from abw.importers.otel.classify import CLAUDE_CODE, VERCEL_CALLS, Kind
from abw.importers.otel.order import requested_calls
from abw.importers.otel.span import OSpan, call_id, nonblank
from abw.importers.otel.teams import team_stopped
from abw.importers.rawio import as_list, decode_json_string
from abw.importers.spans import ABSENT, stopped, timed_out
from abw.importers.tree import Node

#: A ``claude_code.tool.blocked_on_user`` that refused the call (``decision`` reject), by its
#: ``source``: a person declined, or aborted; any other source (config, classifier, hook) is
#: a rule that denied it. ``decision`` cancelled: the wait was cut.
_CLAUDE_REFUSED = {"user_reject": "rejected", "user_abort": "interrupted"}

#: The OpenAI Agents SDK's ``function`` span error over OpenInference: the status message is
#: ``<error.message>: <error.data>`` (Python: the dict's repr; JS: its JSON). A call a person
#: rejected (0.8 on; its message is the rejection text, which a run may configure) ends its
#: data with this ``error``; a tool task cancelled while it ran has the message below.
_AGENTS_REJECTED = re.compile(
    r"""Tool execution for \S* ?was manually rejected by user\.["']\}\Z"""
)
_AGENTS_CANCELLED = "Tool execution cancelled: {"

#: The OpenAI Agents SDK's record of a tripped input or output guardrail, which ends the run
#: (it raises ``…GuardrailTripwireTriggered``): the error it sets on the span running the
#: guardrails (0.24: the ``turn``), over OpenInference ``Guardrail tripwire triggered:
#: {'guardrail': '<name>', …}``; the guardrail's own span records nothing.
_TRIPWIRE = re.compile(r"""Guardrail tripwire triggered: \{["']guardrail["']: ?["'](.*?)["'][,}]""")

#: The Vercel AI SDK's legacy root spans (:data:`.classify.VERCEL_CALLS`) record
#: ``ai.response.finishReason`` when the call finishes; its OpenTelemetry integration (AI SDK
#: 7) records ``gen_ai.response.finish_reasons`` on its ``invoke_agent`` root, whose children
#: are ``agent_step`` spans, and ``gen_ai.execute_tool.duration`` on a tool call that returned
#: or threw. A streamed call stopped by its ``AbortSignal`` ends its open spans with none of
#: these and no error.
_VERCEL_FINISH = "ai.response.finishReason"


#: Strands Agents ends the agent span of a cancelled invocation (its task cancelled) with no
#: status, naming the cancellation's type in this attribute.
_STRANDS_CANCELLED = "strands.cancellation.type"

_OP = "gen_ai.operation.name"

#: pydantic-ai's mark on a tool call it deferred instead of running (the tool raised
#: ``ApprovalRequired`` or ``CallDeferred``: the run ends with the call waiting; version 5 on
#: leaves the status UNSET, earlier versions set ERROR and an exception event).
_DEFERRED = "pydantic_ai.tool.deferral.name"


def own_failure(span: OSpan) -> bool:
    """The span carries its own evidence of failing: an exception event or ``error.type``."""
    return "error.type" in span.attributes or any(name == "exception" for name, _ in span.events)


def span_outcome(
    span: OSpan, kind: Kind, failing_messages: set[str | None], failing_below: dict[str, bool]
) -> tuple[str, bool]:
    """The span's own outcome, and whether an ERROR status on it was only propagated. A span
    that never ended is incomplete unless its status is OK: the call returned; so is a call
    deferred for approval or to run elsewhere (:data:`_DEFERRED`): it did not run."""
    if nonblank(span.attributes.get(_DEFERRED)):
        return "incomplete", False
    if span.status == "ERROR":
        if own_failure(span):
            failure = error_type(span)
            if timed_out(failure):
                return "timeout", False
            return ("interrupted" if stopped(failure) else "error"), False
        by_agents = _agents_stopped(span) if kind.type == "tool" else None
        if by_agents:
            return by_agents, False
        if span.status_message and span.status_message in failing_messages:
            return "ok", True  # leaked from the span that really failed
        if not span.status_message and failing_below.get(span.span_id):
            return "ok", True  # an ancestor marked by its failing child
        return "error", False
    if span.end_ns is None and span.status != "OK":
        return "incomplete", False  # status OK records a result (any-agent 0.19-0.23: no end)
    if kind.type == "guardrail" and any(
        k.endswith("triggered") and v is True for k, v in span.attributes.items()
    ):
        return "denied", False
    return "ok", False


def vercel_aborted(root: Node) -> bool:
    """Whether the run is a Vercel AI SDK call that its ``AbortSignal`` stopped mid-stream:
    its root ended with no error and no finish reason (:data:`_VERCEL_FINISH`)."""
    span: OSpan = root.payload
    if span.status == "ERROR":
        return False
    if span.attributes.get("ai.operationId") in VERCEL_CALLS:
        return _VERCEL_FINISH not in span.attributes
    steps = [c for c in root.children if c.payload.attributes.get(_OP) == "agent_step"]
    return (
        bool(steps)
        and span.attributes.get(_OP) == "invoke_agent"
        and "gen_ai.response.finish_reasons" not in span.attributes
    )


#: A Vercel AI SDK finish reason saying the model's last answer asked for tool calls.
_TOOL_CALLS = frozenset({"tool-calls", "tool_calls"})


def waiting_calls(root: Node) -> list[tuple[str, str, Any]] | None:
    """The tool calls a run's root ended asking for, as ``(call id, tool name, input)``: calls
    waiting for a person's approval, or for the client to run them; None for any other root.
    A Vercel AI SDK root whose finish reason is ``tool-calls`` lists them — the legacy root in
    ``ai.response.toolCalls``, AI SDK 7's ``invoke_agent`` root in the ``tool_call`` parts of
    ``gen_ai.output.messages``; a pydantic-ai agent whose result is its deferred tool requests
    (``final_result``: ``{"calls": [...], "approvals": [...]}``) lists them there."""
    span: OSpan = root.payload
    a = span.attributes
    deferred = (
        _deferred_requests(a.get("final_result"))
        if _OP not in a or a.get(_OP) == "invoke_agent"
        else None
    )
    if deferred is not None:
        found = deferred
    elif a.get("ai.operationId") in VERCEL_CALLS or a.get(_OP) == "invoke_agent":
        reasons = a.get(_VERCEL_FINISH) or a.get("gen_ai.response.finish_reasons")
        if not _TOOL_CALLS.intersection(map(str, as_list(reasons) or [reasons])):
            return None
        found = requested_calls(span)  # (the legacy root's toolCalls, AI SDK 7's messages)
    else:
        return None
    return [(i, n, v) for i, n, v in found if isinstance(i, str) and nonblank(n)]


def _deferred_requests(result: Any) -> list[tuple[Any, Any, Any]] | None:
    """The calls a pydantic-ai ``DeferredToolRequests`` result holds (``calls``: run elsewhere,
    ``approvals``: awaiting approval), or None for any other result."""
    value = decode_json_string(result)
    if not isinstance(value, dict) or not {"calls", "approvals"} <= set(value):
        return None
    lists = [value.get("calls"), value.get("approvals")]
    if not all(isinstance(x, list) for x in lists):
        return None
    return [
        (c.get("tool_call_id"), c.get("tool_name"), decode_json_string(c.get("args", ABSENT)))
        for calls in lists
        for c in calls
        if isinstance(c, dict)
    ]


def called_ids(walk: list[tuple[Node, list[Node]]]) -> set[str]:
    """The tool call ids the run's spans executed (:func:`.span.call_id`)."""
    return {recorded for node, _ in walk if (recorded := call_id(node.payload))}


def vercel_unfinished(node: Node, ancestors: list[Node]) -> bool:
    """Whether a call of an aborted Vercel AI SDK run (:func:`vercel_aborted`) was still
    running when the signal fired: a tool call with no duration (AI SDK 7) or under a model
    call with no finish reason (legacy spans); a model call with no finish reason that asked
    for no call (the legacy spans record it when the step ends, after its calls)."""
    a = node.payload.attributes
    if a.get(_OP) == "execute_tool":
        return "gen_ai.execute_tool.duration" not in a
    if "ai.toolCall.name" in a:
        return _VERCEL_FINISH not in (ancestors[-1].payload.attributes if ancestors else {})
    finished = "gen_ai.response.finish_reasons" in a or _VERCEL_FINISH in a
    asked = any("ai.toolCall.name" in c.payload.attributes for c in node.children)
    return not finished and not asked


def tripped(span: OSpan, ancestors: list[Node]) -> bool:
    """Whether an Agents SDK guardrail span tripped: a span above it names it in its tripwire
    error (:data:`_TRIPWIRE`)."""
    for ancestor in ancestors:
        found = _TRIPWIRE.match(ancestor.payload.status_message or "")
        if found and found[1] == span.name:
            return True
    return False


def _agents_stopped(span: OSpan) -> str | None:
    """``rejected`` (a person declined the call) or ``interrupted`` (its task was cancelled)
    where an OpenAI Agents SDK tool span's status message says so (:data:`_AGENTS_REJECTED`),
    as ``abw import openai-agents`` reads the same error; else ``None``."""
    message = span.status_message or ""
    if _AGENTS_REJECTED.search(message):
        return "rejected"
    return "interrupted" if message.startswith(_AGENTS_CANCELLED) else None


def claude_code_tool_outcome(node: Node) -> tuple[str, str | None] | None:
    """A ``claude_code.tool`` call's outcome and error type, which Claude Code records on the
    tool span's children, not on it: a ``tool.blocked_on_user`` whose ``decision`` is reject
    (denied by a rule, rejected by a person, :data:`_CLAUDE_REFUSED`) or cancelled, a
    ``tool.execution`` with ``success`` false (``error.type`` tool_error: failed; without it:
    interrupted). ``None`` where the children record no failure."""
    for child in node.children:
        child_span: OSpan = child.payload
        a = child_span.attributes
        if child_span.name == f"{CLAUDE_CODE}tool.blocked_on_user":
            if a.get("decision") == "reject":
                return _CLAUDE_REFUSED.get(str(a.get("source")), "denied"), None
            if a.get("decision") == "cancelled":
                return "interrupted", None
        if child_span.name == f"{CLAUDE_CODE}tool.execution" and (
            a.get("success") is False or child_span.status == "ERROR"
        ):
            error_type = identifier(a.get("error.type"))  # (as attributes.error_type reads it)
            return ("error", error_type) if error_type else ("interrupted", None)
    return None


def run_status(
    walk: list[tuple[Node, list[Node]]],
    kinds: dict[str, Kind],
    failing_messages: set[str | None],
    failing_below: dict[str, bool],
) -> str:
    """An ended run's status: ``error`` where its root span has an ERROR status, Claude Code
    gave up (:func:`claude_code_gave_up`), a guardrail's tripwire ended it
    (:func:`_tripwire_ended`) or its agent failed (:func:`_agent_outcome`);
    ``cancelled`` where the root, that agent or its last call was stopped while it ran
    (:func:`~abw.importers.spans.stopped`, :data:`_STRANDS_CANCELLED`, :func:`vercel_aborted`,
    :func:`_last_call`)
    or an AutoGen team run never ended (:func:`.teams.team_stopped`);
    ``error`` where that last call is a failed model request; else ``success``."""
    root: OSpan = walk[0][0].payload
    if root.status == "ERROR":
        return "cancelled" if own_failure(root) and stopped(error_type(root)) else "error"
    if nonblank(root.attributes.get(_STRANDS_CANCELLED)) or vercel_aborted(walk[0][0]):
        return "cancelled"
    if claude_code_gave_up(walk[0][0]) or _tripwire_ended(walk, kinds):
        return "error"
    if claude_code_cut_off(walk[0][0]):
        return "cancelled"
    outcome = _agent_outcome(walk, kinds, failing_messages, failing_below)
    last = _last_call(walk, kinds)
    if outcome is None and last is not None and last.status == "ERROR" and own_failure(last):
        if stopped(error_type(last)):
            return "cancelled"
        if kinds[last.span_id].type == "llm":
            return "error"  # the run's last model request failed: it ended with no answer
    if outcome is None and team_stopped([node.payload for node, _ in walk]):
        return "cancelled"
    if outcome is None and _waiting(walk):
        return "unknown"
    return {"error": "error", "interrupted": "cancelled"}.get(outcome or "", "success")


def _waiting(walk: list[tuple[Node, list[Node]]]) -> bool:
    """Whether the run ended with a deferred call (:data:`_DEFERRED`) that no later call of
    the same tool in the trace ran: it waits for a person's approval or an outside result."""
    pending: set[str] = set()
    for node, _ in walk:
        span: OSpan = node.payload
        tool = span.attributes.get("gen_ai.tool.name")
        if not isinstance(tool, str):
            continue
        if nonblank(span.attributes.get(_DEFERRED)):
            pending.add(tool)
        else:
            pending.discard(tool)
    return bool(pending)


def lost_root(walk: list[tuple[Node, list[Node]]]) -> bool:
    """Whether the run's root is missing: several top spans name the same parent, which the
    export lacks. The root never ended (smolagents over OpenInference leaves its agent span
    open when the run raises), so the first top span is no root."""
    tops = [node.payload.parent_id for node, ancestors in walk if not ancestors]
    return len(tops) > 1 and len(set(tops)) == 1 and tops[0] is not None


def lost_root_status(
    walk: list[tuple[Node, list[Node]]],
    kinds: dict[str, Kind],
    failing_messages: set[str | None],
    failing_below: dict[str, bool],
) -> str:
    """The status of a run whose root is missing (:func:`lost_root`): its last top span's
    own failure (``error``; ``cancelled`` where it was stopped), else ``unknown``."""
    last = max((node for node, a in walk if not a), key=lambda n: n.payload.start_ns or 0)
    outcome = span_outcome(last.payload, kinds[last.key], failing_messages, failing_below)[0]
    return {"error": "error", "interrupted": "cancelled"}.get(outcome, "unknown")


def _last_call(walk: list[tuple[Node, list[Node]]], kinds: dict[str, Kind]) -> OSpan | None:
    """The run's own last call: the last started span that the root holds through agent and
    infrastructure spans only. Where it was stopped while it ran
    (:func:`~abw.importers.spans.stopped`), the run was (pydantic-ai ends its agent span with
    no error when its task is cancelled); where it is a model request that failed, the run
    ended with no answer (the Vercel AI SDK's ``streamText`` ends its root with no error when
    the model's API fails)."""
    scope = {"agent", "container"}
    calls = [
        node.payload
        for node, ancestors in walk[1:]
        if kinds[node.key].type not in scope and all(kinds[a.key].type in scope for a in ancestors)
    ]
    return max(calls, key=lambda s: s.start_ns or 0, default=None)


def _tripwire_ended(walk: list[tuple[Node, list[Node]]], kinds: dict[str, Kind]) -> bool:
    """Whether a guardrail's tripwire ended the run (:data:`_TRIPWIRE`, on a span the root
    holds through agent and infrastructure spans only: not a sub-agent a tool called). The
    Agents SDK sets it on the ``turn`` and ends the agent and the root OK."""
    scope = {"agent", "container"}
    return any(
        _TRIPWIRE.match(node.payload.status_message or "")
        and all(kinds[a.key].type in scope for a in ancestors)
        for node, ancestors in walk
    )


def _agent_outcome(
    walk: list[tuple[Node, list[Node]]],
    kinds: dict[str, Kind],
    failing_messages: set[str | None],
    failing_below: dict[str, bool],
) -> str | None:
    """The outcome of the run's agent where it failed or was stopped though its root span did
    not say so: the last agent span that the root holds through agent and infrastructure spans
    only (not a sub-agent a tool called), when its ERROR status is its own
    (:func:`span_outcome`). The OpenAI Agents SDK traced by OpenInference ends its ``Agent
    workflow`` root OK when the run raised (a tool error it lets through, max turns exceeded):
    only the agent span records it."""
    scope = {"agent", "container"}
    top = [
        node
        for node, ancestors in walk[1:]
        if kinds[node.key].type == "agent" and all(kinds[a.key].type in scope for a in ancestors)
    ]
    if not top or top[-1].payload.status != "ERROR":
        return None
    return span_outcome(top[-1].payload, kinds[top[-1].key], failing_messages, failing_below)[0]


def claude_code_gave_up(root: Node) -> bool:
    """A Claude Code interaction whose last model request failed (``success`` false, after
    its retries): the turn ended with no answer (``claude -p`` exits 1), though the
    interaction span records no error of its own."""
    if root.payload.name != f"{CLAUDE_CODE}interaction":
        return False
    requests = [c.payload for c in root.children if c.payload.name == f"{CLAUDE_CODE}llm_request"]
    last: OSpan | None = max(requests, key=lambda s: s.start_ns or 0, default=None)
    return last is not None and (last.status == "ERROR" or last.attributes.get("success") is False)


def claude_code_cut_off(root: Node) -> bool:
    """A Claude Code interaction that ended while the tools its last model request asked for
    (``stop_reason`` tool_use) ran: no ``claude_code.tool`` span started after that request
    (``claude -p`` ended by a signal ends the interaction span, never the tool's)."""
    if root.payload.name != f"{CLAUDE_CODE}interaction":
        return False
    spans = [c.payload for c in root.children]
    requests = [s for s in spans if s.name == f"{CLAUDE_CODE}llm_request"]
    last: OSpan | None = max(requests, key=lambda s: s.start_ns or 0, default=None)
    if last is None or last.attributes.get("stop_reason") != "tool_use":
        return False
    tools = [s for s in spans if s.name == f"{CLAUDE_CODE}tool"]
    return not any((s.start_ns or 0) >= (last.start_ns or 0) for s in tools)
