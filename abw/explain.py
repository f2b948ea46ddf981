"""``abw explain``: one check of a gate report, its inputs, its evidence and why."""

from __future__ import annotations

import difflib
import json
from typing import Any

from abw.errors import AbwInputError
from abw.models.report import Check, GateReport, Violation
from abw.render.rules import rule_text
from abw.text import log_line, plural

#: How often the statistics' error bounds allow a look (abw.models.report, ``looks``)
_LOOKS = {"any": "valid at any look", "single": "for a single look only"}
#: Span places a violation lists in the text (``--format json`` has every one).
LISTED_SPANS = 8


def find_check(report: GateReport, check_id: str, argument: str = "CHECK_ID") -> Check:
    """The check with this id; a miss names the closest ids, and the ``argument`` the id was
    given as (the CLI's ``CHECK_ID``, the MCP tool's ``check_id``)."""
    for check in report.checks:
        if check.id == check_id:
            return check
    ids = [c.id for c in report.checks]
    close = difflib.get_close_matches(check_id, ids, n=3, cutoff=0.4)
    more = f", \u2026 ({len(ids)} in all)" if len(ids) > 6 else ""
    hint = f"; did you mean {', '.join(close)}?" if close else f"; ids: {', '.join(ids[:6])}{more}"
    raise AbwInputError(f"no check {check_id!r} in the report{hint}", field=argument)


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def explain(report: GateReport, check_id: str, argument: str = "CHECK_ID") -> str:
    """Plain text: the check, what it compared, the violating spans, and why the verdict
    (``argument``: as for :func:`find_check`)."""
    check = find_check(report, check_id, argument)
    kind = (
        (
            "hard invariant, tolerated: a violating run is evidence"
            if _tolerated(check)
            else "hard invariant, one violating run is proof"
        )
        if check.hard
        else "soft or statistical"
    )
    lines = [
        f"{check.id}: {check.verdict}",
        f"  {check.message}",
        "",
        f"category   {check.category} ({kind})",
        f"rule       {check.rule}: {rule_text(check.rule, check.category).full}",
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
        lines.append(f"  {plural(roles[role], role + ' trace')}")
    lines.append(f"  digest {report.inputs.digest}")
    lines += _warnings(report, check)
    if check.category == "sample_sufficiency":
        stats = next((s for s in report.statistics if s.scenario_id == check.scenario_id), None)
        if stats is not None:
            lines += [
                "",
                "statistics",
                f"  k/n {stats.k}/{stats.n}, rule {stats.rule} ({_LOOKS[stats.looks]}), "
                f"decision {stats.decision} vs tau={stats.threshold}",
                f"  confidence sequence [{_value(stats.cs_lower)}, {_value(stats.cs_upper)}]; "
                f"Wilson [{_value(stats.wilson_lower)}, {_value(stats.wilson_upper)}] at "
                f"z={stats.z}",
                f"  SPRT {stats.sprt.decision}; runs used {_value(stats.runs_used)}; runs needed "
                f"{_value(stats.runs_needed)}",
            ]
    if check.violations:
        lines += ["", f"violations ({len(check.violations)})"]
        for v in check.violations:
            lines.append(f"  {v.trace_id}: {v.message}")
            lines.append(f"    {_where(v)}")
    lines += ["", "why", f"  {_why(check)}"]
    return "\n".join(log_line(line) for line in lines) + "\n"


def _warnings(report: GateReport, check: Check) -> list[str]:
    """The report's input warnings that bear on the check (those of every scenario and those
    of its own): a CLI version or platform change can explain a FAIL the check shows."""
    found = [w for w in report.input_warnings if w.scenario_id in (None, check.scenario_id)]
    if not found:
        return []
    return [
        "",
        "input warnings (they do not change the verdict; read the check with them)",
        *(f"  {w.kind}: {w.message}" for w in found),
    ]


def _where(violation: Violation) -> str:
    """``file:line (ordinal n)`` of a violation's first :data:`LISTED_SPANS` spans, then how
    many there are (a real session's run can break a budget at hundreds of spans)."""
    places = [
        f"{violation.trace_file}:{line} (ordinal {ordinal})"
        for ordinal, line in zip(violation.span_ordinals, violation.span_lines, strict=False)
    ]
    if not places:
        return violation.trace_file
    shown = ", ".join(places[:LISTED_SPANS])
    if len(places) > LISTED_SPANS:
        shown += f", \u2026 ({len(places)} spans in all; --format json lists every one)"
    return shown


def _contradict(count: int) -> str:
    """``1 run contradicts`` / ``3 runs contradict``."""
    return f"{plural(count, 'run')} {'contradicts' if count == 1 else 'contradict'}"


def _why_inconclusive(check: Check) -> str:
    """Why an INCONCLUSIVE check decided nothing, and what decides it (never "FAILs")."""
    from abw.gating.vacuity import VACUOUS

    if check.message.startswith(VACUOUS) and "unmatched_in_scope" in check.measured:
        return (
            "The rule covers only scenarios whose runs never show what triggers it, so it held "
            "by default in every run it covers and checked nothing; scope it to the scenarios "
            "whose runs call those tools (the message names them), or name the tools its "
            "scenarios use."
        )
    if check.message.startswith(VACUOUS):
        return (
            "The spec names something no run shows, so the check checked nothing; fix the "
            "spec (the message names the nearest real one), not the runs."
        )
    violated = check.measured.get("violated")
    if check.limits.get("enforcement") == "precondition" and isinstance(violated, int) and violated:
        return (
            f"{_contradict(violated)} a precondition: the contract's promise does not apply to "
            "them, so the check decides nothing (INCONCLUSIVE, never PASS) and they do not count "
            "as failed runs."
        )
    if check.id.startswith(
        ("behavior_contract.rules.", "operational_quality.rules.", "output_eval.assertions.")
    ):
        from abw.rules.checks import UNKNOWN_WHY

        return UNKNOWN_WHY
    if check.rule == "baseline_coverage":
        return (
            "The candidate's runs have no baseline runs of their scenario to be compared with; "
            "record baseline runs of it under the same --scenario-id."
        )
    if check.id.startswith("sample_sufficiency."):
        return _why_undecided(check)
    return "The evidence is not enough to decide either way; run more candidate runs."


def _why_undecided(check: Check) -> str:
    """Why the pass-rate test decided nothing, and whether more runs can decide it: runs shown
    to pass too rarely (which under ``failing_runs: forbid`` this test never FAILs for), a
    ``runs_needed`` to reach, or none (a hard check already FAILs: no number of passing runs
    changes that verdict)."""
    needed = check.measured.get("runs_needed")
    more = isinstance(needed, int) and needed > 0
    upper, tau = check.measured.get("cs_upper"), check.limits.get("min_wilson_pass_rate")
    if isinstance(upper, int | float) and isinstance(tau, int | float) and upper < tau:
        only = f" (only {plural(needed, 'more run')} that all pass would reach it)" if more else ""
        return (
            f"The runs are shown to pass less often than tau={tau:g} (upper bound "
            f"{upper:.3f}), but under failing_runs: forbid this test never FAILs: a failing "
            "run FAILs through its own hard check, and runs that did not complete (crashed, "
            "cancelled: execution.incomplete_runs) count as not passing without breaking one. "
            f"More runs of this agent as it is will not decide it{only}: make its runs "
            "complete and pass."
        )
    if more:
        return (
            "The evidence is not enough to decide either way; run about "
            f"{plural(needed, 'more passing candidate run')} (as the message says)."
        )
    return (
        "More passing runs cannot decide it: a hard check already FAILs (no number of passing "
        "runs changes that verdict), or the sample cannot reach a decision within its limits; "
        "see the checks that did not pass."
    )


def _tolerated(check: Check) -> bool:
    """Whether ``failing_runs: tolerate`` turned this hard check's FAIL into its WARN."""
    from abw.gating.common import TOLERATED

    return check.hard and check.verdict == "WARN" and check.message.endswith(TOLERATED)


def _why(check: Check) -> str:
    from abw.gating.vacuity import MISSPELT, UNREACHED

    if check.verdict == "INCONCLUSIVE":
        return _why_inconclusive(check)
    if check.verdict == "PASS":
        return (
            "No run contradicts the rule, so it passed."
            if check.hard
            else ("The measured value is within the spec's limits, so it passed.")
        )
    if check.verdict == "WARN" and check.message.startswith(UNREACHED):
        return (
            "No candidate run (of the scenario the message names, where the gate holds several) "
            "reached what triggers the rule, so it held by default and tested nothing about "
            "them; see whether the candidate renamed or skipped that step."
        )
    if check.verdict == "WARN" and check.message.startswith(MISSPELT):
        return (
            "No run contradicts the rule, but a name it forbids is one typo from a tool the "
            "runs call and no run shows the name itself: it likely forbids nothing. Fix the "
            "spec if it is misspelt (the message names the nearest real name)."
        )
    if _tolerated(check):
        return (
            f"{_contradict(len(check.violations))} the rule, but the spec tolerates failing "
            "runs (failing_runs: tolerate): a violation is evidence, not proof, so the check "
            "WARNs and the pass-rate test against tau (sample_sufficiency) decides the verdict."
        )
    known = sum(v.in_baseline is True for v in check.violations)
    if check.hard and check.verdict == "WARN" and known:
        return (
            f"{_contradict(known)} the rule, but baseline runs of the same scenario already "
            "did (baseline_violations: warn), so the check WARNs instead of FAILing."
        )
    if check.hard:
        new = sum(v.in_baseline is False for v in check.violations)
        split = f" ({new} new, {known} already in the baseline)" if known or new else ""
        return (
            f"{_contradict(len(check.violations))} the rule{split}; one counterexample is "
            "proof, so the check FAILs."
        )
    return f"The measured value is past the {check.verdict.lower()} limit."
