"""One peer tool's convert + evaluate over a folder of abw traces (run by bench_peers.py in
the peers' own virtual environment):

    python benchmarks/peers/run_peer.py PEER FOLDER OUT.json

Each trace file is read and parsed (``json.loads``), converted to the peer's own trace form
(its tool calls in ordinal order), and evaluated with the peer's deterministic checks closest
to the benchmark spec (``Read`` and ``Grep`` called, ``Read`` before ``Grep`` where the peer
can say so, no ``delete_everything``, at most 80 steps). No peer here calls a model. Writes
``{"runs", "passed", "import_s", "loop_s"}`` to OUT.json: the loop's time leaves out the
peer's import, the best case for it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REQUIRED = ["Read", "Grep"]
FORBIDDEN = "delete_everything"
MAX_STEPS = 80


def tool_calls(folder: Path) -> Iterator[list[dict[str, Any]]]:
    """Each trace's tool spans, in ordinal order, as parsed from its file."""
    for path in sorted(folder.rglob("*.json")):
        spans = json.loads(path.read_bytes())["spans"]
        spans.sort(key=lambda span: span["ordinal"])
        yield [span for span in spans if span["type"] == "tool"]


def deepeval_checker() -> Callable[[list[dict[str, Any]]], bool]:
    """deepeval's ToolCorrectnessMetric (expected tools, ordering considered; no model)."""
    os.environ.setdefault("OPENAI_API_KEY", "unused")  # (the metric asks for one; never called)
    os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "YES"
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.test_case import LLMTestCase, ToolCall

    metric = ToolCorrectnessMetric(
        async_mode=False, should_consider_ordering=True, include_reason=False
    )
    expected = [ToolCall(name=name) for name in REQUIRED]

    def check(calls: list[dict[str, Any]]) -> bool:
        called = [ToolCall(name=call["name"]) for call in calls]
        case = LLMTestCase(input="", actual_output="", tools_called=called, expected_tools=expected)
        metric.measure(case, _show_indicator=False)
        return bool(metric.success)

    return check


def agentevals_checker() -> Callable[[list[dict[str, Any]]], bool]:
    """agentevals' trajectory match, superset mode (the required calls, any arguments)."""
    os.environ["LANGSMITH_TRACING"] = "false"
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode="superset", tool_args_match_mode="ignore"
    )

    def messages(names: list[str]) -> list[dict[str, Any]]:
        calls = [
            {"id": f"call-{i}", "type": "function", "function": {"name": n, "arguments": "{}"}}
            for i, n in enumerate(names)
        ]
        return [
            {"role": "user", "content": ""},
            {"role": "assistant", "content": "", "tool_calls": calls},
        ]

    reference = messages(REQUIRED)

    def check(calls: list[dict[str, Any]]) -> bool:
        result = evaluator(
            outputs=messages([c["name"] for c in calls]), reference_outputs=reference
        )
        return bool(result["score"])

    return check


def agentassay_checker() -> Callable[[list[dict[str, Any]]], bool]:
    """AgentAssay's ContractOracle over its ExecutionTrace (tools used, none forbidden, steps)."""
    from agentassay.contracts.oracle import ContractOracle
    from agentassay.core.models import ExecutionTrace, StepTrace

    conditions = [f"uses_tool('{name}')" for name in REQUIRED]
    conditions += [f"not uses_tool('{FORBIDDEN}')", f"step_count <= {MAX_STEPS}"]
    constraints = [
        {"name": f"c{i}", "type": "postcondition", "severity": "hard", "condition": condition}
        for i, condition in enumerate(conditions)
    ]
    oracle = ContractOracle(
        contract_dict={"contract": {"name": "benchmark", "constraints": constraints}}
    )

    def check(calls: list[dict[str, Any]]) -> bool:
        steps = [
            StepTrace(
                step_index=i,
                action="tool_call",
                tool_name=call["name"],
                duration_ms=call.get("duration_ms") or 0.0,
            )
            for i, call in enumerate(calls)
        ]
        trace = ExecutionTrace(scenario_id="benchmark", steps=steps, model="m", framework="f")
        return oracle.evaluate(trace).passed

    return check


PEERS = {
    "deepeval": deepeval_checker,
    "agentevals": agentevals_checker,
    "agentassay": agentassay_checker,
}


def main(argv: list[str]) -> int:
    peer, folder, out = argv
    started = time.perf_counter()
    check = PEERS[peer]()
    imported = time.perf_counter()
    runs = passed = 0
    for calls in tool_calls(Path(folder)):
        passed += check(calls)
        runs += 1
    done = time.perf_counter()
    result = {
        "runs": runs,
        "passed": passed,
        "import_s": imported - started,
        "loop_s": done - imported,
    }
    Path(out).write_text(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
