"""Gate reports built directly from the model, for the renderer tests.

PASS, WARN, FAIL (with hundreds of violations), INCONCLUSIVE, and one whose trace-derived strings
are hostile (HTML, Markdown mentions, workflow commands, ANSI escapes, control characters).
"""

from __future__ import annotations

from abw.models.report import (
    Check,
    DiffResult,
    Divergence,
    EvidenceItem,
    EvidenceLedger,
    GateReport,
    InputFile,
    Inputs,
    LatentAdvisory,
    RunDistance,
    RunStatus,
    SampleStatistics,
    SprtState,
    ToolInfo,
    Violation,
    worst_verdict,
)

BASE_DIR = "examples/refund-policy"
BASELINE_PATH = ["lookup_order", "policy_check", "refund_commit", "send_email"]
REGRESSED_PATH = ["lookup_order", "refund_commit", "policy_check", "send_email"]

MALICIOUS_NAMES = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "@octocat",
    "#123",
    "::set-output name=x::y",
    "\x1b[31mred\x1b[0m",
    "tab\there\nnewline\x00nul\x07bell",
    "pipe|name`tick`*star*_under_",
    "right\u202eleft",
]


def _ledger(latent: LatentAdvisory | None = None) -> EvidenceLedger:
    return EvidenceLedger(
        used=[
            EvidenceItem(
                kind="tool_trajectory",
                description="Observable tool calls, their order and status, from the traces.",
            ),
            EvidenceItem(
                kind="canonical_output",
                description="Final-output fields extracted because the spec names them.",
            ),
            EvidenceItem(
                kind="sample_statistics",
                description="Wilson bounds and SPRT over per-run pass indicators.",
            ),
        ],
        advisory=[
            EvidenceItem(
                kind="representation_trajectory",
                description="Open-model hidden-state geometry; never changes the verdict.",
            )
        ],
        never_used=[
            EvidenceItem(kind="private_reasoning", description="Hidden chain of thought."),
            EvidenceItem(kind="hosted_model_internals", description="Internals of hosted models."),
        ],
        latent=latent,
    )


def _file(role: str, i: int, folder: str | None = None) -> str:
    return f"{BASE_DIR}/{folder or role}/run-{i:03d}.trace.json"


def _stats(n: int, k: int, lower: float, upper: float, decision: str, needed=None):
    return SampleStatistics(
        scenario_id="refund",
        n=n,
        k=k,
        pass_rate=(k / n) if n else None,
        z=1.96,
        threshold=0.7,
        wilson_lower=lower,
        wilson_upper=upper,
        wilson_decision=decision,
        min_runs=5,
        sprt=SprtState(
            enabled=True,
            decision="accept_h0"
            if decision == "pass"
            else "accept_h1"
            if decision == "fail"
            else "continue",
            llr=-2.4 if decision == "pass" else 3.1 if decision == "fail" else 0.4,
            lower_boundary=-1.558,
            upper_boundary=2.773,
            passes=k,
            failures=n - k,
            runs_used=n,
            max_runs=50,
            p0=0.95,
            p1=0.8,
            alpha=0.05,
            beta=0.2,
        ),
        runs_needed=needed,
    )


def _diff(
    n_base: int,
    n_cand: int,
    distances: list[float],
    candidate_path: list[str],
    folder: str,
    tools_new: list[str] | None = None,
) -> DiffResult:
    per_run = [
        RunDistance(
            trace_id=f"cand-{i:03d}",
            trace_file=_file("candidate", i, folder),
            nearest_baseline_trace_id=f"base-{i % n_base:03d}",
            path_edit_distance=d,
        )
        for i, d in enumerate(distances)
    ]
    divergences = []
    if candidate_path != BASELINE_PATH:
        step = next(
            i for i, (a, b) in enumerate(zip(candidate_path, BASELINE_PATH, strict=False)) if a != b
        )
        for i, d in enumerate(distances):
            if d > 0:
                divergences.append(
                    Divergence(
                        trace_id=f"cand-{i:03d}",
                        trace_file=_file("candidate", i, folder),
                        step=step,
                        span_ordinal=2 * step + 1,
                        candidate_tool=candidate_path[step],
                        baseline_alternatives=[BASELINE_PATH[step]],
                        common_prefix=candidate_path[:step],
                        candidate_path=candidate_path,
                        baseline_path=BASELINE_PATH,
                    )
                )
    mean = sum(distances) / len(distances) if distances else 0.0
    return DiffResult(
        scenario_id="refund",
        baseline_runs=n_base,
        candidate_runs=n_cand,
        path_edit_distance_mean=round(mean, 6),
        path_edit_distance_max=max(distances, default=0.0),
        per_run=per_run,
        fingerprint_distance=0.0 if not divergences else 0.35,
        tool_jaccard_distance=0.0 if not tools_new else 0.2,
        baseline_tool_means={t: 1.0 for t in BASELINE_PATH},
        candidate_tool_means={
            **{t: 1.0 for t in candidate_path},
            **{t: 0.5 for t in tools_new or []},
        },
        tools_new=tools_new or [],
        tools_missing=[],
        first_divergence=divergences[0] if divergences else None,
        divergences=divergences,
    )


