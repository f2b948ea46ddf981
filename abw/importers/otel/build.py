"""One abw trace from the spans of one trace id: the span tree in pre-order, a draft for each
emitted span (its kind, outcome, content, attributes and arguments), the run's final status and
final output, and the raw fields the export held."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abw.importers.base import ImportOptions
from abw.importers.otel.answer import final_answer, flat_answer, recorded_result
from abw.importers.otel.arguments import keep_arguments
from abw.importers.otel.attributes import record_attributes
from abw.importers.otel.classify import (
    CLAUDE_CODE,
    Kind,
    adk_transfers,
    agent_scope,
    classify,
)
from abw.importers.otel.content import span_content
from abw.importers.otel.fold import (
    inner_tool_call,
    repeated_call,
    traced_by_any_agent,
    unwrap_requests,
)
from abw.importers.otel.order import call_order, sort_start
from abw.importers.otel.outcomes import (
    called_ids,
    claude_code_tool_outcome,
    lost_root,
    lost_root_status,
    own_failure,
    run_status,
    span_outcome,
    tripped,
    vercel_aborted,
    vercel_unfinished,
    waiting_calls,
)
from abw.importers.otel.span import OSpan
from abw.importers.spans import ABSENT, Draft, finish, make_trace, parse_time
from abw.importers.tree import Node, once_each, preorder

if TYPE_CHECKING:
    from abw.models.trace import Trace


REMOVED_FIELDS = (
    "span.attributes",
    "span.events",
    "span.status.message",
    "span.name",
    "resource.attributes",
)


def build_trace(
    trace_id: str,
    members: list[OSpan],
    source_hash: str,
    path: Path,
    options: ImportOptions,
    platform: str,
    encoding: str,
    recorded_output: Any = ABSENT,
    *,
    cut_off: bool = False,
) -> Trace:
    """One trace from the spans sharing a trace id (``source_hash``: the export's;
    ``recorded_output``: the run's final output where the file records one; ``cut_off``: the
    file's cut-off last line was skipped, so a root whose parent is missing leaves the run's
    status unknown: its real root may have been on that line)."""
    unique = once_each(members, lambda s: s.span_id, lambda s: s.end_ns is not None)
    order = call_order(unique)
    nodes = [Node(s.span_id, s.parent_id, sort_start(s, order), s.end_ns, s) for s in unique]
    walk = preorder(nodes)
    kinds = {node.key: classify(node.payload) for node, _ in walk}
    unwrap_requests(walk, kinds)
    traced_by_any_agent(walk, kinds)
    adk_transfers(walk, kinds)
    failing_messages = {s.status_message for s in unique if s.status == "ERROR" and own_failure(s)}
    failing_below: dict[str, bool] = {}
    for node, ancestors in walk:
        if node.payload.status == "ERROR":
            for ancestor in ancestors:
                failing_below[ancestor.key] = True
    aborted = bool(walk) and vercel_aborted(walk[0][0])
    drafts: list[Draft] = []
    llm_outputs: list[Any] = []
    unread: set[str] = set()
    emitted: dict[str, Draft] = {}  # node key -> its span's draft
    for position, (node, ancestors) in enumerate(walk):
        span: OSpan = node.payload
        kind = kinds[node.key]
        if kind.type in {"agent", "container"} or repeated_call(span, kind, ancestors, kinds):
            continue
        outcome, propagated = span_outcome(span, kind, failing_messages, failing_below)
        if inner_tool_call(kind, ancestors, kinds):
            outer = emitted.get(ancestors[-1].key)
            if outer is not None and outer.outcome == "ok" and outcome != "ok" and not propagated:
                outer.outcome = outcome  # (only the inner layer recorded the failure)
            continue
        claude_tool = claude_code_tool_outcome(node) if span.name == f"{CLAUDE_CODE}tool" else None
        if claude_tool and outcome == "ok":
            outcome = claude_tool[0]
        if kind.type == "guardrail" and outcome == "ok" and tripped(span, ancestors):
            outcome = "denied"
        if aborted and kind.type in {"tool", "llm"} and outcome == "ok":
            outcome = "interrupted" if vercel_unfinished(node, ancestors) else outcome
        draft = Draft(
            (position,),
            kind.type,
            kind.name,
            outcome,
            span_content(span, output=False),
            span_content(span, output=True),
            span_id=span.span_id,
            line=span.line,
        )
        if span.start_ns is not None:
            draft.started_at = parse_time(span.start_ns / 1e9)
        if span.start_ns is not None and span.end_ns is not None and span.end_ns >= span.start_ns:
            draft.duration_ms = round((span.end_ns - span.start_ns) / 1e6, 3)
        parent = next((a.key for a in reversed(ancestors) if a.key in emitted), None)
        draft.parent_span_id = parent
        agent = _agent(ancestors, kinds)
        record_attributes(draft, span, agent, propagated)
        if kind.tool:
            draft.attributes["tool"] = kind.tool
        if claude_tool and claude_tool[1] and draft.outcome == "error":
            draft.attributes["error_type"] = claude_tool[1]
        if kind.type in {"tool", "retriever"} and not keep_arguments(draft, span, options, path):
            unread.add(draft.name)
        drafts.append(draft)
        emitted[node.key] = draft
        if kind.type == "llm":
            llm_outputs.append(flat_answer(span.attributes) or draft.output)
    waiting = _waiting_calls(walk, options, path)
    drafts += waiting
    if unread:
        options.warn(
            f"{path.name}: no argument fields extracted from {', '.join(sorted(unread))}: the "
            "call's input is not a JSON object"
        )
    root: OSpan | None = walk[0][0].payload if walk else None
    final_status = "unknown"
    ended = root is not None and (root.end_ns is not None or root.status == "OK")
    if walk and lost_root(walk):
        root = None  # the first top span is not the run's root: no output of the run's
        final_status = lost_root_status(walk, kinds, failing_messages, failing_below)
    elif root is not None and ended and not (cut_off and root.parent_id):
        final_status = run_status(walk, kinds, failing_messages, failing_below)
    if waiting and final_status == "success":
        final_status = "unknown"  # it ended waiting for calls it asked for (an approval)
    result = recorded_result([(node.payload, len(ancestors)) for node, ancestors in walk])
    final_output, final_text = final_answer(root, llm_outputs, recorded_output, result)
    return make_trace(
        platform=platform,
        export_format=encoding,
        source_hash=source_hash,
        trace_id=trace_id,
        spans=finish(drafts, path),
        options=options,
        final_status=final_status,
        final_output=final_output,
        final_text=final_text,
        removed_fields=_held(unique),
    )


def _waiting_calls(
    walk: list[tuple[Node, list[Node]]], options: ImportOptions, path: Path
) -> list[Draft]:
    """A tool span, ``incomplete``, for each call a run ended asking for and never ran
    (:func:`.outcomes.waiting_calls`: a call awaiting a person's approval, a tool the client
    runs): the model made it, as every importer records a call with no result; after the
    run's spans."""
    requested = waiting_calls(walk[0][0]) if walk else None
    if not requested:
        return []
    ran = called_ids(walk)
    root: OSpan = walk[0][0].payload
    drafts = []
    for call_id, name, arguments in requested:
        if call_id in ran:
            continue
        draft = Draft((len(walk) + len(drafts),), "tool", name, "incomplete", arguments, ABSENT)
        draft.line = root.line
        draft.keep_arguments(options.argument_fields, arguments, path)
        drafts.append(draft)
    return drafts


def _agent(ancestors: list[Node], kinds: dict[str, Kind]) -> str | None:
    """The agent a span runs in: the nearest ancestor's :func:`.classify.agent_scope`."""
    for index in reversed(range(len(ancestors))):
        node = ancestors[index]
        siblings = [n.payload for n in ancestors[index - 1].children] if index else []
        scope = agent_scope(node.payload, kinds[node.key], siblings, _below(node))
        if scope:
            return scope
    return None


def _below(node: Node) -> Iterator[OSpan]:
    """Every span under ``node``, depth first (lazily)."""
    for child in node.children:
        yield child.payload
        yield from _below(child)


def _held(spans: list[OSpan]) -> list[str]:
    """The ``REMOVED_FIELDS`` these spans held (names are always; the rest when non-empty)."""
    held = {
        "span.name": any(s.name for s in spans),
        "span.attributes": any(s.attributes for s in spans),
        "span.events": any(s.events for s in spans),
        "span.status.message": any(s.status_message for s in spans),
        "resource.attributes": any(s.resource_attributes for s in spans),
    }
    return [name for name in REMOVED_FIELDS if held.get(name)]
