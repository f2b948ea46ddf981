"""Candidate-side vacuity (docs/semantics.md, "No vacuous rules"): a check whose trigger the
baseline runs show and no candidate run does held only because nothing in the candidate
triggered it, so it WARNs instead of PASSing; what a check forbids, span statuses and
ceilings stay PASS, a FAIL stays a FAIL (with a note), and the report stays byte-stable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from abw.gating import gate, report_bytes
from abw.gating.vacuity import UNREACHED, VACUOUS
from abw.models.spec import Spec
from abw.traceio import load_traces
from tests.conftest import REPO

EXAMPLE = REPO / "examples" / "refund-policy"
BASELINE = EXAMPLE / "traces" / "baseline"
GOOD = EXAMPLE / "traces" / "good"
EXAMPLE_SPEC = yaml.safe_load((EXAMPLE / "behavior.yaml").read_text(encoding="utf-8"))
#: Shape thresholds no renamed tool crosses: the checks under test decide alone.
LAX_SHAPE = {
    "path_edit_distance_warn": 1.0,
    "path_edit_distance_fail": 1.0,
    "tool_jaccard_warn": 1.0,
    "tool_jaccard_fail": 1.0,
    "fingerprint_distance_warn": 100.0,
    "fingerprint_distance_fail": 100.0,
}
ORDER = {"id": "refund-after-policy", "kind": "precedence"}
ORDER |= {"before": "policy_check", "after": "refund_commit"}


def candidate(tmp_path: Path, renames: dict[str, str], drop_field: str | None = None) -> Path:
    """The example's good runs with spans renamed (a new agent version that renamed a tool)
    and, optionally, an output field no longer returned."""
    folder = tmp_path / "candidate"
    folder.mkdir()
    for source in sorted(GOOD.glob("*.json")):
        document = json.loads(source.read_text(encoding="utf-8"))
        for span in document["spans"]:
            span["name"] = renames.get(span["name"], span["name"])
        if drop_field is not None:
            document["run"]["canonical_output"].pop(drop_field)
        (folder / source.name).write_text(json.dumps(document), encoding="utf-8")
    return folder


def spec_file(tmp_path: Path, **sections: Any) -> Path:
    """The example's spec, without its required tools and output checks (they would FAIL a
    renamed tool on their own), with shape thresholds no rename crosses, and ``sections``."""
    spec = {**EXAMPLE_SPEC, "output": {}, "thresholds": EXAMPLE_SPEC["thresholds"] | LAX_SHAPE}
    spec["invariants"] = EXAMPLE_SPEC["invariants"] | {"required_tools": ["classify"]}
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump({**spec, **sections}, sort_keys=False), encoding="utf-8")
    return path


def gate_json(run_cli, cand: Path, spec: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    """``abw gate`` of ``cand`` against the example's baseline: exit code and report."""
    out = spec.parent / "report.json"
    args = ["gate", "--baseline", BASELINE, "--candidate", cand, "--spec", spec, "--out", out]
    code, _, err = run_cli(*args, *extra)
    assert "Traceback" not in err, err
    return code, json.loads(out.read_text(encoding="utf-8"))


def checks_of(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in report["checks"]}


def test_a_renamed_trigger_warns_instead_of_passing(tmp_path, run_cli):
    """The candidate never calls refund_commit (renamed refund_commit_v2): "refund_commit
    must come after policy_check" held in every run only because nothing triggered it."""
    cand = candidate(tmp_path, {"refund_commit": "refund_commit_v2"})
    code, report = gate_json(run_cli, cand, spec_file(tmp_path, rules=[ORDER]))
    assert (code, report["verdict"]) == (0, "WARN")  # WARN exits 0 ...
    checks = checks_of(report)
    expected = (
        "refund_commit matches a span in 24 of 24 baseline runs but in none of 20 candidate "
        "runs; nearest candidate names: refund_commit_v2"
    )
    for check_id in (
        "behavior_contract.required_order[0]",
        "behavior_contract.rules." + ORDER["id"],
    ):
        check = checks[check_id]
        assert check["verdict"] == "WARN", check["message"]
        assert check["message"].startswith(f"{UNREACHED} {expected}.")
        assert check["measured"]["unreached_by_candidate"] == ["refund_commit"]
        assert check["measured"]["baseline_runs_reaching"] == {"refund_commit": 24}
        assert check["measured"]["nearest_candidate_names"] == {
            "refund_commit": ["refund_commit_v2"]
        }
        assert check["violations"] == []
    assert report["summary"].startswith("WARN")
    assert all(run["passed"] for run in report["runs"] if run["role"] == "candidate")
    code, _ = gate_json(run_cli, cand, spec_file(tmp_path, rules=[ORDER]), "--fail-on", "warn")
    assert code == 1  # ... and 1 with --fail-on warn