def _diff_checks(diff: DiffResult, warn_edit: bool = False) -> list[Check]:
    def verdict(value: float, warn: float, fail: float) -> str:
        return "FAIL" if value > fail else "WARN" if value > warn else "PASS"

    items = [
        ("path_edit_distance", diff.path_edit_distance_mean, 0.12, 0.25, "Mean path edit distance"),
        ("fingerprint_distance", diff.fingerprint_distance, 1.0, 2.0, "Fingerprint distance"),
        ("tool_jaccard", diff.tool_jaccard_distance, 0.15, 0.4, "Tool Jaccard distance"),
    ]
    checks = []
    for rule, value, warn, fail, label in items:
        v = verdict(value, warn, fail)
        checks.append(
            Check(
                id=f"diff_shape.{rule}[refund]",
                rule=rule,
                category="diff_shape",
                verdict=v,
                message=f"{label} {value:.3f} is "
                + ("within" if v == "PASS" else "past the warn" if v == "WARN" else "past the fail")
                + f" threshold ({warn} warn, {fail} fail).",
                scenario_id="refund",
                hard=False,
                runs_checked=diff.candidate_runs,
                measured={"value": value, "max": diff.path_edit_distance_max}
                if rule == "path_edit_distance"
                else {"value": value},
                limits={"warn": warn, "fail": fail},
                violations=[],
            )
        )
    return checks


def _runs(n_base: int, n_cand: int, folder: str, failing: set[int], failed_check: str):
    runs = [
        RunStatus(
            role="baseline",
            trace_id=f"base-{i:03d}",
            trace_file=_file("baseline", i),
            scenario_id="refund",
            passed=None,
            path_length=4,
            errors=0,
            retries=0,
        )
        for i in range(n_base)
    ]
    runs += [
        RunStatus(
            role="candidate",
            trace_id=f"cand-{i:03d}",
            trace_file=_file("candidate", i, folder),
            scenario_id="refund",
            passed=i not in failing,
            path_length=4,
            errors=0,
            retries=0,
            failed_checks=[failed_check] if i in failing else [],
        )
        for i in range(n_cand)
    ]
    return runs


def _inputs(n_base: int, n_cand: int, folder: str) -> Inputs:
    traces = [
        InputFile(
            role="baseline",
            file=_file("baseline", i),
            sha256=f"{i:064x}",
            trace_id=f"base-{i:03d}",
            scenario_id="refund",
        )
        for i in range(n_base)
    ] + [
        InputFile(
            role="candidate",
            file=_file("candidate", i, folder),
            sha256=f"{i + 1000:064x}",
            trace_id=f"cand-{i:03d}",
            scenario_id="refund",
        )
        for i in range(n_cand)
    ]
    return Inputs(
        spec_file=f"{BASE_DIR}/behavior.yaml",
        spec_sha256="ab" * 32,
        traces=traces,
        digest="cd" * 32,
    )


