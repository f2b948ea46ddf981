"""Honest verdicts: vacuous names, execution status, tolerance, anytime-valid sequences,
continuity between gates and one error budget over many scenarios (docs/semantics.md)."""

from __future__ import annotations

import json
import random
import shutil
import typing
from fractions import Fraction

import pytest
from conftest import REPO, example_gate
from test_gate_factory import REFUND, REGRESSED, runs, write_runs

from abw.gating import gate, run_gate
from abw.gating.sequence import (
    Previous,
    decode_marker,
    encode_marker,
    previous_from_report,
    run_key,
)
from abw.models.rules import Rule
from abw.models.spec import Spec
from abw.stats import MixturePlan, _mixture_exact, mixture_evalue, wilson_decision

EXAMPLE = REPO / "examples" / "refund-policy"
BASE = runs("b", [REFUND] * 20)


def make_spec(**sections) -> Spec:
    return Spec.model_validate({"schema_version": "behavior-spec/v0", "id": "t", **sections})


def gate_mem(baseline, candidate, spec, **kw):
    return gate(baseline, candidate, spec, spec_file="spec.yaml", spec_sha256="0" * 64, **kw)


def check(report, check_id):
    return next(c for c in report.checks if c.id == check_id)


def order(before="policy_check", after="refund_commit") -> dict:
    return {"required_order": [{"before": before, "after": after}]}


# --- no vacuous rules ---------------------------------------------------------------------


def test_a_typo_in_the_demo_spec_is_inconclusive_with_the_nearest_name(tmp_path):
    text = (EXAMPLE / "behavior.yaml").read_text()
    assert "after: refund_commit}" in text
    typo = tmp_path / "typo.yaml"
    typo.write_text(text.replace("after: refund_commit}", "after: refund_comit}"))
    traces = EXAMPLE / "traces"
    report = run_gate(traces / "baseline", traces / "regressed", typo)
    assert report.verdict == "INCONCLUSIVE", report.summary
    c = check(report, "behavior_contract.required_order[0]")
    assert c.verdict == "INCONCLUSIVE" and not c.violations and c.measured["runs_searched"] == 44
    assert "refund_comit matches no span in 44 runs; did you mean refund_commit?" in c.message
    assert c.measured["did_you_mean"] == {"refund_comit": ["refund_commit"]}
    correct = run_gate(traces / "baseline", traces / "regressed", EXAMPLE / "behavior.yaml")
    assert correct.verdict == "FAIL"


def test_vacuous_names_never_pass_and_forbidden_names_are_not_references():
    spec = make_spec(
        invariants={"required_tools": ["polcy_check"], "forbidden_tools": ["delete_all"]},
        rules=[
            {"kind": "precedence", "before": "policy_chek", "after": "refund_*"},
            {"kind": "count", "tool": "delete_all", "max": 0},
            {"kind": "count", "tool": "lookup_ordr", "max": 3},
        ],
    )
    report = gate_mem(BASE, runs("c", [REFUND] * 20), spec)
    verdicts = {c.id: c.verdict for c in report.checks}
    # A FAIL keeps its counterexamples (no polcy_check at all) and names the nearest tool.
    required = check(report, "behavior_contract.required_tools[0]")
    assert required.verdict == "FAIL" and len(required.violations) == 20
    hint = "polcy_check matches no span in 40 runs; did you mean policy_check?"
    assert hint in required.message
    assert verdicts["behavior_contract.forbidden_tools[0]"] == "PASS"
    precedence = check(report, "behavior_contract.rules.precedence-0")
    assert precedence.verdict == "FAIL" and "did you mean policy_check?" in precedence.message
    assert verdicts["operational_quality.rules.count-1"] == "PASS"  # max 0: forbids
    # A check that would PASS on a name no run shows is INCONCLUSIVE, never PASS.
    count = check(report, "operational_quality.rules.count-2")
    assert count.verdict == "INCONCLUSIVE" and "did you mean lookup_order?" in count.message


def test_a_forbidden_name_one_typo_from_a_called_tool_warns_never_passes_silently():
    """``forbidden_tools: [refund_comit]`` forbade nothing and PASSed without a word while
    every run called refund_commit. A forbidden name no run shows is still no reference (its
    absence is the outcome checked), but one a single typo from a name runs show WARNs, with
    the name meant; the same for the names rules forbid (absence_after, count max 0)."""
    spec = make_spec(
        invariants={"forbidden_tools": ["refund_comit", "delete_database", "rn"]},
        rules=[
            {"kind": "absence_after", "stop": "refund_commit", "forbidden": "Policy-Check"},
            {"kind": "count", "tool": "lookup_ordre", "max": 0},
            {"kind": "count", "tool": "lookup_*", "max": 0, "enforcement": "soft"},
        ],
    )
    path = [*REFUND, "rm"]
    report = gate_mem(runs("b", [path] * 20), runs("c", [path] * 20), spec)
    typo = check(report, "behavior_contract.forbidden_tools[0]")
    assert typo.verdict == "WARN" and typo.message.startswith("Forbids a name no run shows:")
    assert "refund_comit matches no span in 40 runs, but refund_commit, one typo away" in (
        typo.message
    )
    assert typo.message.endswith("did you mean refund_commit?")
    assert typo.measured["misspelt_forbidden_names"] == {"refund_comit": ["refund_commit"]}
    assert check(report, "behavior_contract.forbidden_tools[1]").verdict == "PASS"  # no near
    assert check(report, "behavior_contract.forbidden_tools[2]").verdict == "PASS"  # short
    after = check(report, "behavior_contract.rules.absence_after-0")
    assert after.verdict == "WARN" and "but policy_check, one typo away" in after.message
    count = check(report, "operational_quality.rules.count-1")
    assert count.verdict == "WARN" and "but lookup_order, one typo away" in count.message
    glob = check(report, "operational_quality.rules.count-2")
    assert glob.verdict == "WARN" and "misspelt" not in glob.message  # a glob: matched, broken
    assert report.verdict == "WARN"


def test_validate_and_explain_say_a_forbidden_name_looks_misspelt(tmp_path, run_cli):
    text = (EXAMPLE / "behavior.yaml").read_text()
    typo = tmp_path / "typo.yaml"
    typo.write_text(text.replace("forbidden_tools: []", "forbidden_tools: [refund_comit]"))
    code, out, err = run_cli("validate", "--baseline", EXAMPLE / "traces" / "baseline", typo)
    assert code == 0 and f"{typo}: ok" in out
    line = f"{typo}:10: invariants.forbidden_tools[0]: refund_comit matches no span in 24 runs"
    assert err == f"warning: {line}, but refund_commit, one typo away, does: misspelt?\n"
    out_dir = tmp_path / "reports"
    code, _, _ = run_cli(*example_gate("good")[:-1], typo, "--report-dir", out_dir)
    assert code == 0
    explained = "behavior_contract.forbidden_tools[0]"
    code, out, _ = run_cli("explain", explained, "--report", out_dir / "gate-report.json")
    why = out.split("\nwhy\n", 1)[1]
    assert code == 0 and "it likely forbids nothing" in why and "FAILs" not in why, out


