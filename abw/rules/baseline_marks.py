"""New or already in the baseline: how a candidate violation is marked against the baseline
runs of its scenario (for rules and invariants alike)."""

from __future__ import annotations

from typing import Any, Literal

KnownPolicy = Literal["fail", "warn"]


def mark(violation: Any, bad: int, runs: int) -> Any:
    """``violation`` marked new (no baseline run of its scenario breaks the check) or already in
    the baseline, with the baseline rate; unmarked when the scenario has no baseline run."""
    if runs == 0:
        return violation
    known = bad > 0
    note = (
        f"already in the baseline ({bad} of {runs} baseline runs)"
        if known
        else f"new: no baseline run breaks it (0 of {runs})"
    )
    return violation.model_copy(
        update={
            "in_baseline": known,
            "baseline_violating_runs": bad,
            "baseline_runs": runs,
            "message": f"{violation.message}; {note}",
        }
    )


def split_text(new: int, known: int) -> str:
    """`` (1 new, 2 already in the baseline)``; empty when nothing is already known."""
    return f" ({new} new, {known} already in the baseline)" if known else ""
