"""How each call and the run ended: a span's own outcome (an error it only inherited is none),
Claude Code's tool outcomes recorded on the tool's children, and a run that failed though its
root span did not say so."""

from __future__ import annotations

from abw.importers.otel.classify import CLAUDE_CODE, Kind
from abw.importers.otel.span import OSpan, nonblank
from abw.importers.tree import Node

#: A ``claude_code.tool.blocked_on_user`` that refused the call (``decision`` reject), by its
#: ``source``: a person declined, or aborted; any other source (config, classifier, hook) is
#: a rule that denied it. ``decision`` cancelled: the wait was cut.
_CLAUDE_REFUSED = {"user_reject": "rejected", "user_abort": "interrupted"}


def own_failure(span: OSpan) -> bool:
    """The span carries its own evidence of failing: an exception event or ``error.type``."""
    return "error.type" in span.attributes or any(name == "exception" for name, _ in span.events)


def span_outcome(
    span: OSpan, kind: Kind, failing_messages: set[str | None], failing_below: dict[str, bool]
) -> tuple[str, bool]:
    """The span's own outcome, and whether an ERROR status on it was only propagated. A span
    that never ended is incomplete unless its status is OK: the call returned."""
    if span.status == "ERROR":
        if own_failure(span):
            return "error", False
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
            error_type = nonblank(a.get("error.type"))
            return ("error", error_type) if error_type else ("interrupted", None)
    return None


def agent_failed(
    walk: list[tuple[Node, list[Node]]],
    kinds: dict[str, Kind],
    failing_messages: set[str | None],
    failing_below: dict[str, bool],
) -> bool:
    """Whether the run's agent failed though its root span did not: the last agent span that
    the root holds through agent and infrastructure spans only (not a sub-agent a tool called)
    has an error of its own (:func:`span_outcome`). The OpenAI Agents SDK traced by OpenInference
    ends its ``Agent workflow`` root OK when the run raised (a tool error it lets through, max
    turns exceeded): only the agent span records it."""
    scope = {"agent", "container"}
    top = [
        node
        for node, ancestors in walk[1:]
        if kinds[node.key].type == "agent" and all(kinds[a.key].type in scope for a in ancestors)
    ]
    if not top:
        return False
    last: OSpan = top[-1].payload
    if last.status != "ERROR":
        return False
    return span_outcome(last, kinds[top[-1].key], failing_messages, failing_below)[0] == "error"


def claude_code_gave_up(root: Node) -> bool:
    """A Claude Code interaction whose last model request failed (``success`` false, after
    its retries): the turn ended with no answer (``claude -p`` exits 1), though the
    interaction span records no error of its own."""
    if root.payload.name != f"{CLAUDE_CODE}interaction":
        return False
    requests = [c.payload for c in root.children if c.payload.name == f"{CLAUDE_CODE}llm_request"]
    last: OSpan | None = max(requests, key=lambda s: s.start_ns or 0, default=None)
    return last is not None and (last.status == "ERROR" or last.attributes.get("success") is False)
