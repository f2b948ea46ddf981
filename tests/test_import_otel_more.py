"""``abw import otel`` / ``any-agent`` on more real exports: where a broken document breaks,
any-agent's own ``final_output``, structured answers, OpenInference ``kwargs`` arguments,
Google ADK's native spans, and smolagents' nested model calls. Expectations are computed from
the raw JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from abw.hashing import content_hash
from abw.importers.base import ImportOptions
from abw.importers.common import parse_argument_fields
from tests.conftest import CORPUS
from tests.importkit import import_traces

ANY_AGENT = sorted((CORPUS / "any-agent").glob("*.json"))
STRUCTURED = CORPUS / "any-agent" / "mozilla-ai__any-agent__OPENAI_trace@f3af2116.json"
JAEGER = CORPUS / "otel" / "packetpanic__jaeger_get-inventory.json"
PYDANTIC = CORPUS / "otel" / "gen__otlp-json__pydantic-ai__genai-semconv.jsonl"
ADK = CORPUS / "otel-frameworks" / "monocle2ai__monocle__test_adk_single_agent@850a6099.json"
SMOLAGENTS = CORPUS / "otel-frameworks" / "mozilla-ai__any-agent__SMOLAGENTS_trace@fa7a2d64.json"
LLAMA_INDEX = CORPUS / "otel-frameworks" / "mozilla-ai__any-agent__LLAMA_INDEX_trace@fa7a2d64.json"
LANGCHAIN = CORPUS / "otel-frameworks" / "mozilla-ai__any-agent__LANGCHAIN_trace@fa7a2d64.json"


def _import(
    path: Path, name: str = "otel", options: ImportOptions | None = None
) -> tuple[list[Any], ImportOptions]:
    options = options or ImportOptions()
    return import_traces(name, path, options), options


def _render(traces: list[Any], options: ImportOptions) -> str:
    from abw.traceio import render_trace

    return "".join(render_trace(t) for t in traces) + "\n".join(options.warnings)


def _one_error(run_cli: Any, path: Path, tmp_path: Path, importer: str = "otel") -> str:
    code, _, err = run_cli("import", importer, "--input", path, "--out", tmp_path / "out")
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err.strip()


def _break_line(text: str) -> int:
    """Where values written one after another stop being JSON (an independent reading)."""
    decoder, index = json.JSONDecoder(), 0
    while True:
        while text[index].isspace():
            index += 1
        try:
            _, index = decoder.raw_decode(text, index)
        except json.JSONDecodeError as exc:
            return exc.lineno


# ----------------------------------------------------------------- 1. where a document breaks


@pytest.mark.parametrize("source", [STRUCTURED, JAEGER], ids=lambda p: p.name)
def test_a_cut_pretty_printed_document_is_reported_where_it_breaks(run_cli, tmp_path, source):
    """It was reported at line 1 (read again as JSON Lines, whose first line is ``{``)."""
    text = source.read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) * 2 // 3])
    with pytest.raises(json.JSONDecodeError) as broken:
        json.loads(cut.read_text())
    assert broken.value.lineno > 1
    err = _one_error(run_cli, cut, tmp_path)
    assert err.startswith(f"abw: error: {cut}:{broken.value.lineno}: invalid JSON")


def test_cut_console_spans_are_reported_where_they_break(run_cli, tmp_path):
    """Console-exporter objects one after another (here any-agent's real spans), the last one
    cut: the line inside it, not line 1 or the line where the second object starts."""
    spans = json.loads(STRUCTURED.read_text())["spans"]
    text = "\n".join(json.dumps(span, indent=4) for span in spans)
    cut = tmp_path / "console.json"
    cut.write_text(text[: len(text) - 200])
    line = _break_line(cut.read_text())
    assert line > text.count("\n") // 2
    err = _one_error(run_cli, cut, tmp_path)
    assert err.startswith(f"abw: error: {cut}:{line}: invalid JSON")


def test_json_lines_still_name_their_own_broken_line(run_cli, tmp_path):
    lines = PYDANTIC.read_text().splitlines()
    lines[2] = lines[2][: len(lines[2]) // 2]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    assert _one_error(run_cli, bad, tmp_path).startswith(f"abw: error: {bad}:3: invalid JSON")


# ----------------------------------------------------------------- 2. the final output


@pytest.mark.parametrize("path", ANY_AGENT, ids=lambda p: p.name)
def test_any_agent_final_output_is_the_runs_final_output(path):
    """It was the last llm span's raw output (a final_answer tool call, a JSON blob)."""
    recorded = json.loads(path.read_text())["final_output"]
    for name in ("any-agent", "otel"):
        (trace,), _ = _import(path, name)
        assert trace.run.final_output_hash == content_hash(recorded)


def test_a_structured_final_output_gives_the_named_fields():
    recorded = json.loads(STRUCTURED.read_text())["final_output"]
    assert isinstance(recorded, dict)
    (trace,), options = _import(STRUCTURED, "any-agent", ImportOptions(output_fields=("steps",)))
    assert trace.run.canonical_output == {"steps": recorded["steps"]}
    (plain,), options = _import(STRUCTURED, "any-agent")
    assert plain.run.canonical_output is None
    assert recorded["steps"][0]["description"] not in _render([plain], options)


def test_a_json_object_as_the_last_llm_text_is_the_answer(tmp_path):
    """Without a recorded final_output the last llm output decides: a text that is a JSON
    object (a structured answer) is the answer itself, not a message without content."""
    document = json.loads(STRUCTURED.read_text())
    del document["final_output"]
    path = tmp_path / "no_final.json"
    path.write_text(json.dumps(document))
    llm = [
        s for s in document["spans"] if s["attributes"].get("gen_ai.operation.name") == "call_llm"
    ]
    text = max(llm, key=lambda s: s["start_time"])["attributes"]["gen_ai.output"]
    (trace,), _ = _import(path, "any-agent", ImportOptions(output_fields=("steps",)))
    assert trace.run.final_output_hash == content_hash(text)
    assert trace.run.canonical_output == {"steps": json.loads(text)["steps"]}


# ----------------------------------------------------------------- 3. OpenInference kwargs


@pytest.mark.parametrize("source", [SMOLAGENTS, LLAMA_INDEX], ids=lambda p: p.name)
def test_openinference_tool_arguments_are_read_from_kwargs(source):
    """``input.value`` = ``{"args": [], "kwargs": {...}}``: the fields were recorded absent."""
    path = source
    calls = [
        (s["attributes"]["tool.name"], json.loads(s["attributes"]["input.value"])["kwargs"])
        for s in sorted(json.loads(path.read_text())["spans"], key=lambda s: s["start_time"])
        if s["attributes"].get("openinference.span.kind") == "TOOL"
    ]
    fields = ",".join(f"{tool}:{key}" for tool, kwargs in calls for key in kwargs)
    options = ImportOptions(argument_fields=parse_argument_fields(fields))
    (trace,), options = _import(path, "any-agent", options)
    tools = [s for s in trace.spans if s.type == "tool"]
    assert [(s.name, s.attributes["arguments"]) for s in tools] == calls
    assert options.warnings == []


def test_a_python_repr_tool_input_warns_and_extracts_nothing():
    """LangChain's OpenInference ``input.value`` is ``{'text': '2025'}``: not JSON. It was
    silently left out; now a warning names the tools (never their input)."""
    path = LANGCHAIN
    tools = sorted(
        {
            s["attributes"]["tool.name"]
            for s in json.loads(path.read_text())["spans"]
            if s["attributes"].get("openinference.span.kind") == "TOOL"
        }
    )
    fields = ",".join(f"{tool}:text,{tool}:timezone" for tool in tools)
    options = ImportOptions(argument_fields=parse_argument_fields(fields))
    (trace,), options = _import(path, "any-agent", options)
    assert not any("arguments" in s.attributes for s in trace.spans)
    assert options.warnings == [
        f"{path.name}: no argument fields extracted from {', '.join(tools)}: the call's input "
        "is not a JSON object"
    ]
    text = _render([trace], options)
    assert "America/New_York" not in text and "'text'" not in text


# ----------------------------------------------------------------- 4. Google ADK


def _adk_spans(path: Path) -> list[dict[str, Any]]:
    """The raw spans of the trace that holds ADK's spans (``gen_ai.system``), by start."""
    spans = json.loads(path.read_text())
    adk = {s["context"]["trace_id"] for s in spans if "gen_ai.system" in s["attributes"]}
    return sorted(
        (s for s in spans if s["context"]["trace_id"] in adk), key=lambda s: s["start_time"]
    )


def test_google_adk_native_spans_are_llm_and_tool_spans():
    """``call_llm`` (only gen_ai.system + gen_ai.request.model) was dropped as infrastructure,
    ``agent_run [<agent>]`` was no agent scope, the tool had no input or output hash."""
    path = ADK
    raw = _adk_spans(path)
    (agent,) = [
        s["name"][len("agent_run [") : -1] for s in raw if s["name"].startswith("agent_run [")
    ]
    expected = []
    for span in raw:
        a = span["attributes"]
        if span["name"] == "call_llm":
            request, response = (
                a["gcp.vertex.agent.llm_request"],
                a["gcp.vertex.agent.llm_response"],
            )
            expected.append(("llm", a["gen_ai.request.model"], request, response))
        elif a.get("gen_ai.operation.name") == "execute_tool":
            args, result = a["gcp.vertex.agent.tool_call_args"], a["gcp.vertex.agent.tool_response"]
            expected.append(("tool", a["gen_ai.tool.name"], args, result))
    assert [e[0] for e in expected] == ["llm", "tool", "llm"]
    (trace,), options = _import(path)
    assert [
        (s.type, s.name, s.input_hash, s.output_hash, s.attributes["agent"]) for s in trace.spans
    ] == [(t, n, content_hash(i), content_hash(o), agent) for t, n, i, o in expected]
    text = _render([trace], options)
    for secret in ("New York", "sunny", "Desktop", "weather report"):
        assert secret not in text


def test_google_adk_tool_arguments_are_extracted():
    path = ADK
    (call,) = [s for s in _adk_spans(path) if s["name"].startswith("execute_tool ")]
    args = json.loads(call["attributes"]["gcp.vertex.agent.tool_call_args"])
    options = ImportOptions(argument_fields=parse_argument_fields("get_weather:city"))
    (trace,), options = _import(path, "otel", options)
    (tool,) = [s for s in trace.spans if s.type == "tool"]
    assert tool.attributes["arguments"] == {"city": args["city"]}
    assert trace.redaction.kept_fields == ["get_weather:city"]


# ----------------------------------------------------------------- 5. nested model calls


def test_a_model_call_recorded_inside_itself_counts_once():
    """smolagents' ``LiteLLMModel.__call__`` is traced three levels deep for one request (same
    input): it counted one request three times (tokens tripled)."""
    path = SMOLAGENTS
    spans = json.loads(path.read_text())["spans"]
    by_id = {s["context"]["span_id"]: s for s in spans}

    def llm(span: dict[str, Any] | None) -> bool:
        return span is not None and span["attributes"].get("openinference.span.kind") == "LLM"

    outer = [
        s
        for s in sorted(spans, key=lambda s: s["start_time"])
        if llm(s)
        and not (
            llm(parent := by_id.get(s["parent"]["span_id"]))
            and parent["attributes"]["input.value"] == s["attributes"]["input.value"]
        )
    ]
    assert len(outer) < sum(map(llm, spans))
    (trace,), _ = _import(path, "any-agent")
    calls = [s for s in trace.spans if s.type == "llm"]
    assert [s.attributes["input_tokens"] for s in calls] == [
        s["attributes"]["llm.token_count.prompt"] for s in outer
    ]
    assert [s.span_id for s in calls] == [format(s["context"]["span_id"], "016x") for s in outer]


def test_a_model_call_recorded_inside_itself_keeps_the_tokens_of_either(tmp_path):
    """One request traced at two levels with the same input, its tokens only on the inner span
    (a wrapper that does not see the response's usage): folded into the outer span, the call
    lost its tokens."""

    def span(span_id: str, parent: str | None, tokens: bool) -> dict[str, Any]:
        attributes = [
            {"key": "openinference.span.kind", "value": {"stringValue": "LLM"}},
            {"key": "llm.model_name", "value": {"stringValue": "m"}},
            {"key": "input.value", "value": {"stringValue": "same request"}},
        ]
        if tokens:
            attributes += [
                {"key": "llm.token_count.prompt", "value": {"intValue": "12"}},
                {"key": "llm.token_count.completion", "value": {"intValue": "3"}},
            ]
        return {
            "traceId": "ab" * 16,
            "spanId": span_id,
            **({"parentSpanId": parent} if parent else {}),
            "name": "call",
            "startTimeUnixNano": "1000",
            "endTimeUnixNano": "2000",
            "attributes": attributes,
        }

    path = tmp_path / "wrapped.jsonl"
    spans = [span("01" * 8, None, False), span("02" * 8, "01" * 8, True)]
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}) + "\n")
    (trace,), _ = _import(path)
    (call,) = trace.spans
    assert (call.attributes["input_tokens"], call.attributes["output_tokens"]) == (12, 3)