@pytest.mark.parametrize(
    ("word", "close"),
    [
        ("refund_comit", ["refund_commit"]),  # a letter left out
        ("refund_commmit", ["refund_commit"]),  # added
        ("refund_cammit", ["refund_commit"]),  # changed
        ("refnud_commit", ["refund_commit"]),  # neighbours swapped
        ("Refund-Commit", ["refund_commit"]),  # case and separators only
        ("refund_commit", []),  # the name itself
        ("refund_cmomti", []),  # two typos
        ("rn", []),  # too short to tell from another tool
        ("delete_database", []),
    ],
)
def test_one_typo_from(word, close):
    from abw.spelling import one_typo_from

    assert one_typo_from(word, ["refund_commit", "policy_check", "rm"]) == close


def test_literal_names_are_matched_as_the_gate_matches_them():
    """``=tool[1]`` names the tool ``tool[1]`` literally, in rules and in required_order alike;
    the vacuity check reads it the same way (a plain glob would see a character class)."""
    path = ["classify", "tool[1]", "refund_commit"]
    spec = make_spec(
        invariants={"required_order": [{"before": "=tool[1]", "after": "refund_commit"}]},
        rules=[{"kind": "count", "tool": "=tool[1]", "max": 3}],
    )
    report = gate_mem(runs("b", [path] * 20), runs("c", [path] * 20), spec)
    verdicts = {c.id: c.verdict for c in report.checks}
    assert verdicts["behavior_contract.required_order[0]"] == "PASS"
    assert verdicts["operational_quality.rules.count-0"] == "PASS"
    assert not any("matches no span" in c.message for c in report.checks)


def test_every_rule_kind_declares_its_tool_fields():
    """The plug-in interface: a new rule kind must say which of its fields name tools."""
    (union, *_) = typing.get_args(Rule)
    for kind in typing.get_args(union):
        assert "tool_fields" in vars(kind), f"{kind.__name__} declares no tool_fields"
        for name in kind.tool_fields:
            assert name in kind.model_fields, (kind.__name__, name)


def test_validate_with_a_baseline_and_spec_init_report_vacuous_names(tmp_path, run_cli):
    typo = tmp_path / "typo.yaml"
    typo.write_text(
        (EXAMPLE / "behavior.yaml")
        .read_text()
        .replace("after: refund_commit}", "after: refund_comit}")
    )
    base = EXAMPLE / "traces" / "baseline"
    code, _, err = run_cli("validate", "--baseline", base, typo)
    assert code == 2
    expected = "refund_comit matches no span in 24 runs; did you mean refund_commit?"
    assert f"invariants.required_order[0]: {expected}" in err
    code, out, _ = run_cli("validate", "--baseline", base, EXAMPLE / "behavior.yaml")
    assert code == 0 and out.strip().endswith(": ok")
    code, out, err = run_cli("spec", "init", "--baseline", base, "--out", tmp_path / "g.yaml")
    assert code == 0 and "warning" not in err  # spec init names only real tools


_SCOPED = (
    "\nrules:\n  - {kind: precedence, before: policy_check, after: refund_commit, "
    "scenarios: [%s]}\nassertions:\n  - {id: answer, statement: The answer is there., "
    "selector: /output, matcher: {op: exists}, severity: info, scenarios: [%s]}\n"
)


@pytest.mark.parametrize("section", ["rules", "assertions"])
def test_a_scenario_glob_that_matches_no_run_is_vacuous_never_pass(tmp_path, run_cli, section):
    """A rule or assertion whose ``scenarios`` match no run's scenario covers no run: the
    gate makes it INCONCLUSIVE with the nearest scenario (it used to PASS every gate, "All 0
    candidate runs satisfy"), and ``abw validate --baseline`` names it before any gate."""
    scopes = ("refund-polcy", "refund-policy")[:: 1 if section == "rules" else -1]
    spec = tmp_path / "scoped.yaml"
    spec.write_text((EXAMPLE / "behavior.yaml").read_text() + _SCOPED % scopes)
    traces = EXAMPLE / "traces"
    report = run_gate(traces / "baseline", traces / "good", spec)
    scoped = [c for c in report.checks if f".{section}." in c.id]
    vacuous = [c for c in scoped if c.verdict == "INCONCLUSIVE"]
    assert len(scoped) == 1 and len(vacuous) == 1, [(c.id, c.verdict) for c in scoped]
    expected = "scenarios refund-polcy match no run's scenario (44 runs); did you mean "
    assert vacuous[0].message.startswith(f"Vacuous: {expected}refund-policy?")
    assert vacuous[0].measured["unmatched_scenarios"] == ["refund-polcy"]
    assert report.verdict == "INCONCLUSIVE"
    code, _, err = run_cli("validate", "--baseline", traces / "baseline", spec)
    assert code == 2 and f"{section}[0] " in err and "did you mean refund-policy?" in err
    right = tmp_path / "right.yaml"
    right.write_text(spec.read_text().replace("refund-polcy", "refund-policy"))
    assert run_gate(traces / "baseline", traces / "good", right).verdict == "PASS"
    assert run_cli("validate", "--baseline", traces / "baseline", right)[0] == 0


@pytest.mark.parametrize(("enforcement", "verdict"), [("hard", "INCONCLUSIVE"), ("soft", "WARN")])
def test_a_rule_that_checks_no_candidate_run_never_passes(enforcement, verdict):
    """A rule scoped to a scenario only the baseline has checks no candidate run: "No
    candidate run to check", as an assertion's check says — never "All 0 candidate runs
    satisfy", PASS."""
    base = runs("b", [REFUND] * 20)
    for index, trace_file in enumerate(base):
        trace_file.trace.run.scenario_id = "A" if index % 2 else "B"
    cand = runs("c", [REFUND] * 20)
    for trace_file in cand:
        trace_file.trace.run.scenario_id = "A"
    rule = {"kind": "precedence", "before": "policy_check", "after": "refund_commit"}
    rule |= {"scenarios": ["B"], "enforcement": enforcement}
    report = gate_mem(base, cand, make_spec(rules=[rule]))
    scoped = check(report, next(c.id for c in report.checks if ".rules." in c.id))
    assert scoped.verdict == verdict and scoped.runs_checked == 0
    assert scoped.message.startswith("No candidate run to check: ")
    rule["scenarios"] = ["A"]  # a scope with candidate runs is checked as before
    report = gate_mem(base, cand, make_spec(rules=[rule]))
    scoped = check(report, next(c.id for c in report.checks if ".rules." in c.id))
    assert scoped.verdict == "PASS" and scoped.runs_checked == 20


