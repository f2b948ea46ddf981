"""OpenTelemetry traces of agents: OTLP/JSON, Jaeger JSON, and the Python console exporter.

Accepted encodings (detected from the content):

* OTLP/JSON: one ``ExportTraceServiceRequest`` per line (or one per file); hex or base64 ids;
  ``intValue`` as a string or a number; spans in any order (children before parents). Grafana
  Tempo's trace-by-id answer holds the same ResourceSpans under ``batches``.
* Jaeger UI "Download JSON": ``{"data": [{"traceID", "spans", "processes"}]}``.
* Python ``ConsoleSpanExporter`` / ``ReadableSpan.to_json()``: pretty-printed objects one after
  another; a span written twice (start snapshot, then ended) is kept once, ended.

A file that is not JSON Lines (its first line is no whole JSON value) is reported where the
document breaks. Span types come from semantics, in this order: Claude Code's own span names
(``claude_code.*``) > ``openinference.span.kind`` > ``gen_ai.operation.name`` (standard and the
non-standard ``agent_handoff``/``guardrail_check``) > framework keys (OpenLLMetry's
``llm.request.type`` and ``traceloop.span.kind``, ``ai.toolCall.*``) > the name prefix >
Google ADK's names (``call_llm``, ``agent_run [<agent>]``). Agent, chain and infrastructure
spans are not emitted; they only order and scope their children; an llm span that is the only
llm child of an llm span and records its input, none, or one in another instrumentation's shape
(one request traced twice) is not either, nor is an llm span without tokens around llm spans
with them (a wrapper: LlamaIndex's ``structured_predict``). Content comes from attributes, else
from the GenAI content events (Strands Agents). Every ``traceId`` becomes its own trace (not one
of only a ``create_agent`` span); its final output is any-agent's recorded ``final_output``
where the file has one; a run whose root ended well but whose top agent span failed (the OpenAI
Agents SDK over OpenInference) failed. See docs/importers.md.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from abw.errors import AbwInputError
from abw.hashing import sha256_hex
from abw.importers.base import Importer, ImportOptions
from abw.importers.rawio import as_dict, json_body, read_raw
from abw.importers.spans import ABSENT, Draft, assistant_text, finish, make_trace, parse_time
from abw.importers.tree import Node, group_by_trace, preorder
from abw.reader import MalformedJson, parse_json, parse_json_sequence
from abw.text import plural

if TYPE_CHECKING:
    from abw.models.trace import Trace

_HEX = re.compile(r"[0-9a-fA-F]+")
#: Google ADK's agent span before it wrote ``invoke_agent``: ``agent_run [weather_agent]``.
_AGENT_RUN = re.compile(r"agent_run \[(.+)\]")
#: ADK's record of parallel tool calls merged into one event; each call has its own span.
_MERGED_TOOLS = "(merged tools)"
#: LlamaIndex's ``<LLM class>._prepare_chat_with_tools``: it builds a request and sends none, but
#: OpenInference marks every traced method of an LLM object ``LLM``.
_PREPARES_REQUEST = "._prepare_chat_with_tools"
#: A LlamaIndex workflow's result as OpenInference records it: the ``StopEvent`` repr, cut short.
_WORKFLOW_RESULT = "StopEvent("
#: OpenInference's flattened output message text: ``llm.output_messages.<i>.message.content``.
_OI_OUTPUT_TEXT = re.compile(r"llm\.output_messages\.(\d+)\.message\.content")

#: Claude Code's own tracing (``CLAUDE_CODE_ENHANCED_TELEMETRY_BETA``) names its spans
#: ``claude_code.<span.type>``: ``interaction`` > ``llm_request`` and ``tool`` > the tool's
#: ``tool.blocked_on_user`` (its permission check) and ``tool.execution`` (its run).
CLAUDE_CODE = "claude_code."
#: A ``claude_code.tool.blocked_on_user`` that refused the call (``decision`` reject), by its
#: ``source``: a person declined, or aborted; any other source (config, classifier, hook) is
#: a rule that denied it. ``decision`` cancelled: the wait was cut.
_CLAUDE_REFUSED = {"user_reject": "rejected", "user_abort": "interrupted"}

#: ``call_llm`` is any-agent's name for a model call (its other operation names are semconv).
LLM_OPS = {"chat", "generate_content", "text_completion", "completion", "generate", "call_llm"}
TOOL_OPS = {"execute_tool"}
#: ``vector_db_retrieve``: OpenLLMetry's LangChain retriever (its own operation name).
RETRIEVER_OPS = {"retrieval", "embeddings", "rerank", "vector_db_retrieve"}
AGENT_OPS = {"invoke_agent", "create_agent", "invoke_workflow"}
HANDOFF_OPS = {"agent_handoff", "handoff"}
GUARDRAIL_OPS = {"guardrail_check", "guardrail", "apply_guardrail"}
#: OpenLLMetry's ``llm.request.type`` (its instrumentations before they wrote
#: ``gen_ai.operation.name``, e.g. ``openai.chat``, ``anthropic.chat``): the span's type.
LLM_REQUEST_TYPES = {
    "chat": "llm",
    "completion": "llm",
    "embedding": "retriever",
    "rerank": "retriever",
}
VERCEL_LLM = {
    "ai.generateText.doGenerate",
    "ai.streamText.doStream",
    "ai.generateObject.doGenerate",
    "ai.streamObject.doStream",
}

INPUT_KEYS = (
    "gen_ai.tool.call.arguments",
    "ai.toolCall.args",
    "gen_ai.tool.args",
    "input.value",
    "gen_ai.input.messages",
    "traceloop.entity.input",
    "ai.prompt.messages",
    "ai.prompt",
    "gen_ai.prompt",
    "gcp.vertex.agent.tool_call_args",  # Google ADK
    "gcp.vertex.agent.llm_request",
)
OUTPUT_KEYS = (
    "gen_ai.tool.call.result",
    "ai.toolCall.result",
    "output.value",
    "gen_ai.output.messages",
    "traceloop.entity.output",
    "ai.response.text",
    "ai.response.toolCalls",
    "gen_ai.completion",
    "gen_ai.output",
    "gcp.vertex.agent.tool_response",  # Google ADK
    "gcp.vertex.agent.llm_response",
)
#: Where a tool span records the call's arguments (a JSON object, usually as a string).
ARGUMENT_KEYS = (
    "gen_ai.tool.call.arguments",
    "ai.toolCall.args",
    "gen_ai.tool.args",
    "input.value",
    "gcp.vertex.agent.tool_call_args",
    "traceloop.entity.input",  # OpenLLMetry's @tool: {"args": [], "kwargs": {...}}
)
#: OpenInference's record of a Python call (smolagents, LlamaIndex tools) and OpenLLMetry's
#: (Traceloop's ``@tool``): the arguments are ``kwargs``.
_CALL_WRAPPER = {"args", "kwargs", "sanitize_inputs_outputs"}
_FLAT_INPUT = ("llm.input_messages.", "gen_ai.prompt.")
_FLAT_OUTPUT = ("llm.output_messages.", "gen_ai.completion.")
_MODEL_KEYS = (
    "gen_ai.request.model",
    "gen_ai.response.model",
    "llm.model_name",
    "ai.model.id",
    "traceloop.association.properties.ls_model_name",
    "ioa_observe.association.properties.ls_model_name",
)
_HANDOFF_TARGET_KEYS = (
    "gen_ai.handoff.to_agent",
    "gen_ai.handoff.target_agent",
    "gen_ai.agent.to",
    "handoff.to_agent",
    "to_agent",
)

#: The GenAI conventions' content events: ``gen_ai.client.inference.operation.details``
#: (semconv 1.37+: the messages as its attributes) and, before it, one event a message.
_DETAILS_EVENT = "gen_ai.client.inference.operation.details"
_MESSAGE_EVENTS = {
    "gen_ai.system.message",
    "gen_ai.user.message",
    "gen_ai.assistant.message",
    "gen_ai.tool.message",
}
_CHOICE_EVENT = "gen_ai.choice"

REMOVED_FIELDS = (
    "span.attributes",
    "span.events",
    "span.status.message",
    "span.name",
    "resource.attributes",
)


@dataclass
class OSpan:
    """One span in a format-neutral shape."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int | None
    end_ns: int | None
    status: str  # UNSET | OK | ERROR
    status_message: str | None
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    line: int | None = None
    resource_attributes: bool = False  # its resource carried attributes (OTLP)


