"""``abw import otel`` on real OTLP/JSON exports written by agent frameworks run against a
loopback model (tests/corpus/otel-live, generators in its ``generate/``): pydantic-ai's own
instrumentation (version 6) and smolagents traced by OpenInference. Every tool call that ran is
a step with its name, order and outcome; the run's status and final output are the run's own;
no recorded text reaches the trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from abw.hashing import content_hash
from tests.conftest import CORPUS
from tests.importkit import cli_import

LIVE = CORPUS / "otel-live"
PYDANTIC = "gen__otlp-json__pydantic-ai-2.68.0__v6__{}.jsonl"
SMOL = "gen__otlp-json__smolagents-1.26.0__openinference-0.1.43__{}.jsonl"

LLM = ("llm", "gpt-5-mini", "ok")

#: Each recording's runs: final status and the steps (type, name, outcome) in order.
EXPECTED: dict[str, list[tuple[str, list[tuple[str, str, str]]]]] = {
    PYDANTIC.format("parallel-tool-raises"): [
        (
            "error",
            [
                LLM,
                ("tool", "lookup_order", "ok"),
                ("tool", "check_stock", "ok"),
                LLM,
                ("tool", "charge_card", "error"),
            ],
        )
    ],
    "gen__otlp-json__pydantic-ai-2.68.0__v2__parallel-tool-raises.jsonl": [
        (
            "error",
            [
                LLM,
                ("tool", "lookup_order", "ok"),
                ("tool", "check_stock", "ok"),
                LLM,
                ("tool", "charge_card", "error"),
            ],
        )
    ],
    PYDANTIC.format("cancelled-mid-tool"): [
        (
            "cancelled",
            [LLM, ("tool", "lookup_order", "ok"), LLM, ("tool", "export_order", "interrupted")],
        )
    ],
    PYDANTIC.format("stream-structured-output"): [
        ("success", [LLM, ("tool", "lookup_order", "ok"), LLM])
    ],
    PYDANTIC.format("usage-limit-exceeded"): [("error", [LLM, ("tool", "lookup_order", "ok")] * 2)],
    PYDANTIC.format("api-error"): [
        ("error", [LLM, ("tool", "lookup_order", "ok"), ("llm", "gpt-5-mini", "error")])
    ],
    # the first run ends with issue_refund awaiting approval (its DeferredToolRequests): the
    # call was made and never ran, and the run waits (it read success, with no such span)
    PYDANTIC.format("approval-denied-resumed"): [
        ("unknown", [LLM, ("tool", "lookup_order", "ok"), ("tool", "issue_refund", "incomplete")]),
        ("success", [LLM]),
    ],
    PYDANTIC.format("delegation-retries-exhausted"): [
        (
            "error",
            [
                LLM,
                ("tool", "ask_billing", "ok"),
                LLM,
                ("tool", "lookup_order", "ok"),
                LLM,
                LLM,
                ("tool", "verify", "error"),
                LLM,
                ("tool", "verify", "error"),
            ],
        )
    ],
    SMOL.format("tool-calling-parallel-error"): [
        (
            "success",
            [
                LLM,
                ("tool", "lookup_order", "ok"),
                ("tool", "check_stock", "ok"),
                LLM,
                ("tool", "charge_card", "error"),
                LLM,
                ("tool", "final_answer", "ok"),
            ],
        )
    ],
    SMOL.format("code-agent"): [
        (
            "success",
            [
                LLM,
                ("tool", "lookup_order", "ok"),
                LLM,
                ("tool", "charge_card", "error"),
                LLM,
                ("tool", "final_answer", "ok"),
            ],
        )
    ],
    SMOL.format("max-steps"): [("success", [LLM, ("tool", "lookup_order", "ok")] * 2 + [LLM])],
    SMOL.format("late-api-error"): [
        (
            "error",
            [
                LLM,
                ("tool", "lookup_order", "ok"),
                LLM,
                ("tool", "check_stock", "ok"),
                ("llm", "OpenAIModel.generate", "error"),
            ],
        )
    ],
    SMOL.format("api-error"): [("error", [("llm", "OpenAIModel.generate", "error")])],
}


def _import(run_cli: Any, tmp_path: Path, name: str, *extra: str) -> tuple[list[dict], str]:
    return cli_import(run_cli, "otel", LIVE / name, tmp_path / "traces", *extra)


def _runs(traces: list[dict]) -> list[tuple[str, list[tuple[str, str, str]]]]:
    ordered = sorted(traces, key=lambda t: t["spans"][0]["started_at"])
    return [
        (t["run"]["final_status"], [(s["type"], s["name"], s["outcome"]) for s in t["spans"]])
        for t in ordered
    ]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_live_recording_reads_step_by_step(run_cli: Any, tmp_path: Path, name: str) -> None:
    traces, _ = _import(run_cli, tmp_path, name)
    assert _runs(traces) == EXPECTED[name]
    text = json.dumps(traces)
    for raw in ("CANARY", "/home/dev", "order_id", "A-1", "declined"):
        assert raw not in text


def _final_result(name: str) -> str:
    """The ``final_result`` pydantic-ai recorded on its outermost agent span."""
    for line in (LIVE / name).read_text().splitlines():
        for resource in json.loads(line)["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    attributes = {a["key"]: a["value"] for a in span.get("attributes", [])}
                    own = span["name"] == "invoke_agent support_agent"
                    if own and "final_result" in attributes:
                        return attributes["final_result"]["stringValue"]
    raise AssertionError(name)


def test_pydantic_ai_structured_output_is_its_final_result(run_cli: Any, tmp_path: Path) -> None:
    """A structured output (the model's call of pydantic-ai's ``final_result`` tool) is the
    run's answer as pydantic-ai recorded it, not the last model message (a tool call with a
    per-run call id), and ``--output-fields`` reads its fields."""
    name = PYDANTIC.format("stream-structured-output")
    (trace,), err = _import(run_cli, tmp_path, name, "--output-fields", "approved,order_id")
    assert trace["run"]["canonical_output"] == {"approved": True, "order_id": 42}
    assert trace["run"]["final_output_hash"] == content_hash(_final_result(name))
    assert "in no final answer" not in err


def test_pydantic_ai_sub_agent_answer_is_not_the_failed_runs(run_cli: Any, tmp_path: Path) -> None:
    """A run that failed records no ``final_result``; the delegated agent's (deeper) answer
    is not the run's final output."""
    (trace,), _ = _import(run_cli, tmp_path, PYDANTIC.format("delegation-retries-exhausted"))
    assert trace["run"]["final_output_hash"] != content_hash("CANARY-SUB-ANSWER yes")


