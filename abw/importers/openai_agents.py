"""OpenAI Agents SDK native trace export (``Trace.export()`` / ``Span.export()`` objects).

Accepts the ``{"data": [...]}`` body the SDK's ``BackendSpanExporter`` uploads, a bare JSON list,
or JSON Lines with one exported object or one upload's body per line (a run's several uploads,
each POST body a line); a run whose uploads are files of one folder is read whole
(:mod:`abw.importers.siblings`). ``function`` spans are tools (an ``error``
makes them errors), ``generation``/``response`` are llm spans, ``handoff`` is a handoff to
``to_agent``, ``guardrail`` is a guardrail (``triggered`` -> denied); ``agent``, ``custom``
(turn/task) and ``mcp_tools`` spans only scope and order their children. Spans are ordered
pre-order by start time, like the same run exported over OpenTelemetry. The run failed when its
root span, or an agent span of the run itself (not a sub-agent a tool called), has an error.
A ``function`` span's error can also say the call never ran to its end (0.8 on): a person
rejected it (human-in-the-loop approval, :data:`_REJECTED`) -> rejected, or its task was
cancelled while it ran (``Tool execution cancelled``) -> interrupted.

The JS SDK (``@openai/agents``, its ``OpenAITracingExporter``) uploads the same objects: a run
its caller aborted (``AbortError`` on its spans) is cancelled; a ``response`` span has no
``usage`` (the ``turn`` span holds it) and a ``generation`` span holds the whole Chat
Completions response (its messages are the answer, its ``usage`` the tokens); a ``function``
span's ``input`` of ``''`` is none recorded.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from abw.errors import AbwInputError
from abw.hashing import sha256_hex
from abw.importers.base import ImportOptions
from abw.importers.rawio import (
    INPUT_OUTPUT,
    PROMPT_COMPLETION,
    as_dict,
    held_fields,
    json_body,
    jsonl_records,
    object_at,
    read_raw,
    scalar_text,
    token_counts,
)
from abw.importers.siblings import Holdings, SplitExportImporter
from abw.importers.spans import (
    ABSENT,
    Draft,
    assistant_text,
    finish,
    make_trace,
    parse_time,
)
from abw.importers.tree import Node, once_each, preorder
from abw.jsonlocate import value_line
from abw.reader import MalformedJson, parse_json

if TYPE_CHECKING:
    from abw.models.trace import Trace

#: The content kinds an export can hold (name -> where, over {"span": [...], "trace": header});
#: ``removed_fields`` names those a trace's objects hold.
REMOVED_FIELDS = {
    "span_data.input": "span.span_data.input",
    "span_data.output": "span.span_data.output",
    "span_data.data": "span.span_data.data",
    "span_data.model_config": "span.span_data.model_config",
    "error.message": "span.error.message",
    "error.data": "span.error.data",
    "trace.metadata": "trace.metadata",
    "trace.group_id": "trace.group_id",
}


#: The ``error.data.error`` the SDK (0.8 on) sets on the ``function`` span of a call a person
#: rejected (its ``error.message`` is the rejection text, which a run may configure).
_REJECTED = re.compile(r"Tool execution for \S* ?was manually rejected by user\.")
#: The ``error.message`` of a ``function`` span whose tool task was cancelled while it ran.
_CANCELLED = "Tool execution cancelled"
#: The ``error.message`` of the span whose guardrail tripped (the run then raises).
_TRIPWIRE = "Guardrail tripwire triggered"
#: The ``error.data.error`` the JS SDK records on the spans of a run its caller stopped
#: (``run(agent, input, {signal})``, the signal aborted): the run was cancelled, it did not fail.
_ABORTED = re.compile(r"AbortError\b")


def _objects(raw: bytes, path: Path, options: ImportOptions) -> list[tuple[int | None, Any]]:
    body = json_body(raw, path)
    try:
        document = parse_json(body, path)
    except MalformedJson:  # JSON Lines: exported objects, or the bodies of several uploads
        return [
            (line, item)
            for line, record in jsonl_records(body, path, options.warnings)
            for item in (_uploaded(record) or [record])
        ]
    if _uploaded(document) is not None:
        return [(None, item) for item in document["data"]]
    if isinstance(document, list):
        return [(None, item) for item in document]
    if isinstance(document, dict):
        return [(1, document)]
    raise AbwInputError("expected {'data': [...]} of exported traces and spans", file=path)


def _uploaded(record: Any) -> list[Any] | None:
    """The items of one upload's ``{"data": [...]}`` body, else None."""
    if isinstance(record, dict) and isinstance(record.get("data"), list):
        return record["data"]
    return None


