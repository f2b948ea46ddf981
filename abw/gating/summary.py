"""The gate as a mergeable reduction: per candidate run, a compact summary of everything the
report needs of it; per scenario, the summaries merge exactly (abw.gating.merged_report).

:func:`summarize` is the one place a candidate run is read. It gets the run and the
:class:`Context` — the spec and the baseline runs, which every worker gets once (broadcast) —
and returns a :class:`RunSummary`: the run's identity (file, trace id, SHA-256, scenario),
execution status and start time, path length, error and retry counts, the outcome of every
per-run check with its counterexample evidence (ordinals and source lines), its distance to
the nearest baseline path and where it leaves the baseline prefix tree. Tool counts and span
names are only ever needed summed, so a :class:`Partial` folds them per scenario as it
collects a batch's summaries. The single-process gate is the same reduction over one partition.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from abw.cached import cached_property
from abw.diffing import BaselineShape, path_names, run_sort_key
from abw.findings import violation
from abw.gating.diff_shape import new_tool_finding
from abw.gating.sequence import RUN_ORDER

if TYPE_CHECKING:
    from abw.gating.common import RunRule
    from abw.models.report import Divergence, Violation
    from abw.models.spec import Spec
    from abw.rules.checks import AssertionBaseline, RuleBaseline, RunResult
    from abw.sharedfields import ValuePool
    from abw.traceio import TraceFile


@dataclass(frozen=True, slots=True)
class RunHead:
    """What the report says of any run, baseline or candidate."""

    path: str  # the trace file, as the report names it
    trace_id: str
    sha256: str
    source_hash: str  # of the recording it was imported from (abw.gating.sequence.once_each)
    scenario_id: str | None
    final_status: str
    platform: str
    agent_version: str | None
    path_length: int
    errors: int
    retries: int

    @property
    def key(self) -> tuple[str, str, str]:
        """The run order (abw.diffing.run_sort_key)."""
        return RUN_ORDER(self)


def _intern(text: str | None) -> str | None:
    return None if text is None else sys.intern(text)


def _head_fields(run: TraceFile) -> tuple[Any, ...]:
    trace = run.trace
    version = (trace.run.model_extra or {}).get("agent_version")
    return (  # the few values many runs share are interned: one copy per batch on the wire
        run.path,
        trace.run.trace_id,
        run.sha256,
        trace.source.source_hash,
        _intern(trace.run.scenario_id),
        sys.intern(trace.run.final_status),
        sys.intern(trace.source.platform),
        _intern(version) if isinstance(version, str) and version else None,
        len(run.path_spans),
        len(run.error_spans),
        len(run.retry_spans),
    )


def head(run: TraceFile) -> RunHead:
    """The :class:`RunHead` of a loaded run."""
    return RunHead(*_head_fields(run))


@dataclass(frozen=True, slots=True)
class RunSummary(RunHead):
    """One candidate run, as the report needs it (see the module docstring)."""

    started_at: datetime | None  # abw.gating.sequence.started_at
    distance: float  # path edit distance to the nearest baseline run
    nearest: str | None  # its trace id
    divergence: Divergence | None
    divergence_line: int | None  # the line of the span where the path leaves the baseline
    new_tools: Violation | None  # its path spans of tools its scenario's baseline never used
    findings: tuple[tuple[int, Violation], ...]  # (index of a built-in rule it breaks, evidence)
    rules: tuple[RunResult, ...]  # per spec rule (abw.rules.checks.rule_results)
    assertions: tuple[RunResult, ...]  # per spec assertion
    path_names: tuple[str, ...] = ()  # the tools along its path; counted by Partial.add
    span_names: frozenset[str] = frozenset()  # of every span; folded by Partial.add
    output_fields: frozenset[str] = frozenset()  # its canonical_output's; folded likewise
    span_kinds: frozenset[tuple[str, str]] = frozenset()  # (name, type); Context.folds_span_kinds
    argument_keys: frozenset[tuple[str, str]] = frozenset()  # (name, key); likewise


class Context:
    """What summarizing a candidate run needs besides the run: the spec and the baseline runs
    (in run order). Pickled for the workers without what it derives (rules, baseline shapes),
    which each process builds once, when first needed."""

    def __init__(self, spec: Spec, baseline: list[TraceFile]) -> None:
        self.spec = spec
        self.baseline = sorted(baseline, key=run_sort_key)
        self._shapes: dict[str | None, BaselineShape] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"spec": self.spec, "baseline": self.baseline}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["spec"], state["baseline"])  # type: ignore[misc]

    @cached_property
    def groups(self) -> dict[str | None, list[TraceFile]]:
        from abw.diffing import group_by_scenario

        return group_by_scenario(self.baseline)

    @cached_property
    def run_rules(self) -> list[RunRule]:
        """The built-in per-run rules (output, behavior contract, operational), in spec order."""
        from abw.gating import behavior_contract, operational_quality, output_eval

        spec = self.spec
        return [
            *output_eval.rules(spec.output),
            *behavior_contract.rules(spec.invariants),
            *operational_quality.rules(spec.invariants),
        ]

    @cached_property
    def folds_span_kinds(self) -> bool:
        """Whether the spec has rules or assertions, whose references name span types and
        argument fields too (abw.gating.vacuity): then each run's are folded."""
        return bool(self.spec.rules or self.spec.assertions)

    @cached_property
    def rule_baseline(self) -> RuleBaseline:
        from abw.rules.checks import RuleBaseline

        return RuleBaseline(list(self.spec.rules), self.baseline)

    @cached_property
    def assertion_baseline(self) -> AssertionBaseline:
        from abw.rules.checks import AssertionBaseline

        return AssertionBaseline(list(self.spec.assertions), self.baseline)

    def shape(self, scenario_id: str | None) -> BaselineShape:
        """The baseline paths of a scenario (none for a scenario the baseline lacks)."""
        shape = self._shapes.get(scenario_id)
        if shape is None:
            shape = self._shapes[scenario_id] = BaselineShape(self.groups.get(scenario_id, []))
        return shape


