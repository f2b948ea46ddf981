"""Real files found in a sweep of public repositories, and what ``abw import claude`` makes of them.

- ``claude -p --output-format stream-json`` output (what the CLI printed, not the session's
  transcript) is refused on one line, not read as a transcript: its subagents' messages are
  inline and its outcome is in a ``result`` record, so the trace would be wrong.
- A local command's own lines (bash mode ``!cmd``, the ``Unknown skill: …`` a command printed
  after its caveat) are not prompts: they do not make the run's final status ``unknown``.
- A ``microcompact_boundary`` (Claude Code clearing old tool results from the context, no
  summary) is a ``memory`` span ``microcompaction``, as a ``compact_boundary`` is a
  ``compaction``: it was read as nothing at all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from abw.importers.base import ImportOptions
from abw.importers.claude import ClaudeImporter
from abw.models.trace import Trace
from tests.conftest import CORPUS
from tests.importkit import import_trace, import_traces

CLAUDE = CORPUS / "claude-code"
STREAM_JSON = (
    CORPUS
    / "claude-code-projects"
    / "stream-json"
    / "alfredjeanlab__claudeless__stream-json-output-v2.1.12-6750998.jsonl"
)
OUT_OF_USAGE = CLAUDE / "alfredjeanlab__claudeless__v2.1.29-initial-state-2de0d6a.jsonl"
SHELL_MODE = CLAUDE / "alfredjeanlab__claudeless__v2.1.29-shell-mode-2de0d6a.jsonl"
ANSWERED = CLAUDE / "agenthistory__real_sessions_claude_session-01.jsonl"
MICROCOMPACTED = CLAUDE / "entireio__cli__checkpoint-7662d755ef9f-2-microcompact-d8e36d5.jsonl"


def _refused(run_cli, source: Path, out: Path) -> str:
    code, _, err = run_cli("import", "claude", "--input", source, "--out", out)
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert not out.exists(), "nothing may be written on bad input"
    return lines[0]


def _final_status(path: Path) -> str:
    traces = import_traces(ClaudeImporter(), path, exported_at="2026-01-01T00:00:00Z")
    return traces[0].run.final_status


def test_stream_json_output_is_refused_at_its_init_line(run_cli, tmp_path: Path):
    """Claude Code 2.1.12 ``--output-format stream-json`` (system/init, assistant, result) was
    imported as a session: a trace named after the file, ``final_status`` success."""
    line = _refused(run_cli, STREAM_JSON, tmp_path / "out.json")
    assert f"{STREAM_JSON.name}:1: session_id: " in line
    assert "not a Claude Code session transcript" in line and "stream-json" in line


def test_stream_json_without_its_init_line_is_refused_at_the_first_message(run_cli, tmp_path: Path):
    """The messages themselves say it (``session_id`` and ``parent_tool_use_id``)."""
    cut = tmp_path / "messages.jsonl"
    cut.write_bytes(b"".join(STREAM_JSON.read_bytes().splitlines(keepends=True)[1:]))
    line = _refused(run_cli, cut, tmp_path / "out.json")
    assert "messages.jsonl:1: session_id: " in line and "stream-json" in line


def test_a_local_commands_output_after_its_caveat_is_no_prompt():
    """Claude Code 2.1.29, out of extra usage: the request fails (a synthetic API error), then
    Claude Code runs a local command whose output ``Unknown skill: rate-limit-options`` follows
    its caveat line. That line was read as an unanswered prompt: final status ``unknown``."""
    traces = ClaudeImporter().import_file(
        OUT_OF_USAGE, ImportOptions(exported_at="2026-01-01T00:00:00Z")
    )
    trace = traces[0]
    assert [(s.name, s.status) for s in trace.spans] == [("api_error", "error")]
    assert trace.run.final_status == "error"


def test_bash_mode_lines_after_the_answer_keep_the_run_a_success(tmp_path: Path):
    """``!cmd`` lines (``<bash-input>``, ``<bash-stdout>``) are the user's own shell, like a slash
    command: a session answered, then a bash-mode command, stays ``success``."""
    assert _final_status(ANSWERED) == "success"
    # a bash command alone asked the agent nothing: no run (it was one, status unknown)
    assert import_traces(ClaudeImporter(), SHELL_MODE, exported_at="2026-01-01T00:00:00Z") == []
    bash_mode = [line for line in SHELL_MODE.read_bytes().splitlines(keepends=True)[1:]]
    assert b"<bash-input>" in bash_mode[1] and b"<bash-stdout>" in bash_mode[2]
    joined = tmp_path / "answered-then-bash.jsonl"
    joined.write_bytes(ANSWERED.read_bytes() + b"".join(bash_mode))
    assert _final_status(joined) == "success"


def test_a_microcompaction_is_a_memory_span_like_a_compaction():
    """Claude Code 2.1.14 (an Entire checkpoint of a real session): line 33 is a
    ``microcompact_boundary`` (42 old tool results cleared, 21091 tokens saved), line 155 a
    ``compact_boundary``. Only the second became a span: the first context loss was invisible."""
    (trace,) = ClaudeImporter().import_file(
        MICROCOMPACTED, ImportOptions(exported_at="2026-01-01T00:00:00Z")
    )
    memory = [(s.name, s.source_ref.line, s.status) for s in trace.spans if s.type == "memory"]
    assert memory == [("microcompaction", 33, "success"), ("compaction", 155, "success")]
    micro = next(s for s in trace.spans if s.name == "microcompaction")
    assert micro.attributes == {
        "agent": "main",
        "cleared_tool_results": 42,
        "pre_tokens": 60888,
        "tokens_saved": 21091,
        "trigger": "auto",
    }
    compaction = next(s for s in trace.spans if s.name == "compaction")
    assert compaction.attributes == {"agent": "main", "pre_tokens": 155068, "trigger": "auto"}
    assert micro.started_at is not None and micro.parent_span_id is None
    assert "toolu_" not in json.dumps(micro.attributes)  # the cleared calls' ids are not kept


# --------------------------------------------------------------- background tasks, tool renames
#: Claude Code 2.1.219 (Claude desktop, an Entire checkpoint of a real session, lines 1581-1718):
#: an ``Agent`` launched async at line 5 fails (line 110: ``<task-notification>`` ``failed``, the
#: process it ran under exited) and is launched again at line 128; two ``PowerShell`` calls.
ASYNC_AGENT = CLAUDE / "JanDeDobbeleer__oh-my-posh__async-agent-failed-2.1.219-8bc57db.jsonl"
#: Claude Code 2.1.42 (lines 898-999): a ``git rebase`` moved to the background (line 67:
#: ``backgroundTaskId``) fails with exit code 1: ``TaskOutput`` (line 71) and the notification
#: (line 80) say ``failed``.
BACKGROUND_FAILED = CLAUDE / "entireio__cli__background-bash-failed-2.1.42-e957bb7.jsonl"
#: Claude Code 2.1.37 (lines 125-160): a background ``Bash`` stopped by ``TaskStop`` (line 22),
#: a second one that ``TaskOutput`` (line 35) reports completed.
BACKGROUND_STOPPED = CLAUDE / "entireio__cli__background-bash-taskstop-2.1.37-2106605.jsonl"


def _trace(path: Path, **options: Any) -> Trace:
    return import_trace(ClaudeImporter(), path, exported_at="2026-01-01T00:00:00Z", **options)


def _tools(path: Path) -> list[tuple[str, int, str, str]]:
    """(name, source line, status, outcome) of every span of ``path``'s trace that is no model
    request, in order (for the Claude live-recording tests)."""
    trace = _trace(path)
    return [
        (s.name, s.source_ref.line, s.status, s.outcome) for s in trace.spans if s.type != "llm"
    ]


def _background(trace) -> list[tuple[str, int, str, str, str | None]]:
    return [
        (s.name, s.source_ref.line, s.status, s.outcome, s.attributes.get("background_status"))
        for s in trace.spans
        if s.attributes.get("background")
    ]


def test_a_background_agent_that_failed_is_an_error():
    """2.1.x launches agents in the background: the call returns ``async_launched`` at once and
    the agent's end comes later as a ``<task-notification>``. The failed agent read ``ok``."""
    assert _background(_trace(ASYNC_AGENT)) == [
        ("Agent", 5, "error", "error", "failed"),
        ("Agent", 128, "success", "ok", None),  # still running when the file ends
    ]


