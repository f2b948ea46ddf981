"""Rollouts written by OLDER releases of the real Codex CLI (0.20.0 to 0.160.1, ``codex exec``
against a loopback fake of the Responses API: tests/corpus/codex-live-versions/generate/), each
scenario run by every release; the same behaviour must read the same whichever wrote it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abw.importers.base import ImportOptions
from abw.models.trace import Trace
from tests.conftest import CORPUS
from tests.importkit import import_trace, rollout, tool_spans
from tests.test_import_codex import _NOT_CONTENT, _content_leaves

LIVE = CORPUS / "codex-live-versions"
FILES = sorted(LIVE.glob("*__rollout-*.jsonl"))
VERSIONS = ["0.20.0", "0.47.0", "0.80.0", "0.113.0", "0.142.4", "0.160.1"]


def _import(scenario: str, version: str, options: ImportOptions | None = None) -> Trace:
    return import_trace("codex", rollout(LIVE, f"{scenario}-{version}"), options)


def _steps(trace: Trace) -> list[tuple[str | None, str]]:
    """(call id, outcome) of every step that is no model request, in order."""
    return [(span_id, outcome) for _, outcome, span_id in tool_spans(trace)]


@pytest.mark.parametrize("version", VERSIONS)
def test_parallel_calls_are_one_model_request_in_every_version(version):
    """ls ok, cat exit 1, two parallel calls (git status 128, echo ok), a plan, a patch, a patch
    that did not match, exit 3: the same steps whichever release ran them, and one llm span per
    request the fake answered (8). Before 0.59 Codex wrote each parallel call beside its output
    (call, output, call, output): the second call read as a model request of its own."""
    trace = _import("tools", version)
    assert _steps(trace) == [
        ("call_ls", "ok"),
        ("call_cat", "error"),
        ("call_p1", "error"),
        ("call_p2", "ok"),
        ("call_plan", "ok"),
        ("call_patch", "ok"),
        ("call_badpatch", "error"),
        ("call_test", "error"),
    ]
    assert sum(s.type == "llm" for s in trace.spans) == 8
    assert trace.run.final_status == "success"
    expected = None if version == "0.20.0" else version  # (0.20 names no version)
    assert getattr(trace.run, "agent_version", None) == expected
    p1, p2 = (next(s for s in trace.spans if s.span_id == i) for i in ("call_p1", "call_p2"))
    assert trace.spans[p2.ordinal - 1] is p1  # (no model request between them)


@pytest.mark.parametrize(
    ("scenario", "call_id"), [("mcp", "call_crash"), ("tools", "call_badpatch")]
)
def test_a_batch_written_after_its_calls_ran_gives_them_no_duration(scenario, call_id):
    """0.47 writes a request's calls and outputs together once the calls ran: their timestamps
    say when the batch was written (2 ms apart for an MCP call that waited 10 s for a dead
    server), not how long the call took."""
    trace = _import(scenario, "0.47.0")
    span = next(s for s in trace.spans if s.span_id == call_id)
    assert span.outcome == "error"
    assert span.duration_ms is None
    assert "duration_source" not in span.attributes


@pytest.mark.parametrize(
    ("scenario", "version"),
    [
        ("fail", "0.113.0"),
        ("streamfail", "0.113.0"),
        ("fail", "0.142.4"),
        ("streamfail", "0.142.4"),
        ("fail", "0.160.1"),
    ],
)
def test_a_turn_whose_follow_up_request_failed_is_an_error(scenario, version):
    """A command, then the API fails (HTTP 500, or response.failed): 0.113 to 0.142 end the turn
    with a plain ``task_complete`` (no answer, no error written), right after the output the
    model never saw; it read as success (0.160 writes the error in ``task_complete``)."""
    trace = _import(scenario, version)
    assert _steps(trace) == [("call_ok", "ok")]
    assert trace.run.final_status == "error"
    assert trace.run.final_output_hash is None


@pytest.mark.parametrize("version", ["0.20.0", "0.47.0", "0.80.0"])
def test_a_rollout_that_stops_after_a_call_is_still_unknown(version):
    """Releases before 0.113 write nothing of the failed request: the file stops after the
    output, mid-turn (unknown, as documented), not an error the file does not show."""
    assert _import("fail", version).run.final_status == "unknown"


@pytest.mark.parametrize("version", ["0.80.0", "0.113.0", "0.142.4"])
def test_a_command_stopped_by_ctrl_c_cancels_the_run(version):
    """``sleep 60`` and SIGINT after 6 s: 0.80's exec exits after the call's "aborted by user"
    output without writing ``turn_aborted``; the run read unknown while later releases read
    cancelled."""
    trace = _import("sleepy", version)
    assert _steps(trace) == [("call_sleep", "interrupted")]
    assert trace.run.final_status == "cancelled"


@pytest.mark.parametrize("version", ["0.47.0", "0.80.0", "0.113.0", "0.142.4"])
def test_an_escalation_refused_by_the_policy_is_denied(version):
    """``with_escalated_permissions`` (0.47) or ``sandbox_permissions`` under approval never."""
    trace = _import("escalate", version)
    assert _steps(trace) == [("call_esc", "denied")]
    assert trace.run.final_status == "success"


def _content_unnamed(path: Path, trace: Trace) -> set[str]:
    """Content-like leaves of the recording that no removed_fields entry names."""
    removed = set(trace.redaction.removed_fields)
    unnamed = set()
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if "payload" not in record:  # (0.20: bare items, a state line, the session header)
            kind = record.get("type") or ("session_meta" if "id" in record else None)
            record = (
                {"type": "response_item", "payload": record}
                if kind != "session_meta"
                else {
                    "type": kind,
                    "payload": record,
                }
            )
        kind, payload = record["type"], record["payload"]
        if kind == "event_msg":
            continue
        kind = payload.get("type") if kind == "response_item" else kind
        for leaf in _content_leaves(payload, [str(kind)]):
            if leaf not in _NOT_CONTENT and not any(
                leaf == name or leaf.startswith(name + ".") for name in removed
            ):
                unnamed.add(leaf)
    return unnamed


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name.split("__")[0])
def test_every_recording_imports_quietly_and_leaks_nothing(path):
    """No warning, every content kind named removed, no raw text of the recording in the trace."""
    options = ImportOptions()
    trace = import_trace("codex", path, options)
    assert options.warnings == []
    assert _content_unnamed(path, trace) == set()
    text = trace.model_dump_json()
    for raw in ("/home/dev", "cart.py", "please work", "missing.txt", "sleep 60", "locked"):
        assert raw not in text


def test_state_lines_alone_are_no_rollout(tmp_path, run_cli):
    """Legacy state lines mark requests; a file of nothing else is still refused."""
    path = tmp_path / "rollout-2025-08-01T00-00-00-x.jsonl"
    path.write_text('{"record_type":"state"}\n{"record_type":"state"}\n')
    code, _, err = run_cli("import", "codex", "--input", path, "--out", tmp_path / "t.json")
    assert code == 2
    assert "not a Codex rollout" in err


def test_tui_decline_and_esc_in_older_releases():
    """In 0.80's TUI, declining an escalation (Esc at the prompt) writes "exec command rejected by
    user" (rejected; 0.171 writes "aborted by user" for the same act) and Esc on ``sleep 60``
    "aborted by user" with its wall time; both abort the turn. 0.47 had written neither call: it
    wrote a request's items only once its calls ran, so an aborted turn leaves no step."""
    declined, stopped = _import("tui-escalate", "0.80.0"), _import("tui-sleepy", "0.80.0")
    assert _steps(declined) == [("call_esc", "rejected")]
    assert _steps(stopped) == [("call_sleep", "interrupted")]
    assert stopped.spans[-1].duration_ms == 9700.0
    for scenario in ("tui-escalate", "tui-sleepy"):
        assert _import(scenario, "0.47.0").spans == []
    for trace in (declined, stopped, _import("tui-sleepy", "0.47.0")):
        assert trace.run.final_status == "cancelled"


def test_an_mcp_tool_has_one_name_in_every_version():
    """0.20 and 0.47 wrote an MCP call as ``shopdb__lookup``, 0.80 on as ``mcp__shopdb__lookup``
    (later with a namespace): the same tool was two names across a version change."""
    names = {}
    for version in ("0.20.0", "0.47.0", "0.80.0", "0.113.0", "0.142.4"):
        trace = import_trace("codex", rollout(LIVE, f"mcp-{version}"))
        names[version] = [
            (s.name, s.attributes.get("mcp_server"), s.attributes.get("mcp_tool"))
            for s in trace.spans
            if s.type == "tool"
        ]
    lookup = ("mcp__shopdb__lookup", "shopdb", "lookup")
    assert all(calls[0] == lookup for calls in names.values()), names
    assert names["0.47.0"] == names["0.80.0"] == names["0.113.0"]