# ---------------------------------------------------------------- value decoding


def any_value(value: Any) -> Any:
    """Decode an OTLP ``AnyValue`` (``{}`` -> ``None``; ``intValue`` string or number -> int)."""
    if not isinstance(value, dict):
        return value
    for key, inner in value.items():
        if key == "stringValue":
            return inner
        if key == "boolValue":
            return bool(inner)
        if key == "intValue":
            try:
                return int(inner)
            except (TypeError, ValueError):
                return inner
        if key == "doubleValue":  # proto3 JSON: NaN and Infinity as strings, kept as they are
            try:
                number = float(inner)
            except (TypeError, ValueError, OverflowError):
                return inner
            return number if math.isfinite(number) else str(inner)
        if key == "arrayValue":
            values = inner.get("values", []) if isinstance(inner, dict) else []
            return [any_value(v) for v in values] if isinstance(values, list) else []
        if key == "kvlistValue":
            values = inner.get("values", []) if isinstance(inner, dict) else []
            return key_values(values)
        if key == "bytesValue":
            return inner
    return None


def _list(value: Any) -> list[Any]:
    """``value`` when it is a list, else empty: wrong-typed containers are skipped."""
    return value if isinstance(value, list) else []


def key_values(items: Any) -> dict[str, Any]:
    """``[{"key", "value": AnyValue}]`` -> a flat dict."""
    if isinstance(items, dict):
        return dict(items)
    out: dict[str, Any] = {}
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = any_value(item.get("value"))
    return out


