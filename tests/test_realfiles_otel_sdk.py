"""``abw import otel`` on real exports of agent SDKs found in public repositories (see
tests/corpus/PROVENANCE.md). Expectations are computed from the raw JSON, not from abw."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from abw.hashing import content_hash
from abw.importers import get_importer
from abw.importers.base import ImportOptions
from abw.importers.common import parse_argument_fields
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


#: OpenLLMetry, generated here with the real libraries against a loopback stub of the chat
#: completions API (tests/corpus/PROVENANCE.md): a Traceloop ``@workflow`` > ``@agent`` making
#: three ``openai.chat`` requests around two ``@tool`` calls (``issue_refund`` raises).
TRACELOOP_OLD = (
    CORPUS / "otel-frameworks" / "gen__otel-console__traceloop-sdk-0.47.5__openai-tools.json"
)
TRACELOOP_NEW = (
    CORPUS / "otel-frameworks" / "gen__otlp-json__traceloop-sdk-0.62.4__openai-tools.jsonl"
)


def _console_spans(path: Path) -> list[dict[str, Any]]:
    """The spans of a console-exporter file: ``to_json()`` objects one after another."""
    text, decoder, spans, at = path.read_text(), json.JSONDecoder(), [], 0
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        span, at = decoder.raw_decode(text, at)
        spans.append(span)
    return sorted(spans, key=lambda s: s["start_time"])


def _otlp_lines(path: Path) -> list[dict[str, Any]]:
    """The spans of OTLP/JSON Lines in start order, attributes decoded to plain values."""
    out = []
    for line in path.read_text().splitlines():
        for resource in json.loads(line)["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    attributes = {
                        a["key"]: next(iter(a["value"].values()), None)
                        for a in span.get("attributes", [])
                    }
                    out.append({**span, "attributes": attributes})
    return sorted(out, key=lambda s: int(s["startTimeUnixNano"]))


def test_openllmetry_model_calls_without_an_operation_name_are_llm_spans():
    """OpenLLMetry before it wrote ``gen_ai.operation.name`` marks its ``openai.chat`` spans
    only with ``llm.request.type``, and its tokens as ``gen_ai.usage.prompt_tokens`` /
    ``completion_tokens``: they were infrastructure, so a run traced by it had no model call."""
    raw = _console_spans(TRACELOOP_OLD)
    chats = [s for s in raw if s["name"] == "openai.chat"]
    assert len(chats) == 3
    assert all(s["attributes"]["llm.request.type"] == "chat" for s in chats)
    assert not any("gen_ai.operation.name" in s["attributes"] for s in raw)
    tools = [s for s in raw if s["attributes"].get("traceloop.span.kind") == "tool"]

    (trace,) = get_importer("otel").import_file(TRACELOOP_OLD, ImportOptions())
    assert [(s.type, s.name) for s in trace.spans] == [
        ("llm", "gpt-4o-mini"),
        ("tool", "lookup_order"),
        ("llm", "gpt-4o-mini"),
        ("tool", "issue_refund"),
        ("llm", "gpt-4o-mini"),
    ]
    llm = [s for s in trace.spans if s.type == "llm"]
    assert [s.span_id for s in llm] == [s["context"]["span_id"][2:] for s in chats]
    assert [(s.attributes["input_tokens"], s.attributes["output_tokens"]) for s in llm] == [
        (
            s["attributes"]["gen_ai.usage.prompt_tokens"],
            s["attributes"]["gen_ai.usage.completion_tokens"],
        )
        for s in chats
    ]
    assert [(s.status, s.outcome) for s in trace.spans if s.type == "tool"] == [
        ("success", "ok"),
        ("error", "error"),
    ]
    assert tools[1]["status"]["status_code"] == "ERROR"
    assert {s.attributes["agent"] for s in trace.spans} == {"support_agent"}


def test_traceloop_tool_arguments_are_read_from_its_entity_input():
    """A Traceloop ``@tool`` records its call as ``traceloop.entity.input``
    (``{"args": [], "kwargs": {...}}``): ``--argument-fields`` kept nothing from it, silently."""
    for path, spans in ((TRACELOOP_NEW, _otlp_lines), (TRACELOOP_OLD, _console_spans)):
        raw = spans(path)
        (lookup,) = [s for s in raw if s["name"] == "lookup_order.tool"]
        wrapper = json.loads(lookup["attributes"]["traceloop.entity.input"])
        assert wrapper["args"] == []

        options = ImportOptions(argument_fields=parse_argument_fields("lookup_order:order_id"))
        (trace,) = get_importer("otel").import_file(path, options)
        (tool,) = [s for s in trace.spans if s.name == "lookup_order"]
        assert tool.attributes["arguments"] == {"order_id": wrapper["kwargs"]["order_id"]}
        assert trace.redaction.kept_fields == ["lookup_order:order_id"]


#: The real Claude Code CLI 2.1.328 (``claude -p``, ``CLAUDE_CODE_ENHANCED_TELEMETRY_BETA``,
#: OTLP http/json) against a loopback stub of the Messages API: a Bash call that succeeds, one
#: that fails (``cat`` of a missing file), a Write refused by ``--allowedTools``, an answer.
CLAUDE_NATIVE = (
    CORPUS / "otel-frameworks" / "gen__otlp-json__claude-code-2.1.328__native-tracing.jsonl"
)


def test_claude_code_native_tracing_model_calls_and_tool_outcomes():
    """Claude Code's ``claude_code.llm_request`` spans carry no operation name: the run had no
    model call. Its tool spans record no failure themselves (their ``tool.execution`` child
    failed, their ``tool.blocked_on_user`` child rejected the call): every call read ok."""
    raw = _otlp_lines(CLAUDE_NATIVE)
    requests = [s for s in raw if s["name"] == "claude_code.llm_request"]
    tools = [s for s in raw if s["name"] == "claude_code.tool"]
    assert len(requests) == 4 and len(tools) == 3
    assert not any("gen_ai.operation.name" in s["attributes"] for s in requests)
    assert {s.get("status", {}).get("code") for s in tools} <= {None, 0}
    children = {s["parentSpanId"]: s for s in raw if s["name"] == "claude_code.tool.execution"}
    assert children[tools[1]["spanId"]]["attributes"]["success"] is False
    (refusal,) = [s for s in raw if s["attributes"].get("decision") == "reject"]
    assert (refusal["parentSpanId"], refusal["attributes"]["source"]) == (
        tools[2]["spanId"],
        "config",
    )

    (trace,) = get_importer("otel").import_file(CLAUDE_NATIVE, ImportOptions())
    llm = [s for s in trace.spans if s.type == "llm"]
    assert [s.span_id for s in llm] == [s["spanId"] for s in requests]
    assert {s.name for s in llm} == {requests[0]["attributes"]["gen_ai.request.model"]}
    assert [s.attributes["input_tokens"] for s in llm] == [
        int(s["attributes"]["input_tokens"]) for s in requests
    ]
    calls = [s for s in trace.spans if s.type == "tool"]
    assert [(s.name, s.outcome, s.status) for s in calls] == [
        ("Bash", "ok", "success"),
        ("Bash", "error", "error"),
        ("Write", "denied", "error"),
    ]
    assert calls[1].attributes["error_type"] == "tool_error"
    assert [s.attributes["tool_call_id"] for s in calls] == [
        t["attributes"]["tool_use_id"] for t in tools
    ]
    assert {s.attributes["agent"] for s in trace.spans} == {"claude_code"}


def test_openllmetry_and_claude_code_content_never_reaches_the_trace():
    """Prompts, commands, paths, tool outputs and answers in these exports are all marked
    ``CANARY``: none may be written into a trace unless a field was named."""
    for path in (TRACELOOP_OLD, TRACELOOP_NEW, CLAUDE_NATIVE, CLAUDE_SUBAGENTS, CLAUDE_API_ERROR):
        assert b"CANARY" in path.read_bytes()
        for trace in get_importer("otel").import_file(path, ImportOptions()):
            assert "CANARY" not in trace.model_dump_json()


#: The same CLI, the main agent calling the ``Agent`` tool, whose general-purpose subagent calls
#: it again, twice down, the last one running Bash; a second interaction (the background
#: task's notification) is a second trace.
CLAUDE_SUBAGENTS = (
    CORPUS
    / "otel-frameworks"
    / "gen__otlp-json__claude-code-2.1.328__native-tracing-subagents.jsonl"
)


def test_claude_code_subagent_calls_are_the_subagents():
    """A subagent's spans hang below the ``Agent`` tool that started it (its ``subagent_type``
    names it), with no interaction span of their own: they were all the main agent's."""
    raw = _otlp_lines(CLAUDE_SUBAGENTS)
    agents = [
        s for s in raw if s["name"] == "claude_code.tool" and "subagent_type" in s["attributes"]
    ]
    assert len(agents) == 3
    by_id = {s["spanId"]: s for s in raw}

    def started_by(span: dict[str, Any]) -> str | None:
        """The subagent_type of the nearest Agent tool above ``span``, as the spans say."""
        while span.get("parentSpanId") in by_id:
            span = by_id[span["parentSpanId"]]
            if span in agents:
                return span["attributes"]["subagent_type"]
        return None

    traces = get_importer("otel").import_file(CLAUDE_SUBAGENTS, ImportOptions())
    assert len(traces) == len({s["traceId"] for s in raw}) == 2
    spans = [s for trace in traces for s in trace.spans]
    assert len(spans) == sum(
        s["name"] in {"claude_code.llm_request", "claude_code.tool"} for s in raw
    )
    for span in spans:
        assert span.attributes["agent"] == (started_by(by_id[span.span_id]) or "claude_code")
    assert sum(s.attributes["agent"] == "general-purpose" for s in spans) == 9