Spans = dict[str, list[tuple[int | None, dict[str, Any]]]]


def _items(
    objects: list[tuple[int | None, Any]], path: Path, body: bytes
) -> tuple[dict[str, dict[str, Any]], Spans]:
    """The trace objects by id and the spans of each trace id (with their lines); ``body``:
    the text they were read from, where an error in a JSON document finds its line."""
    traces: dict[str, dict[str, Any]] = {}
    spans: Spans = {}
    for index, (line, item) in enumerate(objects):
        if not isinstance(item, dict):
            raise AbwInputError("an exported item is not an object", file=path, line=line)
        kind = item.get("object")
        key = "id" if kind == "trace" else "trace_id"
        if kind in ("trace", "trace.span") and scalar_text(item.get(key)) is None:
            # null, empty or missing: its spans would be another run's, or every such run
            # one run under the literal id "None"
            raise AbwInputError(
                f"a {'trace' if kind == 'trace' else 'span'} names no trace id",
                file=path,
                line=line if line is not None else _document_line(body, index, key),
                field=key,
            )
        if kind == "trace":
            traces[str(item["id"])] = item
        elif kind == "trace.span":
            if not isinstance(item.get("span_data"), dict) or not scalar_text(item.get("id")):
                raise AbwInputError(
                    "a span has no id or span_data",
                    file=path,
                    line=line if line is not None else _document_line(body, index, "span_data"),
                    field="span_data",
                )
            spans.setdefault(str(item["trace_id"]), []).append((line, item))
    return traces, spans


def _document_line(body: bytes, index: int, key: str) -> int | None:
    """The line of item ``index``'s ``key`` in an export that is one JSON document (an
    upload's ``{"data": [...]}`` body or a bare list), or of the item where it has none."""
    upload = body.lstrip()[:1] == b"{"
    return value_line(body, ("data", index, key) if upload else (index, key))


def _holdings(path: Path) -> Holdings:
    """The objects of each trace a file holds (its folder's index): its spans' ids, and
    ``trace`` for the trace object."""
    raw = read_raw(path)
    traces, spans = _items(_objects(raw, path, ImportOptions()), path, raw)
    held: dict[str, set[str]] = {t: {"trace"} for t in traces}
    for trace_id, members in spans.items():
        held.setdefault(trace_id, set()).update(str(span["id"]) for _, span in members)
    return held


def _epoch(value: Any) -> float | None:
    moment = parse_time(value)
    return moment.timestamp() if moment is not None else None


