"""No vacuous rules: a tool name or glob that matches no span of any run cannot be checked.

Every check that refers to tools declares the names it refers to (``RunRule.references`` for
the built-in invariants, ``Rule.tool_references()`` for ``spec.rules``). A name that matches no
span of any baseline or candidate run would make its check pass by default (``after:
refund_comit`` has nothing to come after), so such a check is INCONCLUSIVE instead, with the
nearest real names; a check that FAILs keeps its counterexamples and gains the sentence. Names
a check only forbids (``forbidden_tools``) are never listed: their absence is the expected
outcome. ``abw validate --baseline`` and ``abw spec init`` report the same findings before any
gate runs. Output fields are references too: a field no run's output holds (:func:`apply`).
So are a rule's or assertion's ``scenarios`` globs: when none matches the scenario of any run,
the rule covers no run at all (``scenarios: [refund-polcy]`` would pass every gate).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from abw.models.report import Check
from abw.semantics import literal_pattern, name_matches
from abw.text import plural


@dataclass(frozen=True)
class Observed:
    """Every span name seen, over how many runs; and every output field (the keys of the runs'
    ``canonical_output``) and scenario id, when known."""

    names: frozenset[str]
    runs: int
    output_fields: frozenset[str] = frozenset()
    scenarios: frozenset[str] = frozenset()


def observed(runs: Iterable[Any]) -> Observed:
    """Span names (of every span type) and output fields over the given runs (``TraceFile`` or
    ``Trace``)."""
    names: set[str] = set()
    fields: set[str] = set()
    scenarios: set[str] = set()
    count = 0
    for run in runs:
        trace = getattr(run, "trace", run)
        names.update(span.name for span in trace.spans)
        fields.update(trace.run.canonical_output or ())
        if trace.run.scenario_id is not None:
            scenarios.add(trace.run.scenario_id)
        count += 1
    return Observed(frozenset(names), count, frozenset(fields), frozenset(scenarios))


Reference = str | tuple[str, ...]  # a name or glob, or alternatives (any of them)


def unmatched(references: Iterable[Reference], seen: Observed) -> list[str]:
    """The references (names or shell globs; a tuple: alternatives) that match none of the
    names seen, in given order; alternatives read ``a or b``."""
    found: list[str] = []
    for reference in references:
        options = (reference,) if isinstance(reference, str) else reference
        text = " or ".join(o[1:] if o.startswith("=") else o for o in options)  # as the name reads
        hit = any(name_matches(glob, n, glob=True) for glob in options for n in seen.names)
        if options and not hit and text not in found:
            found.append(text)
    return found


def nearest(pattern: str, seen: Observed, limit: int = 3) -> list[str]:
    """The real names closest to ``pattern`` (difflib ratio >= 0.6), best first; for
    alternatives (``a or b``) the closest to any of them."""
    names = sorted(seen.names)
    found: list[str] = []
    for option in pattern.split(" or "):
        found += [n for n in difflib.get_close_matches(option, names, n=limit, cutoff=0.6)]
    return list(dict.fromkeys(found))[:limit]


def sentence(missing: list[str], seen: Observed) -> str:
    """``refund_comit matches no span in 44 runs; did you mean refund_commit?``"""
    parts = []
    for name in missing:
        close = nearest(name, seen)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        parts.append(f"{name} matches no span in {plural(seen.runs, 'run')}{hint}")
    return "; ".join(parts)


def scope_sentence(globs: Iterable[str], seen: Observed) -> str | None:
    """``scenarios refund-polcy match no run's scenario (44 runs); did you mean
    refund-policy?`` when none of a rule's ``scenarios`` globs (alternatives: any of them)
    matches the scenario of a run seen, so the rule covers no run; else None (an empty list
    covers every run)."""
    globs = list(globs)
    known = sorted(seen.scenarios)
    if not globs or any(name_matches(g, s, glob=True) for g in globs for s in known):
        return None
    close = [n for g in globs for n in difflib.get_close_matches(g, known, n=3, cutoff=0.6)]
    hint = f"; did you mean {' or '.join(dict.fromkeys(close))}?" if close else ""
    return (
        f"scenarios {', '.join(globs)} match no run's scenario ({plural(seen.runs, 'run')}){hint}"
    )


def spec_references(spec: Any) -> list[tuple[str, tuple[Reference, ...]]]:
    """(where in the spec, names) for every part of ``spec`` that refers to tools."""
    found: list[tuple[str, tuple[Reference, ...]]] = []
    inv = spec.invariants
    found += [
        (f"invariants.required_tools[{i}]", (literal_pattern(t),))  # exact names, not globs
        for i, t in enumerate(inv.required_tools)
    ]
    found += [
        (f"invariants.required_order[{i}]", (c.before, c.after))
        for i, c in enumerate(inv.required_order)
    ]
    for i, rule in enumerate(spec.rules):
        found.append((f"rules[{i}] ({rule.id or rule.kind})", rule.tool_references()))
    return [(where, names) for where, names in found if names]


def spec_findings(spec: Any, seen: Observed) -> list[str]:
    """One line per part of the spec whose tool names match no span of the runs seen, or whose
    output fields no run's output holds."""
    lines = []
    for where, names in spec_references(spec):
        missing = unmatched(names, seen)
        if missing:
            lines.append(f"{where}: {sentence(missing, seen)}")
    from abw.gating import output_eval

    for rule in output_eval.rules(spec.output):  # the fields each output check reads
        missing = [name for name in rule.output_fields if name not in seen.output_fields]
        if missing:
            lines.append(f"output.{rule.rule}: {field_sentence(missing, seen)}")
    for section in ("rules", "assertions"):
        for i, item in enumerate(getattr(spec, section)):
            scope = scope_sentence(item.scenarios, seen)
            if scope is not None:
                label = getattr(item, "id", None) or getattr(item, "kind", None) or section
                lines.append(f"{section}[{i}] ({label}): {scope}")
    return lines