#: The same CLI against a stub that answers every request with an overloaded error: Claude
#: Code retried 11 times over three minutes, gave up and ``claude -p`` exited 1.
CLAUDE_API_ERROR = (
    CORPUS
    / "otel-frameworks"
    / "gen__otlp-json__claude-code-2.1.328__native-tracing-api-error.jsonl"
)


def test_claude_code_turn_that_gave_up_on_the_model_failed():
    """Its interaction span ends with no error status: the run read success although its only
    model request failed and no answer came."""
    raw = _otlp_lines(CLAUDE_API_ERROR)
    (interaction,) = [s for s in raw if s["name"] == "claude_code.interaction"]
    (request,) = [s for s in raw if s["name"] == "claude_code.llm_request"]
    assert interaction.get("status", {}).get("code") in (None, 0)
    assert request["attributes"]["success"] is False and request["attributes"]["attempt"] == 11

    (trace,) = get_importer("otel").import_file(CLAUDE_API_ERROR, ImportOptions())
    assert [(s.type, s.outcome) for s in trace.spans] == [("llm", "error")]
    assert trace.run.final_status == "error"
    for path in (CLAUDE_NATIVE, CLAUDE_SUBAGENTS):  # those turns ended on an answer
        assert {
            t.run.final_status for t in get_importer("otel").import_file(path, ImportOptions())
        } == {"success"}


