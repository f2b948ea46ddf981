"""``abw import any-agent`` on real recordings of any-agent 1.18.0 over its frameworks
(TinyAgent, OpenAI Agents, LangChain, smolagents, LlamaIndex, Agno, Google ADK) at a loopback
OpenAI model (tests/corpus/any-agent-live, generator in its ``generate/``): the ``AgentTrace``
JSON its docs save and the same spans exported as OTLP/JSON. Every recorded call a step with its
name, order and outcome; the run's status and final output; no recorded text in the trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from abw.hashing import content_hash
from tests.conftest import CORPUS

LIVE = CORPUS / "any-agent-live"
NAME = "gen__any-agent-1.18.0__{}"
AGENT = "shop_agent"
LLM = ("llm", "openai:gpt-4.1-mini", "ok")
TINY = ("llm", "gpt-4.1-mini", "ok")  # TinyAgent names the model without its provider
Step = tuple[str, str, str]


def _tool(name: str, outcome: str = "ok") -> Step:
    return ("tool", name, outcome)


def _parallel(llm: Step, *calls: str) -> list[Step]:
    """Two calls asked for at once, a call that raised (the run goes on), the answer."""
    return [llm, *map(_tool, calls), llm, _tool("charge_card", "error"), llm]


BOTH = ("lookup_order", "check_stock")
#: any-agent 1.18 may keep one span of two parallel calls (its callbacks share one current
#: span: the second call's span is ended and added twice, the first's never): one step.
LOST = ("check_stock",)
ADK_STOPPED = [LLM, _tool("lookup_order"), LLM, _tool("check_stock"), LLM]

#: Each AgentTrace JSON: the run's final status and its steps (type, name, outcome) in order.
EXPECTED: dict[str, tuple[str, list[Step]]] = {
    "tinyagent__parallel-tool-raises": ("success", _parallel(TINY, *BOTH)),
    "google__parallel-tool-raises": ("success", _parallel(LLM, *BOTH)),
    "llama_index__parallel-tool-raises": ("success", _parallel(LLM, *BOTH)),
    "agno__parallel-tool-raises": ("success", _parallel(LLM, *LOST)),
    "langchain__parallel-tool-raises": ("success", _parallel(LLM, *LOST)),
    # a text answer is no final_answer call: smolagents asks again until its max steps
    "smolagents__parallel-tool-raises": ("success", _parallel(LLM, *LOST) + [LLM] * 18),
    # the OpenAI Agents SDK 0.20 failed on the usage of the first answer: only the root
    "openai__parallel-tool-raises": ("error", []),
    "tinyagent__api-error": ("error", [TINY, _tool("lookup_order")]),
    # a callback raised an AgentCancel before the third call (no span for it)
    "tinyagent__callback-cancel": (
        "error",
        [TINY, _tool("lookup_order"), TINY, _tool("check_stock"), TINY],
    ),
    "google__callback-cancel": ("error", ADK_STOPPED),
    # LlamaIndex took the callback's exception as the tool's error and went on
    "llama_index__callback-cancel": ("success", [*ADK_STOPPED, LLM]),
    # an MCP tool's isError result is text to any-agent: its span's status is ok
    "tinyagent__mcp-tool": ("success", [TINY, _tool("shop_echo"), TINY, _tool("shop_fail"), TINY]),
    # TinyAgent answers a call of an unknown tool itself, untraced
    "tinyagent__unknown-tool": ("success", [TINY, _tool("lookup_order"), TINY]),
    "tinyagent__unicode-args": ("success", [TINY, _tool("read_notes"), TINY]),
    "tinyagent__structured-output": ("success", [TINY, _tool("lookup_order"), TINY]),
    "llama_index__structured-output": ("success", [LLM, _tool("lookup_order"), LLM]),
    # smolagents' final answer ("done", at max steps) did not validate as the output type
    "smolagents__structured-output": ("error", [LLM, _tool("lookup_order")] + [LLM] * 20),
}

#: The runs that raised: any-agent's trace from the exception records ``final_output: null``.
NO_ANSWER = (
    "tinyagent__api-error",
    "tinyagent__callback-cancel",
    "google__callback-cancel",
    "openai__parallel-tool-raises",
    "smolagents__structured-output",  # its last model output is a text
)
STRUCTURED = ("tinyagent__structured-output", "llama_index__structured-output")

#: The OTLP exports of the same runs: status and steps (the same as the AgentTrace's, except
#: where the OTLP exporter kept both parallel calls, and ADK's own span of the call the
#: callback stopped before any-agent's span).
OTLP: dict[str, tuple[str, list[Step]]] = {
    "google__parallel-tool-raises": EXPECTED["google__parallel-tool-raises"],
    "tinyagent__api-error": EXPECTED["tinyagent__api-error"],
    "langchain__parallel-tool-raises": ("success", _parallel(LLM, *BOTH)),
    "google__callback-cancel": ("error", [*ADK_STOPPED, _tool("read_notes", "error")]),
}

RAW = ("CANARY", "/home/dev", "A-1", "SKU-", "4200", "anyagent_notes", "order_id", "Grüße")


def _record(case: str) -> dict[str, Any]:
    return json.loads((LIVE / f"{NAME.format(case)}.json").read_text())


def _import(run_cli: Any, tmp_path: Path, name: str, *extra: str) -> dict[str, Any]:
    out = tmp_path / "traces"
    code, _, err = run_cli("import", "any-agent", "--input", LIVE / name, "--out", out, *extra)
    assert code == 0, err
    (trace,) = [json.loads(p.read_text()) for p in out.iterdir()]
    kept = trace["run"].pop("canonical_output", None)  # the fields named with --output-fields
    exported = trace["source"].pop("exported_at")  # the import's own clock: "…:31.542007Z"
    assert not [raw for raw in RAW if raw in json.dumps(trace)]
    trace["source"]["exported_at"] = exported
    if kept is not None:
        trace["run"]["canonical_output"] = kept
    return trace


def _steps(trace: dict[str, Any]) -> list[Step]:
    return [(s["type"], s["name"], s["outcome"]) for s in trace["spans"]]


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_agent_trace_reads_step_by_step(run_cli: Any, tmp_path: Path, case: str) -> None:
    """Each recorded call is a step with its name, order and outcome; a run that raised (an
    API error, a callback's ``AgentCancel``, the framework's own failure) is an error; tokens
    are the recorded ones; nothing recorded as text reaches the trace."""
    trace = _import(run_cli, tmp_path, f"{NAME.format(case)}.json")
    assert (trace["run"]["final_status"], _steps(trace)) == EXPECTED[case]
    recorded = _record(case)["spans"]
    tokens = sum(s["attributes"].get("gen_ai.usage.input_tokens", 0) for s in recorded)
    assert sum(s["attributes"].get("input_tokens", 0) for s in trace["spans"]) == tokens


@pytest.mark.parametrize("case", sorted(set(EXPECTED) - {*NO_ANSWER, *STRUCTURED}))
def test_recorded_answer_is_the_final_output(run_cli: Any, tmp_path: Path, case: str) -> None:
    """A run that returned: its final output is the ``final_output`` any-agent recorded."""
    trace = _import(run_cli, tmp_path, f"{NAME.format(case)}.json")
    assert trace["run"]["final_output_hash"] == content_hash(_record(case)["final_output"])


@pytest.mark.parametrize("case", NO_ANSWER)
def test_run_that_raised_has_no_final_output(run_cli: Any, tmp_path: Path, case: str) -> None:
    """``final_output: null`` (the trace of an ``AgentRunError``/``AgentCancel``) is a run with
    no answer, not its last model output (a request for tool calls)."""
    assert _record(case)["final_output"] is None
    trace = _import(run_cli, tmp_path, f"{NAME.format(case)}.json")
    assert "final_output_hash" not in trace["run"]


@pytest.mark.parametrize("case", STRUCTURED)
def test_structured_answer_pydantic_dropped_is_the_last_model_answer(
    run_cli: Any, tmp_path: Path, case: str
) -> None:
    """With ``output_type``, ``model_dump_json`` writes ``final_output: {}`` (pydantic drops the
    fields of a model serialised as ``BaseModel``): the answer is the last model output, whose
    fields ``--output-fields`` reads, not one empty object for every structured run."""
    record = _record(case)
    assert record["final_output"] == {}
    answer = [s for s in record["spans"] if "call_llm" in s["name"]][-1]["attributes"]
    name = f"{NAME.format(case)}.json"
    trace = _import(run_cli, tmp_path, name, "--output-fields", "order_id,in_stock")
    assert trace["run"]["final_output_hash"] == content_hash(answer["gen_ai.output"])
    assert trace["run"]["canonical_output"] == {"order_id": "A-1", "in_stock": True}


@pytest.mark.parametrize("case", sorted(OTLP))
def test_otlp_export_reads_as_the_agent_trace(run_cli: Any, tmp_path: Path, case: str) -> None:
    """The same run exported as OTLP: Google ADK's own ``call_llm``/``execute_tool`` spans,
    exported beside any-agent's record of the same calls, are no second step each (tool
    counts doubled, a failed call also read ok); a run that raised has no final output (its
    last model output asked for tool calls); the answer, the calls' input hashes and the
    tokens are the AgentTrace's."""
    trace = _import(run_cli, tmp_path, f"{NAME.format(case)}.otlp.jsonl")
    assert (trace["run"]["final_status"], _steps(trace)) == OTLP[case]
    assert {s["attributes"].get("agent") for s in trace["spans"]} == {AGENT}
    native = _import(run_cli, tmp_path / "native", f"{NAME.format(case)}.json")
    assert trace["run"].get("final_output_hash") == native["run"].get("final_output_hash")
    hashes = {(s["name"], s.get("input_hash")) for s in native["spans"] if s["type"] == "tool"}
    assert hashes <= {(s["name"], s.get("input_hash")) for s in trace["spans"]}
    if _steps(native) == _steps(trace):
        assert [s["attributes"].get("input_tokens") for s in trace["spans"]] == [
            s["attributes"].get("input_tokens") for s in native["spans"]
        ]
