"""``abw import otel`` on the corpus (OTLP/JSON GenAI + OpenInference, Jaeger) and on variants."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from abw.importers import get_importer
from abw.importers.base import ImportOptions
from abw.importers.common import parse_argument_fields
from abw.models.trace import Trace
from abw.traceio import render_trace
from tests.conftest import CORPUS
from tests.importkit import import_traces

OTEL = CORPUS / "otel"
OI = OTEL / "gen__otlp-json__openai-agents__openinference.jsonl"
PYDANTIC = OTEL / "gen__otlp-json__pydantic-ai__genai-semconv.jsonl"
JAEGER = OTEL / "packetpanic__jaeger_get-inventory.json"
NATIVE = CORPUS / "openai-agents" / "gen__openai-agents-sdk__native-trace-export.json"


def _import(path: Path, name: str = "otel") -> list[Trace]:
    return import_traces(name, path)


def _raw_otlp_spans(path: Path) -> list[dict]:
    """Independent reader: every span of every export request, attributes flattened."""
    spans = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        for rs in json.loads(line)["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    attrs = {
                        a["key"]: next(iter(a["value"].values()), None) for a in s["attributes"]
                    }
                    spans.append({**s, "attrs": attrs})
    return spans


def _dfs_order(spans: list[dict]) -> list[dict]:
    """Pre-order walk of the span tree, siblings by start time (an independent implementation)."""
    ids = {s["spanId"] for s in spans}
    children: dict[str | None, list[dict]] = {}
    for s in spans:
        parent = s.get("parentSpanId") if s.get("parentSpanId") in ids else None
        children.setdefault(parent, []).append(s)
    out: list[dict] = []

    def visit(parent):
        for s in sorted(children.get(parent, []), key=lambda s: int(s["startTimeUnixNano"])):
            out.append(s)
            visit(s["spanId"])

    visit(None)
    return out


def test_openinference_tool_path_and_statuses_match_the_raw_file():
    (trace,) = _import(OI)
    expected = []
    for s in _dfs_order(_raw_otlp_spans(OI)):
        kind = s["attrs"].get("openinference.span.kind")
        status = "error" if s.get("status", {}).get("code") == 2 else "success"
        if kind == "TOOL" and s["name"].startswith("handoff to "):
            expected.append(("handoff", s["name"][len("handoff to ") :], status))
        elif kind == "TOOL":
            expected.append(("tool", s["attrs"]["tool.name"], status))
        elif kind == "GUARDRAIL":
            expected.append(("guardrail", s["name"], status))
    assert [(s.type, s.name, s.status) for s in trace.path()] == expected
    assert expected == [
        ("guardrail", "no_card_numbers", "success"),
        ("tool", "get_order_status", "success"),
        ("handoff", "Refunds agent", "success"),
        ("tool", "issue_refund", "error"),
        ("tool", "issue_refund", "success"),
    ]
    raw_llm = sum(
        1 for s in _raw_otlp_spans(OI) if s["attrs"].get("openinference.span.kind") == "LLM"
    )
    assert sum(s.type == "llm" for s in trace.spans) == raw_llm == 5
    assert trace.run.trace_id == "8f21b1dade4f7d89726abcf6de6d11f0"


def test_genai_semconv_retry_is_a_separate_span():
    (trace,) = _import(PYDANTIC)
    raw = _dfs_order(_raw_otlp_spans(PYDANTIC))
    expected = [
        (
            s["attrs"]["gen_ai.tool.name"],
            "error" if s.get("status", {}).get("code") == 2 else "success",
        )
        for s in raw
        if s["attrs"].get("gen_ai.operation.name") == "execute_tool"
    ]
    assert [(s.name, s.status) for s in trace.path()] == expected
    assert expected == [
        ("search_docs", "success"),
        ("fetch_page", "error"),
        ("fetch_page", "success"),
    ]
    failed = trace.path()[1]
    assert failed.attributes["retry_attempt"] == 1
    assert failed.attributes["error_type"] == "pydantic_ai.exceptions.ToolRetryError"
    # the retry repeats the same call: same name, same input hash, the first one failed
    assert failed.input_hash == trace.path()[2].input_hash
    assert [s.name for s in trace.spans if s.type == "llm"] == ["gpt-4o-mini"] * 4
    assert all(s.duration_ms is not None and s.duration_ms >= 0 for s in trace.spans)


def test_jaeger_export():
    (trace,) = _import(JAEGER)
    raw = json.loads(JAEGER.read_text())["data"][0]["spans"]
    tags = [{t["key"]: t["value"] for t in s["tags"]} for s in raw]
    assert sum(t.get("gen_ai.operation.name") == "chat" for t in tags) == 4
    assert [s.name for s in trace.path()] == ["pyats_list_devices"]
    assert [s.name for s in trace.spans if s.type == "llm"] == [
        "anthropic/claude-opus-4-5-20251101"
    ] * 4
    assert trace.source.export_format == "jaeger-json"
    assert trace.run.final_status == "success"


def test_a_jaeger_span_that_follows_from_its_parent_stays_its_child(tmp_path):
    """OpenTracing's FOLLOWS_FROM is a parent relation (the Jaeger UI draws the span as a
    child); a span with only that reference became a root, ordered after everything."""
    document = json.loads(JAEGER.read_text())
    for span in document["data"][0]["spans"]:
        tags = {t["key"]: t["value"] for t in span["tags"]}
        if tags.get("gen_ai.tool.name") or "pyats_list_devices" in span["operationName"]:
            for reference in span.get("references", []):
                reference["refType"] = "FOLLOWS_FROM"
    follows = tmp_path / JAEGER.name
    follows.write_text(json.dumps(document))
    (whole,) = _import(JAEGER)
    (trace,) = _import(follows)
    assert [(s.name, s.parent_span_id, s.ordinal) for s in trace.spans] == [
        (s.name, s.parent_span_id, s.ordinal) for s in whole.spans
    ]


def test_a_token_count_written_as_a_double_is_read(tmp_path):
    """``{"doubleValue": 122.0}`` for ``gen_ai.usage.input_tokens`` was dropped (only an
    integer or a string of digits was read)."""
    import re

    source = OTEL / "gen__otlp-json__pydantic-ai__genai-semconv.jsonl"
    doubled = tmp_path / source.name
    doubled.write_text(
        re.sub(
            r'("key":"gen_ai\.usage\.input_tokens","value":)\{"intValue":"(\d+)"\}',
            lambda m: m.group(1) + '{"doubleValue":' + m.group(2) + ".0}",
            source.read_text(),
        )
    )
    assert doubled.read_text() != source.read_text()
    (whole,) = _import(source)
    (trace,) = _import(doubled)
    tokens = [s.attributes.get("input_tokens") for s in whole.spans if s.type == "llm"]
    assert tokens and None not in tokens
    assert [s.attributes.get("input_tokens") for s in trace.spans if s.type == "llm"] == tokens


def test_a_jaeger_reference_to_another_trace_is_a_link():
    """The Collector writes an OTLP span link into Jaeger as a reference to another trace; it
    was never read, so an AutoGen team run read from Jaeger lost the trace that started it."""
    from abw.importers.otel.encodings import read_spans

    document = {
        "data": [
            {
                "traceID": "b" * 32,
                "spans": [
                    {
                        "traceID": "b" * 32,
                        "spanID": "1" * 16,
                        "operationName": "execute_tool lookup",
                        "references": [
                            {"refType": "FOLLOWS_FROM", "traceID": "a" * 32, "spanID": "2" * 16}
                        ],
                        "startTime": 1700000000000000,
                        "duration": 10,
                        "tags": [],
                        "processID": "p1",
                    }
                ],
                "processes": {"p1": {"serviceName": "s", "tags": []}},
            }
        ]
    }
    spans, *_ = read_spans(json.dumps(document).encode(), Path("t.json"), [])
    (span,) = spans
    assert span.links == [("a" * 32, "2" * 16)] and span.parent_id is None


def test_native_agents_export_and_its_otlp_export_give_the_same_tool_path():
    (native,) = _import(NATIVE, "openai-agents")
    (otlp,) = _import(OI)

    def path(t):
        return [(s.type, s.name, s.status) for s in t.path()]

    assert path(native) == path(otlp)
    # the tool calls carry the same arguments and results, so their hashes agree too
    assert [s.input_hash for s in native.path() if s.type == "tool"] == [
        s.input_hash for s in otlp.path() if s.type == "tool"
    ]
    assert native.run.final_output_hash == otlp.run.final_output_hash


# ----------------------------------------------------------------- hand-built variants


def _span(trace: str, span: str, parent: str | None, name: str, start: int, **extra) -> dict:
    out = {
        "traceId": trace,
        "spanId": span,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 1000),
        "attributes": extra.pop("attributes", []),
        "status": extra.pop("status", {}),
    }
    if parent:
        out["parentSpanId"] = parent
    out.update(extra)
    return out


def _attr(key: str, value) -> dict:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": value}}
    return {"key": key, "value": {"stringValue": value}}


def _request(*spans: dict) -> str:
    return json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": list(spans)}]}]})


def _b64(hexid: str) -> str:
    return base64.b64encode(bytes.fromhex(hexid)).decode()


def test_base64_ids_numeric_ints_children_first_and_two_traces(tmp_path):
    t1, t2 = "11" * 16, "22" * 16
    root, tool, llm = "a1" * 8, "b2" * 8, "c3" * 8
    lines = [
        _request(
            _span(
                _b64(t1),
                _b64(tool),
                _b64(root),
                "execute_tool lookup",
                300,
                attributes=[
                    _attr("gen_ai.operation.name", "execute_tool"),
                    _attr("gen_ai.tool.name", "lookup"),
                    _attr("gen_ai.usage.input_tokens", 7),
                ],
            ),
        ),
        _request(
            _span(
                _b64(t1),
                _b64(llm),
                _b64(root),
                "chat m",
                200,
                attributes=[
                    _attr("gen_ai.operation.name", "chat"),
                    _attr("gen_ai.request.model", "m-1"),
                ],
            ),
            _span(
                _b64(t1),
                _b64(root),
                None,
                "invoke_agent a",
                100,
                attributes=[_attr("gen_ai.operation.name", "invoke_agent")],
            ),
        ),
        _request(
            _span(
                t2,
                "d4" * 8,
                None,
                "execute_tool other",
                50,
                attributes=[
                    _attr("gen_ai.operation.name", "execute_tool"),
                    _attr("gen_ai.tool.name", "other"),
                ],
            ),
        ),
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    first, second = _import(path)
    assert second.run.trace_id == t1 and first.run.trace_id == t2  # ordered by start time
    assert [(s.type, s.name) for s in second.spans] == [("llm", "m-1"), ("tool", "lookup")]
    assert second.spans[1].span_id == tool
    assert second.spans[1].attributes["agent"] == "a"
    assert [s.name for s in first.path()] == ["other"]


def test_error_status_only_where_the_span_itself_failed(tmp_path):
    """A tool throws; the SDK copies its ERROR status onto a later tool that has a result and
    onto the root (seen with the Vercel AI SDK); only the thrower is an error."""
    t = "ab" * 16
    message = "Tool broke"
    err = {"code": 2, "message": message}
    exc = [
        {"name": "exception", "timeUnixNano": "1", "attributes": [_attr("exception.type", "Boom")]}
    ]
    spans = [
        _span(
            t,
            "01" * 8,
            None,
            "ai.generateText",
            100,
            status=err,
            attributes=[_attr("openinference.span.kind", "CHAIN")],
        ),
        _span(
            t,
            "02" * 8,
            "01" * 8,
            "ai.toolCall",
            200,
            status=err,
            events=exc,
            attributes=[_attr("openinference.span.kind", "TOOL"), _attr("tool.name", "charge")],
        ),
        _span(
            t,
            "03" * 8,
            "01" * 8,
            "ai.toolCall",
            300,
            status=err,
            attributes=[
                _attr("openinference.span.kind", "TOOL"),
                _attr("tool.name", "notify"),
                _attr("output.value", "sent"),
            ],
        ),
        _span(
            t,
            "04" * 8,
            "01" * 8,
            "ai.toolCall",
            400,
            status={"code": 2, "message": "own"},
            attributes=[_attr("ai.toolCall.name", "refund")],
        ),
    ]
    path = tmp_path / "leak.jsonl"
    path.write_text(_request(*spans) + "\n")
    (trace,) = _import(path)
    assert [(s.name, s.status) for s in trace.path()] == [
        ("charge", "error"),
        ("notify", "success"),
        ("refund", "error"),
    ]
    assert trace.path()[1].attributes["error_propagated"] is True
    assert trace.run.final_status == "error"


def test_unended_span_is_unknown_and_enum_status_strings(tmp_path):
    t = "cd" * 16
    tool = _span(
        t,
        "05" * 8,
        None,
        "execute_tool x",
        1,
        status={"code": "STATUS_CODE_ERROR"},
        attributes=[
            _attr("gen_ai.operation.name", "execute_tool"),
            _attr("gen_ai.tool.name", "x"),
            _attr("error.type", "Timeout"),
        ],
    )
    open_span = _span(
        t,
        "06" * 8,
        None,
        "execute_tool y",
        5,
        attributes=[_attr("gen_ai.operation.name", "execute_tool"), _attr("gen_ai.tool.name", "y")],
    )
    del open_span["endTimeUnixNano"]
    path = tmp_path / "enum.jsonl"
    path.write_text(_request(tool, open_span) + "\n")
    (trace,) = _import(path)
    assert [(s.name, s.status, s.outcome) for s in trace.path()] == [
        ("x", "error", "timeout"),  # (its error.type: a timeout, as in every importer)
        ("y", "unknown", "incomplete"),
    ]


def test_nonstandard_operation_names(tmp_path):
    """As opentelemetry-instrumentation-openai-agents-v2 0.1.0 names them: agent_handoff with
    gen_ai.handoff.to_agent, guardrail_check with gen_ai.guardrail.name/.triggered, unknown."""
    t = "ef" * 16

    def op(span_id, name, start, *attrs):
        return _span(t, span_id, "10" * 8, name, start, attributes=list(attrs))

    spans = [
        _span(
            t,
            "10" * 8,
            None,
            "invoke_agent Triage agent",
            1,
            attributes=[_attr("gen_ai.operation.name", "invoke_agent")],
        ),
        op(
            "11" * 8,
            "guardrail_check",
            2,
            _attr("gen_ai.operation.name", "guardrail_check"),
            _attr("gen_ai.guardrail.name", "no_pii"),
            _attr("gen_ai.guardrail.triggered", False),
        ),
        op(
            "12" * 8,
            "agent_handoff Triage agent",
            3,
            _attr("gen_ai.operation.name", "agent_handoff"),
            _attr("gen_ai.handoff.from_agent", "Triage agent"),
            _attr("gen_ai.handoff.to_agent", "Refunds agent"),
        ),
        op("13" * 8, "unknown", 4, _attr("gen_ai.operation.name", "unknown")),
        op(
            "14" * 8,
            "execute_tool issue_refund",
            5,
            _attr("gen_ai.operation.name", "execute_tool"),
            _attr("gen_ai.tool.name", "issue_refund"),
            _attr("gen_ai.agent.name", "OpenAI Agent"),
        ),
        op(
            "15" * 8,
            "guardrail_check",
            6,
            _attr("gen_ai.operation.name", "guardrail_check"),
            _attr("gen_ai.guardrail.name", "no_card_numbers"),
            _attr("gen_ai.guardrail.triggered", True),
        ),
    ]
    path = tmp_path / "contrib.jsonl"
    path.write_text(_request(*spans) + "\n")
    (trace,) = _import(path)
    assert [(s.type, s.name, s.outcome) for s in trace.path()] == [
        ("guardrail", "no_pii", "ok"),
        ("handoff", "Refunds agent", "ok"),
        ("tool", "issue_refund", "ok"),
        ("guardrail", "no_card_numbers", "denied"),
    ]
    # the agent comes from the invoke_agent ancestor, not the tool's own (wrong) attribute
    assert trace.path()[2].attributes["agent"] == "Triage agent"


def test_console_exporter_spans_written_twice(tmp_path):
    def span(end):
        return {
            "name": "execute_tool get_weather",
            "context": {
                "trace_id": "0x" + "12" * 16,
                "span_id": "0x" + "34" * 8,
                "trace_state": "[]",
            },
            "kind": "SpanKind.INTERNAL",
            "parent_id": None,
            "start_time": "2026-03-01T20:47:18.716835Z",
            "end_time": end,
            "status": {"status_code": "UNSET"},
            "attributes": {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
            },
            "events": [],
            "links": [],
            "resource": {"attributes": {}, "schema_url": ""},
        }

    path = tmp_path / "console.jsonl"
    path.write_text(
        json.dumps(span(None), indent=4)
        + "\n\n"
        + json.dumps(span("2026-03-01T20:47:19Z"), indent=4)
    )
    (trace,) = _import(path)
    assert [(s.name, s.status, s.duration_ms) for s in trace.path()] == [
        ("get_weather", "success", 283.165)
    ]
    assert trace.source.export_format == "otel-console"


def test_content_is_hashed_never_copied():
    for path in (OI, PYDANTIC, JAEGER):
        for trace in _import(path):
            text = render_trace(trace)
            for needle in (
                "A123",
                "refunded",
                "Eres el Agente",
                "input_str",
                "research_assistant ",
            ):
                assert needle not in text


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{not json\n", "invalid JSON"),
        ('{"spans": []}\n', "not an OpenTelemetry export"),
        ('{"resourceSpans": []}\n', "no spans"),
        ("", "empty"),
    ],
)
def test_bad_input_is_one_line_exit_2(run_cli, tmp_path, content, needle):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    code, _, err = run_cli("import", "otel", "--input", bad, "--out", tmp_path / "o")
    assert code == 2, err
    assert needle in err and "bad.json" in err
    assert len(err.strip().splitlines()) == 1


def test_cli_writes_one_file_per_trace(run_cli, tmp_path):
    code, _, err = run_cli("import", "otel", "--input", OTEL, "--out", tmp_path / "out")
    assert code == 0, err
    assert len(list((tmp_path / "out").glob("*.json"))) == 3


def test_gate_sees_no_difference_between_the_two_exports(tmp_path):
    """Baseline = the native export, candidate = the OTLP export of the same run: every hard
    check passes and the paths are identical (only the 1-run sample is inconclusive)."""
    from abw.diffing import diff
    from abw.gating import gate
    from abw.spec_init import build_spec, infer
    from abw.traceio import load_traces, write_trace

    options = ImportOptions(scenario_id="refund")
    write_trace(
        get_importer("openai-agents").import_file(NATIVE, options)[0], tmp_path / "b" / "n.json"
    )
    write_trace(get_importer("otel").import_file(OI, options)[0], tmp_path / "c" / "o.json")
    baseline, candidate = load_traces(tmp_path / "b"), load_traces(tmp_path / "c")
    (result,) = diff(baseline, candidate)
    assert result.path_edit_distance_max == 0 and result.tool_jaccard_distance == 0
    spec = build_spec(infer(baseline), "refund")
    report = gate(baseline, candidate, spec, spec_file="spec.yaml", spec_sha256="0" * 64)
    failing = {c.category for c in report.checks if c.verdict != "PASS"}
    assert failing <= {"sample_sufficiency"}


@pytest.mark.parametrize(
    "status",
    ["ERROR", None, [], {"status_code": "ERROR", "description": ["not", "text"]}],
)
def test_console_status_of_the_wrong_type_is_not_a_crash(tmp_path, status):
    """A console span's status that is not an object (or a description that is not text)."""
    span = {
        "name": "execute_tool get_weather",
        "context": {"trace_id": "0x" + "12" * 16, "span_id": "0x" + "34" * 8},
        "parent_id": None,
        "start_time": "2026-03-01T20:47:18.716835Z",
        "end_time": "2026-03-01T20:47:19Z",
        "status": status,
        "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather"},
    }
    path = tmp_path / "console.json"
    path.write_text(json.dumps(span))
    (trace,) = _import(path)
    failed = isinstance(status, dict)
    assert [(s.name, s.status) for s in trace.path()] == [
        ("get_weather", "error" if failed else "success")
    ]