#: A kagent helm agent (agentevals' sample, Jaeger UI JSON): Google ADK's ``call_llm`` recording its
#: request as ADK's ``llm_request``, around OpenLLMetry's ``openai.chat`` recording the same
#: request as flattened ``gen_ai.prompt.*`` (both with the same tokens).
KAGENT_JAEGER = CORPUS / "otel-frameworks" / "agentevals-dev__agentevals__helm_2@bf9fe11b.json"


def test_an_openllmetry_request_inside_an_adk_model_call_is_that_call():
    """Read as an llm span, ``openai.chat`` is the only llm child of ``call_llm`` but records its
    input in another shape: it must be the same request (one llm span, tokens once), not a
    second model call."""
    (jaeger,) = json.loads(KAGENT_JAEGER.read_text())["data"]
    by_name: dict[str, list[dict[str, Any]]] = {}
    for span in jaeger["spans"]:
        by_name.setdefault(span["operationName"], []).append(span)
    (outer,), (inner,) = by_name["call_llm"], by_name["openai.chat"]
    assert inner["references"][0]["spanID"] == outer["spanID"]
    tags = {t["key"]: t["value"] for t in inner["tags"]}
    assert tags["llm.request.type"] == "chat" and "gen_ai.operation.name" not in tags

    (trace,) = get_importer("otel").import_file(KAGENT_JAEGER, ImportOptions())
    (llm,) = [s for s in trace.spans if s.type == "llm"]
    assert llm.span_id == outer["spanID"]
    assert (llm.attributes["input_tokens"], llm.attributes["output_tokens"]) == (
        tags["gen_ai.usage.prompt_tokens"],
        tags["gen_ai.usage.completion_tokens"],
    )


