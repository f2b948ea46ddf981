"""Trajectories written by older mini-swe-agent releases (1.1.2, 1.5.1, 1.10.0, 1.17.5, 2.0.0,
2.2.0) against a loopback OpenAI-style stub model, imported with the real ``abw import`` CLI.

The corpus (tests/corpus/mini-swe-agent-live-versions/) holds each release's own files;
generate/ holds the scripts that drove them. Every release ran the same scenarios: a mixed run
(ok, exit 1, a timeout, two format errors, a command whose output says "No such file or
directory" but exits 0, then the SWE-bench style submit ``echo MARK && git diff``), a step limit,
and an API error (HTTP 401); 2.x also a tool-calling run, 1.17.5 an interactive ``mini`` run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS
from tests.importkit import cli_import_one

LIVE = CORPUS / "mini-swe-agent-live-versions"
V1 = ("1.1.2", "1.5.1", "1.10.0", "1.17.5")
V2 = ("2.0.0", "2.2.0")
RECORDINGS = sorted(LIVE.glob("*/*.traj.json"))
#: Free text of the recordings (the task, thoughts, commands, outputs, the diff, paths).
RAW = (
    "CANARY",
    "cart.py",
    "COMPLETE_TASK",
    "MINI_SWE_AGENT",
    "/home/dev",
    "Traceback",
    "sleep 5",
    "No such file",
    "diff --git",
    "git diff",
    "sk-stub",
)


@pytest.fixture
def imported(run_cli, tmp_path):
    """Import one recording with the real CLI; its trace as JSON, after checking that it holds
    none of the recording's free text."""

    def run(path: Path) -> dict[str, Any]:
        out = tmp_path / f"{path.parent.name}-{path.name}"
        trace = cli_import_one(run_cli, "swe-agent", path, out)
        text = out.read_text()
        assert [raw for raw in RAW if raw in text] == []
        return trace

    return run


def _steps(trace: dict[str, Any]) -> list[tuple[str, str | None, Any]]:
    """(type, outcome, exit code or error type) of each span, in order."""
    return [
        (
            s["type"],
            s.get("outcome"),
            s["attributes"].get("exit_code", s["attributes"].get("error_type")),
        )
        for s in trace["spans"]
    ]


def _load(version: str, name: str) -> dict[str, Any]:
    return json.loads((LIVE / version / f"{name}.traj.json").read_text())


LLM = ("llm", "ok", None)
FORMAT_ERROR = ("llm", "error", "FormatError")


def test_the_corpus_holds_every_release_and_stays_small():
    """Six releases, each with its three text-based runs (2.x also a tool-calling one)."""
    assert sorted({p.parent.name for p in RECORDINGS}) == sorted(V1 + V2)
    for version in V1 + V2:
        assert _load(version, "text-mixed-submit")["messages"]
    assert sum(p.stat().st_size for p in RECORDINGS) < 600_000


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_recording_imports_without_its_text(imported, path):
    """Every recording imports; the trace keeps no command, output, thought or path."""
    trace = imported(path)
    assert trace["spans"]
    assert trace["run"]["final_status"] in {"success", "error"}


@pytest.mark.parametrize("version", V1 + V2)
def test_the_mixed_run_reads_the_same_in_every_release(imported, version):
    """ok, exit 1, the timeout (2.x records -1; 1.x's ``timed out and has been killed`` reply no
    code), two format errors (1.x: the reply to an answer with no block or two; 2.x: the
    ``FormatError`` message), a command exiting 0 whose output says "No such file or
    directory", and the submit: ok, whatever its diff says (1.x answers it with the diff
    itself, no return code; 2.x with the ``exit`` message)."""
    trace = imported(LIVE / version / "text-mixed-submit.traj.json")
    timeout = ("tool", "timeout", -1 if version in V2 else None)
    assert _steps(trace) == [
        LLM,
        ("tool", "ok", 0),
        LLM,
        ("tool", "error", 1),
        LLM,
        timeout,
        FORMAT_ERROR,
        FORMAT_ERROR,
        LLM,
        ("tool", "ok", 0),
        LLM,
        ("tool", "ok", None),
    ]
    assert trace["run"]["final_status"] == "success"
    document = _load(version, "text-mixed-submit")
    assert document["info"]["exit_status"] == "Submitted"
    llm_spans = [s for s in trace["spans"] if s["type"] == "llm"]
    assert len(llm_spans) == document["info"]["model_stats"]["api_calls"] == 7


@pytest.mark.parametrize("version", ("1.1.2", "1.10.0"))
def test_a_1x_submission_is_no_observation(imported, version):
    """1.x answers the submitting command with the submission (the output after the mark: here
    a diff holding "No such file or directory"), not with an observation: it ran and
    submitted, it did not fail."""
    last = _load(version, "text-mixed-submit")["messages"][-1]
    assert last["role"] == "user" and last["content"].startswith("diff --git")
    assert "No such file or directory" in last["content"]
    submit = imported(LIVE / version / "text-mixed-submit.traj.json")["spans"][-1]
    assert (submit["name"], submit["outcome"]) == ("bash", "ok")


def test_a_1x_submit_that_failed_keeps_its_return_code(imported, tmp_path):
    """A 1.17 submit whose command failed is answered as any command (``<returncode>``); the
    agent goes on: an error, as its code says."""
    document = _load("1.17.5", "text-mixed-submit")
    document["messages"][-1]["content"] = "<returncode>128</returncode>\n<output>\nx\n</output>"
    path = tmp_path / "failed-submit.traj.json"
    path.write_text(json.dumps(document))
    assert _steps(imported(path))[-1] == ("tool", "error", 128)


