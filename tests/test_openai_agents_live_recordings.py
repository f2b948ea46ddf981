"""Real uploads of the OpenAI Agents SDK 0.24.0's own ``BackendSpanExporter``, collected at a
loopback ingest endpoint (each POST body one line), the model a loopback OpenAI stub.

The corpus (tests/corpus/openai-agents-live/) holds the bodies byte for byte; generate/ holds the
stub, the MCP server and the script that drove the SDK."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from tests.importkit import cli_written, json_steps

LIVE = CORPUS / "openai-agents-live"
#: Every free text the runs held carries this marker (prompts, outputs, metadata, custom data).
CANARY = "CANARY"


def _file(scenario: str) -> Path:
    return LIVE / f"gen__openai-agents-0.24.0__{scenario}.jsonl"


@pytest.fixture
def imported(run_cli, tmp_path):
    """Import one recording with the real CLI into a folder; its traces as JSON, in order."""

    def run(path: Path) -> list[dict]:
        files, _ = cli_written(run_cli, "openai-agents", path, tmp_path / path.stem)
        texts = [f.read_text() for f in files]
        assert not [t for t in texts if CANARY in t or "/home/dev" in t]
        return [json.loads(t) for t in texts]

    return run


def test_several_uploads_each_a_line_import_as_their_runs(imported):
    """A run longer than the exporter's batch delay, or flushed per request, is uploaded in
    several POSTs; each body kept as a line was refused ('no trace or trace.span objects')."""
    first, second = imported(_file("session-two-runs"))
    assert first["run"]["trace_id"] != second["run"]["trace_id"]
    for trace in (first, second):
        assert trace["run"]["final_status"] == "success"
        assert trace["run"]["workflow_name"] == "Shop chat"
        assert json_steps(trace) == [
            ("llm", "gpt-4.1-mini", "ok"),
            ("tool", "read_file", "ok"),
            ("llm", "gpt-4.1-mini", "ok"),
        ]


def test_a_stream_cancelled_while_a_tool_ran_is_cancelled(imported):
    """``result.cancel()`` while ``run_tests`` ran: its span ends after its turn with no
    output and no error (it read as a successful call of a successful run)."""
    (trace,) = imported(_file("streamed-cancel"))
    assert trace["run"]["final_status"] == "cancelled"
    assert json_steps(trace) == [
        ("llm", "response", "ok"),
        ("tool", "read_file", "ok"),
        ("tool", "run_shell", "error"),
        ("llm", "response", "ok"),
        ("tool", "run_tests", "interrupted"),
    ]


def test_a_stream_cancelled_while_the_model_answered_is_cancelled(imported, tmp_path):
    """``result.cancel()`` while the second model call streamed: the SDK records nothing for a
    cancelled call (only a marked model timeout), so its span ends with no error, no response
    id and no usage, while every call that returned records usage. It read as a successful
    model call of a successful run."""
    body = json.loads(_file("streamed-cancel").read_text().splitlines()[0])
    items = []
    for item in body["data"]:
        data = item.get("span_data", {})
        if data.get("type") == "function" and data.get("name") == "run_tests":
            continue  # the model never got to ask for it
        if item.get("id", "").endswith("b05dc73e"):  # the second model call
            data["response_id"] = data["usage"] = None
        if item.get("id", "").endswith("94dbd82b"):  # its turn accrued no usage
            data["data"].pop("usage", None)
        items.append(item)
    body["data"] = items
    path = tmp_path / "cancelled-mid-answer.jsonl"
    path.write_text(json.dumps(body) + "\n")
    (trace,) = imported(path)
    assert trace["run"]["final_status"] == "cancelled"
    assert json_steps(trace)[-1] == ("llm", "response", "interrupted")
    assert [s[2] for s in json_steps(trace)[:-1]] == ["ok", "ok", "error"]


def test_approval_requests_are_no_calls_and_a_rejection_is_rejected(imported):
    """Two refunds need approval: 0.24 traces each request as a function span with no output;
    the run resumes from its state in the same trace, the approved call runs again (its own
    span), the rejected one leaves no span. They read as three successful refunds."""
    (trace,) = imported(_file("approvals"))
    assert trace["run"]["final_status"] == "success"
    assert json_steps(trace) == [
        ("llm", "response", "ok"),
        ("tool", "issue_refund", "rejected"),
        ("tool", "issue_refund", "ok"),
        ("llm", "response", "ok"),
    ]


def test_a_run_waiting_for_approval_is_not_finished(imported, tmp_path):
    """The first upload alone (the person has not answered yet): the calls wait, the run is
    not a success."""
    waiting = tmp_path / "waiting.json"
    waiting.write_bytes(_file("approvals").read_bytes().split(b"\n")[0])
    (trace,) = imported(waiting)
    assert trace["run"]["final_status"] == "unknown"
    assert [s.get("outcome") for s in trace["spans"]] == ["ok", "incomplete", "incomplete"]


def test_handoffs_and_an_agent_used_as_a_tool(imported):
    """triage -> billing -> refunds, which asks policy_checker through check_policy (its calls
    nested below that tool, named by their agent); the answer is the last generation's."""
    (trace,) = imported(_file("handoffs-as-tool"))
    assert trace["run"]["final_status"] == "success"
    assert trace["run"]["final_output_hash"]
    assert [
        (t, n, s.get("attributes", {}).get("agent"))
        for (t, n, _), s in zip(json_steps(trace), trace["spans"], strict=True)
    ] == [
        ("llm", "gpt-4.1-mini", "triage"),
        ("handoff", "billing", "triage"),
        ("llm", "gpt-4.1-mini", "billing"),
        ("handoff", "refunds", "billing"),
        ("llm", "gpt-4.1-mini", "refunds"),
        ("tool", "check_policy", "refunds"),
        ("llm", "gpt-4.1-mini", "policy_checker"),
        ("tool", "read_file", "policy_checker"),
        ("llm", "gpt-4.1-mini", "policy_checker"),
        ("llm", "gpt-4.1-mini", "refunds"),
    ]


@pytest.mark.parametrize(
    ("scenario", "statuses", "steps"),
    [
        (
            "mcp-stdio",  # the SDK marks no MCP tool error: reserve_stock's isError is text only
            ["success"],
            [
                ("llm", "response", "ok"),
                ("tool", "lookup_sku", "ok"),
                ("tool", "reserve_stock", "ok"),
                ("llm", "response", "ok"),
            ],
        ),
        (
            "max-turns-streamed",
            ["error"],
            [("llm", "response", "ok"), ("tool", "read_file", "ok")] * 2,
        ),
        (
            "guardrail-then-api-error",
            ["error", "error"],
            [("llm", "response", "ok"), ("guardrail", "no_secrets", "denied")],
        ),
        (
            "trace-two-runs",
            ["success"],
            [
                ("llm", "response", "ok"),
                ("llm", "response", "ok"),
                ("tool", "run_shell", "ok"),
                ("llm", "response", "ok"),
            ],
        ),
    ],
)
def test_real_runs_read_as_they_ran(imported, scenario, statuses, steps):
    """The first trace's steps and every trace's status (the API error: a failed response)."""
    traces = imported(_file(scenario))
    assert [t["run"]["final_status"] for t in traces] == statuses
    assert json_steps(traces[0]) == steps
    if scenario == "guardrail-then-api-error":
        assert json_steps(traces[1]) == [("llm", "response", "error")]
