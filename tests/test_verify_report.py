"""``abw verify-report``: a report is checked against the exact inputs it claims to judge."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import REPO

EXAMPLE = REPO / "examples" / "refund-policy"


@pytest.fixture
def judged(tmp_path):
    """A copy of the example's baseline and good candidate, the spec, and a report over them."""
    from abw.atomic import write_atomic
    from abw.gating import report_json, run_gate

    base = shutil.copytree(EXAMPLE / "traces" / "baseline", tmp_path / "baseline")
    cand = shutil.copytree(EXAMPLE / "traces" / "good", tmp_path / "candidate")
    spec = shutil.copy(EXAMPLE / "behavior.yaml", tmp_path / "behavior.yaml")
    report = tmp_path / "gate-report.json"
    write_atomic(report, report_json(run_gate(base, cand, spec)))
    return report, base, cand, tmp_path / "behavior.yaml"


def _verify(run_cli, report, base, cand, spec):
    return run_cli("verify-report", report, "--baseline", base, "--candidate", cand, "--spec", spec)


def test_report_matches_its_inputs(run_cli, judged):
    code, out, _ = _verify(run_cli, *judged)
    assert code == 0, out
    assert out.startswith("ok: ") and "44 traces" in out


def test_same_bytes_elsewhere_still_match(run_cli, judged, tmp_path):
    report, base, cand, spec = judged
    moved = shutil.copytree(base, tmp_path / "elsewhere" / "b")
    for path in moved.glob("*.json"):  # other names, same content
        path.rename(path.with_name("x-" + path.name))
    code, out, _ = _verify(run_cli, report, moved, cand, spec)
    assert code == 0, out


def test_other_candidate_is_a_mismatch(run_cli, judged):
    report, base, _, spec = judged
    code, out, _ = _verify(run_cli, report, base, EXAMPLE / "traces" / "regressed", spec)
    assert code == 1
    assert "is not among the traces the report judged" in out
    assert "which is not in" in out


def test_one_changed_byte_in_a_trace_is_a_mismatch(run_cli, judged):
    report, base, cand, spec = judged
    victim = sorted(cand.glob("*.json"))[3]
    victim.write_bytes(victim.read_bytes().replace(b"\n}", b" \n}"))
    code, out, _ = _verify(run_cli, report, base, cand, spec)
    assert code == 1
    assert victim.name in out


def test_missing_and_extra_trace(run_cli, judged):
    report, base, cand, spec = judged
    sorted(base.glob("*.json"))[0].unlink()
    code, out, _ = _verify(run_cli, report, base, cand, spec)
    assert code == 1 and "baseline: the report judged" in out
    shutil.copy(sorted(cand.glob("*.json"))[0], base / "extra.json")
    code, out, _ = _verify(run_cli, report, base, cand, spec)
    assert code == 1 and "extra.json is not among" in out


def test_changed_spec_is_a_mismatch(run_cli, judged):
    report, base, cand, spec = judged
    spec.write_text(spec.read_text() + "\n# edited\n")
    code, out, _ = _verify(run_cli, report, base, cand, spec)
    assert code == 1 and out.startswith("mismatch: spec:")


def test_roles_swapped_is_a_mismatch(run_cli, judged):
    report, base, cand, spec = judged
    code, _, _ = _verify(run_cli, report, cand, base, spec)
    assert code == 1


def test_edited_report_digest_is_detected(run_cli, judged):
    report, base, cand, spec = judged
    document = json.loads(report.read_text())
    document["inputs"]["traces"][0]["sha256"] = "0" * 64  # hide a file, keep the digest
    report.write_text(json.dumps(document))
    code, out, _ = _verify(run_cli, report, base, cand, spec)
    assert code == 1 and "edited report" in out


