"""``abw import otel`` on the agent CLIs' own OpenTelemetry traces: Claude Code 2.1.332
(``CLAUDE_CODE_ENHANCED_TELEMETRY_BETA``, OTLP/HTTP JSON) driven at a loopback model
(tests/corpus/otel-cli-telemetry, generator in its ``generate/``). Each tool call that ran is a
step with its name, order and outcome; the run's status is right; no recorded text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS
from tests.importkit import cli_import_one

LIVE = CORPUS / "otel-cli-telemetry"
LLM = ("llm", "claude-opus-5-5", "ok")
FAILED = ("llm", "claude-opus-5-5", "error")
READ = ("tool", "Read", "ok")

#: Each session: its final status and steps (type, name, outcome) in order.
EXPECTED: dict[str, tuple[str, list[tuple[str, str, str]]]] = {
    "basic": (
        "success",
        [
            LLM,
            ("tool", "Read", "ok"),
            ("tool", "Bash", "ok"),
            LLM,
            ("tool", "Bash", "ok"),
            LLM,
            ("tool", "Bash", "error"),
            LLM,
            ("tool", "Read", "error"),
            LLM,
            ("tool", "Edit", "ok"),
            LLM,
        ],
    ),
    "denied": (
        "success",
        [LLM, ("tool", "Bash", "denied"), LLM, ("tool", "Write", "denied"), LLM, READ, LLM],
    ),
    "apierror": ("error", [LLM, ("tool", "Bash", "ok"), FAILED]),
    "killed": ("cancelled", [LLM]),
}


def _import(run_cli: Any, tmp_path: Path, name: str) -> dict[str, Any]:
    """Import one recording; its single trace."""
    return cli_import_one(run_cli, "otel", LIVE / name, tmp_path / "trace.json")


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_claude_code_session_reads_step_by_step(run_cli: Any, tmp_path: Path, case: str) -> None:
    """Every call in order with its outcome, the session's status, no raw text."""
    trace = _import(run_cli, tmp_path, f"claude-{case}.traces.jsonl")
    status, steps = EXPECTED[case]
    assert trace["run"]["final_status"] == status
    assert [(s["type"], s["name"], s["outcome"]) for s in trace["spans"]] == steps
    text = json.dumps(trace)
    for raw in ("cart.py", "/home/dev", "rm -rf", "sleep", "Round the cart", "[S-"):
        assert raw not in text


def test_claude_code_killed_mid_tool_is_cancelled(run_cli: Any, tmp_path: Path) -> None:
    """``claude -p`` ended by SIGTERM while its Bash call ran: the interaction span ended, the
    tool's never did; the session is cancelled, not a success."""
    trace = _import(run_cli, tmp_path, "claude-killed.traces.jsonl")
    assert trace["run"]["final_status"] == "cancelled"


def test_claude_code_subagent_without_tool_details_is_scoped(run_cli: Any, tmp_path: Path) -> None:
    """Without ``OTEL_LOG_TOOL_DETAILS`` the ``Agent`` tool span has no ``subagent_type``: the
    subagent's calls still run in it (its requests' ``agent.builtin.general-purpose``), not in
    the main agent. The task notification after it is a second run."""
    out = tmp_path / "traces"
    code, _, err = run_cli(
        "import", "otel", "--input", LIVE / "claude-agent.traces.jsonl", "--out", out
    )
    assert code == 0, err
    first, second = (json.loads(p.read_text()) for p in sorted(out.glob("*.json")))
    if len(second["spans"]) > len(first["spans"]):
        first, second = second, first
    steps = [(s["name"], s["outcome"], s["attributes"].get("agent")) for s in first["spans"]]
    main, sub = "claude_code", "general-purpose"
    assert steps == [
        ("claude-opus-5-5", "ok", main),
        ("Agent", "ok", main),
        ("claude-opus-5-5", "ok", sub),
        ("Bash", "ok", sub),
        ("claude-opus-5-5", "ok", sub),
        ("Bash", "error", sub),
        ("claude-opus-5-5", "ok", sub),
        ("claude-opus-5-5", "ok", main),
    ]
    assert [s["type"] for s in second["spans"]] == ["llm"]


def test_gemini_cli_outfile_is_refused_clearly(run_cli: Any, tmp_path: Path) -> None:
    """The Gemini CLI 0.61.0's ``telemetry.outfile`` (JS SDK span, log and metric objects
    pretty-printed one after another; shape cut from a real one) is refused as what it is,
    not as broken JSON."""
    span = {
        "_spanContext": {"traceId": "f376b264821e0b770e2506fed963a2aa", "spanId": "0bc450eb"},
        "kind": 0,
        "attributes": {"gen_ai.operation.name": "llm_call", "gen_ai.agent.name": "gemini-cli"},
        "startTime": [1796345797, 944000000],
        "name": "llm_call",
        "status": {"code": 1},
        "endTime": [1796345798, 59279933],
    }
    log = {"hrTime": [1796345797, 0], "attributes": {"event.name": "gemini_cli.api_request"}}
    path = tmp_path / "telemetry.log"
    path.write_text(json.dumps(span, indent=2) + "\n" + json.dumps(log, indent=2) + "\n")
    code, _, err = run_cli("import", "otel", "--input", path, "--out", tmp_path / "t.json")
    assert code == 2
    assert "Gemini CLI's telemetry.outfile" in err and "telemetry.log" in err
    assert "Traceback" not in err and not (tmp_path / "t.json").exists()
