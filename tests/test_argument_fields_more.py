"""``--argument-fields`` in the OTel, Agents SDK, LangSmith, Gemini, OpenHands and SWE-agent
importers, on real corpus files: each named field holds the value an independent parse of the
raw file gives, a canary planted in every other string leaf of a copy never reaches the output,
and an importer that does not extract argument fields still refuses the flag (exit 2).
"""

from __future__ import annotations

import json
import re
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from abw.importers.base import ImportOptions
from abw.importers.common import parse_argument_fields
from abw.traceio import render_trace
from tests.conftest import CORPUS
from tests.importkit import import_traces
from tests.test_adapter_kit import SAMPLE, installed_example  # noqa: F401 (a fixture)

OTEL_PYDANTIC = CORPUS / "otel" / "gen__otlp-json__pydantic-ai__genai-semconv.jsonl"
OTEL_AGENTS = CORPUS / "otel" / "gen__otlp-json__openai-agents__openinference.jsonl"
AGENTS = CORPUS / "openai-agents" / "gen__openai-agents-sdk__native-trace-export.json"
LANGSMITH_BATCH = CORPUS / "langsmith" / "gen__langsmith__runs-batch_payload.json"
LANGSMITH_PARTS = CORPUS / "langsmith" / "gen__langsmith__runs-multipart_parts.json"
GEMINI = CORPUS / "gemini-cli" / "codemie__session-2026-01-16T11-01-file-ops-37b7abef.json"
OPENHANDS = CORPUS / "openhands" / "openhands__basic_gui_mode.json"
SWE_FC = CORPUS / "swe-agent" / "sweagent__demo_function_calling_replace__marshmallow-1867.traj"
SWE_PLAIN = CORPUS / "swe-agent" / "sweagent__pydicom__pydicom-1458.traj"

AGENTS_FIELDS = "issue_refund:amount,get_order_status:order_id"


def _import(name: str, path: Path, fields: str) -> tuple[list[Any], ImportOptions]:
    options = ImportOptions(argument_fields=parse_argument_fields(fields), exported_at="x")
    return import_traces(name, path, options), options


def _observed(trace: Any, tools: set[str]) -> list[tuple[str, dict[str, Any]]]:
    return [(s.name, s.attributes["arguments"]) for s in trace.spans if s.name in tools]


def _pick(calls: list[tuple[str, Any]], fields: str) -> list[tuple[str, dict[str, Any]]]:
    """What the named fields of these ``(tool, arguments)`` calls should give."""
    named: dict[str, list[str]] = {}
    for item in fields.split(","):
        tool, _, path = item.rpartition(":")
        named.setdefault(tool, []).append(path)
    return [
        (tool, {p: args[p] for p in sorted(named[tool]) if p in args})
        for tool, args in calls
        if tool in named
    ]


def _without_arguments(trace: Any, tools: set[str]) -> bool:
    return all("arguments" not in s.attributes for s in trace.spans if s.name not in tools)


