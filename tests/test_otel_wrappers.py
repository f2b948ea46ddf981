"""``abw import otel`` on what trace back ends answer and on files still being written: Grafana
Tempo's trace-by-id answers (v1 ``batches``; v2 ``{"trace", "metrics", "status"}``, base64 ids
as Tempo's jsonpb writes them) and Jaeger's API v3 (``{"result": ...}``, hex ids) hold the same
OTLP/JSON as the export they came from, and import byte-identically to it; a cut-off last line
of OTLP JSON Lines; Spring AI's observations. The answers are built from a real corpus export
the way each back end writes them (Tempo ``pkg/tempopb``, Jaeger ``internal/proto/api_v3``)."""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

from tests.conftest import CORPUS

STRANDS = CORPUS / "otel-frameworks" / "gen__otlp-json__strands-agents-1.62.0__openai-tools.jsonl"
AT = "2026-01-01T00:00:00Z"


def _resource_spans() -> list[Any]:
    """Every ResourceSpans of the export's lines, as a back end returns the whole trace."""
    lines = STRANDS.read_text().splitlines()
    return [rs for line in lines if line.strip() for rs in json.loads(line)["resourceSpans"]]


def _base64_ids(resource_spans: list[Any]) -> list[Any]:
    """The ids as Tempo's jsonpb writes its ``bytes`` fields: base64."""
    out = copy.deepcopy(resource_spans)
    for resource in out:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return out


def _imported(run_cli, folder: Path, document: Any, *extra: str) -> tuple[int, str, str]:
    """Import ``document`` written as ``folder/trace.json``: (exit code, stderr, the trace)."""
    folder.mkdir()
    source = folder / "trace.json"
    source.write_text(document if isinstance(document, str) else json.dumps(document))
    out = folder / "out"
    code, _, err = run_cli(
        "import", "otel", "--input", source, "--out", out, "--exported-at", AT, *extra
    )
    traces = sorted(out.glob("*.json")) if out.exists() else []
    return code, err, "".join(p.read_text() for p in traces)


def _without_source_hash(trace: str) -> dict[str, Any]:
    """The trace without the hash of the file's own bytes, which differ between the shapes."""
    document = json.loads(trace)
    document["source"].pop("source_hash")
    return document


def test_back_end_answers_import_as_the_otlp_they_hold(run_cli, tmp_path):
    """They were refused as no OpenTelemetry export. Each import equals the plain OTLP/JSON's
    but for the source hash (of other bytes)."""
    spans = _resource_spans()
    tempo = _base64_ids(spans)
    code, _, plain = _imported(run_cli, tmp_path / "plain", {"resourceSpans": spans})
    assert code == 0 and plain
    answers = {
        "jaeger-v3": {"result": {"resourceSpans": spans}},
        "tempo-v2": {"trace": {"resourceSpans": tempo}, "metrics": {"inspectedBytes": "13570"}},
        "tempo-v2-before-2.7": {"trace": {"batches": tempo}},
        "tempo-v1": {"batches": tempo},
    }
    for name, answer in answers.items():
        code, err, trace = _imported(run_cli, tmp_path / name, answer)
        assert (code, err) == (0, "abw: wrote 1 trace to " + str(tmp_path / name / "out") + "\n")
        assert _without_source_hash(trace) == _without_source_hash(plain), name


def test_answers_appended_as_json_lines_import_too(run_cli, tmp_path):
    """``curl …/api/v3/traces/<id>; echo`` for each trace, into one file: one answer a line."""
    spans = _resource_spans()
    lines = [json.dumps({"result": {"resourceSpans": spans[:4]}})]
    lines.append(json.dumps({"trace": {"resourceSpans": _base64_ids(spans[4:])}}))
    code, _, trace = _imported(run_cli, tmp_path / "lines", "\n".join(lines) + "\n")
    _, _, plain = _imported(run_cli, tmp_path / "plain", {"resourceSpans": spans})
    assert code == 0
    ours, theirs = _without_source_hash(trace), _without_source_hash(plain)
    for span in ours["spans"] + theirs["spans"]:  # JSON Lines name each span's line
        span["source_ref"].pop("line", None)
    assert ours == theirs