def test_pydantic_ai_deferred_run_output_is_its_final_result(run_cli: Any, tmp_path: Path) -> None:
    """A run that ended awaiting approval answers with its deferred tool requests."""
    name = PYDANTIC.format("approval-denied-resumed")
    first, second = sorted(
        _import(run_cli, tmp_path, name)[0], key=lambda t: t["spans"][0]["started_at"]
    )
    assert first["run"]["final_output_hash"] == content_hash(_final_result(name))
    assert second["run"]["final_output_hash"] == content_hash(
        "CANARY-ANSWER The refund was not approved."
    )


def test_smolagents_agent_is_named_as_the_agent_not_its_run_method(
    run_cli: Any, tmp_path: Path
) -> None:
    """smolagents names its OpenInference agent span ``<agent>.run``: the steps' agent is the
    agent's name, the manager's and its managed agent's apart."""
    (trace,), _ = _import(run_cli, tmp_path, SMOL.format("managed-agent"))
    steps = [(s["type"], s["name"], s["attributes"]["agent"]) for s in trace["spans"]]
    manager, billing = "support_agent", "billing_agent"
    assert steps == [
        ("llm", "gpt-5-mini", manager),
        ("llm", "gpt-5-mini", billing),
        ("tool", "lookup_order", billing),
        ("llm", "gpt-5-mini", billing),
        ("tool", "final_answer", billing),
        ("llm", "gpt-5-mini", manager),
        ("tool", "final_answer", manager),
    ]
    assert trace["run"]["final_status"] == "success"


