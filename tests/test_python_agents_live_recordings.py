"""Real recordings written by mini-swe-agent 2.4.6 (and the OpenHands SDK) against a loopback
OpenAI-style stub model.

The corpus (tests/corpus/python-agents-live/) holds the tools' own files, byte for byte;
generate/ holds the stub and the scripts that drove the tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from tests.importkit import cli_written

LIVE = CORPUS / "python-agents-live"
PARALLEL_LIMIT = LIVE / "toolcalls-parallel-step-limit.traj.json"
RESPONSES = LIVE / "responses-api-submit.traj.json"
REPEATED_FORMAT = LIVE / "repeated-format-error.traj.json"
TEXTBASED = LIVE / "textbased-example-blocks.traj.json"
INTERACTIVE = LIVE / "interactive-confirm-interrupt-new-task.traj.json"
HUMAN_MODE = LIVE / "interactive-human-mode.traj.json"
#: Free text of the recordings (the task, commands, outputs, paths) no trace may hold.
RAW = ("cart.py", "COMPLETE_TASK", "shopping", "/home/dev", "Traceback", "sleep 5", "slice")


@pytest.fixture
def imported(run_cli, tmp_path):
    """Import one recording with the real CLI; its trace as JSON."""

    def run(path: Path, importer: str = "swe-agent") -> dict:
        (written,), _ = cli_written(run_cli, importer, path, tmp_path / f"{path.name}.json")
        text = written.read_text()
        assert not [raw for raw in RAW if raw in text]
        return json.loads(text)

    return run


def _steps(trace: dict) -> list[tuple[str, str, str | None, object]]:
    """(type, name, outcome, exit code) of each span, in order."""
    return [
        (s["type"], s["name"], s.get("outcome"), s.get("attributes", {}).get("exit_code"))
        for s in trace["spans"]
    ]


LLM = ("llm", "openai/gpt-4o-mini", "ok", None)


def test_responses_api_run_keeps_its_model_calls_and_commands(imported):
    """mini-swe-agent's Responses API model (``litellm_response``) records each answer as a
    ``response`` object and each reply as a ``function_call_output``: the run read as one
    failed llm span, none of its five commands."""
    trace = imported(RESPONSES)
    assert _steps(trace) == [
        LLM,
        ("tool", "bash", "ok", 0),
        ("tool", "bash", "error", 1),
        ("llm", "openai/gpt-4o-mini", "error", None),  # no tool call: a FormatError
        LLM,
        ("tool", "bash", "error", 2),
        LLM,
        ("tool", "bash", "incomplete", None),  # ran, but the submit beside it left no reply
        ("tool", "bash", "ok", None),  # the submit, answered by the exit message
    ]
    assert trace["run"]["final_status"] == "success"
    assert "messages.output" in trace["redaction"]["removed_fields"]


def test_responses_api_format_error_hashes_the_answer(imported):
    """The FormatError's llm span stands for the answer its ``extra.response.output`` holds."""
    document = json.loads(RESPONSES.read_text())
    error = next(m for m in document["messages"] if m.get("role") == "user" and "extra" in m)
    assert error["extra"]["interrupt_type"] == "FormatError"
    trace = imported(RESPONSES)
    failed = [s for s in trace["spans"] if s.get("outcome") == "error" and s["type"] == "llm"]
    other = imported(REPEATED_FORMAT)["spans"][2]  # a text answer, in the chat form
    assert failed[0].get("output_hash") and failed[0]["output_hash"] != other.get("output_hash")


def test_parallel_calls_timeout_and_step_limit(imported):
    """Two calls of one answer, in order, each by its return code; the call killed at the
    environment's timeout timed out; ``LimitsExceeded`` ends the run in error."""
    trace = imported(PARALLEL_LIMIT)
    assert _steps(trace) == [
        LLM,
        ("tool", "bash", "ok", 0),
        ("tool", "bash", "error", 1),
        LLM,
        ("tool", "bash", "timeout", -1),
        LLM,
        ("tool", "bash", "ok", 0),
    ]
    assert trace["run"]["final_status"] == "error"


def test_repeated_format_errors_end_the_run_in_error(imported):
    """Three answers mini-swe-agent could not run (text, broken arguments, an unknown tool) are
    three failed llm spans; ``RepeatedFormatError`` ends the run in error."""
    trace = imported(REPEATED_FORMAT)
    failed = ("llm", "openai/gpt-4o-mini", "error", None)
    assert _steps(trace) == [LLM, ("tool", "bash", "ok", 0), failed, failed, failed]
    assert trace["run"]["final_status"] == "error"


def test_textbased_runs_the_command_its_action_regex_parsed(imported):
    """2.x text-based: an answer with two ```bash example blocks and one
    ```mswea_bash_command block ran that one (``extra.actions``; its reply has a return code):
    it read as a format error with no command."""
    document = json.loads(TEXTBASED.read_text())
    second = [m for m in document["messages"] if m["role"] == "assistant"][1]
    assert second["content"].count("```bash") == 2
    assert second["extra"]["actions"] == [{"command": "cat cart.py"}]
    steps = _steps(imported(TEXTBASED))
    assert steps[:4] == [LLM, ("tool", "bash", "ok", 0), LLM, ("tool", "bash", "ok", 0)]
    assert steps[4] == ("llm", "openai/gpt-4o-mini", "error", None)  # the FormatError


