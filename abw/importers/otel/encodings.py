"""The three encodings of an export read into :class:`~abw.importers.otel.span.OSpan`: OTLP/JSON
(a document or JSON Lines; Tempo's ``batches``; as Tempo's and Jaeger's trace APIs answer it),
Jaeger JSON, and console-exporter objects (any-agent's ``AgentTrace`` among them). Anything else
is refused; broken JSON is reported where it breaks, but for a cut-off last line of JSON Lines."""

from __future__ import annotations

import base64
import binascii
import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from abw.errors import AbwInputError
from abw.importers.otel.span import OSpan
from abw.importers.rawio import as_dict, as_list, json_body, scalar_text
from abw.importers.spans import ABSENT, parse_time
from abw.reader import MalformedJson, parse_json, parse_json_sequence

_HEX = re.compile(r"[0-9a-fA-F]+")

#: Where a document keeps its ResourceSpans: OTLP's ``resourceSpans``, or ``batches`` in the
#: answer of Grafana Tempo's trace-by-id API (v1), as Tempo exports a trace.
_RESOURCE_SPANS = ("resourceSpans", "batches")


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
    if value is None or value == "" or isinstance(value, bool | dict | list):
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


def _otlp_request(document: dict[str, Any], line: int | None, out: list[OSpan]) -> None:
    key = next((k for k in _RESOURCE_SPANS if k in document), _RESOURCE_SPANS[0])
    for resource_spans in as_list(document.get(key)):
        if not isinstance(resource_spans, dict):
            continue
        scopes = resource_spans.get("scopeSpans") or resource_spans.get(
            "instrumentationLibrarySpans"
        )
        resource = bool(as_dict(resource_spans.get("resource")).get("attributes"))
        for scope in as_list(scopes):
            for span in as_list(scope.get("spans") if isinstance(scope, dict) else None):
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
                        name=scalar_text(span.get("name"), ""),
                        start_ns=_ns(span.get("startTimeUnixNano")),
                        end_ns=_ns(span.get("endTimeUnixNano")),
                        status=status,
                        status_message=message,
                        attributes=key_values(span.get("attributes")),
                        events=[
                            (str(e.get("name")), key_values(e.get("attributes")))
                            for e in as_list(span.get("events"))
                            if isinstance(e, dict)
                        ],
                        line=line,
                        resource_attributes=resource,
                        links=_links(span.get("links"), "traceId", "spanId"),
                    )
                )


def _jaeger_parent(span: dict[str, Any], trace: dict[str, Any]) -> Any:
    """A Jaeger span's parent: its ``CHILD_OF`` reference, else a ``FOLLOWS_FROM`` one of the
    same trace (OpenTracing's other parent relation: the Jaeger UI draws the span as a child;
    a span that only follows from another used to become a root, ordered last), else its
    ``parentSpanID``."""
    references = [r for r in as_list(span.get("references")) if isinstance(r, dict)]
    trace_id = span.get("traceID") or trace.get("traceID")
    for kind in ("CHILD_OF", "FOLLOWS_FROM"):
        for reference in references:
            same_trace = kind == "CHILD_OF" or reference.get("traceID") in (None, trace_id)
            if reference.get("refType") == kind and same_trace and reference.get("spanID"):
                return reference.get("spanID")
    return span.get("parentSpanID")


def _jaeger(document: dict[str, Any], out: list[OSpan]) -> None:
    for trace in as_list(document.get("data")):
        trace = as_dict(trace)
        for span in as_list(trace.get("spans")):
            if not isinstance(span, dict):
                continue
            tags = {
                t["key"]: t.get("value")
                for t in as_list(span.get("tags"))
                if isinstance(t, dict) and isinstance(t.get("key"), str)
            }
            parent = _jaeger_parent(span, trace)
            start_us = _ns(span.get("startTime"))
            duration_us = _ns(span.get("duration"))
            end_us = start_us + duration_us if start_us is not None and duration_us else start_us
            code = str(tags.get("otel.status_code", "")).upper()
            status = "ERROR" if code == "ERROR" or tags.get("error") in (True, "true") else "UNSET"
            status = "OK" if code == "OK" and status != "ERROR" else status
            events = []
            for log in as_list(span.get("logs")):
                fields = {
                    f["key"]: f.get("value")
                    for f in as_list(as_dict(log).get("fields"))
                    if isinstance(f, dict) and isinstance(f.get("key"), str)
                }
                events.append((str(fields.get("event", "log")), fields))
            message = tags.get("otel.status_description")
            out.append(
                OSpan(
                    trace_id=norm_id(span.get("traceID") or trace.get("traceID"), 16) or "",
                    span_id=norm_id(span.get("spanID"), 8) or "",
                    parent_id=norm_id(parent, 8),
                    name=scalar_text(span.get("operationName"), ""),
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
                    links=_links(
                        [
                            r
                            for r in as_list(span.get("references"))
                            if as_dict(r).get("traceID") not in (None, span.get("traceID"))
                        ],
                        "traceID",
                        "spanID",
                    ),
                )
            )