@pytest.mark.parametrize("version", V1 + V2)
def test_the_step_limit_ends_the_run_in_error(imported, version):
    """Two steps, then ``LimitsExceeded`` (1.x: an empty ``user`` message; 2.x: ``exit``)."""
    trace = imported(LIVE / version / "text-step-limit.traj.json")
    assert _steps(trace) == [LLM, ("tool", "ok", 0), LLM, ("tool", "ok", 0)]
    assert trace["run"]["final_status"] == "error"
    assert _load(version, "text-step-limit")["info"]["exit_status"] == "LimitsExceeded"


@pytest.mark.parametrize("version", V1 + V2)
def test_an_api_error_ends_the_run_in_error(imported, version):
    """The model call the API refused (401) is no message: one step, then the run's error."""
    trace = imported(LIVE / version / "text-api-error.traj.json")
    assert _steps(trace) == [LLM, ("tool", "ok", 0)]
    assert trace["run"]["final_status"] == "error"
    assert _load(version, "text-api-error")["info"]["exit_status"] == "AuthenticationError"


@pytest.mark.parametrize("version", V2)
def test_2x_tool_calls_parallel_timeout_format_error_submit(imported, version):
    """Two parallel calls (exit 0, exit 1), a timeout, a text answer (``FormatError``; 2.0 and
    2.2 record no answer with it), the submit answered by the ``exit`` message."""
    trace = imported(LIVE / version / "tools-mixed-submit.traj.json")
    assert _steps(trace) == [
        LLM,
        ("tool", "ok", 0),
        ("tool", "error", 1),
        LLM,
        ("tool", "timeout", -1),
        FORMAT_ERROR,
        LLM,
        ("tool", "ok", None),
    ]
    assert trace["run"]["final_status"] == "success"


def test_1x_interactive_rejection_interrupt_and_new_task(imported):
    """The 1.17.5 ``mini`` CLI in confirm mode: a rejected command (``Command not executed.``),
    a confirmed one, one stopped with ^C (``Interrupted by user:``), a submit the person
    answered with a new task (``The user added a new task:``: it ran), a count, the submit."""
    trace = imported(LIVE / "1.17.5" / "interactive-confirm-interrupt-new-task.traj.json")
    assert _steps(trace) == [
        LLM,
        ("tool", "rejected", None),
        LLM,
        ("tool", "ok", 0),
        LLM,
        ("tool", "interrupted", None),
        LLM,
        ("tool", "ok", None),
        LLM,
        ("tool", "ok", 0),
        LLM,
        ("tool", "ok", None),
    ]
    assert trace["run"]["final_status"] == "success"


@pytest.mark.parametrize(
    ("version", "model"),
    [("1.1.2", "model"), ("1.5.1", "model"), ("1.10.0", "openai/gpt-4o-mini")]
    + [(v, "openai/gpt-4o-mini") for v in ("1.17.5", *V2)],
)
def test_llm_spans_are_named_by_the_configured_model(imported, version, model):
    """1.1 and 1.5 record no config: the model is unknown; 1.10 on ``info.config.model``."""
    trace = imported(LIVE / version / "text-step-limit.traj.json")
    assert {s["name"] for s in trace["spans"] if s["type"] == "llm"} == {model}


@pytest.mark.parametrize("version", ("1.17.5", *V2))
def test_token_counts_are_read_from_the_recorded_response(imported, version):
    """Late 1.x and 2.x keep each answer's ``extra.response.usage``: its prompt and completion
    tokens are the llm span's ``input_tokens``/``output_tokens`` (1.x: a format error's answer
    too; 2.0 and 2.2 keep no response with a format error)."""
    document = _load(version, "text-mixed-submit")
    usages = [
        m["extra"]["response"]["usage"] for m in document["messages"] if m["role"] == "assistant"
    ]
    trace = imported(LIVE / version / "text-mixed-submit.traj.json")
    answered = [s for s in trace["spans"] if s["type"] == "llm"]
    if version in V2:
        answered = [s for s in answered if s["outcome"] == "ok"]
    assert [
        (s["attributes"]["input_tokens"], s["attributes"]["output_tokens"]) for s in answered
    ] == [(u["prompt_tokens"], u["completion_tokens"]) for u in usages]


@pytest.mark.parametrize("version", ("1.1.2", "1.5.1", "1.10.0"))
def test_no_tokens_where_none_are_recorded(imported, version):
    """1.10 and before keep no response: no token counts."""
    trace = imported(LIVE / version / "text-mixed-submit.traj.json")
    assert not [s for s in trace["spans"] if "input_tokens" in s["attributes"]]


def test_responses_api_tokens_are_read_from_the_response_object(imported):
    """2.4's Responses API model records the ``response`` object itself: its ``usage``
    (``input_tokens``/``output_tokens``) gives the llm span's tokens."""
    path = CORPUS / "python-agents-live" / "responses-api-submit.traj.json"
    document = json.loads(path.read_text())
    usages = [m["usage"] for m in document["messages"] if m.get("object") == "response"]
    trace = imported(path)
    answered = [s for s in trace["spans"] if s["type"] == "llm" and s["outcome"] == "ok"]
    assert [
        (s["attributes"]["input_tokens"], s["attributes"]["output_tokens"]) for s in answered
    ] == [(u["input_tokens"], u["output_tokens"]) for u in usages]