def test_textbased_submit_is_answered_by_the_exit_message(imported):
    """2.x text-based: the command that submitted has no reply; the ``exit`` message
    (``Submitted``) answers it, as it does a tool call (it read incomplete)."""
    trace = imported(TEXTBASED)
    assert _steps(trace)[-3:] == [("tool", "bash", "error", 1), LLM, ("tool", "bash", "ok", None)]
    assert trace["run"]["final_status"] == "success"


def test_interactive_rejection_interrupt_and_a_new_task_after_submit(imported):
    """The ``mini`` CLI in confirm mode: a rejected call, a confirmed one, one ^C stopped; the
    agent submits, the person gives a new task instead (``UserNewTask``), and the run submits
    again. Both submits ran (each answered ``action was not executed`` only because it ended
    the step): the new task answers the first, the ``exit`` the last (it read incomplete, and
    the final ``exit`` answered the first)."""
    document = json.loads(INTERACTIVE.read_text())
    kinds = [m.get("extra", {}).get("interrupt_type") for m in document["messages"]]
    assert [k for k in kinds if k] == ["UserRejection", "UserInterruption", "UserNewTask"]
    trace = imported(INTERACTIVE)
    assert [s[2] for s in _steps(trace) if s[0] == "tool"] == [
        "rejected",
        "ok",
        "interrupted",
        "ok",  # the first submit, answered by the new task
        "ok",
        "ok",  # the submit the exit message answers
    ]
    assert trace["run"]["final_status"] == "success"


def test_human_mode_command_is_no_agent_step(imported):
    """``/u`` rejects the call and switches to human mode; the command the person types there
    (a ``user`` message with ``extra.actions``) is theirs, not a step of the agent's (as Claude
    Code's bash-mode lines): pinned. The model's submit after ``/c`` is answered by the exit."""
    trace = imported(HUMAN_MODE)
    assert [s[2] for s in _steps(trace) if s[0] == "tool"] == ["rejected", "ok"]
    assert trace["run"]["final_status"] == "success"


OH_FINISH = LIVE / "openhands-sdk-1.58.2__terminal-finish"
OH_MAX_ITERATIONS = LIVE / "openhands-sdk-1.58.2__max-iterations"
OH_REJECTED = LIVE / "openhands-sdk-1.58.2__confirmation-rejected"
OH_RESUMED_ERROR = LIVE / "openhands-sdk-1.58.2__resumed-api-error"


@pytest.fixture
def conversation(run_cli, tmp_path):
    """Import one persisted OpenHands conversation folder with the real CLI; its trace."""

    def run(folder: Path) -> dict:
        (written,), _ = cli_written(run_cli, "openhands", folder, tmp_path / folder.name)
        text = written.read_text()
        assert not [raw for raw in (*RAW, "sk-stub", "127.0.0.1") if raw in text]
        return json.loads(text)

    return run


def test_openhands_terminal_calls_parallel_and_finish(conversation):
    """Each ActionEvent a span in event order (two of one response after one llm span), its
    outcome from its observation: exit code, ``is_error`` (a file that is not there); the
    FinishAction ends the run in success."""
    trace = conversation(OH_FINISH)
    llm = LLM  # the conversation's model, from base_state.json
    assert _steps(trace) == [
        llm,
        ("tool", "terminal", "ok", 0),
        llm,
        ("tool", "terminal", "error", 1),
        llm,
        ("retriever", "file_editor", "ok", None),
        ("tool", "terminal", "ok", 0),
        llm,
        ("retriever", "file_editor", "error", None),
        llm,
        ("tool", "finish", "ok", None),
    ]
    assert trace["run"]["final_status"] == "success"


def test_openhands_max_iterations_and_rejection(conversation):
    """``MaxIterationsReached`` (a ConversationErrorEvent) ends the run in error; a call the
    person rejected in confirmation mode is rejected, the agent's answer after it a success."""
    stopped = conversation(OH_MAX_ITERATIONS)
    assert [s[2] for s in _steps(stopped)] == ["ok", "ok", "ok", "ok"]
    assert stopped["run"]["final_status"] == "error"
    rejected = conversation(OH_REJECTED)
    assert [s[1:3] for s in _steps(rejected)] == [
        ("openai/gpt-4o-mini", "ok"),
        ("terminal", "rejected"),
        ("openai/gpt-4o-mini", "ok"),
    ]
    assert rejected["run"]["final_status"] == "success"


def test_openhands_resumed_conversation_ends_on_an_api_error(conversation):
    """A finished conversation set going again by a user message whose model call then fails
    (``ConversationErrorEvent`` ``LLMServiceUnavailableError``): the run ends in error, not in
    the success of its first finish."""
    trace = conversation(OH_RESUMED_ERROR)
    assert [s[1:3] for s in _steps(trace)] == [("openai/gpt-4o-mini", "ok"), ("finish", "ok")]
    assert trace["run"]["final_status"] == "error"