class OpenAIAgentsImporter(SplitExportImporter):
    name: ClassVar[str] = "openai-agents"
    platform: ClassVar[str] = "openai_agents"
    export_format: ClassVar[str] = "openai-agents-export"
    supports_argument_fields: ClassVar[bool] = True
    help: ClassVar[str] = (
        "OpenAI Agents SDK native trace export ({'data': [trace, spans...]} as uploaded by "
        "BackendSpanExporter, or JSON Lines). One trace per trace id. --argument-fields reads "
        "function spans' input."
    )
    #: a run uploaded in several POSTs: each span once
    records_exported_once: ClassVar[bool] = True

    @staticmethod
    def holdings(path: Path) -> Holdings:
        return _holdings(path)

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        raws = [read_raw(path)]
        traces, spans = _items(_objects(raws[0], path, options), path, raws[0])
        if not spans and not traces:
            raise AbwInputError(
                "not an OpenAI Agents SDK export: no 'trace' or 'trace.span' objects", file=path
            )
        share = self._siblings.share(path, set(spans) | set(traces), False, options)
        for later in share.later:
            raws.append(read_raw(later))
            more_traces, more_spans = _items(_objects(raws[-1], later, options), later, raws[-1])
            for trace_id, header in more_traces.items():
                traces.setdefault(trace_id, header)
            for trace_id, members in more_spans.items():
                spans.setdefault(trace_id, []).extend((None, span) for _, span in members)
        ids = sorted(
            share.own,
            key=lambda t: (
                min((_epoch(s.get("started_at")) or 0) for _, s in spans.get(t, []))
                if spans.get(t)
                else 0,
                t,
            ),
        )
        source_hash = sha256_hex(b"".join(raws))
        return [
            self._trace(t, spans.get(t, []), traces.get(t), source_hash, path, options) for t in ids
        ]

    def _trace(
        self,
        trace_id: str,
        members: list[tuple[int | None, dict[str, Any]]],
        header: dict[str, Any] | None,
        source_hash: str,
        path: Path,
        options: ImportOptions,
    ) -> Trace:
        members = once_each(
            members, lambda m: str(m[1]["id"]), lambda m: bool(m[1].get("ended_at"))
        )
        lines = {str(s["id"]): line for line, s in members}
        nodes = [
            Node(
                str(s["id"]),
                s.get("parent_id"),
                _epoch(s.get("started_at")),
                _epoch(s.get("ended_at")),
                s,
            )
            for _, s in members
        ]
        walk = preorder(nodes)
        unreturned = _unreturned(walk)
        cut_call = _unanswered_model_call(walk)
        turn_usage = _turn_usage(walk)
        drafts: list[Draft] = []
        emitted: set[str] = set()
        last_output: Any = ABSENT
        root_error = stopped = False
        for position, (node, ancestors) in enumerate(walk):
            span = node.payload
            data = span["span_data"]
            kind = data.get("type")
            failed = span.get("error") is not None
            if failed and (
                not ancestors or _runs_the_agent(kind, ancestors) or _tripwire(span, ancestors)
            ):
                stopped = stopped or _aborted(span)
                root_error = root_error or not _aborted(span)
            emitted_type, name = _kind(data)
            if emitted_type is None or unreturned.get(node.key) == "ran later":
                continue
            outcome = _function_outcome(span) if kind == "function" and failed else None
            outcome = outcome or unreturned.get(node.key) or ("error" if failed else "ok")
            if span.get("ended_at") is None and not failed:
                outcome = "incomplete"
            if kind == "guardrail" and data.get("triggered") is True:
                outcome = "denied"
            if node.key == cut_call and outcome == "ok":
                outcome = "interrupted"
            draft = Draft(
                (position,),
                emitted_type,
                name,
                outcome,
                _recorded_input(data),
                data.get("output", ABSENT),
                span_id=node.key,
                line=lines.get(node.key),
            )
            draft.set_times(span.get("started_at"), span.get("ended_at"))
            draft.parent_span_id = next(
                (a.key for a in reversed(ancestors) if a.key in emitted), None
            )
            agent = next(
                (
                    a.payload["span_data"].get("name")
                    for a in reversed(ancestors)
                    if a.payload["span_data"].get("type") == "agent"
                ),
                None,
            )
            if isinstance(agent, str):
                draft.attributes["agent"] = agent
            if kind == "function":  # its input is the call's arguments as a JSON string
                draft.keep_arguments(options.argument_fields, data.get("input"), path)
            if kind == "function" and isinstance(data.get("mcp_data"), dict):
                server = data["mcp_data"].get("server")
                if isinstance(server, str):
                    draft.attributes["mcp_server"] = server
            if kind in ("generation", "response"):  # (the Chat Completions or Responses API)
                completion = object_at(_completion(data.get("output")), "usage")
                draft.attributes.update(
                    token_counts(
                        [
                            (data.get("usage"), INPUT_OUTPUT),
                            (turn_usage.get(node.key), INPUT_OUTPUT),
                            (completion, PROMPT_COMPLETION),  # (the JS SDK's generation)
                        ]
                    )
                )
            if kind == "generation":
                last_output = _generation_answer(data)
            if kind == "guardrail" and isinstance(data.get("triggered"), bool):
                draft.attributes["triggered"] = data["triggered"]
            drafts.append(draft)
            emitted.add(node.key)
        ended = all(s.get("ended_at") for _, s in members)
        final_status = "error" if root_error else ("success" if ended and members else "unknown")
        if stopped and not root_error:
            final_status = "cancelled"
        if final_status == "success" and "incomplete" in unreturned.values():
            final_status = "unknown"  # it waits for a person's approval
        if final_status == "success" and (
            "interrupted" in unreturned.values() or cut_call is not None
        ):
            final_status = "cancelled"
        final = None if last_output is ABSENT else last_output
        final_text = assistant_text(final) if final is not None else None
        extra = {}
        if header and isinstance(header.get("workflow_name"), str):
            extra["workflow_name"] = header["workflow_name"]
        return make_trace(
            platform=self.platform,
            export_format=self.export_format,
            source_hash=source_hash,
            trace_id=trace_id,
            spans=finish(drafts, path),
            options=options,
            final_status=final_status,
            final_output=final_text if final_text is not None else final,
            final_text=final_text,
            removed_fields=held_fields(
                {"span": [sp for _, sp in members], "trace": header or {}}, REMOVED_FIELDS
            ),
            extra_run=extra,
        )