def _hard_checks(n_cand: int, order_violations: list[Violation]) -> list[Check]:
    def passing(cid: str, rule: str, category: str, message: str, limits: dict) -> Check:
        return Check(
            id=cid,
            rule=rule,
            category=category,
            verdict="PASS",
            message=message,
            scenario_id="refund",
            hard=True,
            runs_checked=n_cand,
            measured={"violating_runs": 0},
            limits=limits,
        )

    order = Check(
        id="behavior_contract.required_order[0]",
        rule="required_order",
        category="behavior_contract",
        verdict="FAIL" if order_violations else "PASS",
        message=(
            f"{len({v.trace_id for v in order_violations})} of {n_cand} candidate runs called "
            "refund_commit before policy_check."
            if order_violations
            else f"Every refund_commit came after a policy_check in all {n_cand} runs."
        ),
        scenario_id="refund",
        hard=True,
        runs_checked=n_cand,
        measured={"violating_runs": len({v.trace_id for v in order_violations})},
        limits={"before": "policy_check", "after": "refund_commit"},
        violations=order_violations,
    )
    return [
        passing(
            "behavior_contract.required_tools",
            "required_tools",
            "behavior_contract",
            f"All {n_cand} runs called lookup_order, policy_check and refund_commit successfully.",
            {"tools": ["lookup_order", "policy_check", "refund_commit"]},
        ),
        passing(
            "behavior_contract.forbidden_tools",
            "forbidden_tools",
            "behavior_contract",
            "No run called a forbidden tool.",
            {"tools": ["delete_account"]},
        ),
        order,
        passing(
            "output_eval.expected",
            "expected",
            "output_eval",
            "Every run returned decision=approved.",
            {"expected": {"decision": "approved"}},
        ),
        passing(
            "operational_quality.max_errors",
            "max_errors",
            "operational_quality",
            "No run had more than 1 error.",
            {"max": 1},
        ),
        passing(
            "operational_quality.max_path_length",
            "max_path_length",
            "operational_quality",
            "No path was longer than 5 steps.",
            {"max": 5},
        ),
    ]


def _sample_check(stats: SampleStatistics) -> Check:
    verdict = {"pass": "PASS", "fail": "FAIL", "inconclusive": "INCONCLUSIVE"}[
        stats.wilson_decision
    ]
    if stats.n < stats.min_runs:
        message = f"Only {stats.n} candidate runs; at least {stats.min_runs} are needed."
    elif verdict == "PASS":
        message = f"{stats.k}/{stats.n} runs passed; the Wilson lower bound reaches 0.7."
    elif verdict == "FAIL":
        message = f"{stats.k}/{stats.n} runs passed; the Wilson upper bound is below 0.7."
    else:
        message = f"{stats.k}/{stats.n} runs passed; run {stats.runs_needed} more to decide."
    return Check(
        id="sample_sufficiency.wilson[refund]",
        rule="wilson",
        category="sample_sufficiency",
        verdict=verdict,
        message=message,
        scenario_id="refund",
        hard=False,
        runs_checked=stats.n,
        measured={
            "k": stats.k,
            "n": stats.n,
            "wilson_lower": stats.wilson_lower,
            "wilson_upper": stats.wilson_upper,
        },
        limits={"min_wilson_pass_rate": stats.threshold, "min_runs": stats.min_runs},
    )


def _report(checks: list[Check], summary: str, **kw) -> GateReport:
    verdict = worst_verdict([c.verdict for c in checks])
    return GateReport(
        tool=ToolInfo(version="0.1.0"),
        verdict=verdict,
        summary=summary,
        spec_id="refund-policy",
        checks=checks,
        evidence_ledger=kw.pop("ledger", _ledger()),
        **kw,
    )


def pass_report() -> GateReport:
    n_base, n_cand = 20, 12
    diff = _diff(n_base, n_cand, [0.0] * n_cand, BASELINE_PATH, "candidate-good")
    stats = _stats(n_cand, n_cand, 0.757, 1.0, "pass")
    checks = [*_hard_checks(n_cand, []), *_diff_checks(diff), _sample_check(stats)]
    return _report(
        checks,
        "PASS: all 12 candidate runs kept the contract and stayed close to the baseline.",
        diff=[diff],
        statistics=[stats],
        runs=_runs(n_base, n_cand, "candidate-good", set(), ""),
        inputs=_inputs(n_base, n_cand, "candidate-good"),
    )


def warn_report() -> GateReport:
    n_base, n_cand = 20, 12
    distances = [0.2 if i % 2 else 0.0 for i in range(n_cand)]
    path = [*BASELINE_PATH[:3], "audit_log"]
    diff = _diff(n_base, n_cand, distances, path, "candidate-warn", tools_new=["audit_log"])
    stats = _stats(n_cand, n_cand, 0.757, 1.0, "pass")
    checks = [*_hard_checks(n_cand, []), *_diff_checks(diff), _sample_check(stats)]
    return _report(
        checks,
        "WARN: the contract held, but candidate paths drift from the baseline (mean edit "
        "distance 0.100, a new tool audit_log).",
        diff=[diff],
        statistics=[stats],
        runs=_runs(n_base, n_cand, "candidate-warn", set(), ""),
        inputs=_inputs(n_base, n_cand, "candidate-warn"),
    )


