"""Gating real sessions end to end, as a team gating its own agent would: real exports from
tests/corpus imported per task with ``--scenario-id``, split into baseline and candidate sets
(a scenario missing from the candidate, an extra one), gated, rendered and explained."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "corpus"
CODEX = (
    "codex/agentcmd__rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl",
    "codex/agentcmd__rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl",
)
GEMINI = (
    "gemini-cli/codemie__session-2025-12-01T21-45-5b959dae.json",
    "gemini-cli/codemie__session-2026-01-16T11-01-file-ops-37b7abef.json",
)


@pytest.fixture(scope="module")
def traces(tmp_path_factory) -> Path:
    """Baseline: codex-task (2 Codex rollouts) and gemini-task (2 Gemini sessions); the
    candidate "no-gemini" holds the Codex runs only (a team that forgot one task)."""
    from abw.cli import cli, run

    root = tmp_path_factory.mktemp("sets")
    for importer, scenario, files in (
        ("codex", "codex-task", CODEX),
        ("gemini", "gemini-task", GEMINI),
    ):
        for name in files:
            args = ["import", importer, "--input", str(CORPUS / name), "--out", str(root / "base")]
            assert run(cli, [*args, "--scenario-id", scenario, "--quiet"]) == 0
    (root / "no-gemini").mkdir()
    for trace in (root / "base").glob("agentcmd__*.json"):
        shutil.copy(trace, root / "no-gemini" / trace.name)
    assert (
        run(
            cli,
            ["spec", "init", "--baseline", str(root / "base"), "--out", str(root / "spec.yaml")],
        )
        == 0
    )
    return root


def gate(run_cli, root: Path, candidate: str, out: str, *more: str) -> tuple[int, dict, str]:
    args = ["gate", "--baseline", root / "base", "--candidate", root / candidate]
    code, stdout, _ = run_cli(*args, "--spec", root / "spec.yaml", "--out", root / out, *more)
    return code, json.loads((root / out).read_text()), stdout


def by_id(report: dict, check_id: str) -> dict:
    return next(c for c in report["checks"] if c["id"] == check_id)


def test_a_scenario_the_candidate_left_out_passes_no_execution_check(traces, run_cli):
    """A scenario of the baseline with no candidate run: its execution check used to PASS,
    "All 0 candidate runs of scenario gemini-task completed" — a vacuous pass counted among
    the passed checks. It is INCONCLUSIVE and says which runs are missing."""
    code, report, _ = gate(run_cli, traces, "no-gemini", "missing.json")
    assert code == 3 and report["verdict"] == "INCONCLUSIVE"
    check = by_id(report, "execution.incomplete_runs@gemini-task")
    assert check["verdict"] == "INCONCLUSIVE" and check["runs_checked"] == 0
    assert check["message"].startswith("No candidate run to check: ")
    assert "All 0" not in check["message"]
    assert by_id(report, "execution.incomplete_runs@codex-task")["verdict"] == "PASS"


def test_a_scenario_with_no_candidate_run_is_not_labelled_single_look(traces, run_cli, tmp_path):
    """No candidate run yet is nothing out of recording order: the scenario's statistics used to
    read ``order: trace_id``, ``looks: single`` ("some run has no start time", "valid for a
    single look") in the report, explain and Markdown, though no run lacked a time."""
    _, report, _ = gate(run_cli, traces, "no-gemini", "order.json")
    stats = {s["scenario_id"]: s for s in report["statistics"]}
    assert stats["gemini-task"]["n"] == 0
    assert stats["gemini-task"]["sequence"]["order"] == "recording"
    assert stats["gemini-task"]["looks"] == "any" == stats["codex-task"]["looks"]
    code, stdout, _ = run_cli(
        "explain",
        "sample_sufficiency.confidence_sequence@gemini-task",
        "--report",
        traces / "order.json",
    )
    assert code == 0 and "single look" not in stdout and "valid at any look" in stdout
    markdown = tmp_path / "report.md"
    assert run_cli("report", "-i", traces / "order.json", "-o", markdown)[0] == 0
    assert "single-look" not in markdown.read_text()


def test_the_missing_scenario_continues_its_sequence_when_its_runs_come_back(traces, run_cli):
    """Gate with every run, then without the Gemini runs (--previous: the scenario restarts at
    a spent-down level), then with them again: it extends the empty sequence at that level and
    never falls back to the first sequence's level."""
    shutil.copytree(traces / "base", traces / "all", dirs_exist_ok=True)
    gate(run_cli, traces, "all", "first.json")
    _, gap, _ = gate(run_cli, traces, "no-gemini", "gap.json", "--previous", traces / "first.json")
    _, back, _ = gate(run_cli, traces, "all", "back.json", "--previous", traces / "gap.json")
    levels = {}
    for name, report in (("gap", gap), ("back", back)):
        stats = next(s for s in report["statistics"] if s["scenario_id"] == "gemini-task")
        levels[name] = (
            stats["sequence"]["continuity"],
            stats["sequence"]["restarts"],
            stats["pass_level"],
        )
    assert levels == {"gap": ("restarted", 1, 0.0125), "back": ("extends", 1, 0.0125)}
    assert (
        run_cli(
            "verify-report",
            traces / "back.json",
            "--baseline",
            traces / "base",
            "--candidate",
            traces / "all",
            "--spec",
            traces / "spec.yaml",
            "--previous",
            traces / "gap.json",
        )[0]
        == 0
    )


def test_a_new_run_recorded_before_the_earlier_ones_is_not_called_a_reordering(traces, run_cli):
    """A Codex rollout from 2025-09-19 added to runs of 2025-09-24/25 sorts first: the restart
    used to say "the earlier runs are all present but in a different order (reordered)", yet
    they kept their order; it says a new run sorts before the earlier gate's last run."""
    assert gate(run_cli, traces, "no-gemini", "before.json")[0] == 3
    earlier = traces / "earlier"
    shutil.copytree(traces / "no-gemini", earlier)
    older = CORPUS / "codex" / "vibecodingtracker__test_conversation_codex.jsonl"
    args = ("import", "codex", "--input", older, "--out", earlier, "--scenario-id", "codex-task")
    assert run_cli(*args)[0] == 0
    _, report, _ = gate(
        run_cli, traces, "earlier", "after.json", "--previous", traces / "before.json"
    )
    stats = next(s for s in report["statistics"] if s["scenario_id"] == "codex-task")
    message = stats["sequence"]["continuity_message"]
    assert stats["sequence"]["continuity"] == "restarted" and stats["n"] == 3
    assert "1 new run(s) sort before its last run" in message and "reordered" not in message
    rate = by_id(report, "sample_sufficiency.confidence_sequence@codex-task")
    assert "1 new run(s) sort before its last run" in rate["message"]
