"""The gate's one-sided scenarios and its re-runs after INCONCLUSIVE, through the real CLI on
the example's traces: figures against nothing are absent, and a sequence's spent levels are
never given back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import REPO, export_again

from abw.hashing import sha256_hex

EXAMPLE = REPO / "examples" / "refund-policy"
SPEC = EXAMPLE / "behavior.yaml"


def _copy(source: str, target: Path, count: int, scenario: str | None = None) -> Path:
    """``count`` of the example's ``source`` runs in ``target``, as scenario ``scenario``
    (a new trace id with it) when given."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted((EXAMPLE / "traces" / source).iterdir())[:count]:
        if scenario is None:
            shutil.copyfile(path, target / path.name)
            continue
        document = json.loads(path.read_text(encoding="utf-8"))
        document["run"]["scenario_id"] = scenario
        document["run"]["trace_id"] += f"-{scenario}"
        (target / f"{scenario}-{path.name}").write_text(json.dumps(document), encoding="utf-8")
    return target


def _gate(run_cli, base: Path, cand: Path, out: Path, *more: object) -> tuple[int, dict, str]:
    code, _, err = run_cli(
        "gate", "--baseline", base, "--candidate", cand, "--spec", SPEC, "--out", out, *more
    )
    return code, json.loads(out.read_text(encoding="utf-8")), err


def _by_scenario(report: dict, part: str) -> dict:
    return {item["scenario_id"]: item for item in report[part]}


COMPARED = (
    "path_edit_distance_mean",
    "path_edit_distance_max",
    "fingerprint_distance",
    "tool_jaccard_distance",
    "tools_new",
    "tools_missing",
)


def test_one_sided_scenarios_compare_nothing_in_json_markdown_and_html(tmp_path, run_cli):
    base = _copy("baseline", tmp_path / "base", 4)
    _copy("baseline", base, 4, scenario="base-only")
    cand = _copy("good", tmp_path / "cand", 4)
    _copy("good", cand, 4, scenario="cand-only")
    code, _, err = run_cli(
        "gate", "--baseline", base, "--candidate", cand, "--spec", SPEC,
        "--report-dir", tmp_path / "out",
    )  # fmt: skip
    assert code == 3, err
    report = json.loads((tmp_path / "out" / "gate-report.json").read_text(encoding="utf-8"))
    diffs = _by_scenario(report, "diff")
    for sid in ("base-only", "cand-only"):
        assert {key: diffs[sid][key] for key in COMPARED} == dict.fromkeys(COMPARED)
        assert diffs[sid]["first_divergence"] is None and diffs[sid]["divergences"] == []
    assert [r["path_edit_distance"] for r in diffs["cand-only"]["per_run"]] == [None] * 4
    assert diffs["cand-only"]["candidate_tool_means"]["refund_commit"] == 1.0  # its own measure
    assert diffs["base-only"]["baseline_tool_means"]["refund_commit"] == 1.0
    assert diffs["refund-policy"]["path_edit_distance_mean"] == 0.0  # both sides: measured
    assert diffs["refund-policy"]["tools_new"] == []
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "| base-only | 4/0 | \u2014 / \u2014 | \u2014 | \u2014 | \u2014 | \u2014 |" in markdown
    assert "| cand-only | 0/4 | \u2014 / \u2014 | \u2014 | \u2014 | \u2014 | \u2014 |" in markdown
    assert "First divergent step \u2014 scenario cand-only" not in markdown
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "where the baseline takes one of ." not in html  # no divergence against nothing
    assert '<div class="mval">\u2014</div>' in html


def test_a_scenario_gone_from_both_sides_keeps_its_spent_level(tmp_path, run_cli):
    base = _copy("baseline", tmp_path / "base", 4)
    cand = _copy("good", tmp_path / "cand", 4)
    _copy("good", cand, 6, scenario="extra")
    code, first, err = _gate(run_cli, base, cand, tmp_path / "r1.json")
    assert code == 3, err
    assert _by_scenario(first, "statistics")["extra"]["sequence"]["n"] == 6

    # The next look drops scenario extra from both sides: it stays, restarted, INCONCLUSIVE.
    for path in cand.glob("extra-*"):
        path.unlink()
    code, second, err = _gate(
        run_cli, base, cand, tmp_path / "r2.json", "--previous", tmp_path / "r1.json"
    )
    assert code == 3, err
    extra = _by_scenario(second, "statistics")["extra"]
    assert (extra["n"], extra["sequence"]["restarts"], extra["sequence"]["continuity"]) == (
        0,
        1,
        "restarted",
    )
    checks = {c["id"]: c for c in second["checks"]}
    assert checks["sample_sufficiency.min_runs@extra"]["verdict"] == "INCONCLUSIVE"
    assert (  # (the runs it saw are left out: should they come back, they count no more)
        "none was recorded since its sequence restarted"
        in checks["sample_sufficiency.min_runs@extra"]["message"]
    )
    assert len(extra["sequence"]["left_out"]) == 6
    assert "neither set has a run" in checks["execution.incomplete_runs@extra"]["message"]
    assert _by_scenario(second, "diff")["extra"]["path_edit_distance_mean"] is None

    # Its runs back: left out (the earlier gate saw them), the sequence goes on from the
    # restart count, at the spent-down level.
    _copy("good", cand, 6, scenario="extra")
    code, third, err = _gate(
        run_cli, base, cand, tmp_path / "r3.json", "--previous", tmp_path / "r2.json"
    )
    extra = _by_scenario(third, "statistics")["extra"]
    assert extra["sequence"]["restarts"] == 1 and extra["sequence"]["continuity"] == "extends"
    assert extra["n"] == 0
    assert extra["pass_level"] == 0.05 / 4  # restart 1: alpha * 2^-2, not the first alpha / 2


