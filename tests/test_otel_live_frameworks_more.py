"""``abw import otel`` on real OTLP/JSON exports of LangGraph runs (``create_react_agent``,
``ChatOpenAI`` at a loopback model; tests/corpus/otel-live-more, generators in its
``generate/``), each run traced twice: by openinference-instrumentation-langchain and by
OpenLLMetry's opentelemetry-instrumentation-langchain. Both read as the same run: every tool
call a step with its name, order, outcome and agent; the run's status and final answer; no
recorded text in the trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from abw.hashing import content_hash
from tests.conftest import CORPUS
from tests.importkit import cli_import_one, json_agent_steps

LIVE = CORPUS / "otel-live-more"
OPENINFERENCE = "gen__otlp-json__langgraph-1.2.24__openinference-langchain-0.1.80__{}.jsonl"
OPENLLMETRY = "gen__otlp-json__langgraph-1.2.24__openllmetry-langchain-0.62.4__{}.jsonl"
BOTH = pytest.mark.parametrize("shape", [OPENINFERENCE, OPENLLMETRY], ids=["oi", "openllmetry"])

MAIN, SUB = "support_agent", "billing_agent"
LLM = ("llm", "gpt-5-mini", "ok", MAIN)

#: Each run: its final status and steps (type, name, outcome, agent) in order.
EXPECTED: dict[str, tuple[str, list[tuple[str, str, str, str]]]] = {
    "parallel-tool-error-handled": (
        "success",
        [
            LLM,
            ("tool", "lookup_order", "ok", MAIN),
            ("tool", "check_stock", "ok", MAIN),
            LLM,
            ("tool", "charge_card", "error", MAIN),
            LLM,
        ],
    ),
    "tool-raises": (
        "error",
        [LLM, ("tool", "lookup_order", "ok", MAIN), LLM, ("tool", "charge_card", "error", MAIN)],
    ),
    "api-error": (
        "error",
        [LLM, ("tool", "lookup_order", "ok", MAIN), ("llm", "gpt-5-mini", "error", MAIN)],
    ),
    "sub-agent": (
        "success",
        [
            LLM,
            ("tool", "ask_billing_agent", "ok", MAIN),
            ("llm", "gpt-5-mini", "ok", SUB),
            ("tool", "lookup_order", "ok", SUB),
            ("llm", "gpt-5-mini", "ok", SUB),
            LLM,
        ],
    ),
    "cancelled-mid-tool": ("cancelled", [LLM, ("tool", "export_order", "interrupted", MAIN)]),
}

ANSWERS = {
    "parallel-tool-error-handled": "CANARY-ANSWER refund refused",
    "sub-agent": "CANARY-ANSWER refund approved",
}


def _import(run_cli: Any, tmp_path: Path, name: str, *extra: str) -> dict[str, Any]:
    return cli_import_one(run_cli, "otel", LIVE / name, tmp_path / "trace.json", *extra)


@BOTH
@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_langgraph_run_reads_step_by_step(
    run_cli: Any, tmp_path: Path, shape: str, case: str
) -> None:
    """Both instrumentations: LangGraph's model node ``agent`` is no agent of its own (the
    react agent's model calls are ``support_agent``'s), a tool whose name holds "agent" is a
    tool, the graph a tool runs is the sub-agent, and the run ends as it did."""
    trace = _import(run_cli, tmp_path, shape.format(case))
    status, steps = EXPECTED[case]
    assert (trace["run"]["final_status"], json_agent_steps(trace)) == (status, steps)
    if case in ANSWERS:
        assert trace["run"]["final_output_hash"] == content_hash(ANSWERS[case])
    text = json.dumps(trace)
    for raw in ("CANARY", "/home/dev", "order_id", "A-1", "declined", "checkpoint_ns"):
        assert raw not in text


def test_openllmetry_tool_arguments_are_the_tools_inputs(run_cli: Any, tmp_path: Path) -> None:
    """OpenLLMetry records LangChain's whole callback (the input's repr, tags, LangGraph's
    per-run checkpoint ids, the model's call id) as the tool's arguments: ``--argument-fields``
    reads the ``inputs``, and the input hash is theirs, so one call has one signature in every
    run (the retry rule groups by it)."""
    trace = _import(
        run_cli,
        tmp_path,
        OPENLLMETRY.format("parallel-tool-error-handled"),
        "--argument-fields",
        "lookup_order:order_id,check_stock:sku,charge_card:order_id",
    )
    tools = [s for s in trace["spans"] if s["type"] == "tool"]
    assert [s["attributes"]["arguments"] for s in tools] == [
        {"order_id": 42},
        {"sku": "A-1"},
        {"order_id": 42},
    ]
    assert [s["input_hash"] for s in tools] == [
        content_hash({"order_id": 42}),
        content_hash({"sku": "A-1"}),
        content_hash({"order_id": 42}),
    ]


STRANDS = "gen__otlp-json__strands-agents-1.62.0__{}.jsonl"
TRIAGE = "triage_agent"

#: Each Strands run (native tracing): final status, steps, and its answer where it has one.
STRANDS_RUNS: dict[str, tuple[str, list[tuple[str, str, str, str | None]], str | None]] = {
    "parallel-tool-error": (
        "success",
        [
            LLM,
            ("tool", "lookup_order", "ok", MAIN),
            ("tool", "check_stock", "ok", MAIN),
            LLM,
            ("tool", "charge_card", "error", MAIN),
            LLM,
        ],
        "CANARY-ANSWER refund refused\n",
    ),
    "sub-agent": (
        "success",
        [
            LLM,
            ("tool", "ask_billing_agent", "ok", MAIN),
            ("llm", "gpt-5-mini", "ok", SUB),
            ("tool", "lookup_order", "ok", SUB),
            ("llm", "gpt-5-mini", "ok", SUB),
            LLM,
        ],
        "CANARY-ANSWER refund approved\n",
    ),
    "api-error": (
        "error",
        [LLM, ("tool", "lookup_order", "ok", MAIN), ("llm", "gpt-5-mini", "error", MAIN)],
        None,
    ),
    # the event-loop cycle span that held these was never exported: no agent above them
    "cancelled-mid-tool": (
        "cancelled",
        [("llm", "gpt-5-mini", "ok", None), ("tool", "export_order", "ok", None)],
        None,
    ),
    "swarm-handoff": (
        "success",
        [
            ("llm", "gpt-5-mini", "ok", TRIAGE),
            ("tool", "handoff_to_agent", "ok", TRIAGE),
            ("llm", "gpt-5-mini", "ok", TRIAGE),
            ("llm", "gpt-5-mini", "ok", SUB),
            ("tool", "lookup_order", "ok", SUB),
            ("llm", "gpt-5-mini", "ok", SUB),
        ],
        "CANARY-ANSWER refund approved",
    ),
}


@pytest.mark.parametrize("case", sorted(STRANDS_RUNS))
def test_strands_run_reads_step_by_step(run_cli: Any, tmp_path: Path, case: str) -> None:
    """A Strands invocation cancelled mid-tool (its agent span ends with no status and
    ``strands.cancellation.type``) is cancelled, not a success; a swarm's answer (its root
    records none) is the last agent's text, not the JSON of its content blocks."""
    trace = _import(run_cli, tmp_path, STRANDS.format(case))
    status, steps, answer = STRANDS_RUNS[case]
    assert (trace["run"]["final_status"], json_agent_steps(trace)) == (status, steps)
    if answer is not None:
        assert trace["run"]["final_output_hash"] == content_hash(answer)
    text = json.dumps(trace)
    for raw in ("CANARY", "/home/dev", "order_id", "A-1", "declined"):
        assert raw not in text