def _sdk_span(node: Node, kind: str) -> bool:
    """Whether a node is the SDK's ``custom`` span of a run (``task``) or of a turn (``turn``)."""
    return as_dict(node.payload["span_data"].get("data")).get("sdk_span_type") == kind


def _unreturned(walk: list[tuple[Node, list[Node]]]) -> dict[str, str]:
    """The outcome of each ``function`` call that never returned: no error, no output though
    its input is recorded, in the last turn of its run (no model call answered it). Stopped
    while it ran (``result.cancel()``: it ended after its turn) -> ``interrupted``; else it
    waited for a person's approval (0.24 traces the request as a span): its call ran later in
    the trace (the run resumed from its state) -> ``ran later`` (no call of its own), the run
    resumed without it -> ``rejected`` (0.24 traces no rejection at resume), else
    ``incomplete``."""
    last_turn: dict[str | None, str] = {}
    tasks: list[Node] = []
    for node, ancestors in walk:
        task = next((a.key for a in reversed(ancestors) if _sdk_span(a, "task")), None)
        if _sdk_span(node, "turn"):
            last_turn[task] = node.key
        elif _sdk_span(node, "task"):
            tasks.append(node)
    outcomes: dict[str, str] = {}
    for position, (node, ancestors) in enumerate(walk):
        span, data = node.payload, node.payload["span_data"]
        turn = ancestors[-1] if ancestors else None
        if (
            data.get("type") != "function"
            or span.get("error") is not None
            or data.get("output") is not None
            or not isinstance(data.get("input"), str)
            or turn is None
            or turn.key not in last_turn.values()
        ):
            continue
        if node.end is not None and turn.end is not None and node.end > turn.end:
            outcomes[node.key] = "interrupted"
        elif any(_same_call(data, later.payload) for later, _ in walk[position + 1 :]):
            outcomes[node.key] = "ran later"
        elif any((t.start or 0) > (turn.end or 0) for t in tasks):
            outcomes[node.key] = "rejected"
        else:
            outcomes[node.key] = "incomplete"
    return outcomes


def _unanswered_model_call(walk: list[tuple[Node, list[Node]]]) -> str | None:
    """The run's last model call when it never returned: a run cancelled during it
    (``result.cancel()``) ends its span with no error, no usage and no response. The Python
    SDK records ``usage`` on every call that returned, so this is read only where each other
    model call of the run has it (the JS SDK records usage on the turn, never on the call)."""
    calls = [
        node
        for node, _ in walk
        if node.payload["span_data"].get("type") in ("generation", "response")
    ]
    if len(calls) < 2 or calls[-1].payload.get("error") is not None:
        return None
    last, others = calls[-1], calls[:-1]
    if isinstance(last.payload["span_data"].get("usage"), dict):
        return None
    if all(isinstance(n.payload["span_data"].get("usage"), dict) for n in others):
        return last.key
    return None


def _turn_usage(walk: list[tuple[Node, list[Node]]]) -> dict[str, dict[str, Any]]:
    """The usage of each model call that is the only one below its ``turn`` span: the JS SDK
    records a turn's ``usage`` on the turn (``custom`` span ``data.usage``; it adds the model
    calls of an agent a tool ran in the turn), none on its ``response`` span."""
    calls: dict[str, list[str]] = {}
    turns: dict[str, dict[str, Any]] = {}
    for node, ancestors in walk:
        if _sdk_span(node, "turn"):
            turns[node.key] = as_dict(as_dict(node.payload["span_data"].get("data")).get("usage"))
        elif node.payload["span_data"].get("type") in ("generation", "response"):
            for turn in (a for a in ancestors if _sdk_span(a, "turn")):
                calls.setdefault(turn.key, []).append(node.key)
    return {
        members[0]: turns[turn]
        for turn, members in calls.items()
        if len(members) == 1 and turns.get(turn)
    }