# ----------------------------------------------------------------- any-agent

ANY_AGENT = sorted((CORPUS / "any-agent").glob("*.json"))


@pytest.mark.parametrize("path", ANY_AGENT, ids=lambda p: p.name)
def test_any_agent_trace_json_imports_with_its_llm_calls(path):
    """any-agent's AgentTrace JSON (integer ids and times, lower-case status, a parent
    context): every call_llm span is an llm span and every execute_tool span a tool span,
    in start-time order under the invoke_agent scope."""
    document = json.loads(path.read_text())
    spans = sorted(document["spans"], key=lambda s: s["start_time"])
    root = next(s for s in document["spans"] if s["parent"]["span_id"] is None)
    expected, agents, ended = [], [], []
    for span in spans:
        operation = span["attributes"]["gen_ai.operation.name"]
        if operation == "call_llm":
            expected.append(("llm", span["attributes"]["gen_ai.request.model"], "success"))
        elif operation == "execute_tool":
            expected.append(("tool", span["attributes"]["gen_ai.tool.name"], "success"))
        else:
            continue
        # the agent scope names the spans under it (Google ADK's parents are not exported)
        under = span["parent"]["span_id"] == root["context"]["span_id"]
        agents.append("any_agent" if under else None)
        ended.append(span["end_time"] is not None)  # any-agent 0.19-0.23 wrote none, status ok
    for name in ("otel", "any-agent"):
        (trace,) = get_importer(name).import_file(path, ImportOptions())
        assert [(s.type, s.name, s.status) for s in trace.spans] == expected
        assert trace.source.export_format == "any-agent-json"
        assert trace.run.trace_id == format(root["context"]["trace_id"], "032x")
        assert [s.attributes.get("agent") for s in trace.spans] == agents
        assert [s.duration_ms is not None for s in trace.spans] == ended
        assert all(s.duration_ms >= 0 for s in trace.spans if s.duration_ms is not None)
        assert trace.run.final_status == "success"
    assert trace.source.platform == "any_agent"
    text = render_trace(trace)
    assert "America/New_York" not in text and "Use the available tools" not in text