# ------------------------------------------------------------------ independent parses
def _otlp_tool_calls(path: Path) -> list[tuple[str, Any]]:
    """(tool name, decoded arguments) of the OTLP spans that name a tool, by start time."""
    spans = []
    for text in path.read_text(encoding="utf-8").splitlines():
        for resource in json.loads(text)["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    attrs = {a["key"]: a["value"].get("stringValue") for a in span["attributes"]}
                    name = attrs.get("gen_ai.tool.name") or attrs.get("tool.name")
                    raw = attrs.get("gen_ai.tool.call.arguments") or attrs.get("input.value")
                    if name:
                        spans.append((int(span["startTimeUnixNano"]), name, json.loads(raw)))
    return [(name, args) for _, name, args in sorted(spans, key=lambda s: s[0])]


def _agents_calls(path: Path) -> list[tuple[str, Any]]:
    items = json.loads(path.read_text(encoding="utf-8"))["data"]
    functions = [
        i for i in items if i["object"] == "trace.span" and i["span_data"]["type"] == "function"
    ]
    functions.sort(key=lambda i: i["started_at"])
    return [(i["span_data"]["name"], json.loads(i["span_data"]["input"])) for i in functions]


def _langsmith_calls(path: Path) -> list[tuple[str, Any]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(document, dict):
        runs = document["post"]
    else:  # multipart: post.<id> (the run) and post.<id>.inputs
        runs, inputs = [], {}
        for part in document:
            _, run_id, *field = part["name"].split(".")
            if field == ["inputs"]:
                inputs[run_id] = part["value"]
            elif not field:
                runs.append(part["value"])
        runs = [{**r, "inputs": inputs[r["id"]]} for r in runs]
    runs = sorted(runs, key=lambda r: r["dotted_order"])
    return [(r["name"], r["inputs"]) for r in runs if r["run_type"] in ("tool", "retriever")]


def _gemini_calls(path: Path) -> list[tuple[str, Any]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return [(c["name"], c["args"]) for m in document["messages"] for c in m.get("toolCalls") or []]


def _openhands_calls(path: Path) -> list[tuple[str, Any]]:
    """(function name, the model's arguments for that call) of every agent tool action."""
    calls = []
    for event in json.loads(path.read_text(encoding="utf-8")):
        meta = event.get("tool_call_metadata")
        if event.get("source") != "agent" or not meta or event.get("action") in (None, "message"):
            continue
        for choice in meta["model_response"]["choices"]:
            for call in choice["message"].get("tool_calls") or []:
                if call["id"] == meta["tool_call_id"]:
                    calls.append((meta["function_name"], json.loads(call["function"]["arguments"])))
    return calls


def _swe_calls(path: Path) -> list[tuple[str, Any]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return [
        (
            m["tool_calls"][0]["function"]["name"],
            json.loads(m["tool_calls"][0]["function"]["arguments"]),
        )
        for m in document["history"]
        if m["role"] == "assistant" and m.get("tool_calls")
    ]


CASES = {
    "otel-genai": ("otel", OTEL_PYDANTIC, "fetch_page:url,search_docs:query", _otlp_tool_calls),
    "otel-openinference": ("otel", OTEL_AGENTS, AGENTS_FIELDS, _otlp_tool_calls),
    "openai-agents": ("openai-agents", AGENTS, AGENTS_FIELDS, _agents_calls),
    "langsmith-batch": (
        "langsmith",
        LANGSMITH_BATCH,
        "calculator:expr,vector_search:q",
        _langsmith_calls,
    ),
    "langsmith-parts": (
        "langsmith",
        LANGSMITH_PARTS,
        "calculator:expr,web_fetch:url",
        _langsmith_calls,
    ),
    "gemini": ("gemini", GEMINI, "write_file:file_path,search_file_content:pattern", _gemini_calls),
    "openhands": (
        "openhands",
        OPENHANDS,
        "str_replace_editor:path,execute_bash:command",
        _openhands_calls,
    ),
    "swe-agent": (
        "swe-agent",
        SWE_FC,
        "open:line_number,find_file:dir,bash:command,edit:search",
        _swe_calls,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_named_fields_match_an_independent_parse(case):
    name, path, fields, parse = CASES[case]
    (trace,), options = _import(name, path, fields)
    tools = {item.rpartition(":")[0] for item in fields.split(",")}
    expected = _pick(parse(path), fields)
    assert _observed(trace, tools) == expected
    assert any(args for _, args in expected)  # the fields really occur in the file
    assert _without_arguments(trace, tools)
    kept = sorted({f"{tool}:{p}" for tool, args in expected for p in args})
    assert trace.redaction.kept_fields == kept
    assert options.warnings == []
    again, _ = _import(name, path, fields)
    assert render_trace(again[0]) == render_trace(trace)  # deterministic


def test_agents_sdk_native_and_otlp_exports_give_the_same_arguments():
    (native,), _ = _import("openai-agents", AGENTS, AGENTS_FIELDS)
    (otlp,), _ = _import("otel", OTEL_AGENTS, AGENTS_FIELDS)
    tools = {"issue_refund", "get_order_status"}
    assert _observed(native, tools) == _observed(otlp, tools)
    assert len(_observed(native, tools)) == 3
    assert native.redaction.kept_fields == otlp.redaction.kept_fields


def test_llm_inputs_are_never_argument_sources():
    """A glob that matches every span name reads tool and retriever inputs only."""
    (trace,), _ = _import("langsmith", LANGSMITH_BATCH, "*:messages,*:q")
    with_args = {s.type for s in trace.spans if "arguments" in s.attributes}
    assert with_args == {"tool", "retriever"}
    assert trace.redaction.kept_fields == ["vector_search:q"]
    (trace,), _ = _import("otel", OTEL_PYDANTIC, "*:query,*:messages")
    assert all(s.type != "llm" for s in trace.spans if "arguments" in s.attributes)


def test_swe_agent_without_function_calls_warns_and_keeps_nothing():
    (trace,), options = _import("swe-agent", SWE_PLAIN, "edit:text,bash:command")
    assert all("arguments" not in s.attributes for s in trace.spans)
    assert trace.redaction.kept_fields is None
    assert len(options.warnings) == 1 and "function-calling" in options.warnings[0]


def test_cli_imports_with_the_flag_and_refuses_it_for_an_importer_without_support(
    run_cli,
    tmp_path,
    installed_example,  # noqa: F811 (the fixture)
):
    out = tmp_path / "agents.json"
    code, _, err = run_cli(
        "import", "openai-agents", "--input", AGENTS, "--out", out,
        "--exported-at", "2026-01-01T00:00:00Z",
        "--argument-fields", "issue_refund:amount",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out.read_text())["redaction"]["kept_fields"] == ["issue_refund:amount"]
    code, stdout, err = run_cli(
        "import", "steps-jsonl", "--input", SAMPLE, "--out", tmp_path / "s.json",
        "--argument-fields", "lookup_order:order_id",
    )  # fmt: skip
    assert code == 2 and stdout == "" and err.strip().count("\n") == 0
    assert "does not extract argument fields yet" in err and "Traceback" not in err
    assert not (tmp_path / "s.json").exists()


# ------------------------------------------------------------------ canaries
MARK = "ABWARGCANARY"
_CANARY = re.compile(MARK + r"\d{6}")

#: Structure an importer must read to pair, order and name spans; their values are kept.
KEEP_KEYS = {
    "object",
    "id",
    "trace_id",
    "parent_id",
    "type",
    "name",
    "started_at",
    "ended_at",
    "to_agent",
    "workflow_name",
    "model",
    "traceId",
    "spanId",
    "parentSpanId",
    "key",
    "startTimeUnixNano",
    "endTimeUnixNano",
    "run_type",
    "dotted_order",
    "parent_run_id",
    "start_time",
    "end_time",
    "timestamp",
    "status",
    "sessionId",
    "agent_name",
    "action",
    "observation",
    "source",
    "function_name",
    "tool_call_id",
    "role",
    "cause",
    "agent_state",
    "ls_model_name",
    "exit_status",
}
#: OTLP attributes that carry structure (span kinds, tool and model names, call ids).
KEEP_ATTRIBUTES = {
    "openinference.span.kind",
    "gen_ai.operation.name",
    "gen_ai.tool.name",
    "tool.name",
    "gen_ai.request.model",
    "gen_ai.response.model",
    "llm.model_name",
    "agent.name",
    "gen_ai.agent.name",
    "gen_ai.tool.call.id",
    "tool.id",
    "error.type",
    "exception.type",
}


class Planter:
    """Appends a unique canary to every string leaf outside the structure (JSON objects inside
    strings are opened too) and remembers the path of each."""

    def __init__(self) -> None:
        self.numbers, self.where = count(), {}

    def plant(self, value: Any, path: str = "$") -> Any:
        if isinstance(value, dict):
            if isinstance(value.get("key"), str) and "value" in value:  # an OTLP attribute
                if value["key"] in KEEP_ATTRIBUTES:
                    return value
                return {**value, "value": self.plant(value["value"], f"{path}[{value['key']}]")}
            return {
                k: v if k in KEEP_KEYS else self.plant(v, f"{path}.{k}") for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.plant(item, f"{path}[]") for item in value]
        if isinstance(value, str):
            if value[:1] == "{":
                try:
                    inner = json.loads(value)
                except json.JSONDecodeError:
                    inner = None
                if isinstance(inner, dict):
                    return json.dumps(self.plant(inner, f"{path}<json>"))
            mark = f"{MARK}{next(self.numbers):06d}"
            self.where[mark] = path
            return f"{value} {mark}"
        return value

    def plant_file(self, source: Path, target: Path) -> Path:
        text = source.read_text(encoding="utf-8")
        if source.suffix == ".jsonl":
            lines = [json.dumps(self.plant(json.loads(t))) for t in text.splitlines() if t.strip()]
            target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        else:
            target.write_text(json.dumps(self.plant(json.loads(text))), encoding="utf-8")
        return target


@pytest.mark.parametrize("case", sorted(CASES))
def test_only_named_fields_are_disclosed(tmp_path, case):
    name, source, fields, parse = CASES[case]
    planter = Planter()
    planted = planter.plant_file(source, tmp_path / source.name)
    traces, options = _import(name, planted, fields)
    text = "".join(render_trace(t) for t in traces) + "\n".join(options.warnings)
    found = set(_CANARY.findall(text))
    named = set(_CANARY.findall(json.dumps(_pick(parse(planted), fields))))
    assert found == named and named, sorted(planter.where[m] for m in found ^ named)
    assert len(planter.where) > 10 * len(found)  # planted widely, disclosed narrowly