def test_validate_with_a_baseline_reports_output_fields_no_baseline_run_holds(tmp_path, run_cli):
    """As for tool names, before any candidate exists: a spec field that no baseline run's
    output holds is a line naming it and the nearest field, exit code 2."""
    typo = tmp_path / "typo.yaml"
    typo.write_text(
        (EXAMPLE / "behavior.yaml").read_text().replace("    decision:", "    decsion:")
    )
    base = EXAMPLE / "traces" / "baseline"
    code, _, err = run_cli("validate", "--baseline", base, typo)
    assert code == 2
    assert "output.expected: decsion is in no run's output (24 runs); did you mean decision?" in err
    assert "output.required_fields" not in err  # every required field is in the baseline's output


# --- execution status ---------------------------------------------------------------------


def test_crashed_runs_never_count_as_passing_and_show_in_every_format(tmp_path):
    statuses = ["error"] * 4 + ["cancelled"] * 4 + ["unknown"] * 4
    candidate = [
        run
        for i, status in enumerate(statuses)
        for run in runs(f"c{i:02d}", [REFUND], final_status=status)
    ]
    report = gate_mem(BASE, candidate, make_spec(invariants=order()))
    assert report.verdict != "PASS"
    (stats,) = report.statistics
    assert stats.k == 0 and stats.n == 12
    (execution,) = report.execution
    assert (execution.completed, execution.error, execution.cancelled, execution.unknown) == (
        0,
        4,
        4,
        4,
    )
    assert len(execution.incomplete_runs) == 12
    c = check(report, "execution.incomplete_runs@refund")
    assert c.verdict == "WARN" and "12 of 12" in c.message and len(c.violations) == 12
    assert not any(r.passed for r in report.runs if r.role == "candidate")
    from abw.render import write_reports

    written = write_reports(report, tmp_path / "out")
    for fmt in ("html", "markdown", "sarif", "junit"):
        text = written[fmt].read_text()
        assert "incomplete_runs" in text or "incomplete runs" in text, fmt


def test_a_counterexample_in_a_crashed_run_still_counts():
    candidate = runs("c", [REFUND] * 19) + runs("x", [REGRESSED], final_status="error")
    report = gate_mem(BASE, candidate, make_spec(invariants=order()))
    assert check(report, "behavior_contract.required_order[0]").verdict == "FAIL"


# --- tolerance ----------------------------------------------------------------------------


def tolerate(tau: float, **more) -> Spec:
    return make_spec(
        invariants=order(),
        thresholds={"failing_runs": "tolerate", "min_wilson_pass_rate": tau, **more},
    )


def test_tolerate_weighs_violations_and_forbid_fails_on_one():
    mostly = runs("c", [REFUND] * 38 + [REGRESSED] * 2)
    report = gate_mem(BASE, mostly, tolerate(0.8))
    assert report.verdict != "FAIL", report.summary
    assert check(report, "behavior_contract.required_order[0]").verdict == "WARN"
    assert len(check(report, "behavior_contract.required_order[0]").violations) == 2
    half = runs("c", [REFUND] * 20 + [REGRESSED] * 20)
    report = gate_mem(BASE, half, tolerate(0.8))
    assert report.verdict == "FAIL"
    assert check(report, "sample_sufficiency.confidence_sequence@refund").verdict == "FAIL"
    one = runs("c", [REFUND] * 39 + [REGRESSED])
    report = gate_mem(BASE, one, make_spec(invariants=order()))
    assert report.verdict == "FAIL"
    assert check(report, "behavior_contract.required_order[0]").verdict == "FAIL"
    # A hard check already FAILs: no number of passing runs changes that, so none is named.
    assert report.statistics[0].runs_needed is None
    assert not any("Run about" in c.message for c in report.checks)


def test_the_demo_regression_names_no_runs_needed():
    traces = EXAMPLE / "traces"
    report = run_gate(traces / "baseline", traces / "regressed", EXAMPLE / "behavior.yaml")
    assert report.verdict == "FAIL"
    assert not any("more passing run" in c.message for c in report.checks)


def test_a_contract_with_p_below_one_compiles_to_tolerate():
    from abw.contract import compile_contract
    from abw.models.contract import Contract

    document = json.loads((EXAMPLE / "contract.json").read_text())
    assert compile_contract(Contract.model_validate(document)).thresholds.failing_runs == "forbid"
    document["satisfaction"]["p"] = 0.9
    del document["thresholds"]["failing_runs"]
    thresholds = compile_contract(Contract.model_validate(document)).thresholds
    assert thresholds.failing_runs == "tolerate" and thresholds.min_wilson_pass_rate == 0.9


@pytest.mark.parametrize(
    ("thresholds", "says"),
    [
        ({"sprt": {"enabled": True}}, "sprt.enabled needs failing_runs: tolerate"),
        (
            {"failing_runs": "tolerate", "sprt": {"alpha": 0.5, "beta": 0.5}},
            "sprt.alpha + sprt.beta",
        ),
        ({"sprt": {"p0": 0.8, "p1": 0.8}}, "must be lower than sprt.p0"),
    ],
)
def test_incoherent_statistics_are_refused_in_one_line(tmp_path, run_cli, thresholds, says):
    import yaml

    spec = tmp_path / "s.yaml"
    spec.write_text(
        yaml.safe_dump({"schema_version": "behavior-spec/v0", "id": "s", "thresholds": thresholds})
    )
    base = write_runs(tmp_path / "b", BASE[:3])
    code, _, err = run_cli("gate", "--baseline", base, "--candidate", base, "--spec", spec)
    assert code == 2 and says in err and err.count("\n") == 1, err


def test_tau_one_with_every_run_passing_never_fails():
    assert all(wilson_decision(n, n, 1.96, 1.0) != "fail" for n in range(1, 1001))
    for sequential in ("anytime", "fixed"):
        spec = make_spec(thresholds={"min_wilson_pass_rate": 1.0, "sequential": sequential})
        report = gate_mem(BASE, runs("c", [REFUND] * 30), spec)
        assert report.verdict == "INCONCLUSIVE"
        assert report.statistics[0].runs_needed is None


# --- the anytime-valid rule ---------------------------------------------------------------


def test_mixture_float_and_exact_sums_agree():
    for k, f, tau in [(5, 3, "0.7"), (20, 0, "0.7"), (0, 4, "0.9"), (30, 10, "0.8")]:
        exact = _mixture_exact(k, f, Fraction(tau) / (1 - Fraction(tau)))
        assert mixture_evalue(k, f, float(tau), "fail") == pytest.approx(float(exact), rel=1e-12)