def test_a_partial_tempo_trace_is_refused(run_cli, tmp_path):
    """Tempo answers status PARTIAL when the trace passed its size limit (or was filtered or
    pruned): imported, the run's missing calls would pass every check."""
    answer = {
        "trace": {"resourceSpans": _base64_ids(_resource_spans())},
        "status": "PARTIAL",
        "message": "Trace exceeds maximum size of 50000000 bytes, a partial trace is returned",
    }
    code, err, trace = _imported(run_cli, tmp_path / "partial", answer)
    assert code == 2 and not trace
    source = tmp_path / "partial" / "trace.json"
    assert err.startswith(f"abw: error: {source}: status: a partial trace")
    assert err.count("\n") == 1
    assert "maximum size" not in err  # the answer's own text is not echoed


def test_other_wrappers_keep_the_clear_error(run_cli, tmp_path):
    """A key beside the wrapper that the back end never writes, or an error answer, is no
    shape abw knows: the same one-line refusal."""
    spans = _resource_spans()
    for name, answer in {
        "extra-key": {"result": {"resourceSpans": spans}, "partial": True},
        "jaeger-error": {"error": {"httpCode": 404, "message": "trace not found"}},
        "nested": {"data": {"trace": {"resourceSpans": spans}}},
    }.items():
        code, err, trace = _imported(run_cli, tmp_path / name, answer)
        assert code == 2 and not trace, name
        assert "not an OpenTelemetry export" in err and err.count("\n") == 1, name


def _lines_import(run_cli, folder: Path, raw: bytes) -> tuple[int, str, dict[str, Any] | None]:
    folder.mkdir()
    source = folder / "spans.jsonl"
    source.write_bytes(raw)
    out = folder / "out"
    code, _, err = run_cli("import", "otel", "--input", source, "--out", out, "--exported-at", AT)
    traces = sorted(out.glob("*.json")) if out.exists() else []
    return code, err, json.loads(traces[0].read_text()) if traces else None


def test_a_cut_off_last_line_is_skipped_with_a_warning(run_cli, tmp_path):
    """A collector's file exporter still writing: the last line has no line break and is no
    JSON. The run's root span (the last line here) is missing: its status is unknown, not the
    success of the first span that ended."""
    raw = STRANDS.read_bytes()
    lines = raw.split(b"\n")
    assert lines[-1] == b"" and b"invoke_agent" in lines[-2]
    code, err, trace = _lines_import(run_cli, tmp_path / "cut", raw[:-1][:-300])
    assert code == 0 and trace is not None
    assert err.startswith(
        f"abw: warning: spans.jsonl:{len(lines) - 1}: skipped a cut-off last line\n"
    )
    assert trace["run"]["final_status"] == "unknown"
    assert len(trace["spans"]) == 5

    code, err, whole = _lines_import(run_cli, tmp_path / "whole", raw)
    assert whole is not None and whole["run"]["final_status"] == "success"

    code, err, trace = _lines_import(run_cli, tmp_path / "after", raw + lines[0][:150])
    assert code == 0 and trace is not None and trace["run"] == whole["run"]  # the root is there
    assert f"spans.jsonl:{len(lines)}: skipped a cut-off last line" in err


def test_a_broken_line_with_its_line_break_stays_an_error(run_cli, tmp_path):
    """A line that was written whole (its line break follows) and is no JSON is damage, not a
    file still being written; so is a broken line before the last."""
    raw = STRANDS.read_bytes()
    lines = raw.split(b"\n")
    code, err, trace = _lines_import(run_cli, tmp_path / "ended", raw + lines[0][:150] + b"\n")
    assert code == 2 and trace is None
    assert err.startswith(f"abw: error: {tmp_path / 'ended' / 'spans.jsonl'}:{len(lines)}: invalid")
    middle = b"\n".join([lines[0], lines[1][:100], *lines[2:]])
    code, err, trace = _lines_import(run_cli, tmp_path / "middle", middle)
    assert code == 2 and trace is None
    assert err.startswith(f"abw: error: {tmp_path / 'middle' / 'spans.jsonl'}:2: invalid JSON")


# --- Spring AI ---------------------------------------------------------------------------------


