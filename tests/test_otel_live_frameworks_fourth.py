"""``abw import otel`` on real OTLP/JSON exports of AutoGen AgentChat 0.7.5 runs (its built-in
GenAI spans: ``invoke_agent``, ``execute_tool``, ``create_agent``, and its runtime's
``autogen publish/process`` spans in teams; ``OpenAIChatCompletionClient`` at a loopback
model; tests/corpus/otel-live-fourth, generator in its ``generate/``): every tool call a step
with its name, order, outcome and agent; the run's status; no recorded text in the trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from abw.hashing import content_hash
from tests.conftest import CORPUS
from tests.importkit import cli_import, cli_import_one, json_agent_steps

LIVE = CORPUS / "otel-live-fourth"
AUTOGEN = "gen__otlp-json__autogen-agentchat-0.7.5__{}.jsonl"
MAIN, SUB = "support_agent", "billing_agent"

#: Each single-agent run: its final status and steps (type, name, outcome, agent) in order.
#: AutoGen traces no model call and no content: its runs are their tool calls.
EXPECTED: dict[str, tuple[str, list[tuple[str, str, str, str]]]] = {
    "parallel-tool-raises": (
        "success",
        [
            ("tool", "lookup_order", "ok", MAIN),
            ("tool", "check_stock", "ok", MAIN),
            ("tool", "charge_card", "error", MAIN),
        ],
    ),
    "api-error": ("error", [("tool", "lookup_order", "ok", MAIN)]),
    "agent-tool": (
        "success",
        [("tool", SUB, "ok", MAIN), ("tool", "lookup_order", "ok", SUB)],
    ),
}

#: Each team's one run (AutoGen's runtime starts a trace per message; their span links join them),
#: a Swarm's ``transfer_to_<agent>`` a handoff to that agent.
TEAMS: dict[str, list[tuple[str, str, str, str]]] = {
    "swarm-handoff": [("handoff", SUB, "ok", "triage_agent"), ("tool", "lookup_order", "ok", SUB)],
    "round-robin": [("tool", "lookup_order", "ok", SUB)],
}

RAW = ("CANARY", "/home/dev", "order_id", "A-1", "declined", "topic_", "GroupChat")


def _import(run_cli: Any, tmp_path: Path, case: str) -> list[dict[str, Any]]:
    return cli_import(run_cli, "otel", LIVE / AUTOGEN.format(case), tmp_path / "traces")[0]


def _no_raw_text(traces: list[dict[str, Any]]) -> None:
    text = json.dumps(traces)
    for raw in RAW:
        assert raw not in text


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_autogen_run_reads_step_by_step(run_cli: Any, tmp_path: Path, case: str) -> None:
    """Parallel calls in the order the model asked for them, a tool that raised is an error
    (the run goes on), a model API failure fails the run, an ``AgentTool``'s calls are the
    sub-agent's; the ``create_agent`` traces of the agents' construction are no runs."""
    traces = _import(run_cli, tmp_path, case)
    status, steps = EXPECTED[case]
    assert [(t["run"]["final_status"], json_agent_steps(t)) for t in traces] == [(status, steps)]
    _no_raw_text(traces)


@pytest.mark.parametrize("case", sorted(TEAMS))
def test_autogen_team_turns_name_their_agents(run_cli: Any, tmp_path: Path, case: str) -> None:
    """A team run is one run whose agent turns each name their agent; the runtime's message
    spans (whose ``message`` attribute holds the prompt and the replies) are infrastructure and
    leak nothing."""
    traces = _import(run_cli, tmp_path, case)
    assert [json_agent_steps(t) for t in traces] == [TEAMS[case]]
    assert [t["run"]["final_status"] for t in traces] == ["success"]
    _no_raw_text(traces)


SK = "gen__otlp-json__semantic-kernel-1.45.0__{}.jsonl"
SK_LLM = ("llm", "gpt-4o-mini", "ok", MAIN)


def test_semantic_kernel_run_reads_step_by_step(run_cli: Any, tmp_path: Path) -> None:
    """Semantic Kernel's ``ChatCompletionAgent``: its model calls (token counts as digit
    strings) and parallel plugin calls in order, the plugin that raised is an error, the answer
    is the agent's ``gen_ai.output.messages``; the recorded arguments and results are hashed."""
    name = SK.format("parallel-tool-raises")
    trace = cli_import_one(run_cli, "otel", LIVE / name, tmp_path / "trace.json")
    assert json_agent_steps(trace) == [
        SK_LLM,
        ("tool", "Shop-lookup_order", "ok", MAIN),
        ("tool", "Shop-check_stock", "ok", MAIN),
        SK_LLM,
        ("tool", "Shop-charge_card", "error", MAIN),
        SK_LLM,
    ]
    assert trace["run"]["final_status"] == "success"
    assert trace["run"]["final_output_hash"] == content_hash("CANARY-ANSWER refund refused")
    assert [s["attributes"].get("input_tokens") for s in trace["spans"][::3]] == [50, 60]
    _no_raw_text([trace])


def test_semantic_kernel_api_error_fails_the_model_call_and_run(
    run_cli: Any, tmp_path: Path
) -> None:
    """A model API failure after a tool turn: the failed call is an error, and so is the run."""
    trace = cli_import_one(run_cli, "otel", LIVE / SK.format("api-error"), tmp_path / "trace.json")
    failed = ("llm", "gpt-4o-mini", "error", MAIN)
    assert json_agent_steps(trace) == [SK_LLM, ("tool", "Shop-lookup_order", "ok", MAIN), failed]
    assert trace["run"]["final_status"] == "error"
    _no_raw_text([trace])


@pytest.mark.parametrize(
    ("name", "steps"),
    [
        (AUTOGEN.format("cancelled-mid-tool"), [("tool", "export_order", "ok", MAIN)]),
        (SK.format("cancelled-mid-tool"), [SK_LLM, ("tool", "Shop-export_order", "ok", MAIN)]),
    ],
    ids=["autogen", "semantic-kernel"],
)
def test_cancelled_run_keeps_its_steps(
    run_cli: Any, tmp_path: Path, name: str, steps: list[Any]
) -> None:
    """A run whose task was cancelled mid-tool: both frameworks end every span cleanly (no
    status, no exception event: their span helpers record ``Exception`` only), so the export
    cannot tell the cancel; the steps that ran are there and nothing recorded leaks."""
    trace = cli_import_one(run_cli, "otel", LIVE / name, tmp_path / "trace.json")
    assert json_agent_steps(trace) == steps
    _no_raw_text([trace])