def field_sentence(missing: list[str], seen: Observed) -> str:
    """``decsion is in no run's output (44 runs); did you mean decision?``, or, when no run
    has output fields, where they come from."""
    if not seen.output_fields:
        return (
            f"no run has output fields ({plural(seen.runs, 'run')}): they are extracted at "
            "import, when named (abw import --output-fields)"
        )
    parts = []
    for name in missing:
        close = difflib.get_close_matches(name, sorted(seen.output_fields), n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        parts.append(f"{name} is in no run's output ({plural(seen.runs, 'run')}){hint}")
    return "; ".join(parts)


def apply(
    checks: list[Check],
    references: Mapping[str, tuple[Reference, ...]],
    output_fields: Mapping[str, tuple[str, ...]],
    seen: Observed,
    scopes: Mapping[str, list[str]] | None = None,
) -> list[Check]:
    """Checks whose referenced tool names match no span, whose output fields no run's output
    holds, or whose ``scopes`` (check id -> a rule's ``scenarios`` globs) match no run's
    scenario: one that FAILs keeps its counterexamples (a refund with no approval at all is a
    counterexample whatever the approval is called; a field no run returned is missing from
    every run) and gains the sentence; any other becomes INCONCLUSIVE: it checked nothing (a
    typo'd field under ``baseline_violations: warn`` only WARNed, its runs counted as
    passing)."""
    out: list[Check] = []
    for check in checks:
        tools = unmatched(references.get(check.id, ()), seen)
        fields = [f for f in output_fields.get(check.id, ()) if f not in seen.output_fields]
        scope = scope_sentence((scopes or {}).get(check.id, ()), seen)
        if not tools and not fields and scope is None:
            out.append(check)
            continue
        measured = dict(check.measured)
        texts, real = [], []
        if tools:
            texts.append(sentence(tools, seen))
            real.append("tool")
            measured |= {
                "unmatched_names": tools,
                "did_you_mean": {name: nearest(name, seen) for name in tools},
                "runs_searched": seen.runs,
            }
        if fields:
            texts.append(field_sentence(fields, seen))
            real.append("output field")
            measured["unseen_output_fields"] = fields
        if scope is not None:
            texts.append(scope)
            real.append("scenario")
            measured["unmatched_scenarios"] = list((scopes or {})[check.id])
        text = "; ".join(texts)
        text += "" if text.endswith("?") else "."
        if check.verdict == "FAIL":
            update = {"message": f"{check.message.rstrip()} Note: {text}", "measured": measured}
        else:
            update = {
                "verdict": "INCONCLUSIVE",
                "message": f"Vacuous: {text} This check cannot decide anything until the spec "
                f"names a real {' and a real '.join(real)}.",
                "violations": [],
                "measured": measured,
            }
        out.append(check.model_copy(update=update))
    return out