def _ever_crosses(plan: MixturePlan, p: float, side: str, horizon: int) -> float:
    """Exact probability (dynamic program) that ``side`` is decided within ``horizon`` runs."""
    alive = {0: 1.0}  # failures -> probability, undecided so far
    hit = 0.0
    for n in range(1, horizon + 1):
        step: dict[int, float] = {}
        for failures, mass in alive.items():
            step[failures] = step.get(failures, 0.0) + mass * p
            step[failures + 1] = step.get(failures + 1, 0.0) + mass * (1 - p)
        alive = {}
        for failures, mass in step.items():
            decision = plan.decide(n - failures, failures)
            if decision == side:
                hit += mass
            elif decision is None:
                alive[failures] = mass
    return hit


def test_looking_after_every_run_keeps_both_error_bounds():
    level = Fraction(1, 40)
    plan = MixturePlan(Fraction(7, 10), level, level)
    assert _ever_crosses(plan, 0.7, "fail", 300) <= float(level)
    assert _ever_crosses(plan, 0.6999, "pass", 300) <= float(level)
    # Wilson at z = 1.96 looked at after every run breaks its nominal 2.5 % (single-look rule).
    alive, ever = {0: 1.0}, 0.0
    for n in range(1, 301):
        step: dict[int, float] = {}
        for f, m in alive.items():
            step[f] = step.get(f, 0.0) + m * 0.7
            step[f + 1] = step.get(f + 1, 0.0) + m * 0.3
        alive = {}
        for f, m in step.items():
            if wilson_decision(n - f, n, 1.96, 0.7) == "fail":
                ever += m
            else:
                alive[f] = m
    assert ever > 0.1


# --- recording order, chain, --previous -----------------------------------------------------


def uuid_runs(rng: random.Random, count: int, start_minute: int, paths=None):
    files = []
    for i in range(count):
        trace_id = f"{rng.getrandbits(128):032x}"
        minute = start_minute + i
        files += runs(
            trace_id,
            [paths[i] if paths else REFUND],
            start_minute=minute,
        )
    return files


def test_adding_later_runs_appends_and_never_reshuffles():
    rng = random.Random(7)
    first = uuid_runs(rng, 10, 0)
    later = uuid_runs(rng, 10, 100)
    spec = make_spec(invariants=order())
    one = gate_mem(BASE, first, spec)
    two = gate_mem(BASE, first + later, spec, previous=previous_from_report(one))
    s1, s2 = one.statistics[0].sequence, two.statistics[0].sequence
    assert s1.order == s2.order == "recording"
    assert s2.continuity == "extends" and s2.restarts == 0
    from abw.gating.sequence import chain, recording_order

    ordered, _ = recording_order(first + later)
    assert [t.sha256 for t in ordered[:10]] == [t.sha256 for t in recording_order(first)[0]]
    assert chain([run_key(t.trace.run.trace_id) for t in ordered])[9] == s1.chain


def test_previous_detects_a_removed_and_a_reordered_run(tmp_path, run_cli):
    rng = random.Random(11)
    first = uuid_runs(rng, 16, 0)
    spec_file = tmp_path / "spec.yaml"
    spec_file.write_text("schema_version: behavior-spec/v0\nid: t\n")
    base = write_runs(tmp_path / "base", BASE)
    cand = write_runs(tmp_path / "c1", first)
    old = tmp_path / "old.json"
    args = ("gate", "--baseline", base, "--spec", spec_file)
    assert run_cli(*args, "--candidate", cand, "--out", old)[0] == 0
    removed = write_runs(tmp_path / "c2", first[1:])
    new = tmp_path / "new.json"
    run_cli(*args, "--candidate", removed, "--out", new, "--previous", old)
    report = json.loads(new.read_text())
    state = report["statistics"][0]
    assert state["sequence"]["continuity"] == "restarted" and state["sequence"]["restarts"] == 1
    assert "removed or replaced" in state["sequence"]["continuity_message"]
    assert state["pass_level"] == pytest.approx(0.0125)  # alpha / 4 after one restart
    # ... and the reader is told, in the check every format shows, not only in the statistics
    (rate,) = [c for c in report["checks"] if c["rule"] == "confidence_sequence"]
    assert (
        "This gate does not extend the earlier gate's 16 run(s): 1 earlier run(s) are missing "
        "(removed or replaced); the sequence restarts (restart 1) and is tested at a "
        "spent-down level." in rate["message"]
    ), rate["message"]
    # Reordered: the same runs, the first one now recorded last.
    moved = [*runs(first[0].trace.run.trace_id, [REFUND], start_minute=500), *first[1:]]
    reordered = write_runs(tmp_path / "c3", moved)
    run_cli(*args, "--candidate", reordered, "--out", new, "--previous", old)
    state = json.loads(new.read_text())["statistics"][0]["sequence"]
    assert state["continuity"] == "restarted"
    # Extending it continues the test at the same level.
    extended = write_runs(tmp_path / "c4", first + uuid_runs(rng, 2, 900))
    run_cli(*args, "--candidate", extended, "--out", new, "--previous", old)
    report = json.loads(new.read_text())
    state = report["statistics"][0]["sequence"]
    assert state["continuity"] == "extends" and state["restarts"] == 0
    (rate,) = [c for c in report["checks"] if c["rule"] == "confidence_sequence"]
    assert "This gate" not in rate["message"]  # continuing is the normal case: nothing to say


def test_verify_report_gates_a_continued_report_again_only_with_its_previous(tmp_path, run_cli):
    """A restarted sequence was tested at a spent-down level: gating its inputs again without
    the earlier report would judge them at a fresh level and claim a false mismatch."""
    first = uuid_runs(random.Random(11), 16, 0)
    spec_file = tmp_path / "spec.yaml"
    spec_file.write_text("schema_version: behavior-spec/v0\nid: t\n")
    base = write_runs(tmp_path / "base", BASE)
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    args = ("gate", "--baseline", base, "--spec", spec_file)
    assert run_cli(*args, "--candidate", write_runs(tmp_path / "c1", first), "--out", old)[0] == 0
    removed = write_runs(tmp_path / "c2", first[1:])
    run_cli(*args, "--candidate", removed, "--out", new, "--previous", old)
    verify = ("verify-report", new, "--baseline", base, "--candidate", removed, "--spec", spec_file)
    code, out, err = run_cli(*verify)
    assert code == 2 and "--previous" in err and len(err.strip().splitlines()) == 1, err
    code, out, err = run_cli(*verify, "--previous", old)
    assert code == 0 and out.startswith("ok: "), out + err