def summarize(run: TraceFile, context: Context) -> RunSummary:
    """Everything the report needs of one candidate run (module docstring)."""
    from abw.gating.sequence import started_at

    spec = context.spec
    scenario = run.trace.run.scenario_id
    shape = context.shape(scenario)
    names = path_names(run)
    measured = shape.measure(run, names)
    divergence = measured.divergence
    line = None
    if divergence is not None and divergence.span_ordinal is not None:
        line = run.line_of(divergence.span_ordinal)
    new = new_tool_finding(run.path_spans, names, shape.tools) if shape.runs else None
    findings = tuple(
        (index, violation(run, finding))
        for index, rule in enumerate(context.run_rules)
        if (finding := rule.evaluate(run)) is not None
    )
    rules: tuple[RunResult, ...] = ()
    if spec.rules:
        from abw.rules.checks import rule_results

        base = context.rule_baseline
        rules = rule_results(base.rules, run, base.facts(scenario))
    assertions: tuple[RunResult, ...] = ()
    if spec.assertions:
        from abw.rules.checks import assertion_results

        base_values = context.assertion_baseline
        assertions = assertion_results(base_values.assertions, run, base_values)
    return RunSummary(
        *_head_fields(run),
        started_at=started_at(run),
        distance=measured.distance,
        nearest=measured.nearest,
        divergence=divergence,
        divergence_line=line,
        new_tools=None if new is None else violation(run, new),
        findings=findings,
        rules=rules,
        assertions=assertions,
        path_names=tuple(names),
        span_names=run.ordered_spans.names(),
        output_fields=output_field_names(run),
        **(_span_kinds(run) if context.folds_span_kinds else {}),
    )


def _span_kinds(run: TraceFile) -> dict[str, frozenset[tuple[str, str]]]:
    """The run's (name, span type) and (name, argument key) pairs, for the vacuity of rules
    and assertions (abw.gating.vacuity); summaries of a spec without them keep none."""
    from abw.gating.vacuity import argument_keys, span_kinds

    spans = run.trace.spans
    return {"span_kinds": span_kinds(spans), "argument_keys": argument_keys(spans)}


def output_field_names(run: TraceFile) -> frozenset[str]:
    """The fields of the run's ``canonical_output`` (none when it has none)."""
    return frozenset(run.trace.run.canonical_output or ())


#: The span names and output fields of a summary a Partial holds (they are folded): one set,
#: which pickles once.
_NO_NAMES: frozenset[str] = frozenset()
_NO_KINDS: frozenset[tuple[str, str]] = frozenset()