def test_explain_and_summary_say_what_the_warning_means(tmp_path, run_cli):
    """``abw explain`` of such a check says it held by default (it said "0 runs contradict
    the rule ... so the check FAILs"), and the report's summary does not call it a soft
    threshold exceeded."""
    cand = candidate(tmp_path, {"refund_commit": "refund_commit_v2"})
    spec = spec_file(tmp_path)
    _, report = gate_json(run_cli, cand, spec)
    assert report["summary"].startswith("WARN: no check failed, but one needs review;")
    check_id = "behavior_contract.required_order[0]"
    code, out, err = run_cli("explain", check_id, "--report", spec.parent / "report.json")
    assert code == 0, err
    assert "held by default" in out and "FAIL" not in out, out


def test_the_same_report_on_workers(tmp_path, run_cli):
    """The candidate side is read from the merged run summaries: a gate on two Dask workers
    writes the single-process gate's bytes."""
    cand = candidate(tmp_path, {"refund_commit": "refund_commit_v2"})
    spec = spec_file(tmp_path, rules=[ORDER])
    args = ["gate", "--baseline", BASELINE, "--candidate", cand, "--spec", spec]
    code, _, err = run_cli(*args, "--out", tmp_path / "one.json")
    assert code == 0, err
    code, _, err = run_cli(*args, "--out", tmp_path / "two.json", "--workers", "2")
    assert code == 0, err
    assert (tmp_path / "one.json").read_bytes() == (tmp_path / "two.json").read_bytes()


def test_a_trigger_the_candidate_gave_up_on_warns(tmp_path, run_cli):
    """A candidate that stopped at the policy check (never refunds) leaves a response rule
    triggered by refund_commit nothing to check; no candidate name is near it."""
    cand = candidate(tmp_path, {"refund_commit": "handoff_to_human"})
    rule = {"id": "reply", "kind": "response", "trigger": "refund_commit", "response": "*"}
    code, report = gate_json(run_cli, cand, spec_file(tmp_path, rules=[rule]))
    check = checks_of(report)["behavior_contract.rules.reply"]
    assert (code, check["verdict"]) == (0, "WARN")
    assert "refund_commit matches a span in 24 of 24 baseline runs" in check["message"]
    assert "nearest candidate names" not in check["message"]


def test_candidate_that_reaches_the_trigger_still_passes(tmp_path, run_cli):
    """The unchanged good runs call refund_commit: the same spec PASSes every check."""
    code, report = gate_json(run_cli, GOOD, spec_file(tmp_path, rules=[ORDER]))
    assert (code, report["verdict"]) == (0, "PASS")


def rule(kind: str, **fields: Any) -> dict[str, Any]:
    return {"rules": [{"id": "x", "kind": kind, **fields}]}


FAILED_REFUNDS = {"name": "refund_commit", "status": ["error"]}
FORBIDDING = [
    # (spec sections, check id): a candidate without refund_commit met each of them
    ({"forbidden_tools": ["refund_commit"]}, "behavior_contract.forbidden_tools[0]"),
    (rule("count", tool="refund_commit", max=0), "operational_quality.rules.x"),
    (
        rule("absence_after", stop="classify", forbidden="refund_commit"),
        "behavior_contract.rules.x",
    ),
    (rule("count", tool=FAILED_REFUNDS, max=2), "operational_quality.rules.x"),
    (rule("count", tool="refund_commit", max=3), "operational_quality.rules.x"),
    (rule("retry_limit", tool="refund_commit", max_retries=0), "operational_quality.rules.x"),
]