def _attributes(values: dict[str, str]) -> list[Any]:
    """Micrometer tags every span attribute as a string."""
    return [{"key": k, "value": {"stringValue": v}} for k, v in values.items()]


def _span(span_id: str, parent: str, name: str, start: int, **attributes: str) -> dict[str, Any]:
    return {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": span_id,
        "parentSpanId": parent,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(1767225600000000000 + start * 10**6),
        "endTimeUnixNano": str(1767225600000000000 + (start + 5) * 10**6),
        "attributes": _attributes(attributes),
        "status": {},
    }


def _spring_ai() -> dict[str, Any]:
    """A Spring AI 1.1 ChatClient run, keys and names as its conventions write them
    (``DefaultChatClientObservationConvention``, ``DefaultChatModelObservationConvention``,
    ``DefaultToolCallingObservationConvention``, ``DefaultEmbeddingModelObservationConvention``,
    spring-ai v1.1.8): the chat client, an embedding call, a model call asking for a tool, the
    tool call (operation ``framework``, kind ``tool_call``) and the answering model call."""
    chat = {
        "gen_ai.operation.name": "chat",
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
        "gen_ai.usage.input_tokens": "120",
        "gen_ai.usage.output_tokens": "18",
        "gen_ai.usage.total_tokens": "138",
    }
    spans = [
        _span(
            "a000000000000001",
            "",
            "spring_ai chat_client",
            0,
            **{
                "gen_ai.operation.name": "framework",
                "gen_ai.system": "spring_ai",
                "spring.ai.kind": "chat_client",
            },
        ),
        _span(
            "a000000000000002",
            "a000000000000001",
            "embedding text-embedding-3-small",
            1,
            **{
                "gen_ai.operation.name": "embedding",
                "gen_ai.system": "openai",
                "gen_ai.request.model": "text-embedding-3-small",
                "gen_ai.usage.input_tokens": "9",
            },
        ),
        _span("a000000000000003", "a000000000000001", "chat gpt-4o-mini", 2, **chat),
        _span(
            "a000000000000004",
            "a000000000000001",
            "tool_call currentWeather",
            3,
            **{
                "gen_ai.operation.name": "framework",
                "gen_ai.system": "spring_ai",
                "spring.ai.kind": "tool_call",
                "spring.ai.tool.definition.name": "currentWeather",
                "spring.ai.tool.definition.description": "The weather in a city",
                "spring.ai.tool.call.arguments": '{"city": "Paris"}',
                "spring.ai.tool.call.result": '"18 degrees, sunny"',
            },
        ),
        _span("a000000000000005", "a000000000000001", "chat gpt-4o-mini", 4, **chat),
    ]
    return {
        "resourceSpans": [
            {"scopeSpans": [{"scope": {"name": "org.springframework.boot"}, "spans": spans}]}
        ]
    }


def test_spring_ai_tool_calls_embeddings_and_token_counts(run_cli, tmp_path):
    """Its 1.x tool calls (operation ``framework``) were not emitted at all, its embedding
    calls neither, and its token counts (strings) were dropped."""
    code, err, trace = _imported(
        run_cli, tmp_path / "spring", _spring_ai(), "--argument-fields", "currentWeather:city"
    )
    assert code == 0, err
    spans = json.loads(trace)["spans"]
    assert [(s["type"], s["name"]) for s in spans] == [
        ("retriever", "text-embedding-3-small"),
        ("llm", "gpt-4o-mini"),
        ("tool", "currentWeather"),
        ("llm", "gpt-4o-mini"),
    ]
    assert spans[2]["attributes"]["arguments"] == {"city": "Paris"}
    assert spans[2]["input_hash"] and spans[2]["output_hash"]
    assert (spans[1]["attributes"]["input_tokens"], spans[1]["attributes"]["output_tokens"]) == (
        120,
        18,
    )