def norm_id(value: Any, size: int) -> str | None:
    """A trace id (16 bytes) or span id (8 bytes) as lower-case hex, from hex or base64."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    if isinstance(value, int):  # any-agent writes ids as integers
        return format(value, f"0{size * 2}x") if value > 0 else None
    text = str(value)
    if text.startswith("0x"):
        text = text[2:]
    if len(text) == size * 2 and _HEX.fullmatch(text):
        return text.lower()
    if len(text) == (size + 2) // 3 * 4:  # base64 of ``size`` bytes
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) == size:
            return raw.hex()
    if _HEX.fullmatch(text):
        return text.lower().rjust(size * 2, "0")
    return text


def _ns(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if 0 < number < 2**64 else None  # OTLP's fixed64; past it no time at all


def _status(value: Any) -> tuple[str, str | None]:
    if not isinstance(value, dict):
        return "UNSET", None
    code = value.get("code", value.get("status_code"))
    message = value.get("message", value.get("description"))
    text = str(code).upper() if code is not None else ""
    if text in {"2", "STATUS_CODE_ERROR", "ERROR"}:
        status = "ERROR"
    elif text in {"1", "STATUS_CODE_OK", "OK"}:
        status = "OK"
    else:
        status = "UNSET"
    return status, message if isinstance(message, str) and message else None


# ---------------------------------------------------------------- the three encodings


#: Where a document keeps its ResourceSpans: OTLP's ``resourceSpans``, or ``batches`` in the
#: answer of Grafana Tempo's trace-by-id API (v1), as Tempo exports a trace.
_RESOURCE_SPANS = ("resourceSpans", "batches")


def _otlp_request(document: dict[str, Any], line: int | None, out: list[OSpan]) -> None:
    key = next((k for k in _RESOURCE_SPANS if k in document), _RESOURCE_SPANS[0])
    for resource_spans in _list(document.get(key)):
        if not isinstance(resource_spans, dict):
            continue
        scopes = resource_spans.get("scopeSpans") or resource_spans.get(
            "instrumentationLibrarySpans"
        )
        resource = bool(as_dict(resource_spans.get("resource")).get("attributes"))
        for scope in _list(scopes):
            for span in _list(scope.get("spans") if isinstance(scope, dict) else None):
                if not isinstance(span, dict):
                    continue
                trace_id = norm_id(span.get("traceId"), 16)
                span_id = norm_id(span.get("spanId"), 8)
                if not trace_id or not span_id:
                    raise AbwInputError(
                        "a span has no traceId/spanId", line=line, field="spans.spanId"
                    )
                status, message = _status(span.get("status"))
                out.append(
                    OSpan(
                        trace_id=trace_id,
                        span_id=span_id,
                        parent_id=norm_id(span.get("parentSpanId"), 8),
                        name=str(span.get("name") or ""),
                        start_ns=_ns(span.get("startTimeUnixNano")),
                        end_ns=_ns(span.get("endTimeUnixNano")),
                        status=status,
                        status_message=message,
                        attributes=key_values(span.get("attributes")),
                        events=[
                            (str(e.get("name")), key_values(e.get("attributes")))
                            for e in _list(span.get("events"))
                            if isinstance(e, dict)
                        ],
                        line=line,
                        resource_attributes=resource,
                    )
                )


def _jaeger(document: dict[str, Any], out: list[OSpan]) -> None:
    for trace in _list(document.get("data")):
        trace = as_dict(trace)
        for span in _list(trace.get("spans")):
            if not isinstance(span, dict):
                continue
            tags = {
                t["key"]: t.get("value")
                for t in _list(span.get("tags"))
                if isinstance(t, dict) and isinstance(t.get("key"), str)
            }
            parent = next(
                (
                    r.get("spanID")
                    for r in _list(span.get("references"))
                    if isinstance(r, dict) and r.get("refType") == "CHILD_OF"
                ),
                None,
            ) or span.get("parentSpanID")
            start_us = _ns(span.get("startTime"))
            duration_us = _ns(span.get("duration"))
            end_us = start_us + duration_us if start_us is not None and duration_us else start_us
            code = str(tags.get("otel.status_code", "")).upper()
            status = "ERROR" if code == "ERROR" or tags.get("error") in (True, "true") else "UNSET"
            status = "OK" if code == "OK" and status != "ERROR" else status
            events = []
            for log in _list(span.get("logs")):
                fields = {
                    f["key"]: f.get("value")
                    for f in _list(as_dict(log).get("fields"))
                    if isinstance(f, dict) and isinstance(f.get("key"), str)
                }
                events.append((str(fields.get("event", "log")), fields))
            message = tags.get("otel.status_description")
            out.append(
                OSpan(
                    trace_id=norm_id(span.get("traceID") or trace.get("traceID"), 16) or "",
                    span_id=norm_id(span.get("spanID"), 8) or "",
                    parent_id=norm_id(parent, 8),
                    name=str(span.get("operationName") or ""),
                    start_ns=start_us * 1000 if start_us is not None else None,
                    end_ns=end_us * 1000 if end_us is not None else None,
                    status=status,
                    status_message=message if isinstance(message, str) else None,
                    attributes=tags,
                    events=events,
                    resource_attributes=bool(
                        as_dict(as_dict(trace.get("processes")).get(span.get("processID"))).get(
                            "tags"
                        )
                    ),
                )
            )


def _iso_ns(value: Any) -> int | None:
    from abw.importers.spans import parse_time

    moment = parse_time(value)
    if moment is None:
        return None
    delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000


def _time_ns(value: Any) -> int | None:
    """An ISO time (console exporter) or integer nanoseconds since the epoch (any-agent)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _ns(value)
    return _iso_ns(value)


def _parent_id(document: dict[str, Any]) -> str | None:
    """``parent_id`` (console exporter), or the span id of the ``parent`` context (any-agent)."""
    if "parent_id" in document:
        return norm_id(document.get("parent_id"), 8)
    return norm_id(as_dict(document.get("parent")).get("span_id"), 8)


def _console(documents: list[dict[str, Any]], out: list[OSpan]) -> None:
    """A span written twice (started, then ended) is kept twice here; build_trace keeps the
    ended copy, as for the other encodings. any-agent's ``AgentTrace.spans`` have this shape
    too, with integer ids and times and a ``parent`` context."""
    for document in documents:
        context = document["context"]  # an object: _is_console checked it
        status = as_dict(document.get("status"))
        code, message = _status(
            {"code": status.get("status_code"), "message": status.get("description")}
        )
        out.append(
            OSpan(
                trace_id=norm_id(context.get("trace_id"), 16) or "",
                span_id=norm_id(context.get("span_id"), 8) or "",
                parent_id=_parent_id(document),
                name=str(document.get("name") or ""),
                start_ns=_time_ns(document.get("start_time")),
                end_ns=_time_ns(document.get("end_time")),
                status=code,
                status_message=message,
                attributes=dict(as_dict(document.get("attributes"))),
                events=[
                    (str(e.get("name")), dict(as_dict(e.get("attributes"))))
                    for e in _list(document.get("events"))
                    if isinstance(e, dict)
                ],
            )
        )


def _is_console(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("context"), dict) and "name" in value


class Export(NamedTuple):
    """What a file holds: its spans, the encoding they used (otlp-json, jaeger-json,
    otel-console, any-agent-json) and the run's final output when the file records one
    (any-agent's ``AgentTrace.final_output``; else :data:`ABSENT`)."""

    spans: list[OSpan]
    encoding: str
    final_output: Any = ABSENT


def read_spans(raw: bytes, path: Path) -> Export:
    """Every span of the file, read as one JSON document or else as JSON Lines."""
    raw = json_body(raw, path)
    try:
        whole: Any = parse_json(raw, path)
    except MalformedJson as broken:  # JSON Lines, or a console exporter's objects one after another
        return _json_lines(raw, path, broken)
    return _document(whole, path)