def test_runs_without_times_fall_back_to_trace_id_order_labelled_single_look():
    report = gate_mem(BASE, runs("c", [REFUND] * 20), make_spec())
    (stats,) = report.statistics
    assert stats.sequence.order == "trace_id" and stats.looks == "single"
    assert (
        "single-look only" in check(report, "sample_sufficiency.confidence_sequence@refund").message
    )
    fixed = gate_mem(BASE, runs("c", [REFUND] * 20), make_spec(thresholds={"sequential": "fixed"}))
    assert "single-look only" in check(fixed, "sample_sufficiency.wilson@refund").message


def test_the_sticky_comment_marker_carries_the_chain():
    from abw.github.comment import build_body, digest_of, parse_marker

    def chain_of(body: str) -> str | None:
        return (parse_marker(body) or {}).get("chain")

    report = gate_mem(BASE, uuid_runs(random.Random(3), 5, 0), make_spec())
    token = encode_marker(report.statistics, "abc123")
    body = build_body("abw gate", "# report", "0" * 64, None, extra={"chain": token})
    assert digest_of(body) is not None and chain_of(body) == token
    marker = decode_marker(chain_of(body))
    assert marker.candidate == "abc123" and marker.unlisted is None
    ((sid, previous),) = marker.sequences.items()
    assert sid == "refund"
    assert previous == Previous(5, report.statistics[0].sequence.chain, 0)
    assert chain_of(build_body("abw gate", "# report", "0" * 64, None)) is None


def _stats(rows: list[tuple[str, int, int]]) -> list:
    """Statistics-like rows (scenario, n, restarts) for encode_marker."""
    from types import SimpleNamespace

    return [
        SimpleNamespace(
            scenario_id=sid, sequence=SimpleNamespace(n=n, chain=f"{i:064x}", restarts=k)
        )
        for i, (sid, n, k) in enumerate(rows)
    ]


def test_a_marker_lists_the_chains_that_fit_and_the_count_the_others_spent():
    from abw.gating.sequence import encode_marker

    rows = [(f"s{i:03d}", 5, i % 4) for i in range(200)]
    whole = decode_marker(encode_marker(_stats(rows), "abc"))
    assert len(whole.sequences) == 200 and whole.unlisted is None
    for room in (600, 2_000, 7_000):
        token = encode_marker(_stats(rows), "abc", "c" * 64, room=room)
        marker = decode_marker(token)
        assert len(token) <= room
        listed = list(marker.sequences)
        assert listed == [sid for sid, _, _ in rows[: len(listed)]]  # in order, as they fit
        assert marker.unlisted == 3  # the largest count of those left out
    kept = decode_marker(encode_marker(_stats(rows[:2]), "abc", room=7_000, unlisted=5))
    assert len(kept.sequences) == 2 and kept.unlisted == 5  # an earlier floor is kept


@pytest.mark.parametrize("unlisted", [-1, "2", 1.5, True])
def test_a_marker_whose_unlisted_count_is_no_count_is_no_marker(unlisted):
    import base64
    import json

    from abw.gating.sequence import Marker

    text = json.dumps({"c": "abc", "s": [["r", 1, "a" * 64, 0]], "u": unlisted})
    assert decode_marker(base64.urlsafe_b64encode(text.encode()).decode()) == Marker()


def test_a_marker_of_any_shape_reads_as_a_marker_or_none_never_an_error():
    """The chain token is text anyone commenting as the bot can write: every field of a real
    one given a value of another type (or deleted), and arbitrary text, decodes to a
    well-formed marker or to none (no earlier gate), never an exception."""
    import base64

    from fuzzkit import DELETED, WRONG_TYPES, wrong_typed
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from abw.gating.sequence import MAX_RESTARTS, Marker, encode_marker

    rows = [("refund", 5, 1), (None, 2, 0), ("b" * 40, 7, 31)]
    token = encode_marker(_stats(rows), "abc", "c" * 64, room=400, unlisted=2)
    document = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))

    def well_formed(marker: Marker) -> None:
        assert isinstance(marker.candidate, str)
        assert marker.unlisted is None or 0 <= marker.unlisted <= MAX_RESTARTS
        for previous in marker.sequences.values():
            assert 0 <= previous.restarts <= MAX_RESTARTS and previous.n >= 0

    mutated = wrong_typed(document, (*WRONG_TYPES, DELETED, -1, 10**30, "=", [[]]))
    assert len(mutated) > 20
    for _, data in mutated:
        well_formed(decode_marker(base64.urlsafe_b64encode(data).decode().rstrip("=")))

    @settings(max_examples=300, deadline=None)
    @given(st.text(max_size=200) | st.binary(max_size=200).map(base64.urlsafe_b64encode))
    def any_text(text):
        well_formed(decode_marker(text if isinstance(text, str) else text.decode()))

    any_text()


def test_a_scenario_a_marker_left_unlisted_restarts_past_every_count_claimed():
    """A marker that did not list a scenario leaves it unknown: another marker (forged, say)
    listing it with fewer restarts cannot make it extend."""
    from abw.gating.sequence import GENESIS, Marker, continuity, merge_previous

    genuine = Marker("abc", {"other": Previous(3, "b" * 64, 0)}, unlisted=2)
    forged = Marker("abc", {"refund": Previous(0, GENESIS, 0)})
    merged = merge_previous([genuine, forged], ["refund", "new"])
    assert merged["refund"].unlisted and merged["refund"].restarts == 2
    assert merged["new"].unlisted and merged["new"].restarts == 2  # never read as a first look
    assert "other" in merged and not merged["other"].unlisted
    link = continuity(["d" * 64], merged["refund"])
    assert (link.status, link.restarts) == ("restarted", 3)
    assert not merge_previous([forged], ["refund"])["refund"].unlisted  # no floor: as before


# --- many scenarios -----------------------------------------------------------------------


def test_twenty_scenarios_share_one_budget():
    scenarios = [f"s{i:02d}" for i in range(20)]
    base = [r for s in scenarios for r in runs(f"b{s}", [REFUND] * 2, scenario=s)]
    cand = [r for s in scenarios for r in runs(f"c{s}", [REFUND] * 20, scenario=s)]
    report = gate_mem(base, cand, tolerate(0.7))
    assert report.multiplicity.method == "bonferroni" and report.multiplicity.scenarios == 20
    assert "Bonferroni over 20 scenarios" in report.multiplicity.message
    for stats in report.statistics:
        assert stats.fail_level == pytest.approx(0.05 / 2 / 20)
        assert stats.pass_level == pytest.approx(0.05 / 2)