def test_any_agent_argument_fields_read_the_tool_args():
    path = CORPUS / "any-agent" / "anyagent__OPENAI_trace.json"
    (trace,) = get_importer("any-agent").import_file(
        path, ImportOptions(argument_fields=parse_argument_fields("get_current_time:timezone"))
    )
    (call,) = [s for s in trace.spans if s.name == "get_current_time"]
    assert call.attributes["arguments"] == {"timezone": "America/New_York"}


def test_any_agent_cli(run_cli, tmp_path):
    code, _, err = run_cli(
        "import", "any-agent", "--input", CORPUS / "any-agent", "--out", tmp_path / "out"
    )
    assert code == 0, err
    assert len(list((tmp_path / "out").glob("*.json"))) == len(ANY_AGENT)


def _http_only(trace: str, span: str, start: int) -> dict:
    """A span of an application's own trace: no agent semantics at all."""
    return _span(trace, span, None, "GET /health", start, attributes=[_attr("http.method", "GET")])


def test_traces_without_agent_spans_are_skipped_with_a_warning(run_cli, tmp_path):
    """An export also holds the application's other traces (HTTP requests, workflow builds);
    as runs of no span whose root ended well they were imported as successful runs that pass
    every check. They are skipped, and said so; an export of nothing else is refused."""
    agent = _span(
        "33" * 16,
        "e5" * 8,
        None,
        "execute_tool lookup",
        100,
        attributes=[_attr("gen_ai.operation.name", "execute_tool"), _attr("gen_ai.tool.name", "x")],
    )
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(
        _request(agent, _http_only("44" * 16, "f6" * 8, 50), _http_only("55" * 16, "a7" * 8, 60))
    )
    options = ImportOptions()
    (trace,) = get_importer("otel").import_file(mixed, options)
    assert trace.run.trace_id == "33" * 16 and [s.name for s in trace.spans] == ["x"]
    assert options.warnings == [
        "mixed.jsonl: skipped 2 traces with no agent span (an "
        "application's other traces: HTTP requests, workflow builds)"
    ]
    code, _, err = run_cli("import", "otel", "--input", mixed, "--out", tmp_path / "o")
    assert code == 0 and "skipped 2 traces with no agent span" in err
    assert len(list((tmp_path / "o").glob("*.json"))) == 1

    only = tmp_path / "only.jsonl"
    only.write_text(_request(_http_only("44" * 16, "f6" * 8, 50)))
    code, _, err = run_cli("import", "otel", "--input", only, "--out", tmp_path / "p")
    assert code == 2, err
    assert err.strip() == (
        f"abw: error: {only}: none of the export's 1 trace holds an agent span (llm, tool, "
        "retriever, handoff, guardrail or agent): nothing to import"
    )
    assert not (tmp_path / "p").exists()


def test_a_nan_or_infinite_double_value_is_no_internal_error(tmp_path, run_cli):
    """OTLP/JSON writes a double's NaN and Infinity as strings ("NaN", "Infinity"): read as
    floats, a tool result of NaN could not be hashed, and the import stopped with an internal
    error."""
    tool = _span(
        "ab" * 16,
        "cd" * 8,
        None,
        "execute_tool measure",
        100,
        attributes=[
            _attr("gen_ai.operation.name", "execute_tool"),
            _attr("gen_ai.tool.name", "measure"),
            {"key": "gen_ai.tool.call.result", "value": {"doubleValue": "NaN"}},
            {"key": "gen_ai.tool.call.arguments", "value": {"doubleValue": "-Infinity"}},
        ],
    )
    path = tmp_path / "nan.jsonl"
    path.write_text(_request(tool) + "\n")
    code, _, err = run_cli("import", "otel", "--input", path, "--out", tmp_path / "out")
    assert code == 0, err
    (trace,) = get_importer("otel").import_file(path, ImportOptions())
    (span,) = trace.spans
    assert span.input_hash and span.output_hash