def test_a_background_command_takes_the_outcome_its_end_reports():
    """A command moved to the background read ``ok`` whatever it exited with: the failed
    rebase is an error, as it is in the foreground; a stopped one is interrupted."""
    assert _background(_trace(BACKGROUND_FAILED)) == [("Bash", 8, "error", "error", "failed")]
    assert _background(_trace(BACKGROUND_STOPPED)) == [
        ("Bash", 3, "cancelled", "interrupted", "killed"),
        ("Bash", 24, "success", "ok", "completed"),
    ]
    polls = [s for s in _trace(BACKGROUND_FAILED).spans if s.name == "TaskOutput"]
    assert [(s.source_ref.line, s.outcome) for s in polls] == [(68, "ok")]  # the poll itself ran


def test_the_subagent_tool_has_one_name_across_versions():
    """``Task`` (to 2.1.62) and ``Agent`` (2.1.63 on) are one tool: a 2.0 baseline and a 2.1.219
    candidate disagreed on every delegation. Both are ``Agent``; ``attributes.tool`` is raw."""
    old = _trace(CLAUDE / "spotter__subagent.jsonl")
    new = _trace(ASYNC_AGENT)
    assert {(s.name, s.type, s.attributes["tool"]) for s in old.spans if s.type == "handoff"} == {
        ("Agent", "handoff", "Task")
    }
    assert {(s.name, s.type, s.attributes["tool"]) for s in new.spans if s.type == "handoff"} == {
        ("Agent", "handoff", "Agent")
    }