def test_metrics_and_logs_lines_of_a_shared_file_exporter_are_skipped(run_cli, tmp_path):
    """A Collector ``file`` exporter on the traces, metrics and logs pipelines writes all three
    into one file: the whole file was refused at the first metrics line. Those lines are
    skipped with one warning; the spans import as from the spans alone (but for the file's
    hash and the lines they stand on)."""
    lines = PYDANTIC.read_text().splitlines()
    mixed = tmp_path / "mixed" / "otel.jsonl"
    mixed.parent.mkdir()
    other = ['{"resourceMetrics": [{"scopeMetrics": []}]}', '{"resourceLogs": []}']
    mixed.write_text("\n".join([lines[0], *other, *lines[1:]]) + "\n")
    alone = tmp_path / "alone" / "otel.jsonl"
    alone.parent.mkdir()
    alone.write_text(PYDANTIC.read_text())
    outs = []
    for source in (mixed, alone):
        out = tmp_path / f"out-{source.parent.name}"
        code, _, err = run_cli(
            "import",
            "otel",
            "--input",
            source,
            "--out",
            out,
            "--exported-at",
            "2026-01-01T00:00:00Z",
        )
        assert code == 0, err
        outs.append([_steps(json.loads(p.read_text())) for p in sorted(out.iterdir())])
    assert outs[0] == outs[1] and outs[0]
    code, _, err = run_cli("import", "otel", "--input", mixed, "--out", tmp_path / "again")
    assert "skipped 2 lines of OTLP metrics or logs" in err