def _completion(output: Any) -> dict[str, Any]:
    """The one Chat Completions answer a JS SDK ``generation`` span's ``output`` holds (the API's
    whole response: ``id``, ``created``, ``choices``, ``usage``), else ``{}`` (the Python SDK
    records the answer's messages)."""
    answer = as_dict(output[0]) if isinstance(output, list) and len(output) == 1 else {}
    return answer if isinstance(answer.get("choices"), list) else {}


def _generation_answer(data: dict[str, Any]) -> Any:
    """A ``generation`` span's answer: the messages of its Chat Completions answer (JS), else
    its ``output`` as recorded (the Python SDK's messages)."""
    output = data.get("output", ABSENT)
    answer = _completion(output)
    return [as_dict(c).get("message") for c in answer["choices"]] if answer else output


def _recorded_input(data: dict[str, Any]) -> Any:
    """A span's ``input``, ABSENT when it is not recorded: the JS SDK writes ``''`` on a
    ``function`` span whose arguments it keeps out (a call a person rejected, sensitive data
    off), which is no input of the call."""
    value = data.get("input", ABSENT)
    return ABSENT if value == "" and data.get("type") == "function" else value


def _aborted(span: dict[str, Any]) -> bool:
    """Whether a span's error says its run's caller aborted it (the JS SDK's ``AbortError``)."""
    detail = as_dict(as_dict(span.get("error")).get("data")).get("error")
    return isinstance(detail, str) and _ABORTED.match(detail) is not None


def _same_call(data: dict[str, Any], later: dict[str, Any]) -> bool:
    """Whether a later span runs the same function with the same input and returned."""
    other = later["span_data"]
    return (
        other.get("type") == "function"
        and other.get("name") == data.get("name")
        and other.get("input") == data.get("input")
        and (other.get("output") is not None or later.get("error") is not None)
    )


def _function_outcome(span: dict[str, Any]) -> str | None:
    """``rejected`` (a person declined the call) or ``interrupted`` (its task was cancelled)
    when a failed ``function`` span's error says so, else None (a plain error)."""
    error = as_dict(span.get("error"))
    detail = as_dict(error.get("data")).get("error")
    if isinstance(detail, str) and _REJECTED.fullmatch(detail):
        return "rejected"
    return "interrupted" if error.get("message") == _CANCELLED else None


def _tripwire(span: dict[str, Any], ancestors: list[Node]) -> bool:
    """Whether a span's error is a guardrail's tripwire that ended the run: the SDK raises
    ``…GuardrailTripwireTriggered`` and records ``Guardrail tripwire triggered`` on the span
    that ran the guardrails (0.24: the ``turn``), below no ``function`` span (not a sub-agent's
    run a tool called); the root and agent spans record none."""
    error = span.get("error")
    return (
        isinstance(error, dict)
        and error.get("message") == _TRIPWIRE
        and not any(a.payload["span_data"].get("type") == "function" for a in ancestors)
    )


def _runs_the_agent(kind: Any, ancestors: list[Node]) -> bool:
    """Whether a span is an agent of the run itself, not a sub-agent a tool called: an ``agent``
    span below no ``agent`` or ``function`` span. Its error is the run's (a tool error the SDK
    lets through, max turns exceeded): the trace's root, the ``task`` span, records none."""
    return kind == "agent" and not any(
        a.payload["span_data"].get("type") in ("agent", "function") for a in ancestors
    )


def _kind(data: dict[str, Any]) -> tuple[str | None, str]:
    kind = data.get("type")
    if kind == "function":
        return "tool", scalar_text(data.get("name"), "function")
    if kind == "generation":
        return "llm", scalar_text(data.get("model"), "generation")
    if kind == "response":
        return "llm", "response"
    if kind == "handoff":
        return "handoff", scalar_text(data.get("to_agent"), "handoff")
    if kind == "guardrail":
        return "guardrail", scalar_text(data.get("name"), "guardrail")
    return None, str(kind)
