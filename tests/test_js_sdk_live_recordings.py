"""Real uploads of the JavaScript SDKs: @openai/agents 0.20.0's ``OpenAITracingExporter``
(each POST body one line) and langsmith-js 0.12.0 tracing LangGraph.js ``createReactAgent``
(its /runs/multipart and /runs/batch bodies), the models a loopback OpenAI stub.

The corpus (tests/corpus/js-sdks-live/) holds the bodies; generate/ holds the scripts that drove
the real npm packages. Each recording is imported with the real CLI, as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abw.hashing import content_hash
from tests.conftest import CORPUS
from tests.importkit import cli_import, json_steps

LIVE = CORPUS / "js-sdks-live"
AGENTS = LIVE / "openai-agents-js"
LANGSMITH = LIVE / "langsmith-js"
#: Every free text the runs held carries this marker (prompts, tool inputs and outputs, errors).
CANARY = "CANARY"


def _agents(scenario: str) -> Path:
    return AGENTS / f"gen__openai-agents-js-0.20.0__{scenario}.jsonl"


@pytest.fixture
def imported(run_cli, tmp_path):
    """Import a recording (a file, or a folder of one run's bodies) with the real CLI; its
    traces as JSON, in order. None holds a raw text or a path of the generating machine."""

    def run(importer: str, source: Path) -> list[dict]:
        out = tmp_path / importer / source.name
        traces, _ = cli_import(run_cli, importer, source, out)
        texts = [json.dumps(t) for t in traces]
        assert not [t for t in texts if CANARY in t or "/home/dev" in t or "overloaded" in t]
        return traces

    return run


def _tokens(trace: dict) -> list[tuple[int | None, int | None]]:
    """(input_tokens, output_tokens) of each llm span, in order."""
    return [
        (s["attributes"].get("input_tokens"), s["attributes"].get("output_tokens"))
        for s in trace["spans"]
        if s["type"] == "llm"
    ]


@pytest.mark.parametrize("path", sorted(AGENTS.glob("*.jsonl")), ids=lambda p: p.stem)
def test_every_agents_js_upload_imports(imported, path):
    for trace in imported("openai-agents", path):
        assert trace["spans"] and trace["run"]["final_status"]


@pytest.mark.parametrize("path", sorted(LANGSMITH.iterdir()), ids=lambda p: p.name)
def test_every_langsmith_js_recording_imports(imported, path):
    for trace in imported("langsmith", path):
        assert trace["spans"] and trace["run"]["final_status"]


# --- @openai/agents (JS) 0.20.0 --------------------------------------------------------------


def test_parallel_calls_and_non_fatal_tool_errors(imported):
    """A throwing tool is ``Error running tool (non-fatal)`` on its span: an error, the run goes
    on and succeeds. Each turn's usage (recorded on the ``turn`` span, none on the Responses
    model's ``response`` span) is its one model call's."""
    (trace,) = imported("openai-agents", _agents("tools-parallel"))
    assert trace["run"]["final_status"] == "success"
    assert trace["run"]["workflow_name"] == "Agent workflow"
    assert sorted(json_steps(trace)[1:3]) == [
        ("tool", "read_file", "ok"),
        ("tool", "run_shell", "error"),
    ]
    assert json_steps(trace)[3:] == [
        ("llm", "response", "ok"),
        ("tool", "read_file", "error"),
        ("llm", "response", "ok"),
    ]
    assert _tokens(trace) == [(50, 12), (60, 12), (70, 12)]
    assert {s["attributes"]["agent"] for s in trace["spans"]} == {"shop_dev"}


def test_a_run_its_caller_aborted_is_cancelled_not_failed(imported):
    """``run(agent, input, {signal})`` with the signal aborted: the SDK records ``AbortError``
    on the task, agent and turn spans. The tool running then finished (it ignores the signal)."""
    (trace,) = imported("openai-agents", _agents("abort-tool"))
    assert trace["run"]["final_status"] == "cancelled"
    assert json_steps(trace) == [
        ("llm", "response", "ok"),
        ("tool", "read_file", "ok"),
        ("llm", "response", "ok"),
        ("tool", "run_tests", "ok"),
    ]


def test_a_streamed_run_aborted_leaves_no_mark(imported):
    """Known limit: aborting a streamed run lets the running tool settle and returns, recording
    no error; the upload has the very shape of a run that stops at a tool by configuration
    (``toolUseBehavior: {stopAtToolNames}``), so both read as ended."""
    (aborted,) = imported("openai-agents", _agents("streamed-abort"))
    (stopped,) = imported("openai-agents", _agents("stop-at-tool"))
    for trace in (aborted, stopped):
        assert trace["run"]["final_status"] == "success"
        assert "final_output_hash" not in trace["run"]
    assert json_steps(aborted) == json_steps(stopped)
    assert [s["input_hash"] for s in aborted["spans"] if s["type"] == "tool"] == [
        s["input_hash"] for s in stopped["spans"] if s["type"] == "tool"
    ]


def test_handoffs_and_an_agent_run_as_a_tool(imported):
    """Handoffs name their target; the agent ``asTool`` runs below its ``function`` span. A
    Chat Completions ``generation`` span carries no ``usage``: a turn with one model call gives
    its turn's, the turn whose tool ran an agent (its usage adds that agent's calls) gives the
    answer's own ``usage`` (prompt/completion tokens)."""
    (trace,) = imported("openai-agents", _agents("handoffs-as-tool"))
    assert trace["run"]["final_status"] == "success"
    assert json_steps(trace) == [
        ("llm", "gpt-4.1-mini", "ok"),
        ("handoff", "billing", "ok"),
        ("llm", "gpt-4.1-mini", "ok"),
        ("handoff", "refunds", "ok"),
        ("llm", "gpt-4.1-mini", "ok"),
        ("tool", "check_policy", "ok"),
        ("llm", "gpt-4.1-mini", "ok"),
        ("tool", "read_file", "ok"),
        ("llm", "gpt-4.1-mini", "ok"),
        ("llm", "gpt-4.1-mini", "ok"),
    ]
    spans = trace["spans"]
    assert [s.get("parent_span_id") for s in spans[6:9]] == [spans[5]["span_id"]] * 3
    assert not [s for s in spans[:6] + spans[9:] if s.get("parent_span_id")]
    assert [s["attributes"]["agent"] for s in spans] == [
        "triage", "triage", "billing", "billing", "refunds", "refunds",
        "policy_checker", "policy_checker", "policy_checker", "refunds",
    ]  # fmt: skip
    assert _tokens(trace) == [(50, 12), (60, 12), (70, 12), (80, 12), (90, 12), (100, 12)]
    final = "Your refund for order 42 is approved. CANARY-FINAL"
    assert trace["run"]["final_output_hash"] == content_hash(final)