def fail_report(n_cand: int = 900) -> GateReport:
    """Every third candidate run commits the refund before the policy check."""
    n_base = 20
    failing = {i for i in range(n_cand) if i % 3 == 0}
    distances = [0.5 if i in failing else 0.0 for i in range(n_cand)]
    diff = _diff(n_base, n_cand, distances, REGRESSED_PATH, "candidate-regressed")
    violations = [
        Violation(
            trace_id=f"cand-{i:03d}",
            trace_file=_file("candidate", i, "candidate-regressed"),
            scenario_id="refund",
            span_ordinals=[3],
            span_lines=[9],
            message="refund_commit at ordinal 3 has no successful policy_check before it.",
        )
        for i in sorted(failing)
    ]
    k = n_cand - len(failing)
    stats = _stats(n_cand, k, 0.61, 0.71, "inconclusive", needed=40)
    stats = stats.model_copy(update={"wilson_decision": "fail", "wilson_upper": 0.69})
    checks = [*_hard_checks(n_cand, violations), *_diff_checks(diff), _sample_check(stats)]
    return _report(
        checks,
        f"FAIL: {len(failing)} of {n_cand} candidate runs committed the refund before the "
        "policy check.",
        diff=[diff],
        statistics=[stats],
        runs=_runs(
            n_base, n_cand, "candidate-regressed", failing, "behavior_contract.required_order[0]"
        ),
        inputs=_inputs(n_base, n_cand, "candidate-regressed"),
    )


def inconclusive_report() -> GateReport:
    n_base, n_cand = 20, 3
    diff = _diff(n_base, n_cand, [0.0] * n_cand, BASELINE_PATH, "candidate-small")
    stats = _stats(n_cand, n_cand, 0.439, 1.0, "inconclusive", needed=5)
    checks = [*_hard_checks(n_cand, []), *_diff_checks(diff), _sample_check(stats)]
    return _report(
        checks,
        "INCONCLUSIVE: 3 of 3 runs passed, too few to decide; run at least 5 more.",
        diff=[diff],
        statistics=[stats],
        runs=_runs(n_base, n_cand, "candidate-small", set(), ""),
        inputs=_inputs(n_base, n_cand, "candidate-small"),
        ledger=_ledger(
            LatentAdvisory(
                model="tiny-random-gpt2",
                baseline_trajectories=2,
                candidate_trajectories=2,
                baseline_mean_entropy=2.31,
                candidate_mean_entropy=2.45,
                baseline_velocity_profile=[0.4, 0.6, 0.5],
                candidate_velocity_profile=[0.5, 0.9, 0.4],
                velocity_profile_difference=0.17,
                projections={
                    "baseline": [
                        [[0.0, 0.0], [1.0, 0.5], [2.0, 0.4]],
                        [[0.1, -0.2], [1.1, 0.3], [2.2, 0.6]],
                    ],
                    "candidate": [
                        [[0.0, 0.1], [0.8, -0.9], [1.9, -0.4]],
                        [[-0.1, 0.0], [0.9, -1.1], [2.1, -0.2]],
                    ],
                },
            )
        ),
    )


