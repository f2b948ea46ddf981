"""``abw import otel`` on real OTLP/JSON (and console-exporter) exports of AutoGen AgentChat
0.7.5 team runs (``RoundRobinGroupChat``, ``SelectorGroupChat``, ``Swarm``; corpus
otel-live-autogen, generator in its ``generate/``): AutoGen's runtime starts a trace for every
message, linked to the message's sender by span links; one ``team.run()`` is one run, two runs
of one team object are two, a Swarm's handoff is a handoff, a team run stopped by its
cancellation token is cancelled, and nothing recorded leaks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS
from tests.importkit import cli_import, json_agent_steps, jsonl_records

LIVE = CORPUS / "otel-live-autogen"
OTLP = "gen__otlp-json__autogen-agentchat-0.7.5__{}.jsonl"
CONSOLE = "gen__otel-console__autogen-agentchat-0.7.5__{}.json"
PLAN, BILL, TRIAGE = "planner_agent", "billing_agent", "triage_agent"

Step = tuple[str, str, str, str | None]


def _tool(name: str, agent: str | None, outcome: str = "ok") -> Step:
    return ("tool", name, outcome, agent)


#: Each file's runs: (final status, steps (type, name, outcome, agent) in order). AutoGen traces
#: no model call: a run's steps are its agents' tool calls.
RUNS: dict[str, list[tuple[str, list[Step]]]] = {
    OTLP.format("two-runs-same-team"): [
        ("success", [_tool("check_stock", PLAN), _tool("lookup_order", BILL)]),
        ("success", [_tool("lookup_order", BILL)]),
    ],
    CONSOLE.format("console-two-runs"): [
        ("success", [_tool("check_stock", PLAN), _tool("lookup_order", BILL)]),
        ("success", [_tool("lookup_order", BILL)]),
    ],
    OTLP.format("two-teams"): [
        ("success", [_tool("lookup_order", BILL)]),
        ("success", [_tool("check_stock", PLAN)]),
    ],
    OTLP.format("round-robin-tools"): [
        (
            "success",
            [
                _tool("check_stock", PLAN),
                _tool("check_stock", PLAN),
                _tool("lookup_order", BILL),
                _tool("charge_card", BILL, "error"),
            ],
        )
    ],
    OTLP.format("selector"): [("success", [_tool("lookup_order", BILL)])],
    OTLP.format("swarm-back-and-forth"): [
        (
            "success",
            [
                ("handoff", BILL, "ok", TRIAGE),
                _tool("lookup_order", BILL),
                ("handoff", TRIAGE, "ok", BILL),
            ],
        )
    ],
    OTLP.format("max-turns-twice"): [("success", []), ("success", [])],
    OTLP.format("cancelled"): [("cancelled", [_tool("export_order", BILL)])],
    # billing's turn lost its agent span (never ended): its finished call names no agent
    OTLP.format("killed-mid-turn"): [
        ("cancelled", [_tool("check_stock", PLAN), _tool("lookup_order", None)])
    ],
    OTLP.format("api-error"): [("error", [_tool("check_stock", PLAN)])],
}

RAW = ("CANARY", "/home/dev", "order_id", "A-1", "declined", "topic_", "GroupChat", "Handoff to")


def _import(run_cli: Any, tmp_path: Path, name: str) -> list[dict[str, Any]]:
    return cli_import(run_cli, "otel", LIVE / name, tmp_path / "traces")[0]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_team_run_is_one_run(run_cli: Any, tmp_path: Path, name: str) -> None:
    """Every ``team.run()`` is one run of its agents' turns in order, each call under its
    agent: two runs of one team object (the second continues the first's conversation) or of
    two teams stay apart; a Swarm's ``transfer_to_<agent>`` is a handoff to that agent; a run
    the manager never terminated (its cancellation token cancelled, its process killed: the
    killed turn's traces, their root never written, join the run of the team they name) is
    cancelled; an agent's failed model request fails the run."""
    traces = _import(run_cli, tmp_path, name)
    assert [(t["run"]["final_status"], json_agent_steps(t)) for t in traces] == RUNS[name]
    text = json.dumps(traces)
    assert [raw for raw in RAW if raw in text] == []


def _team_starts(path: Path) -> list[str]:
    """The trace ids of the spans that sent a team run's ``GroupChatStart``, in file order."""
    starts = []
    for record in jsonl_records(path):
        for resource in record["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    types = [a["value"].get("stringValue") for a in span["attributes"]]
                    if "GroupChatStart" in types and not span.get("parentSpanId"):
                        starts.append(span["traceId"])
    return starts


def test_team_run_is_named_by_its_first_trace(run_cli: Any, tmp_path: Path) -> None:
    """A team run's trace id is its first trace's: the one where its ``GroupChatStart`` was
    sent (the id is the same whichever order the export lists the spans in)."""
    name = OTLP.format("two-runs-same-team")
    traces = _import(run_cli, tmp_path, name)
    assert [t["run"]["trace_id"] for t in traces] == _team_starts(LIVE / name)
    reversed_copy = tmp_path / name
    lines = (LIVE / name).read_text(encoding="utf-8").splitlines(keepends=True)
    reversed_copy.write_text("".join(reversed(lines)), encoding="utf-8")
    again = cli_import(run_cli, "otel", reversed_copy, tmp_path / "again")[0]
    assert [t["run"] for t in again] == [t["run"] for t in traces]
    assert [[s["span_id"] for s in t["spans"]] for t in again] == [
        [s["span_id"] for s in t["spans"]] for t in traces
    ]


def test_turn_of_no_run_in_the_export_stays_apart(run_cli: Any, tmp_path: Path) -> None:
    """An export that begins inside the killed turn (its team run's start not in the file):
    the turn's traces join no run; the call that finished is a run of its own whose root was
    never written (status unknown, not a success)."""
    name = OTLP.format("killed-mid-turn")
    lines = (LIVE / name).read_text(encoding="utf-8").splitlines(keepends=True)
    turn = next(r for r in jsonl_records(LIVE / name) if "execute_tool lookup_order" in str(r))
    turn_id = turn["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    cut = tmp_path / name
    cut.write_text("".join(lines[next(i for i, x in enumerate(lines) if turn_id in x) :]))
    traces = cli_import(run_cli, "otel", cut, tmp_path / "traces")[0]
    assert [(t["run"]["final_status"], json_agent_steps(t)) for t in traces] == [
        ("unknown", [_tool("lookup_order", None)])
    ]
    assert traces[0]["run"]["trace_id"] == turn_id