def test_a_guardrail_trip_and_an_api_error(imported):
    """An output guardrail that trips is denied and fails its run (``withTrace`` names the
    trace); the next run's model call answered 500 (after the client's retries) fails it."""
    tripped, failed = imported("openai-agents", _agents("guardrail-then-api-error"))
    assert tripped["run"]["workflow_name"] == "Shop checks"
    assert tripped["run"]["final_status"] == "error"
    assert json_steps(tripped) == [("llm", "response", "ok"), ("guardrail", "no_secrets", "denied")]
    assert tripped["spans"][1]["attributes"]["triggered"] is True
    assert failed["run"]["final_status"] == "error"
    assert json_steps(failed) == [("llm", "response", "error")]


def test_max_turns_exceeded_fails_the_run(imported):
    (trace,) = imported("openai-agents", _agents("max-turns-streamed"))
    assert trace["run"]["final_status"] == "error"
    assert [name for _, name, outcome in json_steps(trace) if outcome == "ok"] == [
        "response", "read_file", "response", "read_file",
    ]  # fmt: skip


def test_approvals_resumed_in_the_same_trace(imported):
    """The run pauses for two approvals and resumes in the same trace: the rejected call is
    rejected and records no arguments (the SDK writes ``input: ''``, which is no input of
    the call), the approved one ran."""
    (trace,) = imported("openai-agents", _agents("approvals"))
    assert trace["run"]["final_status"] == "success"
    assert json_steps(trace) == [
        ("llm", "response", "ok"),
        ("tool", "issue_refund", "rejected"),
        ("tool", "issue_refund", "ok"),
        ("llm", "response", "ok"),
    ]
    rejected, approved = trace["spans"][1:3]
    assert "input_hash" not in rejected
    assert approved["input_hash"] == content_hash('{"order_id": "42", "amount": 9.5}')


def test_argument_fields_of_the_approved_call(imported, run_cli, tmp_path):
    out = tmp_path / "args"
    (trace,), _ = cli_import(
        run_cli, "openai-agents", _agents("approvals"), out, "--argument-fields",
        "issue_refund:amount",
    )  # fmt: skip
    assert [s["attributes"].get("arguments") for s in trace["spans"]] == [
        None, None, {"amount": 9.5}, None,
    ]  # fmt: skip