@dataclass
class Partial:
    """The summaries of some candidate runs, with what is only needed summed folded: tool
    counts on the paths and the span names and kinds per scenario, and the output fields and
    argument keys seen (for abw.gating.vacuity)."""

    summaries: list[RunSummary] = field(default_factory=list)
    tool_totals: dict[str | None, Counter[str]] = field(default_factory=dict)
    output_fields: set[str] = field(default_factory=set)
    argument_keys: set[tuple[str, str]] = field(default_factory=set)
    #: Per scenario, the span names and (name, type) kinds its runs show (what reached a
    #: rule's trigger, abw.gating.reach.candidate_side); over all: :attr:`span_names`.
    scenario_span_names: dict[str | None, set[str]] = field(default_factory=dict)
    scenario_span_kinds: dict[str | None, set[tuple[str, str]]] = field(default_factory=dict)

    @property
    def span_names(self) -> set[str]:
        """The span names every run shows."""
        return set().union(*self.scenario_span_names.values())

    @property
    def span_kinds(self) -> set[tuple[str, str]]:
        """The (name, type) kinds every run shows (where the gate folds them)."""
        return set().union(*self.scenario_span_kinds.values())

    def add(self, summary: RunSummary) -> None:
        """Fold in a fresh summary (:func:`summarize`'s, held by nothing else): the tools on
        its path are counted here (Counter.update: a loop in C), its span names and output
        fields are summed, and all three are dropped from it, in place."""
        totals = self.tool_totals.get(summary.scenario_id)
        if totals is None:
            totals = self.tool_totals[summary.scenario_id] = Counter()
        totals.update(summary.path_names)
        self.scenario_span_names.setdefault(summary.scenario_id, set()).update(summary.span_names)
        self.scenario_span_kinds.setdefault(summary.scenario_id, set()).update(summary.span_kinds)
        self.output_fields |= summary.output_fields
        self.argument_keys |= summary.argument_keys
        set_field = object.__setattr__  # (dataclasses.replace cost 25 µs a run)
        set_field(summary, "path_names", ())
        set_field(summary, "span_names", _NO_NAMES)
        set_field(summary, "output_fields", _NO_NAMES)
        set_field(summary, "span_kinds", _NO_KINDS)
        set_field(summary, "argument_keys", _NO_KINDS)
        self.summaries.append(summary)

    def merge(self, other: Partial, pool: ValuePool | None = None) -> None:
        """Fold ``other`` in (its summaries after these; the gate sorts them). ``pool``: for
        summaries unpickled from a worker, which this partial takes over, one copy of the
        values many runs repeat (abw.sharedfields.ValuePool; one pool for all the partials of
        a gate), given to them in place."""
        self.summaries += (
            other.summaries
            if pool is None
            else [_pooled(summary, pool) for summary in other.summaries]
        )
        for scenario, counts in other.tool_totals.items():
            self.tool_totals.setdefault(scenario, Counter()).update(counts)
        for scenario, names in other.scenario_span_names.items():
            self.scenario_span_names.setdefault(scenario, set()).update(names)
        for scenario, kinds in other.scenario_span_kinds.items():
            self.scenario_span_kinds.setdefault(scenario, set()).update(kinds)
        self.output_fields |= other.output_fields
        self.argument_keys |= other.argument_keys


_DIVERGENCE_LISTS = ("baseline_alternatives", "common_prefix", "candidate_path", "baseline_path")
_POOLED_FIELDS = (
    "scenario_id",
    "final_status",
    "platform",
    "agent_version",
    "nearest",
    "span_names",
    "output_fields",
    "span_kinds",
    "argument_keys",
)


def _pooled(summary: RunSummary, pool: ValuePool) -> RunSummary:
    """A summary unpickled from a worker, with one copy (``pool``) of the values many runs
    repeat: its evidence's paths, messages and scenario ids, its status strings. (Its report
    models already share their fields_set: abw.sharedfields, kept through pickling.)"""
    violations = [summary.new_tools, *(item for _, item in summary.findings)]
    for results in (summary.rules, summary.assertions):
        violations += [found[1] for found in results if isinstance(found, tuple)]
    if summary.divergence is not None:
        pool.fields(summary.divergence, ("candidate_tool",), _DIVERGENCE_LISTS)
    for item in violations:
        if item is not None:
            pool.fields(item, ("message", "scenario_id"), ("span_ordinals", "span_lines"))
    # Pooled in place (dataclasses.replace cost 15 µs a run): a summary unpickled from a worker
    # is the driver's own copy, held by nothing else yet.
    set_field = object.__setattr__
    for name in _POOLED_FIELDS:
        set_field(summary, name, pool.value(getattr(summary, name)))
    set_field(summary, "rules", _pooled_results(summary.rules, pool))
    set_field(summary, "assertions", _pooled_results(summary.assertions, pool))
    return summary


def _pooled_results(results: tuple[RunResult, ...], pool: ValuePool) -> tuple[RunResult, ...]:
    """Rule or assertion results with their status strings pooled (their violations are)."""
    return tuple(
        (pool.value(found[0]), found[1]) if isinstance(found, tuple) else pool.value(found)
        for found in results
    )


def summarize_all(runs: Iterable[TraceFile], context: Context) -> Partial:
    """One partition: every run summarized and folded."""
    partial = Partial()
    for run in runs:
        partial.add(summarize(run, context))
    return partial
