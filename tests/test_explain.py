"""``abw.explain``: one check, its inputs, its violating spans, and why."""

from __future__ import annotations

import pytest
from test_gate_factory import REFUND, REGRESSED, runs

from abw.errors import AbwInputError
from abw.explain import explain, find_check
from abw.gating import gate
from abw.models.spec import Spec

SPEC = Spec.model_validate(
    {
        "schema_version": "behavior-spec/v0",
        "id": "t",
        "invariants": {
            "required_order": [{"before": "policy_check", "after": "refund_commit"}],
            "max_errors": 0,
        },
    }
)


@pytest.fixture(scope="module")
def report():
    baseline = runs("b", [REFUND] * 12)
    candidate = runs("c", [REFUND] * 3 + [REGRESSED])
    return gate(baseline, candidate, SPEC, spec_file="spec.yaml", spec_sha256="ab" * 32)


def test_failed_hard_check(report):
    text = explain(report, "behavior_contract.required_order[0]")
    assert text.startswith("behavior_contract.required_order[0]: FAIL\n")
    assert "hard invariant, one violating run is proof" in text
    assert "limit      before = policy_check" in text
    assert "spec spec.yaml (sha256 " + "ab" * 32 + ")" in text
    assert "12 baseline traces" in text and "4 candidate traces" in text
    assert "c-03: refund_commit succeeded at ordinal 3" in text
    assert "c/c-03.json:10 (ordinal 3), c/c-03.json:11 (ordinal 4)" in text
    assert "1 run contradicts the rule" in text


def test_passed_and_statistical_checks(report):
    text = explain(report, "operational_quality.max_errors")
    assert "PASS" in text.splitlines()[0] and "No run contradicts the rule" in text
    text = explain(report, "sample_sufficiency.confidence_sequence@refund")
    assert "statistics\n  k/n 3/4" in text
    assert "rule confidence_sequence (for a single look only)" in text
    assert "runs needed" in text and "soft or statistical" in text


def test_a_tolerated_violation_is_explained_as_evidence_not_proof():
    """Under ``failing_runs: tolerate`` a violated hard check WARNs: the text says the spec
    tolerates it and the pass-rate test decides (it said the check FAILs, or blamed a
    ``baseline_violations: warn`` the spec never set)."""
    spec = SPEC.model_copy(
        update={"thresholds": SPEC.thresholds.model_copy(update={"failing_runs": "tolerate"})}
    )
    for baseline in (runs("b", [REFUND] * 12), runs("b", [REFUND] * 11 + [REGRESSED])):
        candidate = runs("c", [REFUND] * 3 + [REGRESSED])
        tolerated = gate(baseline, candidate, spec, spec_file="spec.yaml", spec_sha256="ab" * 32)
        text = explain(tolerated, "behavior_contract.required_order[0]")
        assert text.startswith("behavior_contract.required_order[0]: WARN\n")
        assert "hard invariant, tolerated: a violating run is evidence" in text
        assert "one violating run is proof" not in text and "FAILs" not in text
        assert "baseline_violations" not in text
        assert "the spec tolerates failing runs (failing_runs: tolerate)" in text


def test_unknown_check_names_the_closest(report):
    with pytest.raises(
        AbwInputError, match=r"did you mean sample_sufficiency\.confidence_sequence@refund"
    ):
        find_check(report, "sample_sufficiency.confidence")


def test_a_bad_report_is_one_line_exit_2(run_cli, tmp_path):
    """abw explain reads reports with abw.render.load_report: size-limited, line numbers."""
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version":\n', encoding="utf-8")
    other = tmp_path / "trace.json"
    other.write_text('{"schema_version": "agent-behavior-trace/v0"}', encoding="utf-8")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    for path, words in (
        (tmp_path, "expected a file, found a folder"),
        (bad, ":2: invalid JSON"),
        (other, "gate-report/v0"),
        (deep, "invalid JSON"),
        (tmp_path / "missing.json", "no such file"),
    ):
        code, out, err = run_cli("explain", "x", "--report", path)
        assert (code, out) == (2, ""), err
        assert err.count("\n") == 1 and err.startswith("abw: error: ") and words in err, err


def test_explain_and_sarif_describe_each_rule_with_the_same_text(report):
    """One catalogue of what a check kind means, for `abw explain` and SARIF's rules[]."""
    import json

    from abw.render import render

    sarif_rules = json.loads(render(report, "sarif"))["runs"][0]["tool"]["driver"]["rules"]
    full = {rule["id"]: rule["fullDescription"]["text"] for rule in sarif_rules}
    for check in report.checks:
        text = explain(report, check.id)
        assert f"rule       {check.rule}: {full[check.rule]}" in text


def _undecided(tmp_path, run_cli, candidate, edit=None) -> str:
    """``abw explain`` of the example's pass-rate test after gating ``candidate``."""
    import json
    import shutil

    from conftest import REPO

    example = REPO / "examples" / "refund-policy"
    folder = shutil.copytree(example / "traces" / candidate, tmp_path / candidate)
    for path in folder.glob("*.json") if edit else ():
        trace = json.loads(path.read_text())
        edit(trace)
        path.write_text(json.dumps(trace))
    report = tmp_path / "report.json"
    run_cli(
        "gate", "--baseline", example / "traces" / "baseline", "--candidate", folder,
        "--spec", example / "behavior.yaml", "--out", report,
    )  # fmt: skip
    code, out, err = run_cli(
        "explain", "sample_sufficiency.confidence_sequence@refund-policy", "--report", report
    )
    assert code == 0, err
    return " ".join(out.split())


def test_explain_says_more_runs_only_where_more_runs_can_decide(tmp_path, run_cli):
    """Every undecided pass-rate test was explained "run more candidate runs": also where a hard
    check already FAILs (no number of passing runs changes that) and where every run crashed,
    its bounds far below tau (more runs of that agent decide nothing)."""
    small = _undecided(tmp_path / "small", run_cli, "small")
    assert "run about 11 more passing candidate runs" in small
    regressed = _undecided(tmp_path / "regressed", run_cli, "regressed")
    assert "run more" not in regressed and "a hard check already FAILs" in regressed

    def cancelled(trace):
        trace["run"]["final_status"] = "cancelled"

    crashed = _undecided(tmp_path / "crashed", run_cli, "good", cancelled)
    assert "run more" not in crashed and "pass less often than tau=0.7" in crashed
    assert "did not complete" in crashed