def _iso_ns(value: Any) -> int | None:
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


def _links(links: Any, trace_key: str, span_key: str) -> list[tuple[str, str]]:
    """The ``(trace id, span id)`` of each span link (OTLP's ``links``; the console exporter's
    link ``context``; a Jaeger reference to another trace, as the Collector writes a link);
    a link without both ids is skipped."""
    out = []
    for link in as_list(links):
        trace_id = norm_id(as_dict(link).get(trace_key), 16)
        span_id = norm_id(as_dict(link).get(span_key), 8)
        if trace_id and span_id:
            out.append((trace_id, span_id))
    return out


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
                name=scalar_text(document.get("name"), ""),
                start_ns=_time_ns(document.get("start_time")),
                end_ns=_time_ns(document.get("end_time")),
                status=code,
                status_message=message,
                attributes=dict(as_dict(document.get("attributes"))),
                events=[
                    (str(e.get("name")), dict(as_dict(e.get("attributes"))))
                    for e in as_list(document.get("events"))
                    if isinstance(e, dict)
                ],
                links=_links(
                    [as_dict(link).get("context") for link in as_list(document.get("links"))],
                    "trace_id",
                    "span_id",
                ),
            )
        )


def _is_console(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("context"), dict) and "name" in value


class Export(NamedTuple):
    """What a file holds: its spans, the encoding they used (otlp-json, jaeger-json,
    otel-console, any-agent-json) and the run's final output when the file records one
    (any-agent's ``AgentTrace.final_output``; else :data:`ABSENT`); ``cut_off``: a cut-off
    last line was skipped, so a run whose root span is missing may have lost it there."""

    spans: list[OSpan]
    encoding: str
    final_output: Any = ABSENT
    cut_off: bool = False


def read_spans(raw: bytes, path: Path, warnings: list[str] | None = None) -> Export:
    """Every span of the file, read as one JSON document or else as JSON Lines (a cut-off last
    line is skipped with a warning appended to ``warnings``)."""
    raw = json_body(raw, path)
    try:
        whole: Any = parse_json(raw, path)
    except MalformedJson as broken:  # JSON Lines, or a console exporter's objects one after another
        return _json_lines(raw, path, broken, warnings)
    return _document(_unwrap(whole, path, None), path)


#: The answers of trace back ends' HTTP APIs that hold one OTLP/JSON ``TracesData``, read
#: exactly: the key holding it, and every key the answer may hold besides. Grafana Tempo's
#: trace-by-id v2 (``TraceByIDResponse``: ``trace`` with ``resourceSpans``, ``batches`` before
#: Tempo 2.6; ``metrics``; ``status`` PARTIAL and its ``message``); Jaeger's API v3
#: (``GRPCGatewayWrapper``: ``result``).
_WRAPPERS = {"trace": {"metrics", "status", "message"}, "result": set()}


def _unwrap(document: Any, path: Path, line: int | None) -> Any:
    """The OTLP/JSON request inside a back end's answer (:data:`_WRAPPERS`), else ``document``.
    A partial trace (Tempo's ``status`` PARTIAL: cut at its size limit, filtered or pruned) is
    refused: its run is not all there."""
    if not isinstance(document, dict) or document.keys() & _RESOURCE_SPANS:
        return document
    for key, others in _WRAPPERS.items():
        inner = document.get(key)
        if isinstance(inner, dict) and document.keys() <= {key, *others}:
            if document.get("status") in ("PARTIAL", 1):
                raise AbwInputError(
                    "a partial trace (Grafana Tempo's status PARTIAL: cut at its size limit, "
                    "filtered by q or pruned): the run is not all there; fetch it whole",
                    file=path,
                    line=line,
                    field="status",
                )
            if not inner:  # no span at all: said so, not "not an OpenTelemetry export"
                return {_RESOURCE_SPANS[0]: []}
            return inner if inner.keys() & _RESOURCE_SPANS else document
    return document


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
        return Export(spans, "any-agent-json", _any_agent_output(whole))
    raise AbwInputError(
        "not an OpenTelemetry export: expected resourceSpans (OTLP/JSON; Tempo: batches or "
        "trace.resourceSpans; Jaeger API v3: result.resourceSpans), data[].spans (Jaeger UI), "
        "console-exporter spans or an any-agent trace (spans[])",
        file=path,
    )


