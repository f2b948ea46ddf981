"""Reports and ``abw explain`` on real gate reports of the refund-policy example: one-sided
scenarios, hand-edited reports and checks that decided nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO

EXAMPLE = REPO / "examples" / "refund-policy"
SPEC = EXAMPLE / "behavior.yaml"


def _copy(source: str, target: Path, count: int, scenario: str | None = None) -> Path:
    """``count`` of the example's ``source`` runs in ``target`` (as ``scenario`` when given)."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted((EXAMPLE / "traces" / source).iterdir())[:count]:
        document = json.loads(path.read_text(encoding="utf-8"))
        if scenario is not None:
            document["run"]["scenario_id"] = scenario
            document["run"]["trace_id"] += f"-{scenario}"
        (target / f"{scenario or 'x'}-{path.name}").write_text(
            json.dumps(document), encoding="utf-8"
        )
    return target


@pytest.fixture(scope="module")
def one_sided(tmp_path_factory) -> Path:
    """A real gate report: scenario refund-policy on both sides, cand-only on one."""
    from abw.cli import cli, run

    root = tmp_path_factory.mktemp("one-sided")
    base = _copy("baseline", root / "base", 4)
    cand = _copy("good", root / "cand", 4)
    _copy("good", cand, 3, scenario="cand-only")
    out = root / "gate-report.json"
    args = ["gate", "--baseline", str(base), "--candidate", str(cand), "--spec", str(SPEC)]
    assert run(cli, [*args, "--out", str(out), "-q"]) == 3
    return out


def test_html_report_of_a_run_distance_edited_to_null_is_no_internal_error(
    run_cli, one_sided, tmp_path
):
    """A null per-run distance (the one-sided form) in a two-sided scenario crashed the HTML
    histogram: ``abw report --format html`` was an internal error."""
    report = json.loads(one_sided.read_text(encoding="utf-8"))
    (diff,) = [d for d in report["diff"] if d["scenario_id"] == "refund-policy"]
    diff["per_run"][0]["path_edit_distance"] = None
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(report), encoding="utf-8")
    out = tmp_path / "report.html"
    code, _, err = run_cli("report", "-i", edited, "-o", out, "--format", "html")
    assert code == 0, err
    html = out.read_text(encoding="utf-8")
    assert "3 runs in [0, 0.05)" in html  # the three measured runs, the null one left out


def test_explain_a_one_sided_scenario_asks_for_baseline_runs(run_cli, one_sided):
    """``why`` told the user to run more candidate runs; baseline runs are what is missing."""
    code, out, err = run_cli(
        "explain", "--report", one_sided, "diff_shape.baseline_coverage@cand-only"
    )
    assert code == 0, err
    assert out.endswith(
        "why\n  The candidate's runs have no baseline runs of their scenario to be compared "
        "with; record baseline runs of it under the same --scenario-id.\n"
    )


def test_explain_a_vacuous_hard_check_does_not_say_it_fails(run_cli, tmp_path):
    """A required order naming a tool no run shows is INCONCLUSIVE; ``why`` said "0 runs
    contradict the rule; one counterexample is proof, so the check FAILs"."""
    spec = tmp_path / "typo.yaml"
    text = SPEC.read_text(encoding="utf-8")
    typo = "{before: policy_check, after: refund_comit}"
    spec.write_text(text.replace("{before: policy_check, after: refund_commit}", typo))
    assert typo in spec.read_text(encoding="utf-8")  # the premise
    report = tmp_path / "r.json"
    base, cand = EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / "small"
    run_cli("gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--out", report)
    code, out, err = run_cli("explain", "--report", report, "behavior_contract.required_order[0]")
    assert code == 0, err
    assert out.startswith("behavior_contract.required_order[0]: INCONCLUSIVE\n  Vacuous: ")
    assert "FAILs" not in out
    assert out.endswith(
        "why\n  The spec names something no run shows, so the check checked nothing; fix the "
        "spec (the message names the nearest real one), not the runs.\n"
    )


def test_explain_a_broken_precondition_names_the_runs_that_break_it(run_cli, tmp_path):
    """A precondition rule 4 runs violate is INCONCLUSIVE; ``why`` said some runs lacked a
    recorded result or arguments (the words for an undecidable run)."""
    spec = tmp_path / "pre.yaml"
    rule = "rules:\n  - {kind: count, id: no-refund, tool: refund_commit, max: 0, "
    spec.write_text(SPEC.read_text(encoding="utf-8") + rule + "enforcement: precondition}\n")
    report = tmp_path / "r.json"
    base, cand = EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / "small"
    run_cli("gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--out", report)
    code, out, err = run_cli("explain", "--report", report, "operational_quality.rules.no-refund")
    assert code == 0, err
    assert out.startswith("operational_quality.rules.no-refund: INCONCLUSIVE\n")
    assert out.endswith(
        "why\n  4 runs contradict a precondition: the contract's promise does not apply to them, "
        "so the check decides nothing (INCONCLUSIVE, never PASS) and they do not count as failed "
        "runs.\n"
    )
