"""A run's counterexample as report evidence: what it broke and the spans (and lines) that show
it. Shared by the gate's checks (:mod:`abw.gating`) and the rule checks (:mod:`abw.rules`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from abw.models.report import Violation
    from abw.traceio import TraceFile


@dataclass(frozen=True)
class Finding:
    """Why one run breaks a rule, and the spans (ordinals) that show it."""

    message: str
    ordinals: tuple[int, ...] = ()


def violation(trace_file: TraceFile, finding: Finding) -> Violation:
    """A report violation pointing at the run's file and the lines of its spans (with the
    shared fields_set of abw.sharedfields: one per run that breaks a rule, held to the report)."""
    from abw.models.report import Violation
    from abw.sharedfields import shared

    ordinals = sorted(set(finding.ordinals))
    return shared(
        Violation(
            trace_id=trace_file.trace.run.trace_id,
            trace_file=trace_file.path,
            scenario_id=trace_file.trace.run.scenario_id,
            span_ordinals=ordinals,
            span_lines=[trace_file.line_of(o) for o in ordinals],
            message=finding.message,
        )
    )