def test_the_action_reads_the_chain_back_from_its_own_comment(tmp_path):
    from action_env import Runner, write_gate_workspace
    from fake_github import FakeGitHub

    fake = FakeGitHub().start()
    try:
        runner = Runner(tmp_path, fake.url)
        inputs = write_gate_workspace(runner.workspace, "PASS")
        assert runner.run(inputs).code == 0
        (comment_id,) = fake.comments
        assert " chain=" in fake.comments[comment_id]["body"].split("\n", 1)[0]
        # Same commit, one run deleted: the sequence restarts at a spent-down level.
        (runner.workspace / "traces" / "candidate" / "c000.json").unlink()
        again = runner.run(inputs)
        report = json.loads((runner.workspace / again.outputs["report-json"]).read_text())
        state = report["statistics"][0]["sequence"]
        assert state["continuity"] == "restarted" and state["restarts"] == 1
        assert again.code == 3  # 7 runs cannot PASS at alpha / 4
    finally:
        fake.stop()


def test_the_fixed_wilson_rule_claims_no_bound_it_does_not_keep():
    """At tau = 0.95 with 6 runs and 20 scenarios, a scenario whose pass rate is exactly tau is
    FAILed with probability 0.033 (exact binomial), not its 0.00125 share: the gate's false
    FAIL is 0.49. The report said it "stays within 0.025", and the rule "valid for one look"."""
    from math import comb

    from abw.gating.ledger import multiplicity
    from abw.gating.sample_sufficiency import checks, statistics
    from abw.models.spec import Thresholds

    thresholds = Thresholds(
        min_wilson_pass_rate=0.95, failing_runs="tolerate", sequential="fixed", min_runs=1
    )
    n, tau, scenarios = 6, 0.95, 20
    fails = [
        k
        for k in range(n + 1)
        if statistics("s", [True] * k + [False] * (n - k), thresholds, scenarios=scenarios).decision
        == "fail"
    ]
    false_fail = sum(comb(n, k) * tau**k * (1 - tau) ** (n - k) for k in fails)
    assert false_fail > 10 * 0.025 / scenarios  # the approximation the report must own
    sentence = multiplicity(thresholds, scenarios).message
    assert "stays within" not in sentence and "Wilson's interval is approximate" in sentence
    stats = statistics("s", [True] * 4 + [False] * 2, thresholds, scenarios=scenarios)
    (_, rate) = checks(stats, [], {}, 3, scenarios, "fixed")
    assert "approximate" in rate.message and "valid for one look" not in rate.message
    anytime = Thresholds(min_wilson_pass_rate=0.95, failing_runs="tolerate")
    assert "stays within 0.05" in multiplicity(anytime, scenarios).message


def test_no_level_is_left_past_the_last_counted_restart():
    """The restart count stops at MAX_RESTARTS; every later sequence was tested again at the
    last level, 2^-31 of alpha, so the levels summed past alpha from the 32nd sequence on
    (and 80 straight passes at tau 0.7 PASSed at restart 30)."""
    from fractions import Fraction

    from abw.gating.sample_sufficiency import checks, statistics
    from abw.gating.sequence import MAX_RESTARTS
    from abw.models.report import SequenceState
    from abw.models.spec import Thresholds

    thresholds = Thresholds(min_wilson_pass_rate=0.7, failing_runs="tolerate")
    levels = []
    for restarts in range(MAX_RESTARTS + 5):
        state = SequenceState(
            order="recording",
            n=0,
            chain="0" * 64,
            restarts=min(restarts, MAX_RESTARTS),
            continuity="restarted",
            continuity_message="x",
        )
        stats = statistics("s", [True] * 200, thresholds, sequence=state)
        levels.append(Fraction(stats.pass_level))
        if restarts >= MAX_RESTARTS:
            assert (stats.decision, stats.runs_needed, stats.pass_level) == (
                "inconclusive",
                None,
                0,
            )
            assert "no level is left" in checks(stats, [], {}, 3, 1)[1].message
        else:
            assert stats.decision == "pass"
    assert sum(levels) <= Fraction(thresholds.alpha)


@pytest.mark.parametrize(
    ("forbidden", "meant", "how"),
    [
        # a more-indented "- " line folds into the item above: one name, "Bash - refund_commit"
        ("\n    - Bash\n      - refund_commit", "refund_commit", "among other words"),
        ("[Bash refund_commit]", "refund_commit", "among other words"),  # a missing comma
        ('["\\u200brefund_commit\\u200b"]', "refund_commit", "invisible or look-alike"),
        ("[rеfund_сommit]", "refund_commit", "invisible or look-alike"),  # Cyrillic е, с
        ('["^refund_commit$"]', "refund_commit", "regular expression"),
    ],
    ids=["folded-line", "missing-comma", "zero-width", "cyrillic", "regex"],
)
def test_a_forbidden_name_written_for_a_called_tool_warns(tmp_path, run_cli, forbidden, meant, how):
    """Every good run calls refund_commit; a forbidden name written for it but spelling
    another name — a folded YAML line, a missing comma, invisible or look-alike characters,
    a regular expression — forbade nothing and PASSed, validate said ok. It WARNs, naming the
    tool it was likely written for."""
    text = (EXAMPLE / "behavior.yaml").read_text()
    spec = tmp_path / "spec.yaml"
    spec.write_text(text.replace("forbidden_tools: []", f"forbidden_tools: {forbidden}"))
    out = tmp_path / "report.json"
    code, _, err = run_cli(*example_gate("good")[:-1], spec, "--out", out)
    report = json.loads(out.read_text())
    (forbids,) = [c for c in report["checks"] if c["id"] == "behavior_contract.forbidden_tools[0]"]
    assert (code, forbids["verdict"]) == (0, "WARN"), forbids["message"]
    assert f"but {meant}, which it" in forbids["message"] and how in forbids["message"]
    code, _, err = run_cli("validate", "--baseline", EXAMPLE / "traces" / "baseline", spec)
    assert code == 0 and f"but {meant}, which it" in err, err


def test_forbidding_rules_with_regex_names_or_other_span_types_warn(tmp_path, run_cli):
    """``count`` with ``tool: "refund_.*"`` and ``max: 0`` (a regular expression: as a glob it
    matches nothing), a ``count`` forbidding ``{name: policy_check, type: [tool]}`` where
    policy_check is a guardrail span, and ``absence_after`` forbidding a retriever span of a
    tool span's name: each PASSed saying the tool is never called while every run calls it."""
    text = (EXAMPLE / "behavior.yaml").read_text()
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        text
        + "\nrules:\n"
        + '  - {kind: count, tool: "refund_.*", max: 0}\n'
        + "  - {kind: count, tool: {name: policy_check, type: [tool]}, max: 0}\n"
        + "  - {kind: absence_after, stop: classify,"
        + " forbidden: {name: refund_commit, type: [retriever]}}\n"
    )
    out = tmp_path / "report.json"
    run_cli(*example_gate("good")[:-1], spec, "--out", out)
    checks = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    regex = checks["operational_quality.rules.count-0"]
    assert regex["verdict"] == "WARN" and "read as a regular expression" in regex["message"]
    typed = checks["operational_quality.rules.count-1"]
    assert typed["verdict"] == "WARN", typed["message"]
    assert "but guardrail policy_check, of another type, does" in typed["message"]
    after = checks["behavior_contract.rules.absence_after-2"]
    assert (
        after["verdict"] == "WARN"
        and "but tool refund_commit, of another type" in (after["message"])
    )


