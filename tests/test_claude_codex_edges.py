"""Edge cases of the Claude Code and Codex CLI importers, each on a real corpus file changed the
way a recording of another version or a real edge case differs from it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import CORPUS
from tests.importkit import cli_import_one, jsonl_records

_CODEMIE = "codemie__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
_WORKFLOW = "entireio__entire-graph__workflow-failed-queued-2.1.210-7789048.jsonl"
_AGENTV = "agentv__rollout-2026-06-18T02-33-46-019ed893-d2a6-7c30-a8b8-5a8a49cfa23e.jsonl"


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    return path


def _import(run_cli, name: str, source: Path, out: Path) -> dict:
    """``abw import <name>`` of one file: the trace written (exit code 0, no internal error)."""
    return cli_import_one(run_cli, name, source, out, "-q")


def test_claude_reported_duration_beyond_a_double_is_no_duration(run_cli, tmp_path):
    """A ``durationSeconds`` whose milliseconds overflow a double (1e306 s) was an inf duration:
    the trace could not be written ("internal error"). It is no reported duration."""
    records = jsonl_records(CORPUS / "claude-code" / "agentcmd__full-session-five.jsonl")
    records[20]["toolUseResult"]["durationSeconds"] = 1e306  # line 21: a WebSearch result
    source = _write(tmp_path / "session.jsonl", records)
    trace = _import(run_cli, "claude", source, tmp_path / "run.json")
    searches = [s for s in trace["spans"] if s["name"] == "WebSearch"]
    assert [s["source_ref"]["line"] for s in searches] == [16, 23, 24]
    assert searches[0]["attributes"]["duration_source"] == "timestamps"  # answered on line 21
    assert [s["attributes"]["duration_source"] for s in searches[1:]] == ["reported"] * 2


def test_claude_system_subtype_not_a_string_is_skipped(run_cli, tmp_path):
    """A ``system`` record whose ``subtype`` is an object (a newer version's shape) was an
    internal error; like any record abw does not know, it is skipped."""
    records = jsonl_records(CORPUS / "claude-code" / "spotter__short.jsonl")
    records[13]["subtype"] = {"kind": "local_command"}  # line 14
    source = _write(tmp_path / "short.jsonl", records)
    trace = _import(run_cli, "claude", source, tmp_path / "run.json")
    assert [s["name"] for s in trace["spans"] if s["type"] != "llm"] == ["Bash", "Glob"]


def test_claude_background_status_not_a_string_is_no_launch(run_cli, tmp_path):
    """A ``Workflow`` result whose ``status`` is an object was an internal error: it launched
    no background task that abw can tell, so the call is a plain ``ok``."""
    records = jsonl_records(CORPUS / "claude-code-newest" / _WORKFLOW)
    records[5]["toolUseResult"]["status"] = {"state": "async_launched"}  # line 6
    source = _write(tmp_path / "workflow.jsonl", records)
    trace = _import(run_cli, "claude", source, tmp_path / "run.json")
    (first,) = [s for s in trace["spans"] if s["source_ref"]["line"] == 3 and s["type"] != "llm"]
    assert (first["name"], first["outcome"]) == ("Workflow", "ok")
    assert "background" not in first["attributes"]


def test_codex_turn_that_failed_is_an_error_though_task_complete_follows(run_cli, tmp_path):
    """Codex ends a turn that failed (a stream cut off, a usage limit) with an ``error`` event
    and then ``task_complete`` (no answer): the run failed, it is not a success."""
    records = jsonl_records(CORPUS / "codex" / _CODEMIE)[:381]  # the last turn, before its answer
    done = jsonl_records(CORPUS / "codex" / _CODEMIE)[385]
    done["payload"]["last_agent_message"] = None
    error = {
        "timestamp": done["timestamp"],
        "type": "event_msg",
        "payload": {"type": "error", "message": "stream disconnected before completion"},
    }
    source = _write(tmp_path / "rollout.jsonl", [*records, error, done])
    trace = _import(run_cli, "codex", source, tmp_path / "run.json")
    assert trace["run"]["final_status"] == "error"


def test_codex_mcp_call_failed_text_is_an_error(run_cli, tmp_path):
    """An MCP call that failed is answered ``tool call error: …`` (``err: …`` in older
    versions), and versions before ``mcp_tool_call_end`` was persisted write nothing else:
    the call failed, it is not ``ok``."""
    records = jsonl_records(CORPUS / "codex" / _AGENTV)
    del records[292]  # line 293: the mcp_tool_call_end older versions did not persist
    output = records[292]["payload"]  # line 294: the call's output
    assert output["type"] == "function_call_output"
    for text in ("tool call error: unknown MCP server 'codex_apps'", 'err: "request failed"'):
        output["output"] = text
        source = _write(tmp_path / "rollout.jsonl", records)
        trace = _import(run_cli, "codex", source, tmp_path / "run.json")
        (call,) = [s for s in trace["spans"] if s["name"].startswith("mcp__")]
        assert (call["name"], call["outcome"]) == ("mcp__codex_apps__github_create_issue", "error")


def test_codex_session_meta_values_are_kept_only_when_plain(run_cli, tmp_path):
    """The thread id, ``cli_version`` and ``originator`` were copied into the run verbatim,
    whatever they held (a path, a workflow command): like Claude's session id, a value that is
    no plain identifier is hashed (the id) or left out."""
    records = jsonl_records(CORPUS / "codex" / "simonw-cct__sample_codex_session.jsonl")
    meta = records[0]["payload"]
    meta["id"] = "run\n::error::/home/alice/secret-project"
    meta["cli_version"] = "0.77.0 /home/alice"
    meta["originator"] = "x\n::warning::/home/alice"
    source = _write(tmp_path / "rollout.jsonl", records)
    out = tmp_path / "run.json"
    run = _import(run_cli, "codex", source, out)["run"]
    assert run["trace_id"].startswith("codex-") and len(run["trace_id"]) == 38
    assert "agent_version" not in run and "originator" not in run
    assert "alice" not in out.read_text()
    meta.update(id="019b64e5-57fa-7463", cli_version="0.128.0-alpha.1", originator="Codex Desktop")
    run = _import(run_cli, "codex", _write(source, records), out)["run"]
    assert (run["trace_id"], run["agent_version"], run["originator"]) == (
        "019b64e5-57fa-7463",
        "0.128.0-alpha.1",
        "Codex Desktop",
    )