@pytest.mark.parametrize(("sections", "check_id"), FORBIDDING)
def test_what_a_check_forbids_or_caps_stays_pass(tmp_path, run_cli, sections, check_id):
    """A forbidden tool, a rule forbidding it, a status, a ceiling: absence is the outcome
    they check, so a candidate that never calls refund_commit PASSes them."""
    cand = candidate(tmp_path, {"refund_commit": "refund_commit_v2"})
    invariants = EXAMPLE_SPEC["invariants"] | {"required_tools": ["classify"]}
    invariants |= {"required_order": [], "forbidden_tools": sections.get("forbidden_tools", [])}
    rules = sections.get("rules", [])
    code, report = gate_json(run_cli, cand, spec_file(tmp_path, invariants=invariants, rules=rules))
    check = checks_of(report)[check_id]
    assert check["verdict"] == "PASS", check["message"]
    assert "unreached_by_candidate" not in check["measured"]
    assert (code, report["verdict"]) == (0, "PASS")


def test_a_fail_stays_a_fail_and_names_the_missing_step(tmp_path, run_cli):
    """policy_check renamed: every refund now lacks its policy check, a real counterexample;
    the FAIL keeps its violations and gains the note naming the renamed step."""
    cand = candidate(tmp_path, {"policy_check": "policy_check_v2"})
    code, report = gate_json(run_cli, cand, spec_file(tmp_path, rules=[ORDER]))
    check = checks_of(report)["behavior_contract.rules." + ORDER["id"]]
    assert (code, report["verdict"], check["verdict"]) == (1, "FAIL", "FAIL")
    assert len(check["violations"]) == 20
    assert check["message"].startswith("20 of 20 candidate runs break")
    assert (
        "Note: policy_check matches a span in 24 of 24 baseline runs but in none of 20 "
        "candidate runs; nearest candidate names: policy_check_v2." in check["message"]
    )


def test_a_typo_stays_inconclusive(tmp_path, run_cli):
    """A trigger no run shows at all is the older, stronger finding: INCONCLUSIVE."""
    cand = candidate(tmp_path, {"refund_commit": "refund_commit_v2"})
    rule = ORDER | {"after": "refund_comit"}
    _, report = gate_json(run_cli, cand, spec_file(tmp_path, rules=[rule]))
    check = checks_of(report)["behavior_contract.rules." + ORDER["id"]]
    assert check["verdict"] == "INCONCLUSIVE"
    assert check["message"].startswith(VACUOUS)


def test_a_trigger_only_the_candidate_shows_is_left_to_tool_drift(tmp_path, run_cli):
    """The symmetric case (candidate shows it, baseline none) is not this check's business."""
    cand = candidate(tmp_path, {"refund_commit": "refund_commit_v2"})
    rule = ORDER | {"after": "refund_commit_v2"}
    _, report = gate_json(run_cli, cand, spec_file(tmp_path, rules=[rule]))
    check = checks_of(report)["behavior_contract.rules." + ORDER["id"]]
    assert check["verdict"] == "PASS", check["message"]


def test_an_output_field_only_the_baseline_returns_already_drifts(tmp_path, run_cli):
    """An assertion reading an output field the candidate no longer returns is not silent:
    the selector resolves in no candidate run, a drift (FAIL at severity error)."""
    cand = candidate(tmp_path, {}, drop_field="currency")
    assertion = {"statement": "Same currency.", "selector": "/output/currency"}
    assertion |= {"id": "currency", "matcher": {"op": "same"}}
    code, report = gate_json(run_cli, cand, spec_file(tmp_path, assertions=[assertion]))
    check = checks_of(report)["output_eval.assertions.currency"]
    assert (code, check["verdict"]) == (1, "FAIL")
    assert len(check["violations"]) == 20
    assert "does not resolve in the candidate run" in check["violations"][0]["message"]


