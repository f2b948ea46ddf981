"""``operational_quality``: path length, errors and retries against the spec's budgets."""

from __future__ import annotations

from abw.gating.common import Finding, RunRule, ordinals_text, runs_word
from abw.models.spec import Invariants
from abw.text import noun, plural
from abw.traceio import TraceFile


def _max_path_length(limit: int) -> RunRule:
    def evaluate(trace_file: TraceFile) -> Finding | None:
        path = trace_file.path_spans
        if len(path) <= limit:
            return None
        extra = [s.ordinal for s in path[limit:]]
        return Finding(
            f"path length {len(path)} exceeds {limit}; the spans past the budget are at "
            f"{noun(len(extra), 'ordinal')} {ordinals_text(extra)}",
            tuple(extra),
        )

    return RunRule(
        id="operational_quality.max_path_length",
        rule="max_path_length",
        category="operational_quality",
        limits={"max_path_length": limit},
        evaluate=evaluate,
        passed_message=lambda n: (
            f"Every one of {runs_word(n)} kept its path within {plural(limit, 'step')}."
        ),
        failed_message=lambda bad, n: (
            f"{bad} of {runs_word(n)} took more than {plural(limit, 'step')} (non-llm spans)."
        ),
    )


def _max_count(rule: str, limit: int, thing: str, spans_of) -> RunRule:  # type: ignore[no-untyped-def]
    """A budget of ``limit`` spans of a kind; ``thing`` names one of them ("retry")."""
    many = noun(2, thing)

    def evaluate(trace_file: TraceFile) -> Finding | None:
        spans = spans_of(trace_file)
        if len(spans) <= limit:
            return None
        ordinals = [s.ordinal for s in spans]
        return Finding(
            f"{plural(len(spans), thing)} (limit {limit}) at "
            f"{noun(len(ordinals), 'ordinal')} {ordinals_text(ordinals)}",
            tuple(ordinals),
        )

    return RunRule(
        id=f"operational_quality.{rule}",
        rule=rule,
        category="operational_quality",
        limits={rule: limit},
        evaluate=evaluate,
        passed_message=lambda n: (
            f"None of {runs_word(n)} had any {many}."
            if limit == 0
            else f"Every one of {runs_word(n)} had at most {plural(limit, thing)}."
        ),
        failed_message=lambda bad, n: (
            f"{bad} of {runs_word(n)} had {many}, which the spec does not allow."
            if limit == 0
            else f"{bad} of {runs_word(n)} had more than {plural(limit, thing)}."
        ),
    )


def rules(invariants: Invariants) -> list[RunRule]:
    """The operational budgets the spec sets (unset budgets are not checked)."""
    found: list[RunRule] = []
    if invariants.max_path_length is not None:
        found.append(_max_path_length(invariants.max_path_length))
    if invariants.max_errors is not None:
        found.append(
            _max_count("max_errors", invariants.max_errors, "error span", lambda t: t.error_spans)
        )
    if invariants.max_retries is not None:
        found.append(
            _max_count("max_retries", invariants.max_retries, "retry", lambda t: t.retry_spans)
        )
    return found