#: Strands Agents 1.62.0's own tracing (OpenAIModel against a loopback stub; a tool that
#: succeeds, one that raises, an answer), exported with the OTLP JSON file exporter: by default
#: it writes content only as span events (``gen_ai.user.message``, ``gen_ai.tool.message``,
#: ``gen_ai.choice``); with ``OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`` as
#: ``gen_ai.client.inference.operation.details`` events (``gen_ai.input/output.messages``).
STRANDS = CORPUS / "otel-frameworks" / "gen__otlp-json__strands-agents-1.62.0__openai-tools.jsonl"
STRANDS_LATEST = (
    CORPUS / "otel-frameworks" / "gen__otlp-json__strands-agents-1.62.0__latest-semconv.jsonl"
)


def _events(span: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """A raw OTLP span's events by name, their attributes decoded to plain values."""
    out: dict[str, list[dict[str, Any]]] = {}
    for event in span.get("events", []):
        attributes = {a["key"]: next(iter(a["value"].values())) for a in event["attributes"]}
        out.setdefault(event["name"], []).append(attributes)
    return out


def test_strands_content_recorded_in_span_events_is_read():
    """Strands writes a call's arguments, its result and the run's answer only in span events:
    every span had no input or output hash, the run no final output, and ``--argument-fields``
    kept nothing (silently). Both of its event shapes now give the same hashes."""
    raw = _otlp_lines(STRANDS)
    (root,) = [s for s in raw if "parentSpanId" not in s or not s["parentSpanId"]]
    (answer,) = _events(root)["gen_ai.choice"]
    tools = [s for s in raw if s["attributes"].get("gen_ai.operation.name") == "execute_tool"]
    sent = [json.loads(_events(s)["gen_ai.tool.message"][0]["content"]) for s in tools]
    assert not any(k in s["attributes"] for s in tools for k in ("gen_ai.tool.call.arguments",))

    fields = parse_argument_fields("lookup_order:order_id,issue_refund:amount")
    traces = {}
    for path in (STRANDS, STRANDS_LATEST):
        (traces[path],) = get_importer("otel").import_file(
            path, ImportOptions(argument_fields=fields)
        )
    trace = traces[STRANDS]
    assert trace.run.final_output_hash == content_hash(answer["message"])
    called = [s for s in trace.spans if s.type == "tool"]
    assert [(s.name, s.status) for s in called] == [
        ("lookup_order", "success"),
        ("issue_refund", "error"),
    ]
    assert [s.attributes["arguments"] for s in called] == [
        {"order_id": sent[0]["order_id"]},
        {"amount": sent[1]["amount"]},
    ]
    assert all(s.input_hash and s.output_hash for s in trace.spans)
    latest = traces[STRANDS_LATEST]
    assert latest.run.final_output_hash == trace.run.final_output_hash
    assert [s.input_hash for s in latest.spans if s.type == "tool"] == [
        s.input_hash for s in called
    ]


#: LangGraph 1.2.24 ``create_react_agent`` (ChatOpenAI against a loopback stub; a tool that
#: succeeds, one that raises, handled by its ToolNode) traced by
#: openinference-instrumentation-langchain 0.1.80, OTLP JSON file exporter.
LANGGRAPH = (
    CORPUS
    / "otel-frameworks"
    / "gen__otlp-json__langgraph-1.2.24__openinference-langchain-0.1.80.jsonl"
)


def test_langgraph_final_output_is_the_answer_not_the_graph_state():
    """OpenInference records a LangGraph run's output as the graph's state, ``{"messages":
    [...]}`` in LangChain's serialised shape: the run's final output was that whole state (every
    message, with per-run ids, so no two runs with the same answer agreed) and it had no text
    for ``--output-fields``."""
    raw = _otlp_lines(LANGGRAPH)
    (root,) = [s for s in raw if not s.get("parentSpanId")]
    state = json.loads(root["attributes"]["output.value"])
    last = state["messages"][-1]
    assert last["type"] == "ai" and isinstance(last["data"]["content"], str)

    (trace,) = get_importer("otel").import_file(LANGGRAPH, ImportOptions())
    assert trace.run.final_output_hash == content_hash(last["data"]["content"])
    assert [(s.type, s.name, s.status) for s in trace.spans if s.type == "tool"] == [
        ("tool", "lookup_order", "success"),
        ("tool", "issue_refund", "error"),
    ]
    llm = [s for s in raw if s["attributes"].get("openinference.span.kind") == "LLM"]
    assert [s.attributes["input_tokens"] for s in trace.spans if s.type == "llm"] == [
        int(s["attributes"]["llm.token_count.prompt"]) for s in llm
    ]


#: The same LangGraph agent traced by OpenLLMetry's opentelemetry-instrumentation-langchain
#: 0.62.4; its first tool searches through a LangChain retriever.
LANGGRAPH_OPENLLMETRY = (
    CORPUS
    / "otel-frameworks"
    / "gen__otlp-json__langgraph-1.2.24__openllmetry-langchain-0.62.4.jsonl"
)


def test_openllmetry_langgraph_retriever_and_agent_creation():
    """OpenLLMetry names a LangChain retriever's operation ``vector_db_retrieve`` (the search
    was infrastructure, dropped), and traces the graph's compilation, ``create_agent``, as a
    trace of its own (imported as a second run: no span, success, passing every check)."""
    raw = _otlp_lines(LANGGRAPH_OPENLLMETRY)
    (created,) = [s for s in raw if s["attributes"].get("gen_ai.operation.name") == "create_agent"]
    assert [s for s in raw if s["traceId"] == created["traceId"]] == [created]
    (search,) = [
        s for s in raw if s["attributes"].get("gen_ai.operation.name") == "vector_db_retrieve"
    ]

    options = ImportOptions()
    (trace,) = get_importer("otel").import_file(LANGGRAPH_OPENLLMETRY, options)
    assert trace.run.trace_id != created["traceId"]
    assert len(options.warnings) == 1 and "skipped 1 trace" in options.warnings[0]
    assert [(s.type, s.name, s.status) for s in trace.spans if s.type != "llm"] == [
        ("tool", "search_policy", "success"),
        ("retriever", search["attributes"]["traceloop.entity.name"], "success"),
        ("tool", "issue_refund", "error"),
    ]
    (retriever,) = [s for s in trace.spans if s.type == "retriever"]
    assert retriever.span_id == search["spanId"]
    assert retriever.parent_span_id == search["parentSpanId"]


#: LlamaIndex 0.14.25 ``FunctionAgent`` (llama-index-llms-openai 0.8.3 against a loopback stub; a
#: tool that succeeds, one that raises) traced by openinference-instrumentation-llama-index 4.6.1.
LLAMA_INDEX = (
    CORPUS
    / "otel-frameworks"
    / "gen__otlp-json__llama-index-0.14.25__openinference-llama-index-4.6.1.jsonl"
)


def test_llama_index_request_preparation_is_no_model_call_and_the_answer_is_the_output():
    """OpenInference marks every traced method of a LlamaIndex LLM ``LLM``, so each request's
    ``OpenAI._prepare_chat_with_tools`` (no request, no tokens) was a model call of its own:
    twice the run's calls. The run's output was the workflow's ``StopEvent`` repr, cut short by
    OpenInference (two answers alike in their first words had one hash)."""
    raw = _otlp_lines(LLAMA_INDEX)
    kinds = [s for s in raw if s["attributes"].get("openinference.span.kind") == "LLM"]
    prepare = [s for s in kinds if s["name"] == "OpenAI._prepare_chat_with_tools"]
    requests = [s for s in kinds if s["name"] == "OpenAI.astream_chat"]
    assert len(prepare) == len(requests) == 3 and len(kinds) == 6
    assert not any("llm.token_count.prompt" in s["attributes"] for s in prepare)
    (root,) = [s for s in raw if not s.get("parentSpanId")]
    assert root["attributes"]["output.value"].startswith("StopEvent(")
    answer = requests[-1]["attributes"]["llm.output_messages.0.message.content"]

    (trace,) = get_importer("otel").import_file(LLAMA_INDEX, ImportOptions())
    llm = [s for s in trace.spans if s.type == "llm"]
    assert [s.span_id for s in llm] == [s["spanId"] for s in requests]
    assert [s.attributes["input_tokens"] for s in llm] == [
        int(s["attributes"]["llm.token_count.prompt"]) for s in requests
    ]
    assert trace.run.final_output_hash == content_hash(answer)
    assert [(s.name, s.status) for s in trace.spans if s.type == "tool"] == [
        ("lookup_order", "success"),
        ("issue_refund", "error"),
    ]


#: LlamaIndex 0.14.25 ``OpenAI.structured_predict`` (a JSON-schema answer from a loopback stub)
#: traced by openinference-instrumentation-llama-index 4.6.1.
LLAMA_INDEX_STRUCTURED = (
    CORPUS / "otel-frameworks" / "gen__otlp-json__llama-index-0.14.25__structured-predict.jsonl"
)


def test_an_llm_span_without_tokens_around_the_request_is_no_model_call():
    """``structured_predict`` is an ``LLM`` span around the ``OpenAI.chat`` request; it records
    no tokens, the request does: the run had two model calls for one, the first without
    tokens (and, folded as one request, the outer span lost the request's tokens)."""
    raw = _otlp_lines(LLAMA_INDEX_STRUCTURED)
    outer, inner = raw
    assert (outer["name"], inner["name"]) == ("OpenAI.structured_predict", "OpenAI.chat")
    assert inner["parentSpanId"] == outer["spanId"]
    assert {s["attributes"]["openinference.span.kind"] for s in raw} == {"LLM"}
    assert "llm.token_count.prompt" not in outer["attributes"]

    (trace,) = get_importer("otel").import_file(LLAMA_INDEX_STRUCTURED, ImportOptions())
    (llm,) = trace.spans
    assert (llm.type, llm.span_id, llm.parent_span_id) == ("llm", inner["spanId"], None)
    assert (llm.attributes["input_tokens"], llm.attributes["output_tokens"]) == (
        int(inner["attributes"]["llm.token_count.prompt"]),
        int(inner["attributes"]["llm.token_count.completion"]),
    )


#: OpenAI Agents SDK 0.24.0 runs that raised (chat-completions model at a loopback stub): a
#: tool with ``failure_error_function=None`` that raises (``UserError``), and a run past
#: ``max_turns`` (``MaxTurnsExceeded``); each exported natively (``Trace/Span.export()``) and
#: through openinference-instrumentation-openai-agents 2.6.0 at once.
AGENTS_RAISED = ("tool-error-raised", "max-turns-exceeded")


def _agents_raised(variant: str) -> tuple[Path, Path]:
    return (
        CORPUS / "openai-agents" / f"gen__openai-agents-sdk-0.24.0__{variant}.json",
        CORPUS
        / "otel-frameworks"
        / f"gen__otlp-json__openai-agents-0.24.0__openinference-2.6.0__{variant}.jsonl",
    )


def test_an_agents_sdk_run_that_raised_failed():
    """Only the agent span records the error of a run that raised: the native export's root (the
    ``task`` span) and OpenInference's ``Agent workflow`` root end without one, so the run read
    ``success``."""
    for variant in AGENTS_RAISED:
        native, otlp = _agents_raised(variant)
        objects = json.loads(native.read_text())["data"]
        (root,) = [o for o in objects if o["object"] == "trace.span" and not o["parent_id"]]
        (agent,) = [o for o in objects if o.get("span_data", {}).get("type") == "agent"]
        assert root["error"] is None and agent["error"] and agent["parent_id"] == root["id"]
        raw = _otlp_lines(otlp)
        roots = [s for s in raw if not s.get("parentSpanId")]
        assert [s["status"].get("code") for s in roots] == [1]
        (agent_span,) = [s for s in raw if s["attributes"].get("agent.name") == "support_agent"]
        assert agent_span["status"]["code"] == 2

        (by_sdk,) = get_importer("openai-agents").import_file(native, ImportOptions())
        (by_otel,) = get_importer("otel").import_file(otlp, ImportOptions())
        assert by_sdk.run.final_status == by_otel.run.final_status == "error", variant
        assert [(s.name, s.status) for s in by_sdk.spans if s.type == "tool"] == [
            (s.name, s.status) for s in by_otel.spans if s.type == "tool"
        ]


#: The Vercel AI SDK 6.0.333 (``generateText`` with ``experimental_telemetry``, @ai-sdk/openai
#: 3.0.141 against a loopback stub; a tool that succeeds, one that throws) in node, its spans
#: sent by @opentelemetry/exporter-trace-otlp-http 0.223.1 to a loopback receiver (each POST
#: body one line).
VERCEL = CORPUS / "otel-frameworks" / "gen__otlp-json__vercel-ai-sdk-6.0.333__openai-tools.jsonl"


def test_vercel_ai_sdk_model_calls_tools_and_answer():
    """``ai.generateText.doGenerate`` spans are the model calls (tokens as
    ``gen_ai.usage.*``), ``ai.toolCall`` the tools (the throwing one ERROR with an exception
    event), the answer ``ai.response.text`` of the last call."""
    raw = _otlp_lines(VERCEL)
    calls = [s for s in raw if s["name"] == "ai.generateText.doGenerate"]
    tools = [s for s in raw if s["name"] == "ai.toolCall"]
    (top,) = [s for s in raw if s["name"] == "ai.generateText"]

    fields = parse_argument_fields("lookup_order:order_id")
    (trace,) = get_importer("otel").import_file(VERCEL, ImportOptions(argument_fields=fields))
    assert [s.type for s in trace.spans] == ["llm", "tool", "llm", "tool", "llm"]
    assert [s.attributes["input_tokens"] for s in trace.spans if s.type == "llm"] == [
        int(s["attributes"]["gen_ai.usage.input_tokens"]) for s in calls
    ]
    assert [(s.name, s.status, s.attributes["tool_call_id"]) for s in trace.spans[1::2]] == [
        (t["attributes"]["ai.toolCall.name"], status, t["attributes"]["ai.toolCall.id"])
        for t, status in zip(tools, ("success", "error"), strict=True)
    ]
    assert trace.spans[1].attributes["arguments"] == {
        "order_id": json.loads(tools[0]["attributes"]["ai.toolCall.args"])["order_id"]
    }
    assert trace.run.final_status == "success"
    assert trace.run.final_output_hash == content_hash(top["attributes"]["ai.response.text"])