def malicious_report() -> GateReport:
    """Hostile strings everywhere a trace can put one."""
    n_base = 3
    names = MALICIOUS_NAMES
    cand_path = ["lookup_order", *names]
    violations = [
        Violation(
            trace_id=name,
            trace_file=f"{BASE_DIR}/candidate/{name}.json",
            scenario_id=name,
            span_ordinals=[i],
            span_lines=[i + 2],
            message=f"forbidden tool {name} was called.",
        )
        for i, name in enumerate(names)
    ]
    diff = DiffResult(
        scenario_id=names[0],
        baseline_runs=n_base,
        candidate_runs=len(names),
        path_edit_distance_mean=0.8,
        path_edit_distance_max=1.0,
        per_run=[
            RunDistance(
                trace_id=name,
                trace_file=f"{BASE_DIR}/candidate/{name}.json",
                nearest_baseline_trace_id=names[-1 - i],
                path_edit_distance=0.8,
            )
            for i, name in enumerate(names)
        ],
        fingerprint_distance=3.0,
        tool_jaccard_distance=0.9,
        baseline_tool_means={"lookup_order": 1.0, names[1]: 2.0},
        candidate_tool_means={n: 1.0 for n in cand_path},
        tools_new=names,
        tools_missing=[names[2]],
        first_divergence=Divergence(
            trace_id=names[0],
            trace_file=f"{BASE_DIR}/candidate/{names[0]}.json",
            step=1,
            span_ordinal=1,
            candidate_tool=names[0],
            baseline_alternatives=[names[1], "<end>"],
            common_prefix=["lookup_order"],
            candidate_path=cand_path,
            baseline_path=["lookup_order", names[1]],
        ),
    )
    checks = [
        Check(
            id=f"behavior_contract.forbidden_tools[{names[0]}]",
            rule="forbidden_tools",
            category="behavior_contract",
            verdict="FAIL",
            message=f"{len(names)} runs called forbidden tools such as {names[0]} and {names[2]}.",
            scenario_id=names[0],
            hard=True,
            runs_checked=len(names),
            measured={names[1]: names[3]},
            limits={"tools": names},
            violations=violations,
        ),
        Check(
            id=names[4],
            rule=names[1],
            category="operational_quality",
            verdict="WARN",
            message=f"Tool {names[5]} misbehaved; see {names[2]} in {names[3]}.",
            scenario_id=names[0],
            hard=False,
            runs_checked=1,
            violations=violations[:2],
        ),
        Check(
            id="sample_sufficiency.min_runs",
            rule="min_runs",
            category="sample_sufficiency",
            verdict="INCONCLUSIVE",
            message=f"Only {len(names)} runs of {names[0]}.",
            scenario_id=names[0],
            hard=False,
            runs_checked=len(names),
        ),
    ]
    stats = _stats(len(names), 0, 0.0, 0.3, "fail")
    stats = stats.model_copy(update={"scenario_id": names[0]})
    return _report(
        checks,
        f"FAIL: forbidden tool {names[0]} called by {names[2]} {names[3]}.",
        diff=[diff],
        statistics=[stats],
        runs=[
            RunStatus(
                role="candidate",
                trace_id=name,
                trace_file=f"{BASE_DIR}/candidate/{name}.json",
                scenario_id=name,
                passed=False,
                path_length=len(cand_path),
                errors=1,
                retries=0,
                failed_checks=[f"behavior_contract.forbidden_tools[{names[0]}]"],
            )
            for name in names
        ],
        inputs=Inputs(
            spec_file=f"{BASE_DIR}/{names[0]}.yaml",
            spec_sha256="ab" * 32,
            traces=[
                InputFile(
                    role="candidate",
                    file=f"{BASE_DIR}/candidate/{name}.json",
                    sha256="ef" * 32,
                    trace_id=name,
                    scenario_id=name,
                )
                for name in names
            ],
            digest="cd" * 32,
        ),
    )


ALL = {
    "pass": pass_report,
    "warn": warn_report,
    "fail": fail_report,
    "inconclusive": inconclusive_report,
    "malicious": malicious_report,
}


def gated(kind: str) -> GateReport:
    """A report made by the real gate from small real traces (see tests/test_gate_factory.py).

    ``pass``: the refund flow as in the baseline; ``fail``: every other run commits the refund
    before the policy check; ``inconclusive``: too few runs; ``warn``: an extra tool in some runs.
    """
    from test_gate_factory import REFUND, REGRESSED, runs

    from abw.gating import gate
    from abw.models.spec import Spec

    spec = Spec.model_validate(
        {
            "schema_version": "behavior-spec/v0",
            "id": "refund-policy",
            "invariants": {
                "required_tools": ["policy_check", "refund_commit"],
                "forbidden_tools": ["delete_account"],
                "required_order": [{"before": "policy_check", "after": "refund_commit"}],
                "max_errors": 1,
            },
            "thresholds": {"min_runs": 5},
        }
    )
    baseline = runs("base", [REFUND] * 20, folder="examples/refund-policy/baseline")
    paths = {
        "pass": [REFUND] * 30,
        "fail": [REGRESSED if i % 2 else REFUND for i in range(30)],
        "inconclusive": [REFUND] * 3,
        "warn": [[*REFUND, "audit_log"] if i % 4 == 0 else REFUND for i in range(40)],
    }[kind]
    candidate = runs("cand", paths, folder=f"examples/refund-policy/candidate-{kind}")
    return gate(
        baseline,
        candidate,
        spec,
        spec_file="examples/refund-policy/behavior.yaml",
        spec_sha256="0" * 64,
    )