def test_dropping_the_failing_runs_and_gating_again_buys_no_pass():
    """30 runs, 20 passing, under tau 0.7: INCONCLUSIVE. Deleting the 10 failing runs and
    gating again with --previous restarted the sequence over the 20 passing runs the earlier
    gate had seen — chosen for how they came out — and PASSed at once (a team dropping
    "flaky" failures at each look PASSed 92-99 % of candidates with p < tau). After such a
    restart the runs the earlier gate saw are left out for good; runs recorded since count."""
    rng = random.Random(5)
    spec = make_spec(
        invariants=order(),
        thresholds={"failing_runs": "tolerate", "min_wilson_pass_rate": 0.7},
    )
    passing = "101101101110110101101110110101"
    paths = [REFUND if bit == "1" else REGRESSED for bit in passing]
    first = uuid_runs(rng, 30, 0, paths)
    one = gate_mem(BASE, first, spec)
    assert one.verdict == "INCONCLUSIVE"
    kept = [t for t, bit in zip(first, passing, strict=True) if bit == "1"]
    two = gate_mem(BASE, kept, spec, previous=previous_from_report(one))
    stats = two.statistics[0]
    assert two.verdict == "INCONCLUSIVE" and (stats.n, stats.k) == (0, 0), two.summary
    assert stats.sequence.continuity == "restarted" and stats.sequence.restarts == 1
    assert "The 20 run(s) the earlier gate saw are left out" in stats.sequence.continuity_message
    assert sorted(stats.sequence.left_out) == sorted(run_key(t.trace.run.trace_id) for t in first)
    fresh = uuid_runs(rng, 60, 1000)  # recorded since: they count, and extend from here on
    three = gate_mem(BASE, kept + fresh[:30], spec, previous=previous_from_report(two))
    stats = three.statistics[0]
    assert (stats.n, stats.sequence.continuity) == (30, "extends"), stats.sequence
    four = gate_mem(BASE, kept + fresh, spec, previous=previous_from_report(three))
    stats = four.statistics[0]
    assert (stats.n, stats.k, stats.sequence.continuity) == (60, 60, "extends")
    assert four.verdict == "PASS" and stats.sequence.restarts == 1  # fresh evidence decides
    # one fresh run removed: one run is missing (the runs left out earlier are no missing runs)
    five = gate_mem(BASE, kept + fresh[1:], spec, previous=previous_from_report(four))
    message = five.statistics[0].sequence.continuity_message
    assert "run(s): 1 earlier run(s) are missing" in message, message


def test_a_restart_for_a_changed_spec_still_tests_the_earlier_runs():
    """The decision kept: a spec edited between looks restarts the sequence at the next
    level over the same runs (they were not chosen by their outcomes)."""
    rng = random.Random(6)
    first = uuid_runs(rng, 20, 0)
    one = gate_mem(BASE, first, make_spec(invariants=order()))
    two = gate(
        BASE, first, make_spec(invariants=order()), spec_file="spec.yaml",
        spec_sha256="1" * 64, previous=previous_from_report(one),
    )  # fmt: skip
    stats = two.statistics[0]
    assert stats.sequence.continuity == "restarted" and stats.n == 20
    assert stats.sequence.left_out == []


def test_the_smallest_alpha_decides_at_every_restart(tmp_path, run_cli):
    """``alpha: 1e-310`` (accepted: > 0) ended in "internal error: integer division result
    too large for a float", and 1e-300 did after 27 restarts. alpha is at least 1e-9, where the
    last level (alpha / 2^31) still computes; below it, one line naming the field."""
    spec = make_spec(thresholds={"failing_runs": "tolerate", "alpha": 1e-9})
    cand = runs("c", [REFUND] * 20)
    for restarts in (0, 28, 29, 30):
        previous = {"refund": Previous(n=1, chain="f" * 64, restarts=restarts)}
        report = gate_mem(BASE, cand, spec, previous=previous)
        assert report.statistics[0].sequence.restarts == min(restarts + 1, 30)
    bad = tmp_path / "spec.yaml"
    bad.write_text("schema_version: behavior-spec/v0\nid: t\nthresholds:\n  alpha: 1.0e-300\n")
    code, _, err = run_cli("validate", bad)
    assert code == 2 and "thresholds.alpha" in err and "internal error" not in err, err


EXAMPLE = REPO / "examples" / "refund-policy"
LABELS = "classify,lookup_order,policy_check:guardrail,refund_commit"
FIELDS = "decision,order_id,refund_amount,currency,fraud_check_passed"


def _import(run_cli, transcripts, out, exported_at):
    args = ["--bash-tool-labels", LABELS, "--output-fields", FIELDS, "--scenario-id", "refund"]
    code, _, err = run_cli(
        "import", "claude", "--input", transcripts, "--out", out, "--exported-at", exported_at,
        *args, "-q",
    )  # fmt: skip
    assert code == 0, err