def test_the_report_stays_byte_identical(tmp_path):
    """The same traces and spec give the same bytes, whatever order the runs come in."""
    cand = load_traces(candidate(tmp_path, {"refund_commit": "refund_commit_v2"}))
    spec = Spec.model_validate(yaml.safe_load(spec_file(tmp_path, rules=[ORDER]).read_text()))
    baseline = load_traces(BASELINE)

    def run(base: list[Any], runs: list[Any]) -> bytes:
        report = gate(base, runs, spec, spec_file="spec.yaml", spec_sha256="0" * 64)
        return report_bytes(report)

    first = run(baseline, cand)
    assert b"unreached_by_candidate" in first
    assert run(baseline[::-1], cand[::-1]) == first


def test_only_what_triggers_a_check_counts():
    """A confidence rule is triggered by its claims (tool), not by its evidence: a candidate
    whose claims are all below the threshold needs no evidence, and PASSes honestly."""
    from abw.gating.reach import triggers
    from abw.models.rules import ToolRef
    from abw.rules.checks import rule_checks

    confidence = {"id": "c", "kind": "confidence", "tool": "refund_commit"}
    confidence |= {"field": "confidence", "threshold": 0.9, "evidence": "policy_check"}
    spec = Spec.model_validate({**EXAMPLE_SPEC, "rules": [confidence, ORDER]})
    found = rule_checks(list(spec.rules), [], [])
    picked = {c.id: triggers(c, found.references[c.id]) for c in found.checks}
    assert picked["behavior_contract.rules.c"] == [ToolRef(("refund_commit",))]
    assert picked["behavior_contract.rules." + ORDER["id"]] == [
        ToolRef(("policy_check",)),
        ToolRef(("refund_commit",)),
    ]


def two_scenarios(tmp_path: Path, rename_in: str | None) -> tuple[Path, Path]:
    """The example's baseline and good runs, each also recorded as scenario ``other``; in
    the candidate runs of scenario ``rename_in`` refund_commit became refund_commit_v2."""
    folders = (tmp_path / "baseline", tmp_path / "candidate")
    for source, folder in zip((BASELINE, GOOD), folders, strict=True):
        folder.mkdir()
        for path in sorted(source.glob("*.json")):
            for scenario in ("refund-policy", "other"):
                document = json.loads(path.read_text(encoding="utf-8"))
                document["run"]["scenario_id"] = scenario
                document["run"]["trace_id"] += f"-{scenario}"
                if folder.name == "candidate" and scenario == rename_in:
                    for span in document["spans"]:
                        if span["name"] == "refund_commit":
                            span["name"] = "refund_commit_v2"
                name = f"{scenario}-{path.name}"
                (folder / name).write_text(json.dumps(document), encoding="utf-8")
    return folders


def gate_two(run_cli, tmp_path: Path, rule: dict[str, Any], *extra: str):
    """``abw gate`` of :func:`two_scenarios`' folders: exit code and the rule's check."""
    base, cand = two_scenarios(tmp_path, rename_in="refund-policy")
    spec = spec_file(tmp_path, rules=[rule])
    out = tmp_path / "report.json"
    args = ["gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--out", out]
    code, _, err = run_cli(*args, *extra)
    assert "Traceback" not in err, err
    report = json.loads(out.read_text(encoding="utf-8"))
    return code, checks_of(report)[f"behavior_contract.rules.{rule['id']}"], out


@pytest.mark.parametrize("scoped", [True, False], ids=["scoped-rule", "every-scenario"])
def test_another_scenario_reaching_the_trigger_does_not_exercise_this_one(
    tmp_path, run_cli, scoped
):
    """Scenario refund-policy's candidate runs never call refund_commit (renamed); those of
    scenario other do. Whether the rule covers refund-policy alone or every scenario, it held
    in refund-policy only because nothing there triggered it: the other scenario's calls
    exercised nothing about these runs (it PASSed, reading the candidate set as a whole)."""
    rule = ORDER | ({"scenarios": ["refund-policy"]} if scoped else {})
    code, check, _ = gate_two(run_cli, tmp_path, rule)
    assert code == 0
    assert check["verdict"] == "WARN"
    assert check["message"].startswith(
        f"{UNREACHED} refund_commit matches a span in 24 of the 24 baseline runs of scenario "
        "refund-policy but in none of its 20 candidate runs; nearest candidate names: "
        "refund_commit_v2."
    ), check["message"]
    assert check["measured"]["unreached_in_scenarios"] == {"refund_commit": ["refund-policy"]}
    assert check["measured"]["baseline_runs_reaching"] == {"refund_commit": 24}


