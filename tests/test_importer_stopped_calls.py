"""Importers on real corpus files changed only where the format's source shows a real recording
differs (each case names that source): calls a person stopped, and the parts around the runs.

Every test runs ``abw import`` through the CLI and reads the trace it wrote.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS
from tests.importkit import cli_import_one

AGENTS_TOOL_ERROR = (
    CORPUS / "openai-agents" / "gen__openai-agents-sdk-0.24.0__tool-error-raised.json"
)


def _imported(run_cli, fmt: str, source: Path, out: Path) -> dict[str, Any]:
    return cli_import_one(run_cli, fmt, source, out, "-q")


def _statuses(trace: dict[str, Any], kind: str = "tool") -> list[tuple[str, str]]:
    return [(s["name"], s["status"]) for s in trace["spans"] if s["type"] == kind]


def _agents_run_with_tool_error(tmp_path: Path, message: str, detail: str) -> Path:
    """The corpus run whose ``issue_refund`` call failed, its function span's error replaced
    (``{message, data: {tool_name, error}}``) and the run going on (no agent span error)."""
    document = json.loads(AGENTS_TOOL_ERROR.read_text())
    for item in document["data"]:
        data = item.get("span_data") or {}
        if data.get("name") == "issue_refund":
            item["error"] = {
                "message": message,
                "data": {"tool_name": "issue_refund", "error": detail},
            }
        elif data.get("type") == "agent":
            item["error"] = None
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document, indent=2))
    return path


def test_agents_sdk_call_a_person_rejected_is_cancelled_not_an_error(run_cli, tmp_path):
    """openai-agents-python ``run_internal/tool_execution.py`` (0.8 on, human-in-the-loop): a call
    whose approval was rejected gets ``SpanError(message=<rejection text>, data={tool_name,
    error: "Tool execution for <call id> was manually rejected by user."})``."""
    source = _agents_run_with_tool_error(
        tmp_path,
        "Tool execution was not approved.",
        "Tool execution for call_7Hq2 was manually rejected by user.",
    )
    trace = _imported(run_cli, "openai-agents", source, tmp_path / "run.json")
    assert _statuses(trace) == [("lookup_order", "success"), ("issue_refund", "cancelled")]
    assert trace["run"]["final_status"] == "success"


def test_agents_sdk_tool_task_cancelled_is_cancelled_not_an_error(run_cli, tmp_path):
    """``tool_execution.py`` ``_invoke_tool_and_run_post_invoke``: a tool task cancelled while it
    ran gets ``SpanError(message="Tool execution cancelled", ...)``; a plain failure stays one."""
    source = _agents_run_with_tool_error(tmp_path, "Tool execution cancelled", "")
    trace = _imported(run_cli, "openai-agents", source, tmp_path / "run.json")
    assert _statuses(trace)[-1] == ("issue_refund", "cancelled")
    failed = _agents_run_with_tool_error(tmp_path, "Error running tool", "was manually rejected")
    trace = _imported(run_cli, "openai-agents", failed, tmp_path / "failed.json")
    assert _statuses(trace)[-1] == ("issue_refund", "error")


MINI_1X = CORPUS / "mini-swe-agent" / "miniswe__github_issue.traj.json"
MINI_2X = CORPUS / "mini-swe-agent" / "gen__mini-swe-agent-2.4.6__mini-yaml-json-replies.traj.json"


def test_mini_1x_command_a_person_rejected_or_stopped_is_not_a_success(run_cli, tmp_path):
    """mini-swe-agent 1.x ``agents/interactive.py``: confirm mode records a declined command as
    the user message ``Command not executed. The user rejected your command …`` and ^C as
    ``Interrupted by user: …`` (a ``NonTerminatingException``), no ``<returncode>``."""
    messages = json.loads(MINI_1X.read_text())
    messages[11]["content"] = (
        "Command not executed. The user rejected your command with the following message: no"
    )
    messages[15]["content"] = "Interrupted by user: Temporary interruption caught."
    source = tmp_path / "run.traj.json"
    source.write_text(json.dumps(messages, indent=2))
    statuses = [
        s for _, s in _statuses(_imported(run_cli, "swe-agent", source, tmp_path / "o.json"))
    ]
    assert statuses[4] == statuses[6] == "cancelled"
    assert statuses[3] == statuses[5] == "success"


def test_mini_2x_tool_call_a_person_rejected_is_cancelled_not_incomplete(run_cli, tmp_path):
    """mini-swe-agent 2.x ``InteractiveAgent.execute_actions``: a declined call is answered
    ``action was not executed`` (``actions_toolcall.py``), then the ``user`` message with
    ``extra.interrupt_type: UserRejection``; the run goes on."""
    document = json.loads(MINI_2X.read_text())
    messages = document["messages"]
    messages[7]["extra"].update(returncode=-1, exception_info="action was not executed")
    rejection = {"interrupt_type": "UserRejection"}
    messages.insert(8, {"role": "user", "content": "Commands not executed.", "extra": rejection})
    source = tmp_path / "run.traj.json"
    source.write_text(json.dumps(document, indent=2))
    trace = _imported(run_cli, "swe-agent", source, tmp_path / "o.json")
    assert [s for _, s in _statuses(trace)] == ["error", "error", "cancelled", "success"]


LANGSMITH_BATCH = CORPUS / "langsmith" / "gen__langsmith__runs-batch_payload.json"


@pytest.mark.parametrize(
    "stopped",
    [
        "CancelledError()\n\nTraceback (most recent call last):\nasyncio.CancelledError\n",
        # a stream its consumer left (LangGraph's ``stream`` records every BaseException)
        "GeneratorExit()\n\nTraceback (most recent call last):\nGeneratorExit\n",
        # LangGraph 1.2 draining a graph on shutdown: stopped cooperatively, resumable
        "GraphDrained('Graph drained: shutdown')\n\nTraceback (most recent call last):\n",
        # the OpenTelemetry SDK's spelling of the class (with its module)
        "asyncio.exceptions.CancelledError: \n\nTraceback (most recent call last):\n",
    ],
    ids=["cancelled", "generator-exit", "graph-drained", "module-spelling"],
)
def test_langsmith_run_cancelled_while_it_ran_is_cancelled_not_an_error(run_cli, tmp_path, stopped):
    """langsmith-sdk ``run_helpers._format_error_with_exceptions_to_handle`` records
    ``f"{repr(error)}\\n\\n{stacktrace}"`` for any ``BaseException``: an asyncio task cancelled
    (a client stopping a streaming run) leaves ``CancelledError()``, a stream its consumer
    left ``GeneratorExit()``, a drained graph ``GraphDrained(…)`` (the last two read as
    errors); a timeout stays a failure."""
    document = json.loads(LANGSMITH_BATCH.read_text())
    cancelled = stopped
    for run in document["post"]:
        if run["name"] == "calculator" or run["run_type"] == "chain":
            run["error"], run["outputs"] = cancelled, None
    source = tmp_path / "runs.json"
    source.write_text(json.dumps(document, indent=2))
    trace = _imported(run_cli, "langsmith", source, tmp_path / "o.json")
    assert _statuses(trace) == [("web_fetch", "error"), ("calculator", "cancelled")]
    assert trace["run"]["final_status"] == "cancelled"


def test_langsmith_multipart_parts_with_attachments_and_feedback(run_cli, tmp_path):
    """A ``/runs/multipart`` body also carries ``attachment.<run id>.<name>`` (a run's file)
    and ``feedback.<id>`` parts (langsmith-sdk's multipart serializer): with one of them the
    whole list was read as plain runs and refused ("a run has no id")."""
    source = CORPUS / "langsmith" / "gen__langsmith__runs-multipart_parts.json"
    parts = json.loads(source.read_text())
    run_id = parts[0]["name"].split(".", 1)[1]
    attachment = {"name": f"attachment.{run_id}.screenshot", "value": "iVBORw0KGgo="}
    feedback = {"name": "feedback.0f6b1f7e", "value": {"run_id": run_id, "score": 1}}
    richer = tmp_path / "parts.json"
    richer.write_text(json.dumps([parts[0], attachment, *parts[1:], feedback], indent=1))
    plain = _imported(run_cli, "langsmith", source, tmp_path / "plain.json")
    read = _imported(run_cli, "langsmith", richer, tmp_path / "richer.json")

    def steps(trace: dict[str, Any]) -> list[dict[str, Any]]:
        return [{k: v for k, v in s.items() if k != "source_ref"} for s in trace["spans"]]

    assert steps(read) == steps(plain) and read["run"] == plain["run"]


OTEL_TOOL_RAISES = (
    CORPUS
    / "otel-live-fourth"
    / "gen__otlp-json__semantic-kernel-1.45.0__parallel-tool-raises.jsonl"
)


@pytest.mark.parametrize("stopped", ["GeneratorExit", "GraphDrained", "RuntimeError"])
def test_otel_call_stopped_while_it_ran_reads_as_langsmith_reads_it(run_cli, tmp_path, stopped):
    """One list of the classes that say a call was stopped, not failed (abw.importers.spans.
    stopped): OpenTelemetry read a stream its consumer left (``GeneratorExit``) or a drained
    graph as a failed call, where LangSmith read them as stopped."""
    text = OTEL_TOOL_RAISES.read_text()
    source = tmp_path / "spans.jsonl"
    source.write_text(text.replace('"stringValue":"RuntimeError"', f'"stringValue":"{stopped}"'))
    trace = _imported(run_cli, "otel", source, tmp_path / "o.json")
    outcomes = {
        s["outcome"] for s in trace["spans"] if s["type"] == "tool" and s["status"] != "success"
    }
    assert outcomes == ({"error"} if stopped == "RuntimeError" else {"interrupted"}), outcomes
