"""The order a model asked for its tool calls, which orders the calls that started in the same
millisecond: JavaScript exporters record a start time in whole milliseconds (the Vercel AI SDK
starts its parallel calls in one), so their end times — the start plus each call's duration —
would order them by which ran shorter."""

from __future__ import annotations

from typing import Any

from abw.errors import AbwInputError
from abw.importers.otel.classify import classify
from abw.importers.otel.span import OSpan, call_id, nonblank
from abw.importers.rawio import as_dict, as_list, decode_json_string
from abw.importers.spans import ABSENT

#: Room for the rank of a call below one nanosecond of start time in :func:`sort_start`.
_RANKS = 1 << 32


def call_order(spans: list[OSpan]) -> dict[str, int]:
    """Each tool call id's place in the order the trace's model requests asked for them: the
    ``tool_call`` parts of ``gen_ai.output.messages``, or the Vercel AI SDK's legacy
    ``ai.response.toolCalls``, of the llm spans in start order. Empty where no two spans
    started at once (nothing to order)."""
    order: dict[str, int] = {}
    starts = [s.start_ns for s in spans if s.start_ns is not None]
    if len(set(starts)) == len(starts):
        return order
    for span in sorted(spans, key=lambda s: (s.start_ns or 0, s.span_id)):
        if classify(span).type == "llm":
            for call_id, _, _ in requested_calls(span):
                order.setdefault(call_id, len(order))
    return order


def requested_calls(span: OSpan) -> list[tuple[str, Any, Any]]:
    """The tool calls a model request's recorded output asks for, in its order, as ``(call id,
    tool name, input)``: the ``tool_call`` parts of ``gen_ai.output.messages``, the Vercel AI
    SDK's ``ai.response.toolCalls`` (none where the output is no JSON this reads: it orders and
    finds calls never run, it does not judge the record)."""
    a = span.attributes
    found: list[tuple[Any, Any, Any]] = []
    try:
        messages = decode_json_string(a.get("gen_ai.output.messages"))
        calls = decode_json_string(a.get("ai.response.toolCalls"))
    except AbwInputError:
        return []
    for message in as_list(messages):
        parts = [as_dict(p) for p in as_list(as_dict(message).get("parts"))]
        found += [
            (p.get("id"), p.get("name"), p.get("arguments", ABSENT))
            for p in parts
            if p.get("type") == "tool_call"
        ]
    for call in map(as_dict, as_list(calls)):
        arguments = call.get("input", call.get("args", ABSENT))
        found.append((call.get("toolCallId"), call.get("toolName"), arguments))
    return [(i, n, v) for i, n, v in found if nonblank(i)]


def sort_start(span: OSpan, order: dict[str, int]) -> int | None:
    """The span's start time for ordering siblings: its start, then its call's place in
    :func:`call_order` (``-1``: a span that is no requested call comes first)."""
    if span.start_ns is None:
        return None
    recorded = call_id(span)
    rank = order.get(recorded, -1) if recorded else -1
    return span.start_ns * _RANKS + min(rank + 1, _RANKS - 1)