@pytest.mark.parametrize(
    "content",
    [b"", b"{", b"[]", b'{"schema_version": "gate-report/v0"}', b'{"schema_version": "x"}'],
)
def test_bad_report_is_exit_2(run_cli, judged, content):
    report, base, cand, spec = judged
    report.write_bytes(content)
    code, out, err = _verify(run_cli, report, base, cand, spec)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_missing_inputs_are_exit_2(run_cli, judged, tmp_path):
    report, base, cand, spec = judged
    assert _verify(run_cli, tmp_path / "nope.json", base, cand, spec)[0] == 2
    assert _verify(run_cli, report, tmp_path / "nope", cand, spec)[0] == 2
    assert _verify(run_cli, report, base, cand, tmp_path / "nope.yaml")[0] == 2


def test_an_unreadable_report_is_one_line_exit_2(run_cli, judged, tmp_path):
    _, base, cand, spec = judged
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version":\n', encoding="utf-8")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    for path, words in (
        (tmp_path, "expected a file, found a folder"),
        (bad, ":2: invalid JSON"),
        (deep, "invalid JSON"),
        (tmp_path / "missing.json", "no such file"),
    ):
        code, out, err = _verify(run_cli, path, base, cand, spec)
        assert (code, out) == (2, ""), err
        assert err.count("\n") == 1 and err.startswith("abw: error: ") and words in err, err


@pytest.fixture
def failing(tmp_path):
    """A report over the example's regressed candidate (FAIL)."""
    from abw.atomic import write_atomic
    from abw.gating import report_json, run_gate

    base = shutil.copytree(EXAMPLE / "traces" / "baseline", tmp_path / "baseline")
    cand = shutil.copytree(EXAMPLE / "traces" / "regressed", tmp_path / "candidate")
    spec = shutil.copy(EXAMPLE / "behavior.yaml", tmp_path / "behavior.yaml")
    report = tmp_path / "gate-report.json"
    gated = run_gate(base, cand, spec)
    assert gated.verdict == "FAIL"  # the premise
    write_atomic(report, report_json(gated))
    return report, base, cand, tmp_path / "behavior.yaml"


def _edit(report, change):
    document = json.loads(report.read_text())
    change(document)
    report.write_text(json.dumps(document))


def test_a_verdict_edited_from_fail_to_pass_is_named(run_cli, failing):
    _edit(failing[0], lambda d: d.update(verdict="PASS"))
    code, out, _ = _verify(run_cli, *failing)
    assert code == 1
    assert "mismatch: verdict: the report says PASS but its checks give FAIL" in out


def test_an_edited_summary_is_named(run_cli, failing):
    _edit(failing[0], lambda d: d.update(summary="PASS: all good."))
    code, out, _ = _verify(run_cli, *failing)
    assert code == 1 and "mismatch: summary: it leads with 'PASS'" in out


def test_a_consistent_forgery_is_caught_by_gating_again(run_cli, failing):
    def forge(document):
        for check in document["checks"]:
            check["verdict"] = "PASS"
            check["violations"] = []
        document["verdict"] = "PASS"
        document["summary"] = "PASS: all checks passed."

    _edit(failing[0], forge)
    code, out, _ = _verify(run_cli, *failing)
    assert code == 1
    assert "mismatch: verdict: the report says PASS, the gate gives FAIL on these inputs" in out
    assert "the gate gives FAIL" in out and "mismatch: checks[" in out


def test_every_example_report_is_consistent():
    from abw.gating import run_gate
    from abw.verify_report import consistency_problems

    for candidate in ("good", "regressed"):
        report = run_gate(
            EXAMPLE / "traces" / "baseline",
            EXAMPLE / "traces" / candidate,
            EXAMPLE / "behavior.yaml",
        )
        assert consistency_problems(report.model_dump(mode="json")) == [], candidate


