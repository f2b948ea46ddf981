"""``abw explain``: one check of a gate report, its inputs, its evidence and why."""

from __future__ import annotations

import difflib
import json
from typing import Any

from abw.errors import AbwInputError
from abw.models.report import Check, GateReport
from abw.text import clean

_WHY: dict[str, str] = {
    "required_tools": "Every candidate run needs at least one successful span of the tool.",
    "forbidden_tools": "Any span of the tool, whatever its status, is a violation.",
    "required_order": "Every successful `after` span needs a successful `before` span at an "
    "earlier ordinal (precedence; names may be globs).",
    "max_path_length": "A run's path (its non-llm spans) may not be longer than the budget.",
    "max_errors": "A run may not have more spans with status error than the budget.",
    "max_retries": "A run may not repeat a failed span's (name, input_hash) more often than "
    "the budget.",
    "required_fields": "Every run's canonical_output must hold each named field.",
    "expected": "Every run's canonical_output fields must equal the expected JSON values.",
    "path_edit_distance": "Mean over candidate runs of the Levenshtein distance to the nearest "
    "baseline path, divided by the longer length; WARN past warn, FAIL past fail.",
    "fingerprint_distance": "Euclidean distance between the baseline's and the candidate's mean "
    "per-run tool-call counts; WARN past warn, FAIL past fail.",
    "tool_jaccard": "1 - |shared tools| / |all tools| over the two sets of runs; WARN past warn, "
    "FAIL past fail.",
    "baseline_coverage": "A candidate scenario without baseline runs cannot be compared, so it "
    "is INCONCLUSIVE rather than silently passed.",
    "min_runs": "Fewer candidate runs than min_runs is INCONCLUSIVE.",
    "wilson": "Wilson bounds on the per-run pass rate against tau: lower >= tau PASS, "
    "upper < tau FAIL, otherwise INCONCLUSIVE.",
    "sprt": "Wald's SPRT on the per-run pass indicator, decided on exact integer counts: "
    "accept H0 PASS, accept H1 FAIL, otherwise INCONCLUSIVE.",
}


def find_check(report: GateReport, check_id: str) -> Check:
    """The check with this id; a miss names the closest ids."""
    for check in report.checks:
        if check.id == check_id:
            return check
    ids = [c.id for c in report.checks]
    close = difflib.get_close_matches(check_id, ids, n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; ids: {', '.join(ids[:6])}"
    raise AbwInputError(f"no check {check_id!r} in the report{hint}", field="CHECK_ID")


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def explain(report: GateReport, check_id: str) -> str:
    """Plain text: the check, what it compared, the violating spans, and why the verdict."""
    check = find_check(report, check_id)
    kind = "hard invariant, one violating run is proof" if check.hard else "soft or statistical"
    lines = [
        f"{check.id}: {check.verdict}",
        f"  {check.message}",
        "",
        f"category   {check.category} ({kind})",
        f"rule       {check.rule}: {_WHY.get(check.rule) or _rule_why(check.rule)}",
    ]
    if check.scenario_id is not None:
        lines.append(f"scenario   {check.scenario_id}")
    lines.append(f"runs       {check.runs_checked} checked")
    for key, value in sorted(check.limits.items()):
        lines.append(f"limit      {key} = {_value(value)}")
    for key, value in sorted(check.measured.items()):
        lines.append(f"measured   {key} = {_value(value)}")
    lines += [
        "",
        "inputs",
        f"  spec {report.inputs.spec_file} (sha256 {report.inputs.spec_sha256})",
    ]
    roles: dict[str, int] = {}
    for item in report.inputs.traces:
        if check.scenario_id is None or item.scenario_id == check.scenario_id:
            roles[item.role] = roles.get(item.role, 0) + 1
    for role in sorted(roles):
        lines.append(f"  {roles[role]} {role} trace(s)")
    lines.append(f"  digest {report.inputs.digest}")
    if check.category == "sample_sufficiency":
        stats = next((s for s in report.statistics if s.scenario_id == check.scenario_id), None)
        if stats is not None:
            lines += [
                "",
                "statistics",
                f"  k/n {stats.k}/{stats.n}, Wilson [{_value(stats.wilson_lower)}, "
                f"{_value(stats.wilson_upper)}] at z={stats.z} vs tau={stats.threshold}",
                f"  SPRT {stats.sprt.decision}; runs needed {_value(stats.runs_needed)}",
            ]
    if check.violations:
        lines += ["", f"violations ({len(check.violations)})"]
        for v in check.violations:
            where = ", ".join(
                f"{v.trace_file}:{line} (ordinal {o})"
                for o, line in zip(v.span_ordinals, v.span_lines, strict=False)
            )
            lines.append(f"  {v.trace_id}: {v.message}")
            lines.append(f"    {where or v.trace_file}")
    lines += ["", "why", f"  {_why(check)}"]
    return "\n".join(clean(line) for line in lines) + "\n"


def _rule_why(rule: str) -> str:
    """Descriptions of spec.rules / spec.assertions kinds (abw.rules.checks.WHY)."""
    from abw.rules.checks import WHY

    return WHY.get(rule, "")


def _why(check: Check) -> str:
    if (
        check.id.startswith(
            ("behavior_contract.rules.", "operational_quality.rules.", "output_eval.assertions.")
        )
        and check.verdict == "INCONCLUSIVE"
    ):
        from abw.rules.checks import UNKNOWN_WHY

        return UNKNOWN_WHY
    if check.verdict == "PASS":
        return (
            "No run contradicts the rule, so it passed."
            if check.hard
            else ("The measured value is within the spec's limits, so it passed.")
        )
    if check.hard:
        return (
            f"{len(check.violations)} run(s) contradict the rule; one counterexample is proof, "
            "so the check FAILs."
        )
    if check.verdict == "INCONCLUSIVE":
        return "The evidence is not enough to decide either way; run more candidate runs."
    return f"The measured value is past the {check.verdict.lower()} limit."