def _document(whole: Any, path: Path) -> Export:
    """The spans of a file that is one JSON document."""
    spans: list[OSpan] = []
    documents = whole if isinstance(whole, list) else [whole]
    if documents and all(isinstance(d, dict) and d.keys() & _RESOURCE_SPANS for d in documents):
        for document in documents:
            _wrap(lambda d=document: _otlp_request(d, None, spans), path)
        return Export(spans, "otlp-json")
    if isinstance(whole, dict) and isinstance(whole.get("data"), list):
        first = whole["data"][0] if whole["data"] else {}
        if isinstance(first, dict) and "spans" in first:
            _jaeger(whole, spans)
            return Export(spans, "jaeger-json")
    if all(_is_console(d) for d in documents) and documents:
        _console(documents, spans)
        return Export(spans, "otel-console")
    agent_spans = whole.get("spans") if isinstance(whole, dict) else None
    if isinstance(agent_spans, list) and agent_spans and all(map(_is_console, agent_spans)):
        # any-agent's AgentTrace: {"spans", "final_output"}; its trace ids are 128-bit
        # integers, read exactly.
        _console(agent_spans, spans)
        final = whole.get("final_output")
        return Export(spans, "any-agent-json", ABSENT if final is None else final)
    raise AbwInputError(
        "not an OpenTelemetry export: expected resourceSpans (OTLP/JSON; Tempo: batches), "
        "data[].spans (Jaeger), console-exporter spans or an any-agent trace (spans[])",
        file=path,
    )


def _json_lines(raw: bytes, path: Path, broken: MalformedJson) -> Export:
    """The spans of OTLP/JSON Lines or of console-exporter objects one after another.

    ``broken``: the error of reading the file as one document. A file whose first line is not
    a whole JSON value is no JSON Lines file (a pretty-printed document): its error is where
    the document breaks, not its first line."""
    spans: list[OSpan] = []
    first = True
    for number, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            document = parse_json(line, path, first_line=number)
        except MalformedJson as line_error:
            try:
                values = parse_json_sequence(raw.decode("utf-8", "replace"), path)
            except MalformedJson as sequence_error:
                if not first:  # JSON Lines: the line that breaks
                    raise line_error from None
                # one document, or documents one after another: where it breaks (the whole
                # document's error, unless that only says a second value follows the first)
                extra = broken.message.endswith("Extra data")
                raise (sequence_error if extra else broken) from None
            if values and all(_is_console(v) for v in values):
                _console(values, spans)
                return Export(spans, "otel-console")
            raise (broken if first else line_error) from None
        first = False
        if not isinstance(document, dict) or "resourceSpans" not in document:
            raise AbwInputError(
                "expected an OTLP ExportTraceServiceRequest (resourceSpans) on each line",
                file=path,
                line=number,
            )
        _wrap(lambda d=document, n=number: _otlp_request(d, n, spans), path)
    return Export(spans, "otlp-json")


def _wrap(action: Any, path: Path) -> None:
    try:
        action()
    except AbwInputError as exc:
        raise AbwInputError(exc.message, file=path, line=exc.line, field=exc.field) from None


# ---------------------------------------------------------------- semantics


@dataclass
class Kind:
    """What a span is: an emitted span type and name, or a scope (agent) / container."""

    type: str  # llm|tool|retriever|guardrail|handoff|memory|agent|container
    name: str


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _model(attributes: dict[str, Any], fallback: str) -> str:
    for key in _MODEL_KEYS:
        value = _text(attributes.get(key))
        if value and value.lower() not in {"unknown", "none", "null"}:
            return value
    return fallback


def _after(prefix: str, name: str) -> str | None:
    return name[len(prefix) :].strip() or None if name.startswith(prefix) else None


def _handoff_target(span: OSpan) -> str:
    for key in _HANDOFF_TARGET_KEYS:
        value = _text(span.attributes.get(key))
        if value:
            return value
    for prefix in ("handoff to ", "agent_handoff ", "handoff ", "transfer_to_"):
        target = _after(prefix, span.name)
        if target:
            return target.split(" -> ")[-1]
    return span.name or "handoff"


def classify(span: OSpan) -> Kind:
    """The span's type and name, from its semantic attributes first and its name last."""
    a = span.attributes
    name = span.name
    tool_name = (
        _text(a.get("gen_ai.tool.name"))
        or _text(a.get("tool.name"))
        or _text(a.get("ai.toolCall.name"))
        or _after("execute_tool ", name)
    )
    if name.startswith(CLAUDE_CODE):
        return _claude_code_kind(a, name)
    oi = str(a.get("openinference.span.kind") or "").upper()
    if oi:
        if oi == "LLM" and name.endswith(_PREPARES_REQUEST):
            return Kind("container", name)
        if oi == "LLM":
            return Kind("llm", _model(a, name or "llm"))
        if oi == "TOOL":
            if name.startswith("handoff to ") or name.startswith("transfer_to_"):
                return Kind("handoff", _handoff_target(span))
            return Kind("tool", tool_name or name)
        if oi in {"RETRIEVER", "RERANKER", "EMBEDDING"}:
            return Kind("retriever", tool_name or name)
        if oi == "GUARDRAIL":
            return Kind("guardrail", name or "guardrail")
        if oi == "AGENT":
            return Kind("agent", _text(a.get("agent.name")) or name)
        return Kind("container", name)
    op = str(a.get("gen_ai.operation.name") or "")
    if op in LLM_OPS:
        return Kind("llm", _model(a, name or op))
    if op in TOOL_OPS:
        return Kind("container" if tool_name == _MERGED_TOOLS else "tool", tool_name or name)
    if op in RETRIEVER_OPS:
        return Kind("retriever", tool_name or _after(f"{op} ", name) or op)
    if op in HANDOFF_OPS:
        return Kind("handoff", _handoff_target(span))
    if op in GUARDRAIL_OPS:
        guard = _text(a.get("gen_ai.guardrail.name")) or _after(f"{op} ", name) or name
        return Kind("guardrail", guard or "guardrail")
    if op in AGENT_OPS:
        return Kind("agent", _text(a.get("gen_ai.agent.name")) or _after(f"{op} ", name) or op)
    if op:
        return Kind("container", name)
    request_type = LLM_REQUEST_TYPES.get(str(a.get("llm.request.type") or ""))
    if request_type == "llm":
        return Kind("llm", _model(a, name))
    if request_type == "retriever":
        return Kind("retriever", name)
    framework = str(a.get("traceloop.span.kind") or "")
    if framework == "tool":
        return Kind("tool", tool_name or _text(a.get("traceloop.entity.name")) or name)
    if framework == "llm":
        return Kind("llm", _model(a, name))
    if framework in {"agent", "workflow"}:
        return Kind("agent", _text(a.get("traceloop.entity.name")) or name)
    if name == "ai.toolCall" or "ai.toolCall.name" in a:
        return Kind("tool", tool_name or name)
    if name in VERCEL_LLM:
        return Kind("llm", _model(a, name))
    if tool_name:
        return Kind("tool", tool_name)
    if name.startswith("chat "):
        return Kind("llm", _model(a, name[5:].strip() or name))
    if name.startswith("invoke_agent "):
        return Kind("agent", name[len("invoke_agent ") :].strip())
    return _by_name(a, name)


