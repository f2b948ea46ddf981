"""The three-valued result of one rule on one run, and the glob used for tool names."""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Literal

RuleStatus = Literal["satisfied", "violated", "unknown"]


@dataclass(frozen=True)
class RuleOutcome:
    """``ordinals``: the violating spans (violated) or the undecidable ones (unknown)."""

    status: RuleStatus
    message: str
    ordinals: tuple[int, ...] = ()
    events: int = field(default=0, compare=False)  # violations counted for soft budgets


def matches(pattern: str, name: str) -> bool:
    """Anchored, case-sensitive shell glob (``*``, ``?``, ``[...]``) on a tool name."""
    return fnmatchcase(name, pattern)


def combine(
    violated: list[int], unknown: list[int], ok: str, bad: str, undecided: str
) -> RuleOutcome:
    """Violated when any span violates; else unknown when any is undecidable; else satisfied."""
    if violated:
        ordinals = tuple(sorted(set(violated)))
        return RuleOutcome("violated", bad, ordinals, len(ordinals))
    if unknown:
        return RuleOutcome("unknown", undecided, tuple(sorted(set(unknown))))
    return RuleOutcome("satisfied", ok)