def test_a_rule_scoped_to_the_scenario_that_reaches_it_passes(tmp_path, run_cli):
    """The rule covers only scenario other, whose candidate runs do call refund_commit."""
    code, check, _ = gate_two(run_cli, tmp_path, ORDER | {"scenarios": ["other"]})
    assert code == 0
    assert check["verdict"] == "PASS" and "unreached_by_candidate" not in check["measured"]


def test_per_scenario_reach_is_the_same_on_workers(tmp_path, run_cli):
    """What each scenario's candidate runs show merges from the workers' summaries: the same
    bytes as the single-process gate."""
    _, check, one = gate_two(run_cli, tmp_path, ORDER)
    assert check["verdict"] == "WARN"
    spec, base, cand = tmp_path / "spec.yaml", tmp_path / "baseline", tmp_path / "candidate"
    args = ["gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--workers", "2"]
    code, _, err = run_cli(*args, "--out", tmp_path / "two.json")
    assert code == 0, err
    assert one.read_bytes() == (tmp_path / "two.json").read_bytes()


def lookup_scenario(tmp_path: Path) -> tuple[Path, Path]:
    """:func:`two_scenarios` (nothing renamed) where the runs of scenario ``other`` look an
    order up and never check a policy or refund: only refund-policy's runs call those."""
    base, cand = two_scenarios(tmp_path, rename_in=None)
    for path in [*base.glob("other-*.json"), *cand.glob("other-*.json")]:
        document = json.loads(path.read_text(encoding="utf-8"))
        dropped = ("policy_check", "refund_commit")
        document["spans"] = [s for s in document["spans"] if s["name"] not in dropped]
        path.write_text(json.dumps(document), encoding="utf-8")
    return base, cand


def gate_scoped(run_cli, tmp_path: Path, rules: list[dict[str, Any]]):
    base, cand = lookup_scenario(tmp_path)
    invariants = EXAMPLE_SPEC["invariants"] | {"required_tools": ["classify"]}
    invariants |= {"required_order": []}
    spec = spec_file(tmp_path, invariants=invariants, rules=rules)
    out = tmp_path / "report.json"
    args = ["gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--out", out]
    code, _, err = run_cli(*args)
    assert "Traceback" not in err, err
    return code, json.loads(out.read_text(encoding="utf-8"))


def test_a_rule_scoped_to_a_scenario_that_never_calls_its_tools_is_vacuous(tmp_path, run_cli):
    """The refund rule scoped to the wrong scenario (``other``, whose runs never refund) held in
    each of its runs by default and PASSed: no name is a typo (refund-policy's runs call both),
    yet it checked nothing. It is INCONCLUSIVE, naming where the tools are."""
    code, report = gate_scoped(run_cli, tmp_path, [ORDER | {"scenarios": ["other"]}])
    check = checks_of(report)["behavior_contract.rules.refund-after-policy"]
    assert check["verdict"] == "INCONCLUSIVE"
    assert check["message"] == (
        f"{VACUOUS} policy_check and refund_commit match no span in the 44 runs of scenario "
        "other, which the check covers; only runs of scenario refund-policy show them. This "
        "check cannot decide anything until the spec names a real tool for those scenarios."
    )
    assert check["measured"]["unmatched_in_scope"] == ["policy_check", "refund_commit"]
    assert check["measured"]["seen_in_scenarios"] == {
        "policy_check": ["refund-policy"],
        "refund_commit": ["refund-policy"],
    }
    assert report["verdict"] == "INCONCLUSIVE" and code != 0
    # abw explain says why: the scope, not a misspelt name
    code, out, err = run_cli("explain", check["id"], "--report", tmp_path / "report.json")
    assert code == 0, err
    assert "covers only scenarios whose runs never show what triggers it" in out
    assert "nearest real one" not in out


