"""Argument rules: constraints on tool-argument fields that an importer extracted by name.

Traces are redacted, so tool inputs exist only as hashes; the fields a rule can see are the
ones an importer or adapter named explicitly and stored in ``span.attributes["arguments"]``
(a JSON object). A span whose arguments were not extracted gives ``unknown``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from abw.rules.jsonvalue import json_equal, show
from abw.rules.outcome import RuleOutcome, combine, matches

ARGUMENTS_ATTRIBUTE = "arguments"


def extracted_arguments(span: Any) -> dict[str, Any] | None:
    """The span's explicitly extracted argument fields, or None when none were extracted."""
    value = (span.attributes or {}).get(ARGUMENTS_ATTRIBUTE)
    return value if isinstance(value, dict) else None


def compare_arguments(observed: dict[str, Any], expected: dict[str, Any], mode: str) -> list[str]:
    """The problems of ``observed`` against ``expected`` under ``mode``; empty when it holds."""
    problems: list[str] = []
    if mode == "ignore":
        return problems
    if mode in ("exact", "observed_superset"):
        for key in sorted(expected):
            if key not in observed:
                problems.append(f"{key} missing")
            elif not json_equal(observed[key], expected[key]):
                problems.append(f"{key} = {show(observed[key])}, expected {show(expected[key])}")
    if mode in ("exact", "observed_subset"):
        for key in sorted(observed):
            if key not in expected:
                problems.append(f"{key} not allowed")
            elif mode == "observed_subset" and not json_equal(observed[key], expected[key]):
                problems.append(f"{key} = {show(observed[key])}, expected {show(expected[key])}")
    return problems


def arguments(
    path: Sequence[Any],
    tool: str,
    expected: dict[str, Any],
    mode: str = "observed_superset",
    ignore_fields: Sequence[str] = (),
) -> RuleOutcome:
    """Every span matching ``tool`` (any status: the call was made) meets the constraint."""
    violated: list[int] = []
    unknown: list[int] = []
    first_problem = ""
    ignored = set(ignore_fields)
    want = {k: v for k, v in expected.items() if k not in ignored}
    for span in path:
        if not matches(tool, span.name):
            continue
        observed = extracted_arguments(span)
        if observed is None:
            unknown.append(span.ordinal)
            continue
        problems = compare_arguments(
            {k: v for k, v in observed.items() if k not in ignored}, want, mode
        )
        if problems:
            violated.append(span.ordinal)
            first_problem = first_problem or f" (ordinal {span.ordinal}: {'; '.join(problems)})"
    return combine(
        violated,
        unknown,
        f"every {tool} call met the {mode} argument constraint",
        f"{tool} was called with arguments outside the {mode} constraint{first_problem}",
        f"the arguments of {tool} were not extracted, so they cannot be checked",
    )
