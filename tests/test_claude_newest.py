"""``abw import claude`` on real transcripts of the newest Claude Code versions (2.1.2xx).

Both files are excerpts (whole lines, byte for byte) of Entire checkpoints of real sessions in
entireio/entire-graph (branch ``entire/checkpoints/v1``); see tests/corpus/PROVENANCE.md.
"""

from __future__ import annotations

import json

from test_realfiles_claude_more import _background, _trace

from abw.traceio import render_trace
from abw.validate import validate_document
from tests.conftest import CORPUS

NEWEST = CORPUS / "claude-code-newest"
#: Claude Code 2.1.217: a ``Bash`` run in the background (line 6, ``backgroundTaskId`` on its
#: result at line 8) fails; its ``<task-notification>`` (``failed``) reaches the model at line 12
#: as an ``attachment`` of type ``queued_command`` (it came while the model was busy), not as a
#: user line. A second background ``Bash`` (line 7) has no end in the file.
QUEUED_FAILED = (
    NEWEST / "entireio__entire-graph__background-bash-failed-queued-2.1.217-7789048.jsonl"
)
#: Claude Code 2.1.210: a ``Workflow`` (line 3) returns ``async_launched`` with a ``taskId``; its
#: run fails (queued notification, line 7); a second ``Workflow`` (line 25) completes (user-line
#: notification, line 32, the last line: nothing answers it).
WORKFLOW = NEWEST / "entireio__entire-graph__workflow-failed-queued-2.1.210-7789048.jsonl"


def test_a_background_command_whose_failure_came_queued_is_an_error():
    """The failure reached the session as a queued ``attachment``: it read ``ok`` (launched)."""
    trace = _trace(QUEUED_FAILED)
    assert _background(trace) == [
        ("Bash", 6, "error", "error", "failed"),
        ("Bash", 7, "success", "ok", None),  # still running when the excerpt ends
    ]
    assert trace.run.final_status == "success"  # the turn went on and answered (line 23)


def test_a_workflow_run_is_a_background_task_with_the_outcome_its_end_reports():
    """``Workflow`` returns ``async_launched`` and a ``taskId`` (no ``backgroundTaskId``, no
    ``isAsync``): its run's end was never read, and the failed run read ``ok``."""
    trace = _trace(WORKFLOW)
    assert _background(trace) == [
        ("Workflow", 3, "error", "error", "failed"),
        ("Workflow", 25, "success", "ok", "completed"),
    ]
    # the queued notification is no prompt; the file ends on a user-line notification
    assert trace.run.final_status == "unknown"


def test_the_newest_files_validate_leak_nothing_and_are_deterministic():
    for path in (QUEUED_FAILED, WORKFLOW):
        first = render_trace(_trace(path))
        assert first == render_trace(_trace(path))
        assert validate_document(json.loads(first), path.name) == []
        # the notifications' text, their output files and the session's paths stay out
        for piece in ("task-notification", "/private/tmp/", "/Users/", "claude-501"):
            assert piece in path.read_text(encoding="utf-8")
            assert piece not in first