@pytest.mark.parametrize(
    "scoped",
    [
        ORDER | {"scenarios": ["refund-policy"]},  # where the tools are
        ORDER | {"scenarios": ["*"]},  # some scenario it covers calls them
        {"id": "refund-after-policy", "kind": "count", "tool": "refund_commit", "max": 0}
        | {"scenarios": ["other"]},  # a ceiling: never refunding there is the point
    ],
    ids=["its-scenario", "every-scenario", "ceiling"],
)
def test_a_scoped_rule_whose_scenarios_call_its_tools_or_that_caps_them_passes(
    tmp_path, run_cli, scoped
):
    _, report = gate_scoped(run_cli, tmp_path, [scoped])
    check = next(c for c in report["checks"] if c["id"].endswith("rules.refund-after-policy"))
    assert check["verdict"] == "PASS", check["message"]
    assert "unmatched_in_scope" not in check["measured"]


def test_validate_with_the_baseline_says_it_before_a_gate(tmp_path, run_cli):
    """``abw validate --baseline`` names the rule, its line and the scenarios, over the
    baseline runs alone; the rule scoped where its tools are is ok."""
    base, _ = lookup_scenario(tmp_path)
    wrong = spec_file(tmp_path, rules=[ORDER | {"scenarios": ["other"]}])
    code, out, err = run_cli("validate", "--baseline", base, wrong)
    assert code == 2 and out == "", (out, err)
    line = next(
        n for n, text in enumerate(wrong.read_text().splitlines(), 1) if "refund-after" in text
    )
    assert err.strip() == (
        f"{wrong}:{line}: rules[0] (refund-after-policy): policy_check and refund_commit match "
        "no span in the 24 runs of scenario other, which the check covers; only runs of "
        "scenario refund-policy show them"
    )
    right = spec_file(tmp_path, rules=[ORDER | {"scenarios": ["refund-policy"]}])
    code, out, err = run_cli("validate", "--baseline", base, right)
    assert (code, err) == (0, "") and out.strip() == f"{right}: ok"


def test_a_rules_triggers_read_from_the_rule_are_its_checks():
    """``abw validate`` reads a rule's triggers from the spec rule (reach.rule_triggers), the
    gate from its compiled check (reach.triggers): the same references, for every kind that
    has triggers and for one that has none."""
    from abw.gating.reach import TRIGGERS, rule_triggers, triggers
    from abw.rules.checks import rule_checks

    rules = [
        ORDER | {"id": "p"},
        {"id": "i", "kind": "immediately_before", "before": "policy_check", "after": "refund_*"},
        {"id": "r", "kind": "response", "trigger": "lookup_order", "response": "policy_check"},
        {"id": "a", "kind": "absence_after", "stop": "refund_commit", "forbidden": "classify"},
        {"id": "c", "kind": "confidence", "tool": {"name": "refund_commit", "type": ["tool"]}}
        | {"field": "confidence", "threshold": 0.9, "evidence": "policy_check"},
        {"id": "q", "kind": "result_required", "tool": "lookup_*"},
        {"id": "g", "kind": "arguments", "tool": "refund_commit", "expected": {"order_id": 1}},
        {"id": "n", "kind": "count", "tool": "refund_commit", "max": 1},
    ]
    spec = Spec.model_validate({**EXAMPLE_SPEC, "rules": rules})
    found = rule_checks(list(spec.rules), [], [])
    assert {rule.kind for rule in spec.rules} >= set(TRIGGERS) - {"required_order"}
    for rule, check in zip(spec.rules, found.checks, strict=True):
        assert rule_triggers(rule) == triggers(check, found.references[check.id]), rule.id
    assert rule_triggers(spec.rules[-1]) == []