def _claude_code_kind(a: dict[str, Any], name: str) -> Kind:
    """A span of Claude Code's own tracing: its interaction is the agent scope, its
    ``llm_request`` a model call (it carries no operation name; its tokens are
    ``input_tokens``/``output_tokens``), its ``tool`` the call (``gen_ai.tool.name``, else
    ``tool_name``); the permission wait and the run below a tool only decide the tool's
    outcome (:func:`_claude_code_outcome`)."""
    kind = name[len(CLAUDE_CODE) :]
    if kind == "interaction":
        return Kind("agent", _text(a.get("gen_ai.agent.name")) or "claude_code")
    if kind == "llm_request":
        return Kind("llm", _model(a, _text(a.get("model")) or name))
    if kind == "tool":
        return Kind("tool", _text(a.get("gen_ai.tool.name")) or _text(a.get("tool_name")) or name)
    return Kind("container", name)


def _agent_scope(span: OSpan, kind: Kind) -> str | None:
    """The agent that a span's descendants run in: an agent span's name, or the
    ``subagent_type`` of Claude Code's ``Agent`` tool, whose subagent's spans it holds."""
    if kind.type == "agent":
        return kind.name
    if span.name == f"{CLAUDE_CODE}tool":
        return _text(span.attributes.get("subagent_type"))
    return None


def _claude_code_outcome(node: Node) -> tuple[str, str | None] | None:
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
            error_type = _text(a.get("error.type"))
            return ("error", error_type) if error_type else ("interrupted", None)
    return None


