"""``abw import claude`` on the newest Claude Code layouts (2.1.2xx), from real public sessions."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import CORPUS

NEWEST = CORPUS / "claude-code-newest"
#: A real 2.1.210 session whose ``Workflow`` call names its run folder (``transcriptDir``).
WORKFLOW_SESSION = NEWEST / "entireio__entire-graph__workflow-failed-queued-2.1.210-7789048.jsonl"
SESSION_ID = "fffff083-8032-496a-81ae-244c3c25ea0f"
RUN_ID = "wf_9950af72-360"  # the ``runId`` of the session's Workflow call


def _project_with_workflow_journal(tmp_path: Path) -> Path:
    """The session laid out as ``~/.claude/projects`` holds it, with the run's ``journal.jsonl``
    (one ``launched``, then ``started``/``result`` per agent) under ``subagents/workflows/``."""
    project = tmp_path / "-Users-user-Projects-entire-graph"
    run = project / SESSION_ID / "subagents" / "workflows" / RUN_ID
    run.mkdir(parents=True)
    (project / f"{SESSION_ID}.jsonl").write_bytes(WORKFLOW_SESSION.read_bytes())
    key = "v2:" + "7" * 64
    journal = [
        {"type": "launched"},
        {"type": "started", "key": key, "agentId": "a0f3c1d2e4b5a6978", "label": "audit"},
        {"type": "result", "key": key, "agentId": "a0f3c1d2e4b5a6978", "result": "SECRET"},
    ]
    (run / "journal.jsonl").write_text("".join(json.dumps(r) + "\n" for r in journal))
    return project


def _steps(trace: dict) -> list[tuple]:
    return [(s["name"], s["outcome"], s["source_ref"]["line"]) for s in trace["spans"]]


def test_a_workflow_run_journal_does_not_fail_the_session(run_cli, tmp_path: Path):
    """A session with a Workflow run (2.1.2xx) keeps the run's journal.jsonl under
    subagents/workflows/<run>/: it was read as a subagent transcript, and the whole session
    failed with exit 2 ('not a Claude Code transcript'), file or folder alike."""
    project = _project_with_workflow_journal(tmp_path)
    alone = tmp_path / "alone.json"
    assert run_cli("import", "claude", "--input", WORKFLOW_SESSION, "--out", alone)[0] == 0
    for source, out in (
        (project / f"{SESSION_ID}.jsonl", tmp_path / "one.json"),
        (project, tmp_path / "dir"),
    ):
        code, _, err = run_cli("import", "claude", "--input", source, "--out", out)
        assert code == 0, err
        assert "journal.jsonl" not in err
        written = out if out.suffix else out / f"{SESSION_ID}.json"
        trace = json.loads(written.read_text())
        assert "SECRET" not in written.read_text()
        assert "subagent_files" not in trace["source"]
        assert _steps(trace) == _steps(json.loads(alone.read_text()))
