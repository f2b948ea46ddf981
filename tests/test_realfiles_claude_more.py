"""Real files found in a sweep of public repositories, and what ``abw import claude`` makes of them.

- ``claude -p --output-format stream-json`` output (what the CLI printed, not the session's
  transcript) is refused on one line, not read as a transcript: its subagents' messages are
  inline and its outcome is in a ``result`` record, so the trace would be wrong.
- A local command's own lines (bash mode ``!cmd``, the ``Unknown skill: …`` a command printed
  after its caveat) are not prompts: they do not make the run's final status ``unknown``.
"""

from __future__ import annotations

from pathlib import Path

from abw.importers.base import ImportOptions
from abw.importers.claude import ClaudeImporter
from tests.conftest import CORPUS

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


def _refused(run_cli, source: Path, out: Path) -> str:
    code, _, err = run_cli("import", "claude", "--input", source, "--out", out)
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert not out.exists(), "nothing may be written on bad input"
    return lines[0]


def _final_status(path: Path) -> str:
    traces = ClaudeImporter().import_file(path, ImportOptions(exported_at="2026-01-01T00:00:00Z"))
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
    assert _final_status(SHELL_MODE) == "unknown"  # a bash command alone: nothing answered
    bash_mode = [line for line in SHELL_MODE.read_bytes().splitlines(keepends=True)[1:]]
    assert b"<bash-input>" in bash_mode[1] and b"<bash-stdout>" in bash_mode[2]
    joined = tmp_path / "answered-then-bash.jsonl"
    joined.write_bytes(ANSWERED.read_bytes() + b"".join(bash_mode))
    assert _final_status(joined) == "success"
