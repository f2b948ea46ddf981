"""The three-valued result of one rule on one run, and how a rule names spans.

A name is an anchored, case-sensitive shell glob (``*``, ``?``, ``[...]``); ``=name`` is the
literal name (no glob characters), and ``[[]`` is a glob for a literal ``[``. A combined
matcher (:class:`~abw.models.rules.SpanMatch`) adds span types and statuses.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from abw.semantics import name_matches

RuleStatus = Literal["satisfied", "violated", "unknown"]
Tri = bool | None  # True: matches; False: does not; None: depends on an unrecorded result

_RESULTS = frozenset({"success", "error", "cancelled"})


@dataclass(frozen=True)
class RuleOutcome:
    """``ordinals``: the violating spans (violated) or the undecidable ones (unknown)."""

    status: RuleStatus
    message: str
    ordinals: tuple[int, ...] = ()
    events: int = field(default=0, compare=False)  # violations counted for soft budgets


def matches(pattern: str, name: str) -> bool:
    """Anchored, case-sensitive shell glob on a tool name; ``=name`` matches literally."""
    return name_matches(pattern, name, glob=True)


def _names(pattern: Any) -> list[str]:
    if isinstance(pattern, str):
        return [pattern]
    return [pattern.name] if isinstance(pattern.name, str) else list(pattern.name)


def span_matches(pattern: Any, span: Any, default_status: Iterable[str] = ()) -> Tri:
    """Whether ``span`` matches a name glob or a combined matcher.

    Types: those the matcher lists, else every type but ``llm``. Statuses: those it lists,
    else ``default_status`` (empty: any). A span with status ``unknown`` matches a status list
    without ``unknown`` only maybe (None): its result was not recorded.
    """
    if not any(matches(n, span.name) for n in _names(pattern)):
        return False
    types = () if isinstance(pattern, str) else pattern.type
    if (span.type not in types) if types else span.type == "llm":
        return False
    statuses = (() if isinstance(pattern, str) else pattern.status) or tuple(default_status)
    if not statuses or span.status in statuses:
        return True
    if span.status == "unknown" and _RESULTS.intersection(statuses):
        return None
    return False


def any_status(pattern: Any) -> Any:
    """The same matcher without its status list (to show the calls that were made)."""
    return pattern if isinstance(pattern, str) else pattern.model_copy(update={"status": []})


def label(pattern: Any) -> str:
    """A pattern as the report shows it: ``refund_*`` or ``tool refund_* (error)``."""
    if isinstance(pattern, str):
        return pattern
    text = "|".join(_names(pattern))
    if pattern.type:
        text = f"{'/'.join(pattern.type)} {text}"
    if pattern.status:
        text += f" ({'/'.join(pattern.status)})"
    return text


def uses_llm(patterns: Iterable[Any]) -> bool:
    """Whether any combined matcher names ``llm`` spans (then the rule sees every span)."""
    return any(not isinstance(p, str) and "llm" in p.type for p in patterns)


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
