"""``abw import otel`` on Google ADK 2.13.0's agent transfer (tests/corpus/otel-live-more, written
by ``generate/gen_adk.py``): ADK's built-in ``transfer_to_agent`` tool is a ``handoff`` span
named by the agent it hands to, from the call's ``agent_name`` where the arguments are recorded,
else from the agent span that runs next, else named as the tool; ``attributes.tool`` keeps the
tool's name. The handed-to agent's steps follow the handoff, as ADK traced them; every other
span reads as it did."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from abw.models.trace import Trace
from tests.conftest import CORPUS
from tests.importkit import cli_import_one, import_trace, jsonl_records

LIVE = CORPUS / "otel-live-more"
#: ``transfer``: no content recorded (no call arguments); ``capture-span_only``: content on the
#: spans, the transfer's ``gen_ai.tool.call.arguments`` among it.
PLAIN = "gen__otlp-json__google-adk-2.13.0__transfer.jsonl"
CAPTURED = "gen__otlp-json__google-adk-2.13.0__transfer__capture-span_only.jsonl"
BOTH = pytest.mark.parametrize("source", [PLAIN, CAPTURED], ids=["plain", "captured"])

MAIN, SUB, TOOL = "support_agent", "billing_agent", "transfer_to_agent"
TRANSFER = f"execute_tool {TOOL}"
MODEL = "openai/gpt-5-mini"

#: Every span of either run: (type, name, outcome, attributes).
EXPECTED = [
    ("llm", MODEL, "ok", {"agent": MAIN, "input_tokens": 50, "output_tokens": 12}),
    ("handoff", SUB, "ok", {"agent": MAIN, "tool": TOOL}),
    ("llm", MODEL, "ok", {"agent": SUB, "input_tokens": 60, "output_tokens": 12}),
    ("tool", "lookup_order", "ok", {"agent": SUB, "tool_call_id": "call_0002"}),
    ("llm", MODEL, "ok", {"agent": SUB, "input_tokens": 70, "output_tokens": 12}),
]

#: A change to a span of an export: the spans that replace it (none: it is dropped).
Edit = Callable[[dict[str, Any]], list[dict[str, Any]]]


def _steps(trace: Trace) -> list[tuple[str, str, str | None, dict[str, Any]]]:
    return [(s.type, s.name, s.outcome, s.attributes) for s in trace.spans]


def _set(span: dict[str, Any], key: str, value: str) -> dict[str, Any]:
    """The span with its attribute ``key`` set to the string ``value``."""
    kept = [a for a in span.get("attributes", []) if a["key"] != key]
    return {**span, "attributes": [*kept, {"key": key, "value": {"stringValue": value}}]}


def _edited(tmp_path: Path, source: str, edit: Edit) -> Trace:
    """The trace of a copy of ``source`` whose spans ``edit`` changed."""
    lines = []
    for record in jsonl_records(LIVE / source):
        for resource in record["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                scope["spans"] = [new for span in scope["spans"] for new in edit(span)]
        lines.append(json.dumps(record))
    path = tmp_path / source
    path.write_text("\n".join(lines) + "\n")
    return import_trace("otel", path)


def _is(span: dict[str, Any], name: str) -> bool:
    return span["name"] == name


def _handoff(trace: Trace) -> tuple[str, str, dict[str, Any]]:
    """(type, name, attributes) of the run's second span, the transfer."""
    span = trace.spans[1]
    return span.type, span.name, span.attributes


@BOTH
def test_transfer_is_a_handoff_named_by_its_target(
    run_cli: Any, tmp_path: Path, source: str
) -> None:
    """Both runs: the transfer is a handoff to billing_agent, in support_agent; billing_agent's
    steps follow it, as the steps after every handoff of this importer do (no span holds
    another); the other spans read as before; no recorded text reaches the trace."""
    trace = cli_import_one(run_cli, "otel", LIVE / source, tmp_path / "out")
    spans = trace["spans"]
    assert [(s["type"], s["name"], s["outcome"], s["attributes"]) for s in spans] == EXPECTED
    assert [s.get("parent_span_id") for s in spans] == [None] * 5
    assert trace["run"]["final_status"] == "success"
    text = json.dumps(trace)
    for raw in ("CANARY", "/home/dev", "agent_name", "Transfer the query"):
        assert raw not in text


def test_arguments_name_the_target_before_the_next_agent(tmp_path: Path) -> None:
    """Where the call's arguments are recorded, they name the target, whatever agent runs
    next; without them the agent span that runs next does."""
    renamed = _rename_sub_agent("other_agent")
    captured = _edited(tmp_path, CAPTURED, renamed)
    assert _handoff(captured) == ("handoff", SUB, {"agent": MAIN, "tool": TOOL})
    assert _edited(tmp_path, PLAIN, renamed).spans[1].name == "other_agent"