def test_pydantic_ai_version_2_tool_content_and_arguments(run_cli: Any, tmp_path: Path) -> None:
    """pydantic-ai's instrumentation version 2 (pydantic-ai 1.x's default) records a tool's
    call in ``tool_arguments`` and its result in ``tool_response`` on ``running tool`` spans:
    the same hashes as version 6's ``gen_ai.tool.call.*``, and ``--argument-fields`` reads
    them."""
    fields = ("--argument-fields", "lookup_order:order_id")
    runs = {}
    for version in ("v2", "v6"):
        name = f"gen__otlp-json__pydantic-ai-2.68.0__{version}__parallel-tool-raises.jsonl"
        (trace,), _ = _import(run_cli, tmp_path / version, name, *fields)
        runs[version] = [
            (s["name"], s.get("input_hash"), s.get("output_hash"), s["attributes"].get("arguments"))
            for s in trace["spans"]
            if s["type"] == "tool"
        ]
    assert runs["v2"] == runs["v6"]
    assert runs["v2"][0][3] == {"order_id": 42}
    assert all(input_hash for _, input_hash, _, _ in runs["v2"])
    assert [bool(output) for _, _, output, _ in runs["v2"]] == [True, True, False]


def test_pydantic_ai_run_cancelled_mid_tool_is_cancelled(run_cli: Any, tmp_path: Path) -> None:
    """pydantic-ai ends its agent span with no error when the run's task is cancelled; only
    the tool in flight records the ``CancelledError``: the run was cancelled, not a success."""
    (trace,), _ = _import(run_cli, tmp_path, PYDANTIC.format("cancelled-mid-tool"))
    assert trace["run"]["final_status"] == "cancelled"
    assert trace["spans"][-1]["outcome"] == "interrupted"


def test_smolagents_run_that_raised_has_no_root_and_failed(run_cli: Any, tmp_path: Path) -> None:
    """smolagents over OpenInference never exports the agent span of a run that raised: its
    steps are top spans naming a parent the export lacks. The run failed with its last step,
    and its first step's output is not the run's final output."""
    (trace,), _ = _import(run_cli, tmp_path, SMOL.format("late-api-error"))
    assert trace["run"]["final_status"] == "error"
    assert "final_output_hash" not in trace["run"]


@pytest.mark.parametrize("version", [6, 4])
def test_pydantic_ai_deferred_call_did_not_run(run_cli: Any, tmp_path: Path, version: int) -> None:
    """A tool that raises ``ApprovalRequired``/``CallDeferred`` is deferred, not run: pydantic-ai
    marks its span ``pydantic_ai.tool.deferral.name`` (status UNSET from instrumentation 5 on,
    ERROR with an exception event before) and the run ends waiting. The call read ok (a
    required tool met, an order satisfied by a call that never ran) and the run success."""
    documents = [
        json.loads(line)
        for line in (LIVE / PYDANTIC.format("stream-structured-output")).read_text().splitlines()
    ]
    spans = [
        span
        for document in documents
        for resource in document["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]
    tool = next(s for s in spans if s["name"] == "execute_tool lookup_order")
    tool["attributes"] = [a for a in tool["attributes"] if a["key"] != "gen_ai.tool.call.result"]
    tool["attributes"].append(
        {"key": "pydantic_ai.tool.deferral.name", "value": {"stringValue": "ApprovalRequired"}}
    )
    tool["status"] = {} if version >= 5 else {"code": 2, "message": "ApprovalRequired"}
    if version < 5:
        tool["events"] = [
            {
                "name": "exception",
                "timeUnixNano": tool["endTimeUnixNano"],
                "attributes": [
                    {"key": "exception.type", "value": {"stringValue": "ApprovalRequired"}}
                ],
            }
        ]
    after = int(tool["startTimeUnixNano"])
    for document in documents:  # the run stopped at the deferral: no model call after it
        for resource in document["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                scope["spans"] = [
                    s for s in scope["spans"] if s is tool or int(s["startTimeUnixNano"]) <= after
                ]
    source = tmp_path / "deferred.jsonl"
    source.write_text("".join(json.dumps(d) + "\n" for d in documents))
    (trace,), _ = cli_import(run_cli, "otel", source, tmp_path / "traces")
    assert _runs([trace]) == [("unknown", [LLM, ("tool", "lookup_order", "incomplete")])]
