"""The candidate side of vacuity, and applying both sides to the gate's checks.

A check that holds by default in a run without what triggers it (an order rule's steps, the
``stop`` of ``absence_after``, the tool whose spans a ``confidence``, ``result_required`` or
``arguments`` rule judges) tested nothing about the candidate runs of a scenario it covers when
the baseline runs of that scenario show the trigger and none of its candidate runs does
(:func:`unreached`): a PASS becomes WARN, naming the trigger, the baseline runs that show it and
the nearest candidate names; any other verdict keeps itself and gains the sentence as a note.
:func:`apply` runs abw.gating.vacuity's findings (a reference no run shows) and this over the
gate's checks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from abw.gating.vacuity import (
    MISSPELT,
    UNREACHED,
    VACUOUS,
    Misses,
    Observed,
    as_text,
    hits,
    misses,
    misspelt_sentence,
    nearest,
    observed,
    types_seen,
)
from abw.models.report import Check
from abw.models.rules import ScopeRef, ToolRef, tool_reference
from abw.text import plural

#: Per check ``rule``, the fields of its ``limits`` naming what triggers it: a run without
#: such spans satisfies the check by default. Ceilings (``count`` with ``max``,
#: ``retry_limit``, ``tool_call_growth``), forbidden names and statuses are absent on purpose:
#: a run without those spans met them, which is the outcome they check.
TRIGGERS: dict[str, tuple[str, ...]] = {
    "required_order": ("before", "after"),
    "precedence": ("before", "after"),
    "immediately_before": ("before", "after"),
    "response": ("trigger", "response"),
    "absence_after": ("stop",),
    "confidence": ("tool",),
    "result_required": ("tool",),
    "arguments": ("tool",),
}


#: What the candidate runs of each scenario show (None: runs without a scenario id), from
#: :func:`candidate_side`: span names, the runs' count and, where collected, span kinds.
Reached = Mapping[str | None, Observed]


def candidate_side(partial: Any, candidate: Sequence[Any], kinds: bool) -> Reached:
    """What the candidate runs of each scenario show, from their merged summaries
    (``partial``: abw.gating.summary.Partial; ``candidate``: the summaries); span kinds only
    where the gate folds them (``kinds``)."""
    runs = Counter(t.scenario_id for t in candidate)
    return {
        scenario: Observed(
            frozenset(partial.scenario_span_names.get(scenario, ())),
            count,
            scenarios=frozenset(() if scenario is None else (scenario,)),
            kinds=frozenset(partial.scenario_span_kinds.get(scenario, ())) if kinds else None,
        )
        for scenario, count in runs.items()
    }


def _limit_names(value: Any) -> tuple[str, ...] | None:
    """The name globs a check's ``limits`` entry names (a glob, or a matcher's name or
    names); None for anything else."""
    names = value.get("name") if isinstance(value, dict) else value
    if isinstance(names, str):
        return (names,)
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        return tuple(names)
    return None


def _ref_names(reference: Any) -> tuple[str, ...] | None:
    """The name globs of a tool reference (a built-in's name or alternatives, a ToolRef that
    is not note-only); None for any other reference."""
    if isinstance(reference, str):
        return (reference,)
    if isinstance(reference, tuple):
        return reference
    if isinstance(reference, ToolRef) and not reference.note_only:
        return reference.names
    return None


def triggers(check: Check, references: Iterable[Any]) -> list[Any]:
    """The references of ``check`` that trigger it (:data:`TRIGGERS`), in given order."""
    wanted = {_limit_names(check.limits.get(name)) for name in TRIGGERS.get(check.rule, ())}
    wanted.discard(None)
    return [r for r in references if _ref_names(r) in wanted]


def rule_triggers(rule: Any) -> list[Any]:
    """The references of a spec rule that trigger it (:data:`TRIGGERS` of its kind), in order:
    what :func:`triggers` finds for its check, read from the rule itself."""
    wanted = {
        tool_reference(value).names
        for name in TRIGGERS.get(rule.kind, ())
        if (value := getattr(rule, name, None)) is not None
    }
    return [r for r in rule.references() if _ref_names(r) in wanted]


def spec_scope_findings(spec: Any, runs: BaselineViews) -> list[str]:
    """One line per spec rule whose triggers no run of its ``scenarios`` shows while runs of
    other scenarios do (:func:`out_of_scope`), over ``runs()`` (:func:`by_scenario`, asked for
    only when a rule is scoped): what ``abw validate --baseline`` says before a gate does."""
    lines = []
    for index, rule in enumerate(spec.rules):
        found = out_of_scope(rule_triggers(rule), rule.references(), {}, runs)
        if found.texts:
            lines.append(f"rules[{index}] ({rule.id or rule.kind}): {'; '.join(found.texts)}")
    return lines


def _shows(reference: Any, seen: Observed) -> bool:
    """Whether some span seen matches a tool reference: by name, and (a ToolRef, where span
    kinds were collected) by a span type it reads."""
    names = _ref_names(reference) or ()
    if not hits(names, seen.names):
        return False
    return not isinstance(reference, ToolRef) or not types_seen(reference, seen)


def _label(reference: Any) -> str:
    """A tool reference as it reads: ``refund_commit``, ``retriever docs_*``, ``a or b``."""
    text = as_text(_ref_names(reference) or ())
    types = reference.types if isinstance(reference, ToolRef) else ()
    return f"{'/'.join(types)} {text}" if types else text


#: The baseline runs' own Observed, one per run, by scenario (:func:`by_scenario`), built on
#: first call (few checks need them).
BaselineViews = Callable[[], Mapping[str | None, Sequence[Observed]]]


def by_scenario(runs: Iterable[Any]) -> dict[str | None, list[Observed]]:
    """Each run's own Observed (:func:`abw.gating.vacuity.observed`), by its scenario (None:
    runs without a scenario id): what a :data:`BaselineViews` gives."""
    found: dict[str | None, list[Observed]] = {}
    for run in runs:
        view = observed([run])
        found.setdefault(next(iter(view.scenarios), None), []).append(view)
    return found


def _covers(references: Iterable[Any], scenario: str | None) -> bool:
    """Whether the check's ``scenarios`` globs (its ScopeRefs; none: every scenario) cover
    ``scenario``."""
    return all(
        scenario is not None and bool(hits(ref.globs, (scenario,)))
        for ref in references
        if isinstance(ref, ScopeRef)
    )


@dataclass(frozen=True)
class Unreached:
    """A trigger of a check that ``baseline_runs`` of the ``baseline_total`` baseline runs of
    ``scenario`` show and none of its ``candidate_total`` candidate runs does: ``label`` as it
    reads, ``nearest`` candidate names (of that scenario) to its ``text`` (names only)."""

    label: str
    text: str
    scenario: str | None
    baseline_runs: int
    baseline_total: int
    candidate_total: int
    nearest: list[str]

    def sentence(self, named: bool) -> str:
        """``refund_commit matches a span in 24 of 24 baseline runs but in none of 20
        candidate runs; nearest candidate names: refund_commit_v2``; the scenario ``named``
        where the gate holds more than one."""
        hint = f"; nearest candidate names: {', '.join(self.nearest)}" if self.nearest else ""
        base = plural(self.baseline_total, "baseline run")
        cand = plural(self.candidate_total, "candidate run")
        if not named:
            return (
                f"{self.label} matches a span in {self.baseline_runs} of {base} but in none "
                f"of {cand}{hint}"
            )
        where = "with no scenario id" if self.scenario is None else f"of scenario {self.scenario}"
        return (
            f"{self.label} matches a span in {self.baseline_runs} of the {base} {where} but in "
            f"none of its {cand}{hint}"
        )


def unreached_triggers(
    check: Check, references: Iterable[Any], reached: Reached, baseline: BaselineViews
) -> list[Unreached]:
    """Per scenario the check covers, the triggers of ``check`` that some baseline run of the
    scenario (``baseline()``: :func:`by_scenario`, asked for only when a trigger is
    unreached) shows and none of its candidate runs (``reached``) does, in given order."""
    references = list(references)
    scenarios = sorted(reached, key=lambda s: (s is None, s or ""))
    found: dict[tuple[str, str | None], Unreached] = {}
    for reference in triggers(check, references):
        label = _label(reference)
        for scenario in scenarios:
            side = reached[scenario]
            if (label, scenario) in found or not _covers(references, scenario):
                continue
            if _shows(reference, side):
                continue
            runs = baseline().get(scenario, ())
            if count := sum(_shows(reference, run) for run in runs):
                text = as_text(_ref_names(reference) or ())
                found[(label, scenario)] = Unreached(
                    label, text, scenario, count, len(runs), side.runs, nearest(text, side)
                )
    return list(found.values())


def unreached(
    check: Check, references: Iterable[Any], reached: Reached, baseline: BaselineViews
) -> Check:
    """``check`` where, in a scenario it covers, baseline runs show a trigger of it that no
    candidate run of that scenario does (:func:`unreached_triggers`): a PASS tested nothing
    about those runs and WARNs; any other verdict keeps itself and gains the sentence as a
    note. The scenario is named where the gate holds more than one."""
    found = unreached_triggers(check, references, reached, baseline)
    if not found:
        return check
    named = len({*reached, *baseline()}) > 1
    text = "; ".join(u.sentence(named) for u in found)
    counts: dict[str, int] = {}
    names: dict[str, list[str]] = {}
    for u in found:
        counts[u.label] = counts.get(u.label, 0) + u.baseline_runs
        names.setdefault(u.label, u.nearest)
    measured = check.measured | {
        "unreached_by_candidate": list(counts),
        "baseline_runs_reaching": counts,
        "nearest_candidate_names": names,
    }
    if named:
        scenarios: dict[str, list[str | None]] = {}
        for u in found:
            scenarios.setdefault(u.label, []).append(u.scenario)
        measured["unreached_in_scenarios"] = scenarios
    warning = (
        f"{UNREACHED} {text}. The check held only because nothing in the candidate triggered "
        f"it ({check.message.rstrip().rstrip('.')})."
    )
    return _doubted(check, f"{text}.", warning, measured)


def _doubted(check: Check, note: str, warning: str, measured: dict[str, Any]) -> Check:
    """A PASS that tested less than it says WARNs, its message ``warning``; any other verdict
    keeps itself and its message gains ``note``."""
    if check.verdict != "PASS":
        message = f"{check.message.rstrip()} Note: {note}"
        return check.model_copy(update={"message": message, "measured": measured})
    return check.model_copy(update={"verdict": "WARN", "message": warning, "measured": measured})


def _scenarios_text(scenarios: Iterable[str | None]) -> str:
    """``scenario a`` / ``scenarios a, b``; runs without one read ``(no scenario id)``."""
    names = [s if s is not None else "(no scenario id)" for s in scenarios]
    return f"{'scenario' if len(names) == 1 else 'scenarios'} {', '.join(names)}"


def _misspelt(check: Check, misspelt: dict[str, tuple[list[str], str]], seen: Observed) -> Check:
    """``check`` when a name it forbids looks misspelt (abw.gating.vacuity.misspelt_forbidden):
    a PASS WARNs (it held without testing the name meant); any other verdict gains a note."""
    text = misspelt_sentence(misspelt, seen)
    close = sorted({n for names, _ in misspelt.values() for n in names})
    names = {name: names for name, (names, _) in misspelt.items()}
    measured = check.measured | {"misspelt_forbidden_names": names}
    warning = (
        f"{MISSPELT} {text}. A misspelt forbidden name forbids nothing: the check held without "
        f"testing the name it meant ({check.message.rstrip().rstrip('.')}); did you mean "
        f"{' or '.join(close)}?"
    )
    return _doubted(check, f"{text}: misspelt?", warning, measured)


def out_of_scope(
    trigger_refs: Iterable[Any],
    references: Sequence[Any],
    reached: Reached,
    baseline: BaselineViews,
) -> Misses:
    """The triggers (``trigger_refs``: :func:`triggers`, :func:`rule_triggers`) of a check with
    ``scenarios`` globs (among its ``references``) that no run (baseline or candidate) of the
    scenarios it covers shows, while runs of other scenarios do: the check holds by default in
    every run it covers and decides nothing (a refund rule scoped to ``lookup``). Names no run
    shows at all are abw.gating.vacuity.misses' to say; what a check forbids or caps is no
    trigger (its absence in scope is the point)."""
    found = Misses()
    if not any(isinstance(ref, ScopeRef) for ref in references):
        return found
    views = baseline()
    everywhere = {*reached, *views}
    covered = sorted(s for s in everywhere if s is not None and _covers(references, s))
    if not covered:
        return found  # (no run's scenario matches: vacuity.scope_sentence)

    def shown(names: tuple[str, ...], scenario: str | None) -> bool:
        side = reached.get(scenario)
        if side is not None and hits(names, side.names):
            return True
        return any(hits(names, view.names) for view in views.get(scenario, ()))

    runs = sum(reached[s].runs for s in covered if s in reached)
    runs += sum(len(views.get(s, ())) for s in covered)
    others = sorted(everywhere.difference(covered), key=lambda s: (s is None, s or ""))
    where: dict[str, list[str | None]] = {}
    for reference in trigger_refs:
        names = _ref_names(reference)
        if names is None or as_text(names) in where or any(shown(names, s) for s in covered):
            continue
        if elsewhere := [s for s in others if shown(names, s)]:
            where[as_text(names)] = elsewhere
    if where:
        missing = list(where)
        places = {tuple(w) for w in where.values()}
        shows = (
            f"only runs of {_scenarios_text(next(iter(places)))} show "
            f"{'it' if len(missing) == 1 else 'them'}"
            if len(places) == 1
            else "; ".join(f"{n} is in runs of {_scenarios_text(w)} only" for n, w in where.items())
        )
        found.add(
            f"{' and '.join(missing)} {'matches' if len(missing) == 1 else 'match'} no span in "
            f"the {plural(runs, 'run')} of {_scenarios_text(covered)}, which the check covers; "
            f"{shows}",
            "tool for those scenarios",
            unmatched_in_scope=missing,
            scope_scenarios=covered,
            seen_in_scenarios=where,
        )
    return found


def apply(
    checks: list[Check],
    references: Mapping[str, tuple[Any, ...]],
    output_fields: Mapping[str, tuple[str, ...]],
    seen: Observed,
    reached: Reached | None = None,
    baseline: Iterable[Any] = (),
) -> list[Check]:
    """Checks with a reference no run shows (a tool name, a span type, an argument field, an
    output field no run's output holds, ``scenarios`` globs that match no run's scenario): one
    that FAILs keeps its counterexamples (a refund with no approval at all is a counterexample
    whatever the approval is called; a field no run returned is missing from every run) and
    gains the sentence; any other becomes INCONCLUSIVE: it checked nothing (a typo'd field
    under ``baseline_violations: warn`` only WARNed, its runs counted as passing). A note-only
    reference (a recovery action) only annotates a FAIL.

    With ``reached`` (what the candidate runs of each scenario show, :func:`candidate_side`)
    and the ``baseline`` runs, a check whose tools no run of the scenarios it covers shows is
    vacuous likewise (:func:`out_of_scope`), and one no candidate run of a scenario triggered
    where its baseline runs did is :func:`unreached`."""
    out: list[Check] = []
    views = cache(lambda: by_scenario(baseline))  # each run's, when needed
    for check in checks:
        refs = references.get(check.id, ())
        found = misses(refs, seen, output_fields.get(check.id, ()))
        misspelt = found.misspelt
        failed = check.verdict == "FAIL"
        texts = found.texts + (found.notes if failed else [])
        if not texts and reached is not None:
            found = out_of_scope(triggers(check, refs), refs, reached, views)
            texts = found.texts
        if not texts:
            held = check if reached is None else unreached(check, refs, reached, views)
            out.append(_misspelt(held, misspelt, seen) if misspelt else held)
            continue
        text = "; ".join(texts)
        text += "" if text.endswith("?") else "."
        measured = check.measured | found.measured
        if failed:
            update = {"message": f"{check.message.rstrip()} Note: {text}", "measured": measured}
        else:
            update = {
                "verdict": "INCONCLUSIVE",
                "message": f"{VACUOUS} {text} This check cannot decide anything until the spec "
                f"names a real {' and a real '.join(found.real)}.",
                "violations": [],
                "measured": measured,
            }
        out.append(check.model_copy(update=update))
    return out