def _agent_failed(
    walk: list[tuple[Node, list[Node]]],
    kinds: dict[str, Kind],
    failing_messages: set[str | None],
    failing_below: dict[str, bool],
) -> bool:
    """Whether the run's agent failed though its root span did not: the last agent span that
    the root holds through agent and infrastructure spans only (not a sub-agent a tool called)
    has an error of its own (:func:`_outcome`). The OpenAI Agents SDK traced by OpenInference
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
    return _outcome(last, kinds[top[-1].key], failing_messages, failing_below)[0] == "error"


def _claude_code_gave_up(root: Node) -> bool:
    """A Claude Code interaction whose last model request failed (``success`` false, after
    its retries): the turn ended with no answer (``claude -p`` exits 1), though the
    interaction span records no error of its own."""
    if root.payload.name != f"{CLAUDE_CODE}interaction":
        return False
    requests = [c.payload for c in root.children if c.payload.name == f"{CLAUDE_CODE}llm_request"]
    last: OSpan | None = max(requests, key=lambda s: s.start_ns or 0, default=None)
    return last is not None and (last.status == "ERROR" or last.attributes.get("success") is False)


def _by_name(a: dict[str, Any], name: str) -> Kind:
    """Google ADK's spans without an operation name: ``call_llm`` (a model call that only
    says ``gen_ai.system`` and ``gen_ai.request.model``) and ``agent_run [<agent>]``."""
    if name in LLM_OPS and _text(a.get("gen_ai.system")) and _text(a.get("gen_ai.request.model")):
        return Kind("llm", _model(a, name))
    agent = _AGENT_RUN.fullmatch(name)
    if agent:
        return Kind("agent", agent.group(1))
    return Kind("container", name)


def _own_failure(span: OSpan) -> bool:
    """The span carries its own evidence of failing: an exception event or ``error.type``."""
    return "error.type" in span.attributes or any(name == "exception" for name, _ in span.events)


def _content(attributes: dict[str, Any], keys: tuple[str, ...], flat: tuple[str, ...]) -> Any:
    for key in keys:
        if key in attributes and attributes[key] is not None:
            return attributes[key]
    flattened = {k: v for k, v in attributes.items() if k.startswith(flat)}
    return dict(sorted(flattened.items())) if flattened else ABSENT


def _span_content(span: OSpan, output: bool) -> Any:
    """A span's input (``output``: its output): its content attributes, else the content the
    GenAI conventions put in span events (:func:`_event_content`)."""
    keys, flat = (OUTPUT_KEYS, _FLAT_OUTPUT) if output else (INPUT_KEYS, _FLAT_INPUT)
    found = _content(span.attributes, keys, flat)
    return _event_content(span, output) if found is ABSENT else found


def _event_content(span: OSpan, output: bool) -> Any:
    """The content a span records in events: the ``gen_ai.input.messages`` (``output``:
    ``gen_ai.output.messages``) of its ``gen_ai.client.inference.operation.details`` events,
    else its older per-message events (Strands Agents' default): the ``content`` of its
    ``gen_ai.<role>.message`` events (one: as it is, a tool call's arguments; several: as
    ``{role, content}`` messages), the ``message`` of its ``gen_ai.choice`` events."""
    details: dict[str, Any] = {}
    for name, attributes in span.events:
        if name == _DETAILS_EVENT:
            details.update(attributes)
    found = _content(details, OUTPUT_KEYS if output else INPUT_KEYS, ())
    if found is not ABSENT:
        return found
    if output:
        bodies = [a["message"] for n, a in span.events if n == _CHOICE_EVENT and a.get("message")]
        return ABSENT if not bodies else bodies[0] if len(bodies) == 1 else bodies
    messages = [
        {"role": n.split(".")[1], "content": a["content"]}
        for n, a in span.events
        if n in _MESSAGE_EVENTS and a.get("content") is not None
    ]
    if not messages:
        return ABSENT
    return messages[0]["content"] if len(messages) == 1 else messages


def _error_type(span: OSpan) -> str | None:
    value = _text(span.attributes.get("error.type"))
    if value:
        return value
    for name, attributes in span.events:
        if name == "exception" and _text(attributes.get("exception.type")):
            return attributes["exception.type"]
    return None


# ---------------------------------------------------------------- importer


class OtelImporter(Importer):
    name: ClassVar[str] = "otel"
    platform: ClassVar[str] = "otel"
    export_format: ClassVar[str] = "otlp-json"
    supports_argument_fields: ClassVar[bool] = True
    help: ClassVar[str] = (
        "OpenTelemetry agent traces: OTLP/JSON lines (GenAI semconv, OpenInference), Jaeger "
        "JSON, console-exporter spans. One trace per traceId. --argument-fields reads tool spans' "
        "gen_ai.tool.call.arguments / ai.toolCall.args / input.value (its kwargs) / "
        "gcp.vertex.agent.tool_call_args / traceloop.entity.input (its kwargs)."
    )

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        raw = read_raw(path)
        spans, encoding, recorded = read_spans(raw, path)
        if not spans:
            raise AbwInputError("the export holds no spans", file=path)
        groups = group_by_trace(spans, lambda s: s.trace_id, lambda s: s.start_ns or 0)
        agent_runs = [(trace_id, members) for trace_id, members in groups if _agent_run(members)]
        skipped = len(groups) - len(agent_runs)
        if not agent_runs:
            raise AbwInputError(
                f"none of the export's {plural(len(groups), 'trace')} holds an agent span "
                "(llm, tool, retriever, handoff, guardrail or agent): nothing to import",
                file=path,
            )
        if skipped:
            options.warn(
                f"{path.name}: skipped {plural(skipped, 'trace')} with no agent span (an "
                "application's other traces: HTTP requests, workflow builds)"
            )
        source_hash = sha256_hex(raw)
        return [
            build_trace(
                trace_id, members, source_hash, path, options, self.platform, encoding, recorded
            )
            for trace_id, members in agent_runs
        ]


class AnyAgentImporter(OtelImporter):
    """any-agent (mozilla-ai): the ``AgentTrace`` JSON it writes (``agent_trace.model_dump_json``:
    ``{"spans": [...], "final_output": ...}``), or its spans exported as OTLP. The same reading
    as ``otel``; ``call_llm`` spans are llm spans, ``execute_tool`` spans tools; the trace's
    ``final_output`` is the run's final output."""

    name: ClassVar[str] = "any-agent"
    platform: ClassVar[str] = "any_agent"
    help: ClassVar[str] = (
        "any-agent traces: its AgentTrace JSON ({spans, final_output}) or OTLP export; call_llm "
        "spans are llm spans. --argument-fields reads execute_tool spans' gen_ai.tool.args."
    )


def _agent_run(members: list[OSpan]) -> bool:
    """Whether the spans of one trace id are an agent's run: some span is more than
    infrastructure (:func:`classify`: an llm, tool, retriever, handoff, guardrail or agent
    span). An application's other traces (an HTTP request, a workflow build, an agent's
    ``create_agent``: OpenLLMetry's LangGraph instrumentation traces the graph's compilation
    apart from its runs) are not runs: as traces of no span that ended well they would count
    as runs that pass every check."""
    return any(
        classify(span).type != "container"
        and span.attributes.get("gen_ai.operation.name") != "create_agent"
        for span in members
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
) -> Trace:
    """One trace from the spans sharing a trace id (``source_hash``: the export's;
    ``recorded_output``: the run's final output where the file records one)."""
    unique: dict[str, OSpan] = {}
    for span in members:
        if span.span_id not in unique or span.end_ns is not None:
            unique[span.span_id] = span
    nodes = [Node(s.span_id, s.parent_id, s.start_ns, s.end_ns, s) for s in unique.values()]
    walk = preorder(nodes)
    kinds = {node.key: classify(node.payload) for node, _ in walk}
    _unwrap_requests(walk, kinds)
    failing_messages = {
        s.status_message for s in unique.values() if s.status == "ERROR" and _own_failure(s)
    }
    failing_below: dict[str, bool] = {}
    for node, ancestors in walk:
        if node.payload.status == "ERROR":
            for ancestor in ancestors:
                failing_below[ancestor.key] = True
    drafts: list[Draft] = []
    llm_outputs: list[Any] = []
    unread: set[str] = set()
    emitted: set[str] = set()
    for position, (node, ancestors) in enumerate(walk):
        span: OSpan = node.payload
        kind = kinds[node.key]
        if kind.type in {"agent", "container"} or _repeated_call(span, kind, ancestors, kinds):
            continue
        outcome, propagated = _outcome(span, kind, failing_messages, failing_below)
        claude_tool = _claude_code_outcome(node) if span.name == f"{CLAUDE_CODE}tool" else None
        if claude_tool and outcome == "ok":
            outcome = claude_tool[0]
        draft = Draft(
            (position,),
            kind.type,
            kind.name,
            outcome,
            _span_content(span, output=False),
            _span_content(span, output=True),
            span_id=span.span_id,
            line=span.line,
        )
        if span.start_ns is not None:
            draft.started_at = parse_time(span.start_ns / 1e9)
        if span.start_ns is not None and span.end_ns is not None and span.end_ns >= span.start_ns:
            draft.duration_ms = round((span.end_ns - span.start_ns) / 1e6, 3)
        parent = next((a.key for a in reversed(ancestors) if a.key in emitted), None)
        draft.parent_span_id = parent
        agent = next(
            filter(None, (_agent_scope(a.payload, kinds[a.key]) for a in reversed(ancestors))),
            None,
        )
        _attributes(draft, span, agent, propagated)
        if claude_tool and claude_tool[1] and draft.outcome == "error":
            draft.attributes["error_type"] = claude_tool[1]
        if kind.type in {"tool", "retriever"} and not _keep_arguments(draft, span, options, path):
            unread.add(draft.name)
        drafts.append(draft)
        emitted.add(node.key)
        if kind.type == "llm":
            llm_outputs.append(_flat_answer(span.attributes) or draft.output)
    if unread:
        options.warn(
            f"{path.name}: no argument fields extracted from {', '.join(sorted(unread))}: the "
            "call's input is not a JSON object"
        )
    root: OSpan | None = walk[0][0].payload if walk else None
    final_status = "unknown"
    if root is not None and (root.end_ns is not None or root.status == "OK"):
        failed = root.status == "ERROR" or _claude_code_gave_up(walk[0][0])
        failed = failed or _agent_failed(walk, kinds, failing_messages, failing_below)
        final_status = "error" if failed else "success"
    final_output, final_text = _final(root, llm_outputs, recorded_output)
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
        removed_fields=_held(list(unique.values())),
    )