def test_importing_the_kept_transcripts_again_buys_no_pass(tmp_path, run_cli):
    """A run is known by its trace id, not its file's bytes. Deleting the failing transcripts
    of the regressed example, adding passing ones and importing the folder again (as a CI job
    does each time: another exported_at, so other file SHA-256s) made every earlier run look
    removed, none was left out, and the restarted sequence re-tested the runs chosen for how
    they came out: PASS. Now the earlier runs are matched by trace id and left out; a folder
    imported again with nothing removed extends the earlier sequence."""
    spec = tmp_path / "spec.yaml"
    text = (EXAMPLE / "behavior.yaml").read_text()
    spec.write_text(text.replace("failing_runs: forbid", "failing_runs: tolerate"))
    first, second = tmp_path / "tx1", tmp_path / "tx2"
    shutil.copytree(EXAMPLE / "transcripts" / "regressed", first)
    _import(run_cli, first, tmp_path / "look1", "2026-01-01T00:00:00Z")
    baseline = EXAMPLE / "traces" / "baseline"
    gate = ["gate", "--baseline", baseline, "--spec", spec, "-q"]
    code, out, _ = run_cli(*gate, "--candidate", tmp_path / "look1", "--out", tmp_path / "one.json")
    assert code == 3, out
    one = json.loads((tmp_path / "one.json").read_text())
    failing = {r["trace_id"] for r in one["runs"] if r["role"] == "candidate" and not r["passed"]}
    assert len(failing) == 3
    shutil.copytree(first, second)
    for path in second.glob("*.jsonl"):
        if any(trace_id in path.read_text() for trace_id in failing):
            path.unlink()
    for path in sorted((EXAMPLE / "transcripts" / "good").glob("*.jsonl"))[:12]:
        shutil.copy(path, second)
    _import(run_cli, second, tmp_path / "look2", "2026-02-01T00:00:00Z")
    code, out, _ = run_cli(
        *gate, "--candidate", tmp_path / "look2", "--previous", tmp_path / "one.json",
        "--out", tmp_path / "two.json",
    )  # fmt: skip
    two = json.loads((tmp_path / "two.json").read_text())["statistics"][0]
    assert code == 3, out
    assert (two["n"], len(two["sequence"]["left_out"])) == (12, 20)
    assert "3 earlier run(s) are missing" in two["sequence"]["continuity_message"]
    # nothing removed, imported again with runs recorded since: the earlier sequence goes on
    early, later = tmp_path / "early", tmp_path / "later"
    regressed = sorted((EXAMPLE / "transcripts" / "regressed").glob("*.jsonl"))
    early.mkdir()
    for path in regressed[:15]:
        shutil.copy(path, early)
    _import(run_cli, early, tmp_path / "a", "2026-03-01T00:00:00Z")
    run_cli(*gate, "--candidate", tmp_path / "a", "--out", tmp_path / "a.json")
    shutil.copytree(EXAMPLE / "transcripts" / "regressed", later)
    _import(run_cli, later, tmp_path / "b", "2026-04-01T00:00:00Z")
    code, out, _ = run_cli(
        *gate, "--candidate", tmp_path / "b", "--previous", tmp_path / "a.json",
        "--out", tmp_path / "b.json",
    )  # fmt: skip
    three = json.loads((tmp_path / "b.json").read_text())["statistics"][0]
    assert three["sequence"]["continuity"] == "extends", three["sequence"]["continuity_message"]
    assert (three["n"], three["sequence"]["restarts"]) == (20, 0)


def _import_of(run, passed: bool, folder: str):
    """Another import of ``run``'s recording (its trace id and source hash, another
    exported_at and path) that passes or fails as ``passed`` says: other import options."""
    from test_gate_factory import make_trace, trace_file

    trace = run.trace
    again = make_trace(
        trace.run.trace_id, REFUND if passed else REGRESSED, started_at=trace.spans[0].started_at
    )
    source = trace.source.model_copy(update={"exported_at": "2026-07-01T00:00:00Z"})
    return trace_file(again.model_copy(update={"source": source}), folder)


TAU_07 = {"failing_runs": "tolerate", "min_wilson_pass_rate": 0.7}
BITS = "101101101110110101101110110101"  # 20 of 30 pass


def trace_file_of(run, *, source_hash: str):
    """``run`` read from another recording (its source hash)."""
    from test_gate_factory import trace_file

    source = run.trace.source.model_copy(update={"source_hash": source_hash})
    return trace_file(run.trace.model_copy(update={"source": source}), "other")


def _thirty(seed: int):
    rng = random.Random(seed)
    first = uuid_runs(rng, 30, 0, [REFUND if b == "1" else REGRESSED for b in BITS])
    return rng, first, [t for t, b in zip(first, BITS, strict=True) if b == "1"]


def test_runs_the_earlier_gate_saw_cannot_come_back_after_a_look_without_them():
    """Deleting the failing runs left out the passing ones it had seen; but a look with none of
    them (one fresh run) left nothing out, and the next look brought the 20 passing runs back
    as new runs sorting before the last: PASS (100 % of simulated candidates below tau)."""
    spec = make_spec(invariants=order(), thresholds=TAU_07)
    rng, first, kept = _thirty(11)
    one = gate_mem(BASE, first, spec)
    fresh = uuid_runs(rng, 1, 1000)
    two = gate_mem(BASE, fresh, spec, previous=previous_from_report(one))
    stats = two.statistics[0].sequence
    assert len(stats.left_out) == 30 and "None of the runs the earlier gate saw" in (
        stats.continuity_message
    )
    three = gate_mem(BASE, kept + fresh, spec, previous=previous_from_report(two))
    assert three.statistics[0].n == 1 and three.verdict == "INCONCLUSIVE", three.summary


@pytest.mark.parametrize("also", ["nothing", "a run inserted", "the spec touched"])
def test_keeping_only_the_passing_import_of_each_failing_run_buys_no_pass(also):
    """Each failing run also had an import that passes (the same recording, other options);
    deleting the failing imports made the earlier runs "pass or fail differently now", a
    restart over the same 30 runs, 30 of 30: PASS. So did the same with one new run that
    sorts before the earlier ones (an insertion re-tests them), or with a comment edited in
    the spec (another spec re-tests them). The runs the earlier gate saw are left out as if
    the failing ones had been removed."""
    spec = make_spec(invariants=order(), thresholds=TAU_07)
    rng, first, kept = _thirty(12)
    failing = [t for t, b in zip(first, BITS, strict=True) if b == "0"]
    lenient = [_import_of(t, True, "imp2") for t in failing]
    one = gate_mem(BASE, first + lenient, spec)
    assert (one.statistics[0].n, one.statistics[0].k) == (30, 20)
    inserted = uuid_runs(rng, 1, 0) if also == "a run inserted" else []  # (minute 0: first)
    later = kept + lenient + inserted
    sha = "1" * 64 if also == "the spec touched" else "0" * 64
    two = gate(
        BASE, later, spec, spec_file="spec.yaml", spec_sha256=sha,
        previous=previous_from_report(one),
    )  # fmt: skip
    stats = two.statistics[0]
    assert (stats.n, stats.sequence.continuity) == (len(inserted), "restarted"), stats.sequence
    assert "10 earlier run(s) that failed pass now" in stats.sequence.continuity_message
    assert two.verdict == "INCONCLUSIVE"


def test_runs_sharing_a_trace_id_do_not_restart_every_look():
    """An exporter that reuses a trace id for a passing and a failing run: the earlier report
    held both outcomes for one key, the gate one of them, so every look "passed or failed
    differently" and restarted, on the same files."""
    spec = make_spec(invariants=order(), thresholds=TAU_07)
    _, first, _ = _thirty(13)
    assert BITS[0] == "1"
    twin = _import_of(first[0], False, "other")  # the passing run's id, another recording: fails
    twin = trace_file_of(twin, source_hash="f" * 64)
    report = gate_mem(BASE, [*first, twin], spec)
    for _ in range(3):
        report = gate_mem(BASE, [*first, twin], spec, previous=previous_from_report(report))
        sequence = report.statistics[0].sequence
        assert (sequence.continuity, sequence.restarts) == ("extends", 0), sequence