def _any_agent_output(trace: dict[str, Any]) -> Any:
    """The run's final output an any-agent ``AgentTrace`` records: ``None`` where it is null
    (the run returned no answer: it raised, its trace taken from the exception); ``ABSENT``
    where the file has none, or only ``{}``, which pydantic writes for a structured answer
    (``output_type``) whose fields ``model_dump_json`` dropped: the last model answer stands."""
    if "final_output" not in trace:
        return ABSENT
    final = trace["final_output"]
    return ABSENT if final == {} else final


def _refuse_js_dump(values: list[Any], path: Path) -> None:
    """Refuse OpenTelemetry JS SDK objects dumped one after another (``_spanContext``: the
    Gemini CLI's ``telemetry.outfile``, spans, logs and metrics mixed): no export, and its
    spans hold no tool call's outcome."""
    if any(isinstance(v, dict) and "_spanContext" in v for v in values):
        raise AbwInputError(
            "OpenTelemetry JS SDK objects dumped one after another (the Gemini CLI's "
            "telemetry.outfile), not an export: send its traces to an OpenTelemetry "
            "Collector (telemetry.otlpEndpoint) and import the file exporter's OTLP/JSON",
            file=path,
            field="_spanContext",
        )


def _json_lines(
    raw: bytes, path: Path, broken: MalformedJson, warnings: list[str] | None
) -> Export:
    """The spans of OTLP/JSON Lines (each line a request, or a back end's answer holding one)
    or of console-exporter objects one after another.

    ``broken``: the error of reading the file as one document. A file whose first line is not
    a whole JSON value is no JSON Lines file (a pretty-printed document): its error is where
    the document breaks, not its first line. A last line without a line break that is no JSON
    (a collector's file exporter still writing) is skipped with a warning, as the other JSON
    Lines importers do; any other broken line is an error naming it."""
    spans: list[OSpan] = []
    first, cut_off = True, False
    other_signals = 0  # lines of metrics or logs, skipped
    lines = raw.split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            document = parse_json(line, path, first_line=number)
        except MalformedJson as line_error:
            try:
                values = parse_json_sequence(raw.decode("utf-8", "replace"), path)
            except MalformedJson as sequence_error:
                if not first and number == len(lines) and warnings is not None:
                    warnings.append(f"{path.name}:{number}: skipped a cut-off last line")
                    cut_off = True
                    break
                if not first:  # JSON Lines: the line that breaks
                    raise line_error from None
                # one document, or documents one after another: where it breaks (the whole
                # document's error, unless that only says a second value follows the first)
                extra = broken.message.endswith("Extra data")
                raise (sequence_error if extra else broken) from None
            if values and all(_is_console(v) for v in values):
                _console(values, spans)
                return Export(spans, "otel-console")
            _refuse_js_dump(values, path)
            raise (broken if first else line_error) from None
        first = False
        document = _unwrap(document, path, number)
        if isinstance(document, dict) and _other_signal(document):
            other_signals += 1  # a file exporter shared by the metrics or logs pipelines
            continue
        if not isinstance(document, dict) or not document.keys() & _RESOURCE_SPANS:
            raise AbwInputError(
                "expected an OTLP ExportTraceServiceRequest (resourceSpans) on each line",
                file=path,
                line=number,
            )
        _wrap(lambda d=document, n=number: _otlp_request(d, n, spans), path)
    if other_signals and warnings is not None:
        warnings.append(
            f"{path.name}: skipped {other_signals} line{'s' if other_signals != 1 else ''} of "
            "OTLP metrics or logs (a file exporter the pipelines share); spans are read"
        )
    return Export(spans, "otlp-json", cut_off=cut_off)


#: The top-level keys of the OTLP requests of the other signals (no spans in them).
_OTHER_SIGNALS = frozenset({"resourceMetrics", "resourceLogs", "resourceProfiles"})


def _other_signal(document: dict[str, Any]) -> bool:
    """A line that is an OTLP request of metrics, logs or profiles, and holds no spans."""
    return bool(document.keys() & _OTHER_SIGNALS) and not document.keys() & _RESOURCE_SPANS


def _wrap(action: Any, path: Path) -> None:
    try:
        action()
    except AbwInputError as exc:
        raise AbwInputError(exc.message, file=path, line=exc.line, field=exc.field) from None