def test_a_contract_gated_report_is_gated_again_as_a_contract(run_cli, tmp_path):
    from abw.atomic import write_atomic
    from abw.contract import run_contract_gate
    from abw.gating import report_json

    base = EXAMPLE / "traces" / "baseline"
    cand = EXAMPLE / "traces" / "regressed"
    contract = EXAMPLE / "contract.json"
    report = tmp_path / "gate-report.json"
    write_atomic(report, report_json(run_contract_gate(base, cand, contract)))
    code, out, err = _verify(run_cli, report, base, cand, contract)
    assert code == 0, out + err
    _edit(report, lambda d: [c.update(verdict="PASS", violations=[]) for c in d["checks"]])
    _edit(report, lambda d: d.update(verdict="PASS", summary="PASS: fine."))
    code, out, _ = _verify(run_cli, report, base, cand, contract)
    assert code == 1 and "the gate gives FAIL on these inputs" in out


def test_strict_is_passed_to_the_gate_again(run_cli, tmp_path):
    from abw.atomic import write_atomic
    from abw.gating import report_json, run_gate

    base, cand = EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / "good"
    spec = EXAMPLE / "behavior.yaml"
    report = tmp_path / "gate-report.json"
    write_atomic(report, report_json(run_gate(base, cand, spec, strict=True)))
    code, out, err = run_cli(
        "verify-report",
        report,
        "--baseline",
        base,
        "--candidate",
        cand,
        "--spec",
        spec,
        "--strict",
    )
    assert code == 0, out + err


def test_validate_refuses_a_report_that_contradicts_itself_as_every_reader_does(run_cli, judged):
    """``abw validate`` said "ok" on a report whose verdict was edited to FAIL, which
    ``abw report``, ``explain`` and the Action refuse: a file it calls ok is one they read."""
    report = judged[0]
    code, out, err = run_cli("validate", report)
    assert code == 0 and out.strip() == f"{report}: ok", err
    document = json.loads(report.read_text())
    document["verdict"] = "FAIL"
    report.write_text(json.dumps(document, indent=2))
    code, out, err = run_cli("validate", report)
    assert code == 2
    assert "$.verdict: refused: the report contradicts itself: the report says FAIL" in out + err
    code, _, err = run_cli("report", "-i", report, "-o", report.with_suffix(".md"))
    assert code == 2 and "the report contradicts itself" in err


def _failing_check(document):
    return next(c for c in document["checks"] if c["verdict"] == "FAIL")


def _added_check(document):
    check = json.loads(json.dumps(document["checks"][0]))
    check.update(id="behavior_contract.forbidden_tools[0]", rule="forbidden_tools", verdict="PASS")
    document["checks"].insert(0, check)


def _duplicated(document):
    check = dict(_failing_check(document), verdict="PASS", violations=[])
    document["checks"].insert(0, check)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_added_check, "the gate gives no check behavior_contract.forbidden_tools[0]"),
        (_duplicated, "is listed twice"),
        (lambda d: _failing_check(d).update(violations=_failing_check(d)["violations"][:1]),
         "names other violating runs than the gate"),
        (lambda d: [r.update(passed=True) for r in d["runs"] if r["passed"] is False],
         "runs: which runs passed differs"),
        (lambda d: [s.update(k=s["n"]) for s in d["statistics"]], "statistics: the runs counted"),
        (lambda d: d.update(input_warnings=[{"kind": "shared_runs", "message": "x"}]),
         "input_warnings: the input warnings differ"),
    ],
    ids=["added-check", "duplicate-id", "fewer-violations", "runs-passed", "stats-k", "warnings"],
)  # fmt: skip
def test_an_edit_that_keeps_the_verdicts_is_still_named(run_cli, failing, change, words):
    """verify-report compared the verdicts only: a check the gate never ran, a FAILing check
    listed again as PASS (which ``abw explain`` then showed), violations, passing runs, the
    pass-rate counts and the input warnings could be edited and still verify."""
    _edit(failing[0], change)
    code, out, err = _verify(run_cli, *failing)
    assert code in (1, 2) and words in out + err, out + err


def _edited(report, tmp_path, name, edit):
    document = json.loads(report.read_text())
    edit(document)
    path = tmp_path / name
    path.write_text(json.dumps(document, indent=1, sort_keys=True))
    return path