def _steps(trace: dict) -> tuple:
    """A trace without where it came from (the file's hash, its lines)."""
    spans = [{k: v for k, v in s.items() if k != "source_ref"} for s in trace["spans"]]
    return trace["run"], spans


def _failed_calls(path: Path) -> list[tuple[str, str]]:
    return [
        (s.name, s.outcome)
        for trace in import_traces("otel", path)
        for s in trace.path()
        if s.outcome != "ok"
    ]


def test_a_tool_that_raised_a_timeout_error_timed_out(tmp_path):
    """pydantic-ai's tool raising ``TimeoutError`` (its exception event's type): the call read
    ``error`` where LangSmith reads the same Python exception ``timeout``; an error class
    naming a timeout is one in every importer (abw.importers.spans.timed_out)."""
    source = next((CORPUS / "otel-live").glob("*pydantic-ai-2.68.0__v6__parallel-tool-raises*"))
    raised = tmp_path / "timeout.jsonl"
    text = source.read_text(encoding="utf-8")
    raised.write_text(text.replace('"stringValue":"RuntimeError"', '"stringValue":"TimeoutError"'))
    before, after = _failed_calls(source), _failed_calls(raised)
    assert before and {o for _, o in before} == {"error"}
    assert after == [(name, "timeout") for name, _ in before]
