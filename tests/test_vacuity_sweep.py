"""No vacuous rules, everywhere a rule can be vacuous (docs/semantics.md, "No vacuous rules"):
span types and the llm default of matchers, argument fields, assertion selectors, recovery and
soft budgets over the rules they count, contracts, and the bounds that can never be broken;
and the rules that must stay legitimate (failed-call ceilings, recoveries never triggered)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REPO

from abw.gating import gate
from abw.gating.reach import apply
from abw.gating.summary import RunSummary
from abw.gating.vacuity import observed
from abw.models.spec import Spec
from abw.rules.assertions import observations
from abw.rules.checks import rule_checks
from abw.traceio import load_traces

EXAMPLE = REPO / "examples" / "refund-policy"
TRACES = EXAMPLE / "traces"
SPEC = yaml.safe_load((EXAMPLE / "behavior.yaml").read_text(encoding="utf-8"))
#: Whether the gate folds span types and argument keys into what it has seen (the wiring in
#: abw/gating/summary.py and abw/gating/__init__.py); until then it judges names only.
WIRED = "span_kinds" in {f.name for f in dataclasses.fields(RunSummary)}


def spec_file(tmp_path: Path, **sections: Any) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump({**SPEC, **sections}, sort_keys=False), encoding="utf-8")
    return path


def with_arguments(tmp_path: Path) -> Path:
    """The example's baseline and good runs with refund_commit's and policy_check's
    arguments extracted, as ``--argument-fields`` would write them."""
    root = tmp_path / "args"
    for side in ("baseline", "good"):
        (root / side).mkdir(parents=True)
        for source in sorted((TRACES / side).glob("*.json")):
            document = json.loads(source.read_text(encoding="utf-8"))
            for span in document["spans"]:
                arguments = {
                    "refund_commit": {"order_id": "A-1042", "amount": 1200, "confidence": 0.9},
                    "policy_check": {"order_id": "A-1042"},
                }.get(span["name"])
                if arguments is not None:
                    span.setdefault("attributes", {})["arguments"] = arguments
            (root / side / source.name).write_text(json.dumps(document), encoding="utf-8")
    return root


def rule_verdicts(rules: list[dict], traces: Path = TRACES) -> dict[str, Any]:
    """The rule checks as the gate makes them, over what every baseline and good run shows."""
    spec = Spec.model_validate({**SPEC, "rules": rules})
    baseline, candidate = load_traces(traces / "baseline"), load_traces(traces / "good")
    found = rule_checks(list(spec.rules), candidate, baseline)
    seen = observed([*baseline, *candidate])
    checks = apply(found.checks, found.references, {}, seen)
    return {c.id.rsplit(".", 1)[1]: c for c in checks}


# --- span types: the known hole, and the llm default -----------------------------------------

TYPED = [
    # (rule, the sentence): the name exists, no span has it with the type the rule reads
    (
        {
            "kind": "precedence",
            "before": "policy_check",
            "after": {"name": "refund_commit", "type": ["retriever"]},
        },
        "refund_commit matches no retriever span in 44 runs; its spans are tool spans",
    ),
    (
        {"kind": "absence_after", "stop": {"name": "refund_commit", "type": ["guardrail"]}},
        "refund_commit matches no guardrail span in 44 runs; its spans are tool spans",
    ),
    (
        {"kind": "count", "tool": {"name": "refund_commit", "type": ["handoff"]}, "max": 1},
        "refund_commit matches no handoff span in 44 runs; its spans are tool spans",
    ),
    (
        {
            "kind": "retry_limit",
            "tool": {"name": "lookup_order", "type": ["memory"]},
            "max_retries": 0,
        },
        "lookup_order matches no memory span in 44 runs; its spans are tool spans",
    ),
    (
        {"kind": "tool_call_growth", "tool": {"type": ["memory"]}, "max_increase_percent": 0},
        "* matches no memory span in 44 runs",
    ),
    (
        {"kind": "precedence", "before": "policy_check", "after": "claude-*"},
        "claude-* matches no non-llm span in 44 runs; its spans are llm spans (a rule reads "
        "llm spans only with type: [llm])",
    ),
]


@pytest.mark.parametrize(("rule", "expected"), TYPED)
def test_a_matcher_whose_name_exists_but_not_with_its_type_is_vacuous(rule, expected):
    """``after: {name: refund_commit, type: [retriever]}``: the name is real, so no name was
    unmatched, but no span matches name AND type, and the rule PASSed every gate."""
    check = rule_verdicts([{"id": "x", **rule}])["x"]
    assert check.verdict == "INCONCLUSIVE", check.message
    assert check.message.startswith(f"Vacuous: {expected}")
    assert check.measured["runs_searched"] == 44 and not check.violations


def test_a_typed_matcher_that_fails_keeps_its_counterexamples_and_gains_the_note():
    before = {"name": "policy_check", "type": ["tool"]}  # policy_check is a guardrail span
    rule = {"id": "x", "kind": "precedence", "before": before, "after": "refund_commit"}
    check = rule_verdicts([rule])["x"]
    assert check.verdict == "FAIL" and len(check.violations) == 20
    assert "Note: policy_check matches no tool span in 44 runs; its spans are guardrail" in (
        check.message
    )
    assert check.measured["did_you_mean"] == {"tool policy_check": ["guardrail policy_check"]}


def test_statuses_are_events_not_references():
    """A ceiling on failed calls must PASS an agent that never fails; the right type PASSes."""
    rules = [
        {
            "id": "failures",
            "kind": "count",
            "tool": {"type": ["tool"], "status": ["error"]},
            "max": 2,
        },
        {
            "id": "cancelled",
            "kind": "precedence",
            "before": "policy_check",
            "after": {"name": "refund_commit", "status": ["cancelled"]},
        },
        {
            "id": "typed",
            "kind": "precedence",
            "before": "policy_check",
            "after": {"name": "refund_commit", "type": ["tool"]},
        },
    ]
    verdicts = {k: c.verdict for k, c in rule_verdicts(rules).items()}
    assert verdicts == {"failures": "PASS", "cancelled": "PASS", "typed": "PASS"}


@pytest.mark.skipif(not WIRED, reason="the gate folds span types once summary.py carries them")
def test_the_gate_itself_finds_a_typed_matcher_vacuous_with_any_number_of_workers(tmp_path):
    from abw.gating import run_gate

    rule = {
        "id": "x",
        "kind": "precedence",
        "before": "policy_check",
        "after": {"name": "refund_commit", "type": ["retriever"]},
    }
    report = run_gate(TRACES / "baseline", TRACES / "good", spec_file(tmp_path, rules=[rule]))
    check = next(c for c in report.checks if c.id == "behavior_contract.rules.x")
    assert check.verdict == "INCONCLUSIVE" and "no retriever span" in check.message


# --- argument fields -------------------------------------------------------------------------


def test_a_confidence_field_no_span_carries_is_vacuous(tmp_path):
    """A span without the field claims nothing: with ``field: confidance`` no run ever claimed
    anything, and the rule PASSed."""
    traces = with_arguments(tmp_path)
    rule = {
        "kind": "confidence",
        "tool": "refund_commit",
        "threshold": 0.5,
        "evidence": "policy_check",
    }
    checks = rule_verdicts(
        [
            {"id": "typo", **rule, "field": "confidance"},
            {"id": "real", **rule, "field": "confidence"},
        ],
        traces,
    )
    assert checks["real"].verdict == "PASS"
    typo = checks["typo"]
    assert typo.verdict == "INCONCLUSIVE"
    assert typo.message.startswith(
        "Vacuous: confidance is in no refund_commit span's arguments (44 runs); did you mean "
        "confidence? This check cannot decide anything until the spec names a real argument field."
    )
    assert typo.measured["unseen_argument_fields"] == ["confidance"]


def test_argument_keys_no_span_has_annotate_the_fail(tmp_path):
    traces = with_arguments(tmp_path)
    rules = [
        {"id": "args", "kind": "arguments", "tool": "refund_commit", "expected": {"amont": 1200}},
        {
            "id": "bind",
            "kind": "precedence",
            "before": "policy_check",
            "after": "refund_commit",
            "bind": {"before": "order_id", "after": "orderid"},
        },
        {
            "id": "subset",
            "kind": "arguments",
            "tool": "refund_commit",
            "mode": "observed_subset",
            "expected": {"order_id": "A-1042", "amount": 1200, "confidence": 0.9, "note": "x"},
        },
    ]
    checks = rule_verdicts(rules, traces)
    assert checks["args"].verdict == "FAIL"
    assert (
        "Note: amont is in no refund_commit span's arguments (44 runs); did you mean amount?"
        in (checks["args"].message)
    )
    assert checks["bind"].verdict == "FAIL" and "did you mean order_id?" in checks["bind"].message
    assert checks["subset"].verdict == "PASS"  # observed_subset only allows its keys


# --- recovery and soft budgets ---------------------------------------------------------------


def test_a_recovery_never_triggered_passes_whatever_its_actions_are_called():
    """Its actions run only after a violation: a healthy run set never shows them. Once a
    violation is not recovered, the FAIL says the action matches no span."""
    healthy = {
        "id": "src",
        "kind": "count",
        "tool": "lookup_order",
        "max": 5,
        "enforcement": "soft",
    }
    recover = {
        "id": "rec",
        "kind": "recovery",
        "violation": "src",
        "actions": ["escalate"],
        "within_steps": 2,
    }
    assert rule_verdicts([healthy, recover])["rec"].verdict == "PASS"
    broken = {**healthy, "max": 0, "min": 0}
    check = rule_verdicts([broken, recover])["rec"]
    assert check.verdict == "FAIL" and "Note: escalate matches no span in 44 runs." in (
        check.message
    )


@pytest.mark.parametrize(
    "source",
    [
        {"scenarios": ["refund-polcy"]},
        {"tool": {"name": "lookup_order", "type": ["memory"]}},
    ],
)
@pytest.mark.parametrize("kind", ["recovery", "soft_budget"])
def test_a_recovery_or_budget_over_a_vacuous_rule_is_vacuous(source, kind):
    """It sees a violation only where the rule it counts checks something (with a typo'd
    scope it covered no run: "All 0 candidate runs satisfy", PASS)."""
    counted = {
        "id": "src",
        "kind": "count",
        "tool": "lookup_order",
        "max": 1,
        "enforcement": "soft",
        **source,
    }
    over = (
        {"kind": "recovery", "violation": "src", "actions": ["policy_check"], "within_steps": 2}
        if kind == "recovery"
        else {"kind": "soft_budget", "rules": ["src"], "max_violations": 0}
    )
    checks = rule_verdicts([counted, {"id": "over", **over}])
    assert checks["src"].verdict == checks["over"].verdict == "INCONCLUSIVE"
    assert checks["over"].message.startswith("Vacuous: ")


# --- assertions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("severity", "selector", "matcher", "verdict", "sentence"),
    [
        (
            "info",
            "/output/curency",
            {"op": "same"},
            "INCONCLUSIVE",
            "curency is in no run's output (44 runs); did you mean currency?",
        ),
        ("warn", "/output/curency", {"op": "equals", "value": "USD"}, "INCONCLUSIVE", "curency"),
        ("error", "/output/curency", {"op": "exists"}, "FAIL", "curency is in no run's output"),
        (
            "error",
            "/tool_counts/refund_comit",
            {"op": "number_delta", "abs": 0},
            "INCONCLUSIVE",
            "refund_comit matches no span in 44 runs; did you mean refund_commit?",
        ),
        (
            "error",
            "/tool_counts/refund_comit",
            {"op": "equals", "value": 1},
            "FAIL",
            "refund_comit matches no span",
        ),
    ],
)
def test_an_assertion_selector_no_run_holds_is_vacuous(
    tmp_path, run_cli, severity, selector, matcher, verdict, sentence
):
    """An info assertion on a typo'd field PASSed, a warn one WARNed (exit 0); a FAIL said
    only "20 of 20 candidate runs drifted"."""
    assertion = {
        "id": "a",
        "statement": "s",
        "severity": severity,
        "selector": selector,
        "matcher": matcher,
    }
    spec = spec_file(tmp_path, assertions=[assertion])
    out = tmp_path / "r.json"
    code, _, _ = run_cli(
        "gate",
        "--baseline",
        TRACES / "baseline",
        "--candidate",
        TRACES / "good",
        "--spec",
        spec,
        "--out",
        out,
    )
    check = next(c for c in json.loads(out.read_text())["checks"] if c["id"].endswith(".a"))
    assert (check["verdict"], code) == (verdict, 3 if verdict == "INCONCLUSIVE" else 1)
    assert sentence in check["message"]
    code, _, err = run_cli("validate", "--baseline", TRACES / "baseline", spec)
    assert code == 2 and "assertions[0] (a): " in err


def test_a_selector_outside_the_observations_is_refused_when_loaded(tmp_path, run_cli):
    assertion = {
        "id": "a",
        "statement": "s",
        "selector": "/ouput/currency",
        "matcher": {"op": "same"},
    }
    spec = spec_file(tmp_path, assertions=[assertion])
    code, _, err = run_cli("validate", spec)
    assert code == 2 and "selector /ouput/currency resolves in no run (did you mean /output?)" in (
        err
    )
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_the_observation_keys_are_the_observations():
    from abw.models.rules import OBSERVATION_KEYS

    run = load_traces(TRACES / "good")[0]
    assert set(observations(run.trace)) == set(OBSERVATION_KEYS)


# --- bounds, validate, contracts -------------------------------------------------------------


def test_a_count_that_can_never_be_broken_is_refused(tmp_path, run_cli):
    spec = spec_file(tmp_path, rules=[{"kind": "count", "tool": "refund_commit", "min": 0}])
    code, _, err = run_cli("validate", spec)
    assert code == 2 and "min 0 and no max can never be broken" in err


def test_validate_with_a_baseline_reports_types_arguments_and_selectors(tmp_path, run_cli):
    traces = with_arguments(tmp_path)
    rules = [
        {"id": "typed", **TYPED[0][0]},
        {
            "id": "claim",
            "kind": "confidence",
            "tool": "refund_commit",
            "field": "confidance",
            "threshold": 0.5,
            "evidence": "policy_check",
        },
        {
            "id": "failures",
            "kind": "count",
            "tool": {"type": ["tool"], "status": ["error"]},
            "max": 2,
        },
    ]
    spec = spec_file(tmp_path, rules=rules)
    code, _, err = run_cli("validate", "--baseline", traces / "baseline", spec)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 2, err
    expected = TYPED[0][1].replace("44 runs", "24 runs")  # the baseline alone
    assert lines[0].endswith(f"rules[0] (typed): {expected}")
    assert lines[1].endswith(
        "rules[1] (claim): confidance is in no refund_commit span's arguments (24 runs); did "
        "you mean confidence?"
    )


def test_validate_with_a_baseline_checks_a_contract_as_the_spec_it_compiles_to(tmp_path, run_cli):
    contract = json.loads((EXAMPLE / "contract.json").read_text(encoding="utf-8"))
    base = TRACES / "baseline"
    code, out, _ = run_cli("validate", "--baseline", base, EXAMPLE / "contract.json")
    assert code == 0 and out.strip().endswith(": ok")
    contract["governance"]["hard"][2]["params"]["tool"] = "refund_comit"
    typo = tmp_path / "contract.json"
    typo.write_text(json.dumps(contract), encoding="utf-8")
    code, _, err = run_cli("validate", "--baseline", base, typo)
    assert code == 2
    assert "rules[4] (one-commit): refund_comit matches no span in 24 runs; did you mean " in err


def test_the_example_spec_and_contract_stay_clean():
    """They name only real things: no check is vacuous, none gains a note."""
    from abw.contract import run_contract_gate

    spec = Spec.model_validate(SPEC)
    baseline, candidate = load_traces(TRACES / "baseline"), load_traces(TRACES / "good")
    reports = [
        gate(baseline, candidate, spec, spec_file="s.yaml", spec_sha256="0" * 64),
        run_contract_gate(TRACES / "baseline", TRACES / "good", EXAMPLE / "contract.json"),
    ]
    for report in reports:
        assert report.verdict == "PASS", report.summary
        assert not [c.id for c in report.checks if "Vacuous" in c.message or "Note:" in c.message]


def test_a_glob_that_misses_the_name_it_spells_suggests_the_literal_form():
    """A tool named ``t[1]``: a rule's ``after: "t[1]"`` reads as a class (``t1``) and matches
    nothing; "did you mean t[1]?" proposed the very spelling that fails. The suggestion is how
    to write the name literally; other suggestions are unchanged."""
    from abw.gating.vacuity import Observed, nearest

    seen = Observed(names=frozenset({"t[1]", "refund_commit"}), runs=2)
    assert nearest("t[1]", seen) == ["=t[1]"]
    assert nearest("refund_comit", seen) == ["refund_commit"]
