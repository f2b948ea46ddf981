"""``abw import otel`` on real OTLP/JSON exports of the Vercel AI SDK 7 (``generateText`` and
``streamText`` with tools at a loopback OpenAI-compatible model; tests/corpus/otel-live-js,
generator in its ``generate/``), each run traced by both integrations of ``@ai-sdk/otel``:
``OpenTelemetry`` (GenAI semconv: ``invoke_agent``, ``step N``, ``chat``, ``execute_tool``) and
``LegacyOpenTelemetry`` (``ai.*`` spans). Every shape reads as the same run: each tool call a
step with its name, order and outcome; the run's status and answer; no recorded text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from abw.hashing import content_hash
from tests.conftest import CORPUS
from tests.importkit import cli_import, cli_import_one

LIVE = CORPUS / "otel-live-js"
NAME = "gen__otlp-json__ai-sdk-7.0.173__{}__{}__{}.jsonl"
SHAPES = pytest.mark.parametrize(
    ("integration", "mode"),
    [(i, m) for i in ("otel", "legacy") for m in ("generateText", "streamText")],
)

LLM = ("llm", "gpt-4o-mini", "ok")

#: Each run: its final status and steps (type, name, outcome) in order.
EXPECTED: dict[str, tuple[str, list[tuple[str, str, str]]]] = {
    "parallel-tool-error": (
        "success",
        [
            LLM,
            ("tool", "lookup_order", "ok"),
            ("tool", "check_stock", "ok"),
            LLM,
            ("tool", "charge_card", "error"),
            LLM,
        ],
    ),
    "aborted-mid-tool": (
        "cancelled",
        [LLM, ("tool", "lookup_order", "ok"), LLM, ("tool", "wait_for_bank", "interrupted")],
    ),
    "aborted-mid-stream": (
        "cancelled",
        [LLM, ("tool", "lookup_order", "ok"), ("llm", "gpt-4o-mini", "interrupted")],
    ),
    "api-error": (
        "error",
        [LLM, ("tool", "lookup_order", "ok"), ("llm", "gpt-4o-mini", "error")],
    ),
    "sub-agent": (
        "success",
        [LLM, ("tool", "ask_billing_agent", "ok"), LLM, ("tool", "lookup_order", "ok"), LLM, LLM],
    ),
}


def _import(run_cli: Any, tmp_path: Path, name: str) -> dict[str, Any]:
    return cli_import_one(run_cli, "otel", LIVE / name, tmp_path / "trace.json")


@SHAPES
@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_ai_sdk_run_reads_step_by_step(
    run_cli: Any, tmp_path: Path, integration: str, mode: str, case: str
) -> None:
    """Parallel calls in the order the model asked for them (both start in one millisecond:
    their end times would order them by which ran shorter); a tool call or a model answer
    stopped by the run's ``AbortSignal`` is interrupted and the run cancelled
    (``generateText``: an ``AbortError``; ``streamText``: spans ended with no error and no
    finish reason); a ``streamText`` whose model API failed is an error (the SDK ends its root
    with no error)."""
    trace = _import(run_cli, tmp_path, NAME.format(integration, mode, case))
    status, steps = EXPECTED[case]
    got = [(s["type"], s["name"], s["outcome"]) for s in trace["spans"]]
    assert (trace["run"]["final_status"], got) == (status, steps)
    text = json.dumps(trace)
    for raw in ("CANARY", "/home/dev", "order_id", "SKU-7", "declined", "operation was"):
        assert raw not in text


@SHAPES
def test_ai_sdk_answer_and_calls_hash_alike(
    run_cli: Any, tmp_path: Path, integration: str, mode: str
) -> None:
    """Both integrations record the same answer and the same call inputs (the JSON text the
    SDK wrote)."""
    trace = _import(run_cli, tmp_path, NAME.format(integration, mode, "parallel-tool-error"))
    answer = content_hash("CANARY-ANSWER the card was declined")
    assert trace["run"]["final_output_hash"] == answer
    tools = [s for s in trace["spans"] if s["type"] == "tool"]
    assert [s["input_hash"] for s in tools] == [
        content_hash('{"order_id":42}'),
        content_hash('{"sku":"SKU-7"}'),
        content_hash('{"order_id":42}'),
    ]


@SHAPES
def test_ai_sdk_sub_agent_names_its_calls(
    run_cli: Any, tmp_path: Path, integration: str, mode: str
) -> None:
    """A ``generateText`` inside a tool is the sub-agent its ``functionId`` names: AI SDK 7's
    ``invoke_agent`` span's ``gen_ai.agent.name``, the legacy call span's
    ``ai.telemetry.functionId`` (which named no agent: every call was nobody's)."""
    trace = _import(run_cli, tmp_path, NAME.format(integration, mode, "sub-agent"))
    agents = [s["attributes"].get("agent") for s in trace["spans"]]
    main, sub = "refund-agent", "billing-agent"
    assert agents == [main, main, sub, sub, sub, main]
    assert trace["run"]["final_output_hash"] == content_hash("CANARY-ANSWER refund approved")


@SHAPES
def test_ai_sdk_approval_flow_is_two_runs(
    run_cli: Any, tmp_path: Path, integration: str, mode: str
) -> None:
    """A call that needs approval stops the run at the request; the run that carries the
    person's answer is a trace of its own, with the model's answer. The first run asked for
    refund_order, which never ran: an incomplete call, and the run waits (``unknown``); it read
    ``success`` with no such span, so ``forbidden_tools: [refund_order]`` PASSed."""
    name = NAME.format(integration, mode, "approval-denied")
    (first, second), _ = cli_import(run_cli, "otel", LIVE / name, tmp_path / "traces")
    if first["spans"][0]["started_at"] > second["spans"][0]["started_at"]:
        first, second = second, first
    assert [(s["name"], s["outcome"]) for s in first["spans"]] == [
        ("gpt-4o-mini", "ok"),
        ("lookup_order", "ok"),
        ("refund_order", "incomplete"),
    ]
    assert (first["run"]["final_status"], second["run"]["final_status"]) == ("unknown", "success")
    answer = content_hash("CANARY-ANSWER the refund was not approved")
    assert second["run"]["final_output_hash"] == answer
    assert "CANARY" not in json.dumps([first, second])


LANGGRAPH = "gen__otlp-json__langgraph-js-1.7.3__openinference-langchain-js-4.1.1__{}.jsonl"


@pytest.mark.parametrize("case", ["parallel-tool-error", "api-error"])
def test_langgraph_js_run_reads_step_by_step(run_cli: Any, tmp_path: Path, case: str) -> None:
    """LangGraph.js under OpenInference's LangChain.js instrumentation reads like the AI SDK's
    runs: its graph nodes (CHAIN) are infrastructure, a tool error that the graph hands back
    to the model leaves the run a success."""
    trace = _import(run_cli, tmp_path, LANGGRAPH.format(case))
    status, steps = EXPECTED[case]
    got = [(s["type"], s["name"], s["outcome"]) for s in trace["spans"]]
    assert (trace["run"]["final_status"], got) == (status, steps)
    if status == "success":
        answer = content_hash("CANARY-ANSWER the card was declined")
        assert trace["run"]["final_output_hash"] == answer
    text = json.dumps(trace)
    for raw in ("CANARY", "/home/dev", "order_id", "SKU-7", "declined"):
        assert raw not in text