ADK = "gen__otlp-json__google-adk-2.13.0__{}.jsonl"
ADK_LLM = ("llm", "openai/gpt-5-mini", "ok", MAIN)
ADK_PARALLEL = [
    ADK_LLM,
    ("tool", "lookup_order", "ok", MAIN),
    ("tool", "check_stock", "ok", MAIN),
    ADK_LLM,
    ("tool", "charge_card", "error", MAIN),
]
ADK_TRANSFER = [
    ADK_LLM,
    ("handoff", "billing_agent", "ok", MAIN),  # ADK's transfer_to_agent hands over
    ("llm", "openai/gpt-5-mini", "ok", SUB),
    ("tool", "lookup_order", "ok", SUB),
    ("llm", "openai/gpt-5-mini", "ok", SUB),
]

#: Each Google ADK run (native tracing; ``capture-span_only``: content recorded on the spans).
ADK_RUNS: dict[str, tuple[str, list[tuple[str, str, str, str | None]]]] = {
    "parallel-tool-raises": ("error", ADK_PARALLEL),
    "parallel-tool-raises__capture-span_only": ("error", ADK_PARALLEL),
    "transfer": ("success", ADK_TRANSFER),
    "transfer__capture-span_only": ("success", ADK_TRANSFER),
    "agent-tool": (
        "success",
        [
            ADK_LLM,
            ("tool", "billing_agent", "ok", MAIN),
            ("llm", "openai/gpt-5-mini", "ok", SUB),
            ("tool", "lookup_order", "ok", SUB),
            ("llm", "openai/gpt-5-mini", "ok", SUB),
            ADK_LLM,
        ],
    ),
    "api-error": (
        "error",
        [
            ADK_LLM,
            ("tool", "lookup_order", "ok", MAIN),
            ("llm", "openai/gpt-5-mini", "error", MAIN),
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(ADK_RUNS))
def test_adk_run_reads_step_by_step(run_cli: Any, tmp_path: Path, case: str) -> None:
    """A tool that raised has no call id (ADK writes ``<not specified>``, not an id); the
    arguments and answer are read where ADK records content."""
    trace = _import(
        run_cli, tmp_path, ADK.format(case), "--argument-fields", "lookup_order:order_id"
    )
    assert (trace["run"]["final_status"], json_agent_steps(trace)) == ADK_RUNS[case]
    ids = [s["attributes"].get("tool_call_id") for s in trace["spans"] if s["type"] == "tool"]
    assert None not in ids[:-1] and "<not specified>" not in ids
    if case == "transfer__capture-span_only":
        assert trace["run"]["final_output_hash"] == content_hash("CANARY-ANSWER refund approved")
        assert trace["spans"][3]["attributes"]["arguments"] == {"order_id": 42}
    text = json.dumps(trace)
    for raw in ("CANARY", "/home/dev", "A-1", "declined"):
        assert raw not in text


LLAMA = "gen__otlp-json__llama-index-0.14.25__openinference-llama-index-4.6.1__{}.jsonl"
LI_LLM = ("llm", "gpt-4o-mini", "ok", None)

#: Each LlamaIndex run (OpenInference names no agent on its spans: no ``agent``).
LLAMA_RUNS: dict[str, tuple[str, list[tuple[str, str, str, str | None]]]] = {
    "parallel-tool-error": (
        "success",
        [
            LI_LLM,
            ("tool", "lookup_order", "ok", None),
            ("tool", "check_stock", "ok", None),
            LI_LLM,
            ("tool", "charge_card", "error", None),
            LI_LLM,
        ],
    ),
    "handoff": (
        "success",
        [
            LI_LLM,
            ("tool", "handoff", "ok", None),
            LI_LLM,
            ("tool", "lookup_order", "ok", None),
            LI_LLM,
        ],
    ),
    "api-error": (
        "error",
        [LI_LLM, ("tool", "lookup_order", "ok", None), ("llm", "gpt-4o-mini", "error", None)],
    ),
    "cancelled-mid-tool": ("cancelled", [LI_LLM, ("tool", "export_order", "interrupted", None)]),
}


@pytest.mark.parametrize("case", sorted(LLAMA_RUNS))
def test_llama_index_run_reads_step_by_step(run_cli: Any, tmp_path: Path, case: str) -> None:
    """LlamaIndex agents over OpenInference: parallel calls, a failed tool reported to the
    model, a handoff, the API failing and ``cancel_run`` mid-tool."""
    trace = _import(run_cli, tmp_path, LLAMA.format(case))
    assert (trace["run"]["final_status"], json_agent_steps(trace)) == LLAMA_RUNS[case]
    text = json.dumps(trace)
    for raw in ("CANARY", "/home/dev", "order_id", "A-1", "declined"):
        assert raw not in text