# --- langsmith-js 0.12.0, LangGraph.js createReactAgent ------------------------------------


def test_parallel_tool_calls(imported):
    (trace,) = imported("langsmith", LANGSMITH / "parallel-multipart")
    assert trace["run"]["final_status"] == "success"
    assert json_steps(trace) == [
        ("llm", "gpt-4o-mini", "ok"),
        ("tool", "lookup_order", "ok"),
        ("tool", "check_stock", "ok"),
        ("llm", "gpt-4o-mini", "ok"),
    ]
    assert trace["run"]["final_output_hash"]


def test_streamed_batch_body(imported):
    (trace,) = imported("langsmith", LANGSMITH / "stream-batch")
    assert trace["run"]["final_status"] == "success"
    assert [name for _, name, _ in json_steps(trace)] == [
        "gpt-4o-mini",
        "lookup_order",
        "gpt-4o-mini",
    ]


def test_a_tool_error_is_the_class_at_the_head_of_the_js_stack(imported):
    """langsmith-js records ``message + "\\n\\n" + stack``; the stack opens with the class. The
    message (free text) never becomes the class; ToolNode hands the error to the model, the run
    goes on."""
    (trace,) = imported("langsmith", LANGSMITH / "tool_error-multipart")
    assert trace["run"]["final_status"] == "success"
    assert json_steps(trace)[1] == ("tool", "charge_card", "error")
    assert trace["spans"][1]["attributes"]["error_type"] == "Error"


def test_an_api_error_fails_the_run(imported):
    (trace,) = imported("langsmith", LANGSMITH / "api_error-multipart")
    assert trace["run"]["final_status"] == "error"
    assert json_steps(trace)[-1] == ("llm", "gpt-4o-mini", "error")
    assert trace["spans"][-1]["attributes"]["error_type"] == "Error"


def test_an_interrupt_waits_then_its_resume_is_a_trace_of_its_own(imported):
    """``interrupt()`` in a tool: the JS ``GraphInterrupt`` (its message a JSON list) pauses
    the run, which ends ``unknown``; the ``Command({resume})`` run is a second trace."""
    paused, resumed = imported("langsmith", LANGSMITH / "interrupt-multipart")
    assert paused["run"]["final_status"] == "unknown"
    assert json_steps(paused) == [("llm", "gpt-4o-mini", "ok"), ("tool", "refund", "incomplete")]
    assert paused["spans"][1]["attributes"]["error_type"] == "GraphInterrupt"
    assert resumed["run"]["final_status"] == "success"
    assert json_steps(resumed) == [("tool", "refund", "ok"), ("llm", "gpt-4o-mini", "ok")]


def test_a_sub_agent_sits_below_the_tool_that_ran_it(imported):
    (trace,) = imported("langsmith", LANGSMITH / "subagent-multipart")
    assert trace["run"]["final_status"] == "success"
    spans = trace["spans"]
    assert [s["name"] for s in spans] == [
        "gpt-4o-mini", "ask_billing", "gpt-4o-mini", "lookup_order", "gpt-4o-mini", "gpt-4o-mini",
    ]  # fmt: skip
    assert [s.get("parent_span_id") for s in spans] == [None, None] + [spans[1]["span_id"]] * 3 + [
        None
    ]


def test_a_graph_its_caller_aborted_is_cancelled(imported):
    """The caller's ``AbortSignal``: the running tool records ``AbortError`` (interrupted), the
    graph LangGraph.js's ``Error("Abort")``; the run was cancelled, it did not fail."""
    (trace,) = imported("langsmith", LANGSMITH / "abort-multipart")
    assert trace["run"]["final_status"] == "cancelled"
    assert json_steps(trace) == [
        ("llm", "gpt-4o-mini", "ok"),
        ("tool", "lookup_order", "ok"),
        ("tool", "run_tests", "interrupted"),
    ]
    assert trace["spans"][2]["attributes"]["error_type"] == "AbortError"


def test_a_graph_stopped_by_its_own_timeout_failed(imported):
    """``invoke(input, {timeout})``: the graph records the same ``Error("Abort")``, the tool a
    ``TimeoutError``: a timeout, and the run an error, not a cancellation."""
    (trace,) = imported("langsmith", LANGSMITH / "timeout-multipart")
    assert trace["run"]["final_status"] == "error"
    assert json_steps(trace)[-1] == ("tool", "run_tests", "timeout")
    assert trace["spans"][-1]["attributes"]["error_type"] == "TimeoutError"
