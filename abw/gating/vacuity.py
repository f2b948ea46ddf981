"""No vacuous rules: a tool name or glob that matches no span of any run cannot be checked.

Every check that refers to tools declares the names it refers to (``RunRule.references`` for
the built-in invariants, ``Rule.tool_references()`` for ``spec.rules``). A name that matches no
span of any baseline or candidate run would make its check pass by default (``after:
refund_comit`` has nothing to come after), so the check is INCONCLUSIVE instead, with the
nearest real names. Names a check only forbids (``forbidden_tools``) are never listed: their
absence is the expected outcome. ``abw validate --baseline`` and ``abw spec init`` report the
same findings before any gate runs.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from abw.models.report import Check
from abw.text import plural


@dataclass(frozen=True)
class Observed:
    """Every span name seen, over how many runs."""

    names: frozenset[str]
    runs: int


def observed(runs: Iterable[Any]) -> Observed:
    """Span names (of every span type) over the given runs (``TraceFile`` or ``Trace``)."""
    names: set[str] = set()
    count = 0
    for run in runs:
        trace = getattr(run, "trace", run)
        names.update(span.name for span in trace.spans)
        count += 1
    return Observed(frozenset(names), count)


def unmatched(patterns: Iterable[str], seen: Observed) -> list[str]:
    """The patterns (names or shell globs) that match none of the names seen, in given order."""
    found: list[str] = []
    for pattern in patterns:
        if pattern not in found and not any(fnmatchcase(n, pattern) for n in seen.names):
            found.append(pattern)
    return found


def nearest(pattern: str, seen: Observed, limit: int = 3) -> list[str]:
    """The real names closest to ``pattern`` (difflib ratio >= 0.6), best first."""
    return difflib.get_close_matches(pattern, sorted(seen.names), n=limit, cutoff=0.6)


def sentence(missing: list[str], seen: Observed) -> str:
    """``refund_comit matches no span in 44 runs; did you mean refund_commit?``"""
    parts = []
    for name in missing:
        close = nearest(name, seen)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        parts.append(f"{name} matches no span in {plural(seen.runs, 'run')}{hint}")
    return "; ".join(parts)


def spec_references(spec: Any) -> list[tuple[str, tuple[str, ...]]]:
    """(where in the spec, names) for every part of ``spec`` that refers to tools."""
    found: list[tuple[str, tuple[str, ...]]] = []
    inv = spec.invariants
    found += [(f"invariants.required_tools[{i}]", (t,)) for i, t in enumerate(inv.required_tools)]
    found += [
        (f"invariants.required_order[{i}]", (c.before, c.after))
        for i, c in enumerate(inv.required_order)
    ]
    for i, rule in enumerate(spec.rules):
        found.append((f"rules[{i}] ({rule.id or rule.kind})", rule.tool_references()))
    return [(where, names) for where, names in found if names]


def spec_findings(spec: Any, seen: Observed) -> list[str]:
    """One line per part of the spec whose tool names match no span of the runs seen."""
    lines = []
    for where, names in spec_references(spec):
        missing = unmatched(names, seen)
        if missing:
            lines.append(f"{where}: {sentence(missing, seen)}")
    return lines


def apply(
    checks: list[Check], references: Mapping[str, tuple[str, ...]], seen: Observed
) -> tuple[list[Check], set[str]]:
    """Checks whose referenced names match no span become INCONCLUSIVE; returns the new
    checks and the ids of the vacuous ones (their per-run failures are artefacts of the name,
    so the caller drops them from each run's failed checks)."""
    out: list[Check] = []
    vacuous: set[str] = set()
    for check in checks:
        missing = unmatched(references.get(check.id, ()), seen)
        if not missing:
            out.append(check)
            continue
        vacuous.add(check.id)
        text = sentence(missing, seen)
        message = (
            f"Vacuous: {text}{'' if text.endswith('?') else '.'} This check cannot decide "
            "anything until the spec names a real tool."
        )
        out.append(
            check.model_copy(
                update={
                    "verdict": "INCONCLUSIVE",
                    "message": message,
                    "violations": [],
                    "measured": {
                        **check.measured,
                        "unmatched_names": missing,
                        "did_you_mean": {name: nearest(name, seen) for name in missing},
                        "runs_searched": seen.runs,
                    },
                }
            )
        )
    return out, vacuous