def _final(root: OSpan | None, llm_outputs: list[Any], recorded: Any) -> tuple[Any, str | None]:
    """The run's final output and its text (for ``--output-fields``): the output the file
    records for the run (any-agent's ``final_output``: a text, or a structured answer as it
    is), else the root span's output, else the last llm output; as its assistant text when it
    has one."""
    if recorded is not ABSENT:
        return recorded, recorded if isinstance(recorded, str) else json.dumps(recorded)
    output = _span_content(root, output=True) if root else ABSENT
    if isinstance(output, str) and output.startswith(_WORKFLOW_RESULT):
        output = ABSENT  # a repr, cut short: the answer is the last model output's
    if output is ABSENT and llm_outputs:
        output = llm_outputs[-1]
    if output is ABSENT or output is None:
        return None, None
    text = assistant_text(output)
    if text is None:
        text = _langchain_text(output)
    return (output if text is None else text), text


def _flat_answer(attributes: dict[str, Any]) -> str | None:
    """The text of the last assistant message among OpenInference's flattened output messages,
    where an llm span has them: its ``output.value`` is a client's whole response (OpenAI's
    JSON, with per-request ids) or LlamaIndex's ``assistant: <text>``, not the answer."""
    texts: list[tuple[int, str]] = []
    for key, value in attributes.items():
        match = _OI_OUTPUT_TEXT.fullmatch(key)
        role = attributes.get(f"llm.output_messages.{match[1]}.message.role") if match else None
        if match and _text(value) and role in (None, "assistant"):
            texts.append((int(match[1]), value))
    return max(texts)[1] if texts else None


#: The class names LangChain serialises an AI message under (``dumpd``'s constructor ``id``).
_AI_MESSAGES = {"AIMessage", "AIMessageChunk"}


def _langchain_text(value: Any) -> str | None:
    """The answer in LangChain's serialised shapes, which OpenInference records as a LangGraph
    run's output and a chat model's: the content of the last message of ``{"messages": [...]}``
    when it is an AI message (``message_to_dict``'s ``{"type": "ai", "data": {...}}`` or
    ``dumpd``'s ``{"id": [..., "AIMessage"], "kwargs": {...}}``), or the last non-empty
    ``text`` of ``{"generations": [[...]]}``. ``None`` where it holds no answer text."""
    from abw.importers.rawio import decode_json_string

    value = decode_json_string(value)
    if not isinstance(value, dict):
        return None
    if "generations" in value:
        texts = [
            generation.get("text")
            for batch in _list(value["generations"])
            for generation in _list(batch)
            if isinstance(generation, dict)
        ]
        return next((t for t in reversed(texts) if _text(t)), None)
    messages = [m for m in _list(value.get("messages")) if isinstance(m, dict)]
    if not messages:
        return None
    last = messages[-1]
    constructor = [part for part in _list(last.get("id")) if isinstance(part, str)]
    if last.get("type") != "ai" and not (constructor and constructor[-1] in _AI_MESSAGES):
        return None
    content = as_dict(last.get("data") or last.get("kwargs")).get("content")
    if isinstance(content, list):  # content blocks
        parts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        content = "".join(p for p in parts if isinstance(p, str))
    return content if _text(content) else None


#: Where an llm span records its token counts (``gen_ai.usage.prompt_tokens``: OpenLLMetry
#: before the semconv names; ``llm.token_count.*``: OpenInference).
_TOKEN_KEYS = (
    ("gen_ai.usage.input_tokens", "input_tokens"),
    ("gen_ai.usage.output_tokens", "output_tokens"),
    ("gen_ai.usage.prompt_tokens", "input_tokens"),
    ("gen_ai.usage.completion_tokens", "output_tokens"),
    ("llm.token_count.prompt", "input_tokens"),
    ("llm.token_count.completion", "output_tokens"),
)


