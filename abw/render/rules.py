"""What each check kind (``Check.rule``) means: the text behind SARIF rules and report tooltips."""

from __future__ import annotations

from dataclasses import dataclass

from abw.render.common import category_title


@dataclass(frozen=True)
class RuleText:
    short: str
    full: str
    help: str


_RULES: dict[str, RuleText] = {
    "required_tools": RuleText(
        "A required tool was not called successfully.",
        "Every candidate run must call each required tool at least once with status success.",
        "Record the run again after making the agent call the tool, or remove the tool from "
        "invariants.required_tools if it is no longer required.",
    ),
    "forbidden_tools": RuleText(
        "A forbidden tool was called.",
        "No candidate run may contain a span of a forbidden tool, whatever its status.",
        "Find the span at the reported line; the agent must not call this tool at all.",
    ),
    "required_order": RuleText(
        "A tool ran before the tool that must precede it.",
        "Every successful 'after' span needs a successful 'before' span at an earlier ordinal "
        "in the same run (precedence, not adjacency; names may be globs).",
        "The reported span ran without the required earlier step (for example a refund committed "
        "before the policy check). Fix the agent's plan or prompt so the earlier step runs first.",
    ),
    "max_path_length": RuleText(
        "A run's path is longer than allowed.",
        "The number of non-llm spans of a candidate run must not exceed "
        "invariants.max_path_length.",
        "Look for loops or detours in the run; raise the limit only if the longer path is "
        "intended.",
    ),
    "max_errors": RuleText(
        "A run has more failed spans than allowed.",
        "Spans with status error in a candidate run must not exceed invariants.max_errors.",
        "Inspect the failing spans at the reported lines.",
    ),
    "max_retries": RuleText(
        "A run retried failed calls more often than allowed.",
        "A retry is a span whose (name, input hash) repeats an earlier failed span of the same "
        "run; their count must not exceed invariants.max_retries.",
        "Inspect the repeated calls at the reported lines.",
    ),
    "required_fields": RuleText(
        "A required output field is missing.",
        "Each candidate run's canonical output must contain every field in output.required_fields.",
        "Check the run's final output and the fields the importer extracted.",
    ),
    "expected": RuleText(
        "An output field has an unexpected value.",
        "Each field in output.expected must equal the expected value in every candidate run.",
        "Compare the run's canonical output with output.expected in the spec.",
    ),
    "path_edit_distance": RuleText(
        "Candidate paths drift from the baseline paths.",
        "Normalized Levenshtein distance between each candidate run's tool sequence and its "
        "nearest baseline run; the mean is compared with the warn and fail thresholds.",
        "See the first divergent step in the HTML report to find where the paths part.",
    ),
    "fingerprint_distance": RuleText(
        "Tool-call counts changed from the baseline.",
        "Euclidean distance between the mean per-run tool-call count vectors of baseline and "
        "candidate, against the warn and fail thresholds.",
        "Compare the tool frequencies of baseline and candidate in the HTML report.",
    ),
    "tool_jaccard": RuleText(
        "The set of tools used changed from the baseline.",
        "1 - |Tb ∩ Tc| / |Tb ∪ Tc| over the tool names used by baseline and candidate runs, "
        "against the warn and fail thresholds.",
        "See which tools are new or missing in the report.",
    ),
    "baseline_coverage": RuleText(
        "A candidate scenario has no baseline runs.",
        "Every candidate scenario needs baseline runs to be compared with; a scenario without "
        "them is reported, never silently passed.",
        "Record baseline runs for the scenario, or check the scenario ids of the candidate runs.",
    ),
    "min_runs": RuleText(
        "Too few candidate runs to decide.",
        "A scenario needs at least thresholds.min_runs candidate runs before its pass rate is "
        "judged.",
        "Record more candidate runs.",
    ),
    "confidence_sequence": RuleText(
        "The per-run pass rate is not shown to reach the required rate.",
        "An anytime-valid confidence sequence (one-sided beta-binomial mixtures, read in "
        "recording order) on the per-run pass rate against thresholds.min_wilson_pass_rate: the "
        "lower bound reaching it passes, the upper bound below it fails (failing_runs: "
        "tolerate), otherwise inconclusive; valid however often anyone looks or re-gates.",
        "When inconclusive, record the number of further runs the report names.",
    ),
    "wilson": RuleText(
        "The per-run pass rate is not shown to reach the required rate.",
        "Wilson score bounds on the per-run pass rate against thresholds.min_wilson_pass_rate: the "
        "lower bound reaching it passes, the upper bound below it fails, otherwise inconclusive. "
        "Single-look: valid for one look at a fixed n only (sequential: fixed).",
        "When inconclusive, record the number of further runs the report names.",
    ),
    "incomplete_runs": RuleText(
        "Some candidate runs did not complete.",
        "Runs whose run.final_status is error, cancelled or unknown are still checked, but never "
        "count as passing runs.",
        "Find out why those runs crashed or were cancelled, and record runs that complete.",
    ),
    "sprt": RuleText(
        "The sequential test decided the pass rate is degraded, or has not decided yet.",
        "The sequential probability ratio test on exact pass/fail counts (Ville's boundaries "
        "unless the spec asks for Wald's): accepting H1 (degraded pass rate p1) fails, "
        "accepting H0 (p0) passes, continuing is inconclusive.",
        "When the test continues, record more runs; past max_runs the test is truncated.",
    ),
}