def _look(run_cli, base, cand, spec, out, *more):
    args = ["gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--out", out, "-q"]
    return run_cli(*args, *more)


@pytest.fixture
def looked(tmp_path, run_cli):
    """Look 1 over the 20 regressed runs (3 fail) under a spec that tolerates failing runs:
    INCONCLUSIVE; the report a later look's --previous reads."""
    base = EXAMPLE / "traces" / "baseline"
    cand = shutil.copytree(EXAMPLE / "traces" / "regressed", tmp_path / "look1")
    spec = tmp_path / "spec.yaml"
    text = (EXAMPLE / "behavior.yaml").read_text()
    spec.write_text(text.replace("failing_runs: forbid", "failing_runs: tolerate"))
    report = tmp_path / "one.json"
    code, out, _ = _look(run_cli, base, cand, spec, report)
    assert code == 3, out
    return report, base, cand, spec


@pytest.mark.parametrize(
    ("name", "field"),
    [("scenario", "inputs.traces[24].scenario_id"), ("sequence", "statistics[0].sequence.n")],
)
def test_edited_sequence_evidence_is_refused_and_never_verifies(
    run_cli, looked, tmp_path, name, field
):
    """What ``--previous`` reads of an earlier gate — each input's scenario, the sequence's
    n — could be edited (every candidate moved to another scenario, or n set to 0) and
    ``verify-report`` said ok: a later look then left none of the earlier runs out and PASSed
    after the failing runs were deleted. Such a report contradicts itself (``runs[]``, the
    scenario's own n): refused as --previous, a mismatch for verify-report."""
    report, base, cand, spec = looked

    def edit(document):
        if name == "scenario":
            for item in document["inputs"]["traces"]:
                if item["role"] == "candidate":
                    item["scenario_id"] = "elsewhere"
        else:
            document["statistics"][0]["sequence"]["n"] = 0

    forged = _edited(report, tmp_path, "forged.json", edit)
    code, out, _ = _verify(run_cli, forged, base, cand, spec)
    assert code == 1 and field in out, out
    code, _, err = _look(run_cli, base, cand, spec, tmp_path / "two.json", "--previous", forged)
    assert code == 2 and field in err and "contradicts itself" in err, err


def test_a_report_given_as_its_own_previous_does_not_verify(run_cli, looked, tmp_path):
    """Look 2 restarted (runs removed); verifying it with itself as --previous gated it as an
    extension of itself and said ok: the sequence the gate gives now is compared too."""
    report, base, cand, spec = looked
    for path in sorted(cand.glob("*.json"))[:2]:
        path.unlink()
    two = tmp_path / "two.json"
    _look(run_cli, base, cand, spec, two, "--previous", report)
    args = ["--baseline", base, "--candidate", cand, "--spec", spec]
    code, out, _ = run_cli("verify-report", two, *args, "--previous", report)
    assert code == 0, out
    code, out, _ = run_cli("verify-report", two, *args, "--previous", two)
    assert code == 1 and "a sequence (its n, chain, restarts" in out, out


def test_a_report_value_of_another_type_is_refused_by_every_reader(run_cli, looked, tmp_path):
    """Types are exact, as the schema says: ``k: "17"`` was read as 17 by verify-report,
    abw report and gate --previous while abw validate refused it."""
    report, base, cand, spec = looked
    typed = _edited(
        report,
        tmp_path,
        "typed.json",
        lambda d: d["statistics"][0].update(k=str(d["statistics"][0]["k"])),
    )
    for args in (
        ["verify-report", typed, "--baseline", base, "--candidate", cand, "--spec", spec],
        ["report", "-i", typed, "--format", "markdown", "-o", tmp_path / "r.md"],
        ["gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--previous", typed],
    ):
        code, _, err = run_cli(*args)
        assert code == 2 and "statistics.0.k" in err and "valid integer" in err, (args[0], err)