def _has_tokens(span: OSpan) -> bool:
    """Whether the span records a token count (Claude Code's plain ``input_tokens`` too)."""
    keys = [k for k, _ in _TOKEN_KEYS]
    if span.name == f"{CLAUDE_CODE}llm_request":
        keys += ["input_tokens", "output_tokens"]
    values = [span.attributes.get(k) for k in keys]
    return any(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _unwrap_requests(walk: list[tuple[Node, list[Node]]], kinds: dict[str, Kind]) -> None:
    """Make an llm span that records no tokens while an llm span below it does a container:
    it wraps the model requests below it (LlamaIndex's ``structured_predict`` around its
    ``chat``), and they are the calls, with their tokens. Kept, it was a second model call, or
    it absorbed the request below it as the same call (:func:`_repeated_call`) and its tokens
    were lost."""
    counted: set[str] = set()
    for node, ancestors in walk:
        if kinds[node.key].type == "llm" and _has_tokens(node.payload):
            counted.update(a.key for a in ancestors)
    for node, _ in walk:
        kind = kinds[node.key]
        if kind.type == "llm" and node.key in counted and not _has_tokens(node.payload):
            kinds[node.key] = Kind("container", kind.name)


def _repeated_call(span: OSpan, kind: Kind, ancestors: list[Node], kinds: dict[str, Kind]) -> bool:
    """An llm span that is its llm parent's only llm child recording the same request
    (:func:`_same_request`): one model request traced at two levels (smolagents' nested
    ``LiteLLMModel.__call__``; Google ADK 2.x's ``call_llm`` around its own or google-genai's
    ``generate_content <model>``, which repeats the tokens but holds no content; ADK's
    ``call_llm`` around OpenLLMetry's ``openai.chat`` in kagent); only the outer one is kept.
    Two such children are attempts (retries), kept apart."""
    if kind.type != "llm" or not ancestors or kinds[ancestors[-1].key].type != "llm":
        return False
    parent = ancestors[-1]
    outer = parent.payload.attributes
    if not _same_request(span.attributes, outer):
        return False
    same = [
        child
        for child in parent.children
        if kinds[child.key].type == "llm" and _same_request(child.payload.attributes, outer)
    ]
    return len(same) == 1


def _input_source(attributes: dict[str, Any]) -> str | None:
    """Where a span records its input: the first of ``INPUT_KEYS`` it holds, or the prefix of
    its flattened messages; ``None`` where it records none."""
    for key in INPUT_KEYS:
        if attributes.get(key) is not None:
            return key
    return next((p for p in _FLAT_INPUT if any(k.startswith(p) for k in attributes)), None)


def _same_request(inner: dict[str, Any], outer: dict[str, Any]) -> bool:
    """Whether an llm span inside an llm span may record the same request: it records no
    input, or the same input, or its input in another instrumentation's shape (ADK's
    ``llm_request`` outside, OpenLLMetry's ``gen_ai.prompt.*`` inside), which cannot be
    compared. Only a different input in the same shape is another request."""
    source = _input_source(inner)
    if source is None or source != _input_source(outer):
        return True
    return _content(inner, INPUT_KEYS, _FLAT_INPUT) == _content(outer, INPUT_KEYS, _FLAT_INPUT)


def _call_arguments(span: OSpan, path: Path) -> Any:
    """A tool span's record of the call's arguments (the first of ``ARGUMENT_KEYS``, else the
    content of its one ``gen_ai.tool.message`` event: Strands Agents), with the
    ``{"args": [], "kwargs": {...}}`` wrapper OpenInference writes for smolagents and
    LlamaIndex tools taken off."""
    from abw.importers.rawio import decode_json_string

    attributes = span.attributes
    value = next((attributes[k] for k in ARGUMENT_KEYS if k in attributes), None)
    if value is None:
        sent = [a.get("content") for n, a in span.events if n == "gen_ai.tool.message"]
        value = sent[0] if len(sent) == 1 else None
    decoded = decode_json_string(value, path, span.line)
    if (
        isinstance(decoded, dict)
        and isinstance(decoded.get("kwargs"), dict)
        and not decoded.get("args")
        and decoded.keys() <= _CALL_WRAPPER
    ):
        return decoded["kwargs"]
    return value


def _keep_arguments(draft: Draft, span: OSpan, options: ImportOptions, path: Path) -> bool:
    """Keep the ``--argument-fields`` of a tool or retriever span; False when a field is named
    for it but its recorded input is not a JSON object (LangChain writes a Python repr)."""
    arguments = _call_arguments(span, path)
    draft.keep_arguments(options.argument_fields, arguments, path)
    named = any(fnmatchcase(draft.name, f.tool) for f in options.argument_fields)
    return not named or arguments is None or "arguments" in draft.attributes


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


def _outcome(
    span: OSpan, kind: Kind, failing_messages: set[str | None], failing_below: dict[str, bool]
) -> tuple[str, bool]:
    """The span's own outcome, and whether an ERROR status on it was only propagated. A span
    that never ended is incomplete unless its status is OK: the call returned."""
    if span.status == "ERROR":
        if _own_failure(span):
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


def _attributes(draft: Draft, span: OSpan, agent: str | None, propagated: bool) -> None:
    a = span.attributes
    out = draft.attributes
    if agent:
        out["agent"] = agent
    call_id = (
        _text(a.get("gen_ai.tool.call.id"))
        or _text(a.get("tool.id"))
        or _text(a.get("ai.toolCall.id"))
    )
    if call_id and draft.type == "tool":
        out["tool_call_id"] = call_id
    tokens: tuple[tuple[str, str], ...] = ()
    if span.name == f"{CLAUDE_CODE}llm_request":  # Claude Code: plain key names
        tokens = (("input_tokens", "input_tokens"), ("output_tokens", "output_tokens"))
    for key, name in (*tokens, ("pydantic_ai.tool.retry.attempt", "retry_attempt"), *_TOKEN_KEYS):
        value = a.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            out.setdefault(name, value)
    error_type = _error_type(span)
    if error_type and draft.outcome == "error":
        out["error_type"] = error_type
    if propagated:
        out["error_propagated"] = True
    if span.status != "UNSET":
        out["otel_status"] = span.status