# spec.rules kinds: (short, help); the full description is abw.rules.checks.WHY, the one the
# rule engine and `abw explain` use.
_SPEC_RULES: dict[str, tuple[str, str]] = {
    "precedence": (
        "A step ran without the step that must come before it.",
        "Inspect the reported span: the required earlier step did not happen first.",
    ),
    "response": (
        "A step was not followed by its required response.",
        "Inspect the reported trigger span and what the agent did after it.",
    ),
    "immediately_before": (
        "A step did not directly follow the step it must follow.",
        "Inspect the path step just before the reported span.",
    ),
    "absence_after": (
        "A tool ran after a stop point.",
        "Inspect the reported span: it ran after the run should have stopped doing this.",
    ),
    "count": (
        "A tool was called too few or too many times.",
        "Compare the run's calls of the tool with the bounds in the spec.",
    ),
    "retry_limit": (
        "Too many retries of the same call.",
        "Inspect the repeated calls at the reported lines.",
    ),
    "tool_allowlist": (
        "A tool outside the allowlist was called.",
        "Inspect the reported span: the agent used a capability the contract does not allow.",
    ),
    "result_required": (
        "A call has no recorded result.",
        "Inspect the reported call: the run ended (or the file was cut off) before it answered.",
    ),
    "confidence": (
        "A confident claim came without earlier evidence.",
        "Inspect the reported span: it claimed a high value before any successful evidence step.",
    ),
    "new_tools": (
        "The candidate used a tool the baseline never used.",
        "Inspect the reported spans; list the tool in the spec if the new capability is intended.",
    ),
    "tool_call_growth": (
        "The number of calls grew past the allowance over the baseline.",
        "Compare the run's calls with the baseline runs of its scenario (loops, detours).",
    ),
    "arguments": (
        "A tool was called with arguments outside the contract.",
        "Inspect the arguments of the reported span.",
    ),
    "recovery": (
        "A violation was not followed by the required recovery action.",
        "Inspect what the agent did after the violation.",
    ),
    "soft_budget": (
        "A run used up its budget of tolerated violations.",
        "Inspect the violations counted against the budget.",
    ),
}


def rule_text(rule: str, category: str) -> RuleText:
    """The catalogue entry for ``rule``, or a generic text naming its category."""
    known = _RULES.get(rule)
    if known is not None:
        return known
    if rule.startswith("assertion."):
        from abw.rules.checks import WHY

        op = rule.split(".", 1)[1]
        return RuleText(
            "A value assertion on the run's output or arguments does not hold.",
            WHY.get(rule)
            or f"A value assertion with matcher {op!r} compares explicitly extracted values of "
            "candidate runs with the spec (or with the baseline).",
            "Compare the reported run's extracted values with the assertion in the spec.",
        )
    if rule in _SPEC_RULES:
        from abw.rules.checks import WHY

        short, help_text = _SPEC_RULES[rule]
        return RuleText(short, WHY[rule], help_text)
    title = category_title(category)
    return RuleText(
        f"{title} check {rule} did not pass.",
        f"The abw gate check kind {rule!r} in category {title.lower()}.",
        "See the check's message and violations in the gate report.",
    )