def test_powershell_is_a_shell_tool():
    """Claude Code's Windows shell tool: its command is hashed as ``command_hash`` and
    ``--bash-tool-labels`` apply to it, as to ``Bash``."""
    from abw.importers.common import parse_labels

    shells = [s for s in _trace(ASYNC_AGENT).spans if s.attributes.get("tool") == "PowerShell"]
    assert len(shells) == 2 and all("command_hash" in s.attributes for s in shells)
    labelled = _trace(ASYNC_AGENT, labels=parse_labels("ensure-artifacts:guardrail"))
    named = [(s.name, s.type) for s in labelled.spans if s.attributes.get("tool") == "PowerShell"]
    assert named == [("ensure-artifacts", "guardrail")] * 2


#: Claude Code 2.1.217, a whole checkpoint (28 lines): the first request (line 13) was refused
#: by claude-fable-5's safeguards and answered by claude-opus-4-8 (its ``fallback`` block, and
#: the ``system``/``model_refusal_fallback`` of the same ``requestId`` at line 19).
REFUSAL_FALLBACK = CLAUDE / "JanDeDobbeleer__oh-my-posh__refusal-fallback-2.1.217-402ffe3.jsonl"


def test_a_refused_request_answered_by_a_fallback_model_is_marked():
    """A safeguards refusal that switched models left no trace: the llm span of the request
    carries the model that refused, as API retries are carried (no span of their own)."""
    trace = _trace(REFUSAL_FALLBACK)
    marked = [
        (s.source_ref.line, s.name, s.status, s.attributes.get("model_fallback_from"))
        for s in trace.spans
        if s.type == "llm"
    ]
    assert marked == [
        (13, "claude-opus-4-8", "success", "claude-fable-5"),
        (20, "claude-opus-4-8", "success", None),  # later requests go to the fallback model
        (26, "claude-opus-4-8", "success", None),
    ]
    assert trace.spans[0].attributes["model_fallback_reason"] == "refusal"
    assert [s.name for s in trace.spans if s.type != "llm"] == ["Skill", "Read"]


def test_a_run_cut_off_after_a_task_notification_is_undecided(tmp_path: Path):
    """A ``<task-notification>`` (``origin.kind: task-notification``) is Claude Code's, not the
    user's, yet the model owes it a reply (of 107 distinct real ones, 106 were answered at once,
    one with the person's next prompt): a file that ends on one, before the agent
    reacted to the failed agent it launched, is ``unknown``, as after a tool result with no reply.
    The excerpt cut after the notification (line 110) and its attachments (to line 118)."""
    cut = tmp_path / "notified.jsonl"
    cut.write_bytes(b"".join(ASYNC_AGENT.read_bytes().splitlines(keepends=True)[:118]))
    trace = _trace(cut)
    assert _background(trace)[0] == ("Agent", 5, "error", "error", "failed")  # it was read
    assert trace.run.final_status == "unknown"
    answered = tmp_path / "answered.jsonl"  # up to the answer just before it: a success
    answered.write_bytes(b"".join(ASYNC_AGENT.read_bytes().splitlines(keepends=True)[:109]))
    assert _trace(answered).run.final_status == "success"
