"""Real SWE-agent (EnIGMA) and mini-swe-agent 2.x files, imported and checked against what the
raw file itself says (tests/corpus/PROVENANCE.md names them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from abw.importers import get_importer
from abw.importers.base import ImportOptions
from abw.traceio import render_trace
from tests.conftest import CORPUS

#: SWE-agent 0.7 (EnIGMA, CTF mode) demonstration: five ``submit``s answered ``Wrong flag!``.
EPS = CORPUS / "swe-agent" / "enigma" / "SWE-agent__enigma_demo_ctf_crypto_eps__3ea751c0.traj"
MINI = CORPUS / "mini-swe-agent"
#: mini-swe-agent 2.4.6 run with its default ``mini.yaml`` (replies rendered as JSON).
MINI_JSON = MINI / "gen__mini-swe-agent-2.4.6__mini-yaml-json-replies.traj.json"
#: mini-swe-agent 2.2.7 on SWE-bench (``<returncode>`` replies), two commands killed at 60 s.
MINI_TIMEOUTS = MINI / "miniswe2__pvlib__pvlib-python-1072.traj.json"


def _import(path: Path, **kwargs: Any):
    (trace,) = get_importer("swe-agent").import_file(path, ImportOptions(**kwargs))
    return trace


def _replies(path: Path) -> list[dict[str, Any]]:
    """The ``extra`` of each ``tool`` reply, in order (one per executed call)."""
    messages = json.loads(path.read_text())["messages"]
    return [m["extra"] for m in messages if m["role"] == "tool"]


def _expected(extra: dict[str, Any]) -> str:
    """The outcome a reply's recorded exit says: killed at the timeout, else its return code."""
    if extra.get("exception_type") == "TimeoutExpired":
        return "timeout"
    return "ok" if extra["returncode"] == 0 else "error"


def test_enigma_wrong_flag_submit_is_an_error():
    """EnIGMA answers a ``submit`` of the wrong flag ``Wrong flag!`` and the run goes on: those
    submits failed (they were read as ok, as if the run had submitted five times)."""
    steps = json.loads(EPS.read_text())["trajectory"]
    expected = [
        "error" if s["observation"] == "Wrong flag!" else "ok"
        for s in steps
        if s["action"].startswith("submit")
    ]
    assert expected == ["error"] * 5 + ["ok"]
    trace = _import(EPS)
    assert [s.outcome for s in trace.path() if s.name == "submit"] == expected
    assert trace.run.final_status == "success"  # info.exit_status: submitted


def test_mini_json_replies_are_judged_by_their_recorded_return_code():
    """The ``mini`` CLI's default config (2.x ``mini.yaml``) renders a reply as JSON, without
    ``<returncode>``: a command that exited 1 and one killed at its timeout were read as ok.
    2.x records the code in the reply's ``extra.returncode``."""
    replies = _replies(MINI_JSON)
    messages = json.loads(MINI_JSON.read_text())["messages"]
    assert not any("<returncode>" in m["content"] for m in messages if m["role"] == "tool")
    trace = _import(MINI_JSON)
    spans = trace.path()
    executed = replies[:-1]  # the last reply: the submitting call, "action was not executed"
    assert replies[-1]["exception_info"] == "action was not executed"
    assert [s.outcome for s in spans[: len(executed)]] == [_expected(x) for x in executed]
    assert [s.outcome for s in spans] == ["error", "timeout", "ok", "ok"]  # ok: submitted
    codes = [s.attributes.get("exit_code") for s in spans]
    assert codes == [x["returncode"] for x in executed] + [None]
    assert trace.run.final_status == "success"
    assert "hello.txt" not in render_trace(trace)


def test_mini_command_killed_at_its_timeout_is_a_timeout():
    """A SWE-bench run's commands killed after 60 s (``<returncode>-1</returncode>`` and
    ``extra.exception_type: TimeoutExpired``) timed out; they were plain errors."""
    replies = _replies(MINI_TIMEOUTS)
    assert sum(x.get("exception_type") == "TimeoutExpired" for x in replies) == 2
    spans = _import(MINI_TIMEOUTS).path()
    assert len(spans) == len(replies) == 15
    assert [s.outcome for s in spans] == [_expected(x) for x in replies]
    assert [s.attributes["exit_code"] for s in spans] == [x["returncode"] for x in replies]


#: A real OpenHands V1 conversation (OpenHands CLI), one event a file.
OH_EVENTS = sorted((CORPUS / "openhands" / "v1-events").glob("event-*.json"))
#: A real OpenHands evaluation output (V0 EvalOutputs, one a line).
OH_EVAL = CORPUS / "openhands" / "openhands__multi_swe_bench_output.jsonl"


def _one_line_error(code: int, err: str) -> str:
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def test_an_empty_evaluation_output_is_refused(run_cli, tmp_path):
    """The harness writes ``output.jsonl`` a line per finished instance: one left empty (no
    instance finished) imported as no run at all, exit 0."""
    assert len(get_importer("openhands").import_file(OH_EVAL, ImportOptions())) == 3
    empty = tmp_path / "eval" / "output.jsonl"
    empty.parent.mkdir()
    empty.write_bytes(b"\n")
    for given in (empty, empty.parent):
        out = tmp_path / "out"
        code, _, err = run_cli("import", "openhands", "--input", given, "--out", out)
        assert "output.jsonl: the file is empty" in _one_line_error(code, err)
        assert not out.exists()


def test_v1_events_written_one_a_line_name_the_line(run_cli, tmp_path):
    """V1 events of a conversation given as JSON Lines (not an evaluation's EvalOutputs) are
    refused naming the file, the line and the field (the line was missing)."""
    path = tmp_path / "events.jsonl"
    lines = [json.dumps(json.loads(p.read_text())) for p in OH_EVENTS]
    path.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli("import", "openhands", "--input", path, "--out", tmp_path / "o")
    assert "events.jsonl:1: kind: one event of an OpenHands conversation" in _one_line_error(
        code, err
    )