def test_a_scenario_that_spent_no_look_is_not_carried(tmp_path, run_cli):
    base = _copy("baseline", tmp_path / "base", 4)
    _copy("baseline", base, 4, scenario="typo")
    cand = _copy("good", tmp_path / "cand", 4)
    code, first, err = _gate(run_cli, base, cand, tmp_path / "r1.json")
    assert code == 3, err
    assert _by_scenario(first, "statistics")["typo"]["sequence"]["n"] == 0
    for path in base.glob("typo-*"):
        path.unlink()
    code, second, err = _gate(
        run_cli, base, cand, tmp_path / "r2.json", "--previous", tmp_path / "r1.json"
    )
    assert [s["scenario_id"] for s in second["statistics"]] == ["refund-policy"]
    assert code == 3, err  # (refund-policy: 4 of 4 runs cannot reach tau yet)


def _statistic(report: dict, sid: str = "refund-policy") -> dict:
    return _by_scenario(report, "statistics")[sid]


def test_a_spec_edited_between_looks_restarts_the_sequence(tmp_path, run_cli):
    base = _copy("baseline", tmp_path / "base", 4)
    cand = _copy("good", tmp_path / "cand", 6)
    spec = tmp_path / "spec.yaml"
    text = SPEC.read_text(encoding="utf-8")
    spec.write_text(text.replace("min_wilson_pass_rate: 0.7", "min_wilson_pass_rate: 0.9"))
    args = ("gate", "--baseline", base, "--candidate", cand, "--spec", spec)
    code, _, err = run_cli(*args, "--out", tmp_path / "r1.json")
    assert code == 3, err
    spec.write_text(text)  # tau lowered to 0.7 after the first look: another test
    _copy("good", cand, 12)
    code, out, err = run_cli(
        *args, "--out", tmp_path / "r2.json", "--previous", tmp_path / "r1.json"
    )
    stats = _statistic(json.loads((tmp_path / "r2.json").read_text(encoding="utf-8")))
    assert stats["sequence"]["continuity"] == "restarted" and stats["sequence"]["restarts"] == 1
    assert "the spec changed since the earlier gate" in stats["sequence"]["continuity_message"]
    assert stats["pass_level"] == 0.05 / 4
    assert "the spec changed since the earlier gate" in out + err  # the terminal says why


def test_an_earlier_run_judged_otherwise_now_restarts_the_sequence(tmp_path, run_cli):
    base = _copy("baseline", tmp_path / "base", 24)
    cand = _copy("good", tmp_path / "cand", 20)
    regressed = EXAMPLE / "traces" / "regressed"
    shutil.copyfile(regressed / "regressed-04-5455975e.json", cand / "regressed-04.json")
    spec = tmp_path / "spec.yaml"
    text = SPEC.read_text(encoding="utf-8").replace(
        "failing_runs: forbid", "failing_runs: tolerate"
    )
    spec.write_text(text.replace("\nthresholds:", "\nbaseline_violations: warn\nthresholds:"))
    _, first, _ = _gate_with(run_cli, base, cand, spec, tmp_path / "r1.json")
    assert (_statistic(first)["k"], _statistic(first)["n"]) == (20, 21)
    # The same violation enters the baseline: under baseline_violations: warn the earlier
    # failing run passes now, so the earlier look's outcomes are not this one's; a failing run
    # that passes now must not turn the restart into a re-test of the runs seen (a PASS bought
    # by another baseline): they are left out, as if the failing one had been removed.
    shutil.copyfile(regressed / "regressed-17-3d30f67b.json", base / "regressed-17.json")
    _, second, _ = _gate_with(
        run_cli, base, cand, spec, tmp_path / "r2.json", "--previous", tmp_path / "r1.json"
    )
    stats = _statistic(second)
    assert (stats["k"], stats["n"]) == (0, 0)
    assert stats["sequence"]["continuity"] == "restarted"
    message = stats["sequence"]["continuity_message"]
    assert "1 earlier run(s) pass or fail differently now" in message
    assert "1 earlier run(s) that failed pass now" in message


def _gate_with(run_cli, base: Path, cand: Path, spec: Path, out: Path, *more: object):
    code, _, err = run_cli(
        "gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--out", out, *more
    )
    return code, json.loads(out.read_text(encoding="utf-8")), err


@pytest.mark.parametrize("removed", ["counted", "other"])
def test_removing_one_of_two_imports_of_a_run(tmp_path, run_cli, removed):
    """Two imports of one recording are one run (n = 6, not 7). Removing either import
    changes nothing: the run is known by its trace id, so the sequence goes on (it restarted,
    naming a missing run, while the chain was over the files' bytes)."""
    base = _copy("baseline", tmp_path / "base", 4)
    cand = _copy("good", tmp_path / "cand", 6)
    twin = sorted(cand.iterdir())[0]
    export_again(twin, cand / "copy.json", 1)  # the same recording imported again
    _, first, _ = _gate(run_cli, base, cand, tmp_path / "r1.json")
    assert _statistic(first)["n"] == 6
    files = sorted([twin, cand / "copy.json"], key=lambda p: sha256_hex(p.read_bytes()))
    (files[0] if removed == "counted" else files[1]).unlink()
    _, report, _ = _gate(
        run_cli, base, cand, tmp_path / "r2.json", "--previous", tmp_path / "r1.json"
    )
    sequence = _statistic(report)["sequence"]
    assert sequence["continuity"] == "extends", sequence
    assert (_statistic(report)["n"], sequence["restarts"]) == (6, 0)