def test_spring_ai_2_tool_call_arguments_and_id(run_cli, tmp_path):
    """Spring AI 2.0 names a tool call ``execute_tool <name>``: it was a tool already, but its
    arguments, result and call id (``spring.ai.tool.call.*``) were not read."""
    document = _spring_ai()
    tool = document["resourceSpans"][0]["scopeSpans"][0]["spans"][3]
    tool["name"] = "execute_tool currentWeather"
    tool["attributes"] = _attributes(
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.system": "spring_ai",
            "spring.ai.kind": "tool_call",
            "spring.ai.tool.type": "function",
            "spring.ai.tool.definition.name": "currentWeather",
            "spring.ai.tool.call.id": "call_Qx7",
            "spring.ai.tool.call.arguments": '{"city": "Paris"}',
            "spring.ai.tool.call.result": '"18 degrees, sunny"',
        }
    )
    code, err, trace = _imported(
        run_cli, tmp_path / "spring2", document, "--argument-fields", "currentWeather:city"
    )
    assert code == 0, err
    (call,) = [s for s in json.loads(trace)["spans"] if s["type"] == "tool"]
    assert (
        call["attributes"]["arguments"] == {"city": "Paris"}
        and call["attributes"]["tool_call_id"] == "call_Qx7"
    )
    assert call["input_hash"] and call["output_hash"]


OPENLLMETRY_TOOL_RAISES = (
    CORPUS
    / "otel-live-more"
    / "gen__otlp-json__langgraph-1.2.24__openllmetry-langchain-0.62.4__tool-raises.jsonl"
)


def _with_inner_tool_span(failed: bool) -> str:
    """The real LangGraph run traced by OpenLLMetry, with the span its MCP instrumentation
    (on by default with ``Traceloop.init()``) opens inside ``execute_tool lookup_order`` for the
    same call: ``lookup_order.tool``, ``traceloop.span.kind: tool``; failed, as a semconv MCP
    client span records a tool error (``error.type: tool_error``, status ERROR)."""
    lines = []
    for line in OPENLLMETRY_TOOL_RAISES.read_text().splitlines():
        document = json.loads(line)
        for resource in document["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in list(scope["spans"]):
                    if span["name"] != "execute_tool lookup_order":
                        continue
                    attributes = {
                        "traceloop.span.kind": "tool",
                        "traceloop.entity.name": "lookup_order",
                        **({"error.type": "tool_error"} if failed else {}),
                    }
                    scope["spans"].append(
                        {
                            "traceId": span["traceId"],
                            "spanId": "00000000000000aa",
                            "parentSpanId": span["spanId"],
                            "name": "lookup_order.tool",
                            "kind": 1,
                            "startTimeUnixNano": str(int(span["startTimeUnixNano"]) + 1000),
                            "endTimeUnixNano": str(int(span["endTimeUnixNano"]) - 1000),
                            "attributes": [
                                {"key": k, "value": {"stringValue": v}}
                                for k, v in attributes.items()
                            ],
                            "status": {"code": 2 if failed else 1},
                        }
                    )
        lines.append(json.dumps(document))
    return "\n".join(lines) + "\n"


def test_one_tool_call_traced_at_two_levels_is_one_tool_span(run_cli, tmp_path):
    """A framework's ``execute_tool`` span around an MCP instrumentation's span of the same
    call made two ``lookup_order`` steps (a longer path, a count off by one); one step is
    kept, the outer one, failed when only the inner layer recorded the failure."""
    outcomes = {}
    for case, text in (
        ("original", OPENLLMETRY_TOOL_RAISES.read_text()),
        ("inner", _with_inner_tool_span(False)),
        ("inner-failed", _with_inner_tool_span(True)),
    ):
        source = tmp_path / case / "spans.jsonl"
        source.parent.mkdir()
        source.write_text(text)
        out = tmp_path / f"{case}.json"
        code, _, err = run_cli(
            "import", "otel", "--input", source, "--out", out, "--exported-at", AT
        )
        assert code == 0, err
        spans = json.loads(out.read_text())["spans"]
        outcomes[case] = [(s["type"], s["name"], s["outcome"]) for s in spans]
    assert outcomes["inner"] == outcomes["original"]
    assert [s for s in outcomes["original"] if s[1] == "lookup_order"] == [
        ("tool", "lookup_order", "ok")
    ]
    assert [s for s in outcomes["inner-failed"] if s[1] == "lookup_order"] == [
        ("tool", "lookup_order", "error")
    ]
