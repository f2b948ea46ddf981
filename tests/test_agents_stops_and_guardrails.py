"""The OpenTelemetry importer on real framework exports changed only where the framework's
source shows a real recording differs (each test names that source).

Every test runs ``abw import`` through the CLI and reads the trace it wrote.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS
from tests.importkit import cli_import_one

#: openai-agents 0.24.0 over openinference-instrumentation-openai-agents 2.6.0: its second
#: ``issue_refund`` call failed (``Error running tool (non-fatal)``) and the run went on.
AGENTS_OI = CORPUS / "otel" / "gen__otlp-json__openai-agents__openinference.jsonl"


def _imported(run_cli, fmt: str, source: Path, out: Path) -> dict[str, Any]:
    return cli_import_one(run_cli, fmt, source, out, "-q")


def _tools(trace: dict[str, Any]) -> list[tuple[str, str | None, str]]:
    return [(s["name"], s["outcome"], s["status"]) for s in trace["spans"] if s["type"] == "tool"]


def _agents_failed_call(tmp_path: Path, message: str, output: str | None) -> Path:
    """The corpus run with its failed ``issue_refund`` span's status message (OpenInference's
    ``f"{error['message']}: {error['data']}"``) and ``output.value`` replaced."""
    lines = []
    for line in AGENTS_OI.read_text().splitlines():
        request = json.loads(line)
        for resource in request["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    if span["name"] == "issue_refund" and span["status"].get("code") == 2:
                        span["status"]["message"] = message
                        for attribute in span["attributes"]:
                            if attribute["key"] == "output.value" and output is not None:
                                attribute["value"] = {"stringValue": output}
        lines.append(json.dumps(request, separators=(",", ":")))
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_agents_sdk_rejected_call_over_openinference_is_rejected(run_cli, tmp_path):
    """openai-agents-python ``run_internal/tool_execution.py`` (0.8 on): a call a person
    rejected gets ``SpanError(message=<rejection text>, data={"tool_name": ..., "error": "Tool
    execution for <call id> was manually rejected by user."})``; OpenInference's
    ``_get_span_status`` writes ``f"{message}: {data}"`` (the JS instrumentation: the data as
    JSON). Read as ``abw import openai-agents`` reads it: rejected, not an error."""
    data = "{'tool_name': 'issue_refund', 'error': 'Tool execution for call_Qm3X was manually rejected by user.'}"  # noqa: E501
    source = _agents_failed_call(
        tmp_path, f"Tool execution was not approved.: {data}", "Tool execution was not approved."
    )
    trace = _imported(run_cli, "otel", source, tmp_path / "run.json")
    assert _tools(trace)[1] == ("issue_refund", "rejected", "cancelled")
    assert trace["run"]["final_status"] == "success"
    js = '{"tool_name":"issue_refund","error":"Tool execution for call_Qm3X was manually rejected by user."}'  # noqa: E501
    source = _agents_failed_call(tmp_path, f"Not approved: {js}", None)
    trace = _imported(run_cli, "otel", source, tmp_path / "js.json")
    assert _tools(trace)[1] == ("issue_refund", "rejected", "cancelled")


def test_agents_sdk_cancelled_tool_task_over_openinference_is_interrupted(run_cli, tmp_path):
    """``tool_execution.py``: a tool task cancelled while it ran gets ``SpanError(message="Tool
    execution cancelled", data={tool_name, error})``: interrupted, as natively; a failure whose
    text only mentions a rejection stays an error."""
    data = "{'tool_name': 'issue_refund', 'error': 'Tool execution was cancelled.'}"
    source = _agents_failed_call(tmp_path, f"Tool execution cancelled: {data}", None)
    trace = _imported(run_cli, "otel", source, tmp_path / "run.json")
    assert _tools(trace)[1] == ("issue_refund", "interrupted", "cancelled")
    plain = "Error running tool: {'tool_name': 'issue_refund', 'error': 'was manually rejected'}"
    trace = _imported(
        run_cli, "otel", _agents_failed_call(tmp_path, plain, None), tmp_path / "e.json"
    )
    assert _tools(trace)[1] == ("issue_refund", "error", "error")


#: langgraph 1.2.24 over openinference-instrumentation-langchain 0.1.80: ``issue_refund`` failed.
LANGGRAPH_OI = (
    CORPUS
    / "otel-frameworks"
    / "gen__otlp-json__langgraph-1.2.24__openinference-langchain-0.1.80.jsonl"
)
#: The failed tool, the ``tools`` node holding it and the graph's root span.
_STOPPED_SPANS = {"c3a30773b0247e49", "8701a3a2dab04745", "9edbd19d1ab13825"}


def _langgraph_stopped(tmp_path: Path, exception_type: str) -> Path:
    """The corpus run stopped in ``issue_refund``: langchain-core's ``BaseTool.run`` passes a
    ``KeyboardInterrupt`` to ``on_tool_error`` and the graph's runnables every
    ``BaseException`` (a cancelled task's ``CancelledError``) to ``on_chain_error``;
    OpenInference's ``_record_exception`` writes an ``exception`` event (a ``BaseException``
    that is no ``Exception``: its class name) and ``_update_span`` the ERROR status. The spans
    after it never started."""
    lines = []
    for line in LANGGRAPH_OI.read_text().splitlines():
        request = json.loads(line)
        for resource in request["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                scope["spans"] = [s for s in scope["spans"] if _before_stop(s)]
                for span in scope["spans"]:
                    if span["spanId"] in _STOPPED_SPANS:
                        _stop(span, exception_type)
        if any(s["spans"] for r in request["resourceSpans"] for s in r["scopeSpans"]):
            lines.append(json.dumps(request, separators=(",", ":")))
    path = tmp_path / f"{exception_type}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _before_stop(span: dict[str, Any]) -> bool:
    return span["spanId"] in _STOPPED_SPANS or int(span["startTimeUnixNano"]) < 1796310648050000000


def _stop(span: dict[str, Any], exception_type: str) -> None:
    name = exception_type.rsplit(".", 1)[-1]
    span["status"] = {"code": 2, "message": f"{name}()Traceback (most recent call last):\n{name}"}
    attributes = {"exception.type": exception_type, "exception.message": f"{name}()"}
    span["events"] = [
        {
            "timeUnixNano": span["endTimeUnixNano"],
            "name": "exception",
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()],
        }
    ]


def test_run_stopped_by_interrupt_or_cancel_is_cancelled_not_failed(run_cli, tmp_path):
    """A ^C or a cancelled task recorded as an ``exception`` event (OpenInference's class name,
    the OpenTelemetry SDK's ``asyncio.exceptions.CancelledError``): the call was interrupted
    and the run cancelled, as ``abw import langsmith`` reads the same LangChain run."""
    for exception_type in ("KeyboardInterrupt", "asyncio.exceptions.CancelledError"):
        source = _langgraph_stopped(tmp_path, exception_type)
        trace = _imported(run_cli, "otel", source, tmp_path / f"{exception_type}.json")
        assert _tools(trace) == [
            ("lookup_order", "ok", "success"),
            ("issue_refund", "interrupted", "cancelled"),
        ]
        assert trace["run"]["final_status"] == "cancelled"
    trace = _imported(
        run_cli, "otel", _langgraph_stopped(tmp_path, "RuntimeError"), tmp_path / "f.json"
    )
    assert _tools(trace)[-1] == ("issue_refund", "error", "error")
    assert trace["run"]["final_status"] == "error"


def test_agents_sdk_tripped_guardrail_over_openinference_is_denied_and_ends_the_run(
    run_cli, tmp_path
):
    """openai-agents-python ``run_internal/guardrails.py``: a tripped input guardrail sets
    ``SpanError("Guardrail tripwire triggered", data={"guardrail": <name>})`` on the span
    running it (0.24: the ``turn``) and the run raises ``InputGuardrailTripwireTriggered``;
    the agent and root spans end OK, the guardrail's span records nothing over OpenInference
    (recorded with 0.24.0 and openinference-instrumentation-openai-agents 2.6.0). The corpus run
    cut there: the guardrail denied, the run an error."""
    guardrail, turn = "5e52820af24b1aaf", "c7305a4108619d09"
    kept = {guardrail, turn, "49e46e7fdf96aa55", "de4e8622f6417628", "ce3eaa2b475b9061"}
    lines = []
    for line in AGENTS_OI.read_text().splitlines():
        request = json.loads(line)
        spans = request["resourceSpans"][0]["scopeSpans"][0]["spans"]
        spans[:] = [s for s in spans if s["spanId"] in kept]
        for span in spans:
            if span["spanId"] == turn:
                message = "Guardrail tripwire triggered: {'guardrail': 'no_card_numbers'}"
                span["status"] = {"code": 2, "message": message}
        if spans:
            lines.append(json.dumps(request, separators=(",", ":")))
    source = tmp_path / "tripped.jsonl"
    source.write_text("\n".join(lines) + "\n")
    trace = _imported(run_cli, "otel", source, tmp_path / "run.json")
    guardrails = [(s["name"], s["outcome"]) for s in trace["spans"] if s["type"] == "guardrail"]
    assert guardrails == [("no_card_numbers", "denied")]
    assert trace["run"]["final_status"] == "error"
    passed = _imported(run_cli, "otel", AGENTS_OI, tmp_path / "passed.json")
    assert [s["outcome"] for s in passed["spans"] if s["type"] == "guardrail"] == ["ok"]
    assert passed["run"]["final_status"] == "success"


GUARDRAILS = CORPUS / "agents-sdk-guardrails"


@pytest.mark.parametrize(
    ("importer", "name"),
    [
        ("openai-agents", "gen__openai-agents-sdk-0.24.0__input-guardrail-tripped.json"),
        (
            "otel",
            "gen__otlp-json__openai-agents-0.24.0__openinference-2.6.0__input-guardrail-"
            "tripped.jsonl",
        ),
    ],
)
def test_a_real_tripped_input_guardrail_is_denied_and_ends_the_run_either_way(
    run_cli, tmp_path, importer, name
):
    """The same real run (the SDK raised InputGuardrailTripwireTriggered) exported natively
    and over OpenInference: the guardrail is denied and the run an error both ways (the native
    import read it as success: the tripwire is on the ``turn`` span, not the root or agent)."""
    trace = _imported(run_cli, importer, GUARDRAILS / name, tmp_path / "trace.json")
    assert [(s["type"], s["name"], s["outcome"]) for s in trace["spans"]] == [
        ("guardrail", "no_card_numbers", "denied")
    ]
    assert trace["run"]["final_status"] == "error"