def test_adk_1x_arguments_name_the_target(tmp_path: Path) -> None:
    """ADK 1.x records a call's arguments as ``gcp.vertex.agent.tool_call_args``."""

    def edit(span: dict[str, Any]) -> list[dict[str, Any]]:
        if _is(span, TRANSFER):
            return [_set(span, "gcp.vertex.agent.tool_call_args", '{"agent_name": "refunds"}')]
        return [span]

    assert _handoff(_edited(tmp_path, PLAIN, edit))[:2] == ("handoff", "refunds")


def test_an_argument_that_is_no_agent_name_is_not_kept(tmp_path: Path) -> None:
    """ADK's agent names are identifiers: a model's text in ``agent_name`` names nothing, and
    the agent that ran next names the handoff."""

    def edit(span: dict[str, Any]) -> list[dict[str, Any]]:
        if _is(span, TRANSFER):
            value = '{"agent_name": "CANARY refund this"}'
            return [_set(span, "gen_ai.tool.call.arguments", value)]
        return [span]

    trace = _edited(tmp_path, CAPTURED, edit)
    assert _handoff(trace)[:2] == ("handoff", SUB)
    assert "CANARY" not in trace.model_dump_json()


def test_no_agent_run_after_it_keeps_the_tool_name(tmp_path: Path) -> None:
    """No recorded arguments and no agent span after the transfer (the sub-agent's span lost):
    a handoff named as the tool."""

    def edit(span: dict[str, Any]) -> list[dict[str, Any]]:
        return [] if _is(span, f"invoke_agent {SUB}") else [span]

    assert _handoff(_edited(tmp_path, PLAIN, edit)) == (
        "handoff",
        TOOL,
        {"agent": MAIN, "tool": TOOL},
    )


def test_two_transfers_at_once_are_ambiguous(tmp_path: Path) -> None:
    """Two transfers asked for together, no arguments recorded: the agent span that runs next
    names neither."""

    def edit(span: dict[str, Any]) -> list[dict[str, Any]]:
        if not _is(span, TRANSFER):
            return [span]
        start = str(int(span["startTimeUnixNano"]) + 1)
        return [span, {**span, "spanId": "00000000000000aa", "startTimeUnixNano": start}]

    trace = _edited(tmp_path, PLAIN, edit)
    handoffs = [(s.type, s.name) for s in trace.spans if s.attributes.get("tool") == TOOL]
    assert handoffs == [("handoff", TOOL), ("handoff", TOOL)]


def test_a_tool_of_that_name_outside_adk_stays_a_tool(tmp_path: Path) -> None:
    """Only ADK's own ``transfer_to_agent`` (its tool type or ``gcp.vertex.agent.*``
    attributes) is a handoff."""

    def edit(span: dict[str, Any]) -> list[dict[str, Any]]:
        if not _is(span, TRANSFER):
            return [span]
        kept = [
            a
            for a in span["attributes"]
            if a["key"] != "gen_ai.tool.type" and not a["key"].startswith("gcp.vertex.agent.")
        ]
        return [{**span, "attributes": kept}]

    trace = _edited(tmp_path, PLAIN, edit)
    assert _handoff(trace) == ("tool", TOOL, {"agent": MAIN, "tool_call_id": "call_0001"})


def _rename_sub_agent(name: str) -> Edit:
    """An edit naming the sub-agent's ``invoke_agent`` span ``name``."""

    def edit(span: dict[str, Any]) -> list[dict[str, Any]]:
        if _is(span, f"invoke_agent {SUB}"):
            return [_set({**span, "name": f"invoke_agent {name}"}, "gen_ai.agent.name", name)]
        return [span]

    return edit


def test_an_agent_that_started_before_the_transfer_is_not_its_target(tmp_path: Path) -> None:
    """The agent span after the transfer started before it: it is no agent the transfer ran."""
    (agent,) = [
        s
        for r in jsonl_records(LIVE / PLAIN)
        for rs in r["resourceSpans"]
        for ss in rs["scopeSpans"]
        for s in ss["spans"]
        if _is(s, f"invoke_agent {SUB}")
    ]
    late = str(int(agent["startTimeUnixNano"]) + 1)

    def edit(span: dict[str, Any]) -> list[dict[str, Any]]:
        return [{**span, "startTimeUnixNano": late} if _is(span, TRANSFER) else span]

    assert _handoff(_edited(tmp_path, PLAIN, edit))[:2] == ("handoff", TOOL)
