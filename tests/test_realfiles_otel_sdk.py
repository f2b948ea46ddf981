"""``abw import otel`` on real exports of agent SDKs found in public repositories (see
tests/corpus/PROVENANCE.md). Expectations are computed from the raw JSON, not from abw."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from abw.hashing import content_hash
from abw.importers import get_importer
from abw.importers.base import ImportOptions
from tests.conftest import CORPUS

#: Google ADK (Python) 2.10, a failing tool turned into an error response by its callback,
#: recorded by agentevals: every model call is ``call_llm`` (ADK's content and tokens) around
#: ``generate_content gemini-2.5-flash`` (the same tokens again, no content).
ADK2_S6B = (
    CORPUS / "otel-frameworks" / "agentevals-dev__agentevals__adk_py_v1_default_S6b@f059a2ad.json"
)


def _spans(path: Path) -> list[dict[str, Any]]:
    """The raw OTLP spans of a one-document export, attributes decoded to plain values."""
    out = []
    for resource in json.loads(path.read_text())["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                attributes = {
                    a["key"]: next(iter(a["value"].values())) for a in span.get("attributes", [])
                }
                out.append({**span, "attributes": attributes})
    return out


def test_adk2_model_call_and_its_generate_content_span_are_one_llm_span():
    """ADK 2.x traces each model request twice, ``call_llm`` and a ``generate_content`` child
    with no content of its own: both were llm spans, so the run had twice its model calls and
    tokens, and its last llm span (the contentless child) left the run with no final output."""
    raw = _spans(ADK2_S6B)
    calls = sorted(
        (s for s in raw if s["name"] == "call_llm"), key=lambda s: s["startTimeUnixNano"]
    )
    inner = [s for s in raw if s["attributes"].get("gen_ai.operation.name") == "generate_content"]
    assert len(inner) == len(calls) == 2
    assert {s["parentSpanId"] for s in inner} == {s["spanId"] for s in calls}

    (trace,) = get_importer("otel").import_file(ADK2_S6B, ImportOptions())
    llm = [s for s in trace.spans if s.type == "llm"]
    assert [s.span_id for s in llm] == [s["spanId"] for s in calls]
    for key in ("input_tokens", "output_tokens"):
        assert sum(s.attributes[key] for s in llm) == sum(
            int(s["attributes"][f"gen_ai.usage.{key}"]) for s in calls
        )
    (tool,) = [s for s in trace.spans if s.type == "tool"]
    assert (tool.name, tool.status) == ("get_stock_price", "error")
    assert trace.run.final_output_hash is not None


def test_adk_final_output_is_the_answer_text_not_the_whole_response():
    """ADK's ``llm_response`` is ``{content: {role, parts: [{text}]}, usage_metadata, ...}``: no
    text was found in it, so the run's final output was the whole response, token counts
    included: runs giving the same answer hashed apart, and ``--output-fields`` read nothing."""
    raw = _spans(ADK2_S6B)
    last = max((s for s in raw if s["name"] == "call_llm"), key=lambda s: s["startTimeUnixNano"])
    response = json.loads(last["attributes"]["gcp.vertex.agent.llm_response"])
    assert "usage_metadata" in response
    answer = response["content"]["parts"][-1]["text"]

    (trace,) = get_importer("otel").import_file(ADK2_S6B, ImportOptions())
    assert trace.run.final_output_hash == content_hash(answer)


#: any-agent 0.23 (smolagents): every call_llm / execute_tool span has status ``ok`` and no
#: ``end_time`` (any-agent 0.19-0.23 wrote them so for smolagents, LlamaIndex and TinyAgent).
ANY_AGENT_023 = CORPUS / "any-agent" / "mozilla-ai__any-agent__SMOLAGENTS_trace@f3af2116.json"


def test_a_span_with_status_ok_and_no_end_time_succeeded():
    """They read as never ended (``incomplete``, status unknown): a run whose every model call
    and tool call returned, and said so, had no successful call at all."""
    raw = json.loads(ANY_AGENT_023.read_text())["spans"]
    calls = [s for s in raw if s["attributes"]["gen_ai.operation.name"] != "invoke_agent"]
    assert calls and all(s["end_time"] is None for s in calls)
    assert {s["status"]["status_code"] for s in calls} == {"ok"}

    (trace,) = get_importer("any-agent").import_file(ANY_AGENT_023, ImportOptions())
    assert len(trace.spans) == len(calls)
    assert {(s.status, s.outcome) for s in trace.spans} == {("success", "ok")}
    assert all(s.duration_ms is None for s in trace.spans)
    assert trace.run.final_status == "success"


#: Grafana Tempo's export of a kagent helm agent's run (Google ADK + OpenLLMetry, A2A, Go
#: services): OTLP ResourceSpans under ``batches``, ``instrumentationLibrarySpans``, string
#: span kinds, integer times.
TEMPO = (
    CORPUS
    / "otel-frameworks"
    / "agentevals-dev__agentevals__tempo_export_with_batches@bf9fe11b.json"
)


def test_a_tempo_trace_download_is_read_as_otlp():
    """It was refused as no OpenTelemetry export: Tempo writes ``batches`` where an OTLP
    request writes ``resourceSpans``."""
    document = json.loads(TEMPO.read_text())
    assert "resourceSpans" not in document
    raw = [
        span
        for batch in document["batches"]
        for scope in batch["instrumentationLibrarySpans"]
        for span in scope["spans"]
    ]
    calls = sorted(
        (s for s in raw if s["name"] == "call_llm"), key=lambda s: s["startTimeUnixNano"]
    )
    (tool,) = [s for s in raw if s["name"].startswith("execute_tool ")]

    (trace,) = get_importer("otel").import_file(TEMPO, ImportOptions())
    assert trace.run.trace_id == tool["traceId"]
    assert [(s.type, s.span_id) for s in trace.spans] == [
        ("llm", calls[0]["spanId"]),
        ("tool", tool["spanId"]),
        ("llm", calls[1]["spanId"]),
    ]
    assert trace.spans[1].name == tool["name"].removeprefix("execute_tool ")
    assert trace.spans[1].parent_span_id == calls[0]["spanId"]
    assert {s.status for s in trace.spans} == {"success"} and trace.run.final_status == "success"
