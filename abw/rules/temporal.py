"""Temporal, count and retry rules over one run's path (non-``llm`` spans in ordinal order).

Three-valued: a span with status ``unknown`` (no result recorded) may have succeeded or not,
so a rule that it could decide either way is ``unknown``, never ``satisfied``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from abw.rules.outcome import RuleOutcome, combine, matches

Span = Any  # abw.models.trace.Span


def _ok(span: Span) -> bool:
    return span.status == "success"


def _maybe(span: Span) -> bool:
    return span.status == "unknown"


def precedence(path: Sequence[Span], before: str, after: str) -> RuleOutcome:
    """Every successful ``after`` has a successful ``before`` at an earlier ordinal."""
    violated: list[int] = []
    unknown: list[int] = []
    seen_ok = seen_maybe = False
    for span in path:
        if matches(after, span.name) and (_ok(span) or _maybe(span)) and not seen_ok:
            if _ok(span) and not seen_maybe:
                violated.append(span.ordinal)
            else:
                unknown.append(span.ordinal)
        if matches(before, span.name):
            seen_ok = seen_ok or _ok(span)
            seen_maybe = seen_maybe or _maybe(span)
    return combine(
        violated,
        unknown,
        f"every successful {after} had an earlier successful {before}",
        f"{after} succeeded with no earlier successful {before}",
        f"whether {before} succeeded before {after} is not recorded",
    )


def response(
    path: Sequence[Span], trigger: str, reply: str, within_steps: int | None = None
) -> RuleOutcome:
    """Every successful ``trigger`` is followed by a successful ``reply`` (within k steps)."""
    violated: list[int] = []
    unknown: list[int] = []
    for index, span in enumerate(path):
        if not (matches(trigger, span.name) and (_ok(span) or _maybe(span))):
            continue
        end = len(path) if within_steps is None else min(len(path), index + 1 + within_steps)
        window = [s for s in path[index + 1 : end] if matches(reply, s.name)]
        if any(_ok(s) for s in window):
            continue
        if _maybe(span) or any(_maybe(s) for s in window):
            unknown.append(span.ordinal)
        else:
            violated.append(span.ordinal)
    where = f" within {within_steps} steps" if within_steps else ""
    return combine(
        violated,
        unknown,
        f"every successful {trigger} was followed by a successful {reply}{where}",
        f"{trigger} succeeded and no successful {reply} followed{where}",
        f"whether {reply} answered {trigger}{where} is not recorded",
    )


def immediately_before(path: Sequence[Span], before: str, after: str) -> RuleOutcome:
    """The path step directly before every successful ``after`` is a successful ``before``."""
    violated: list[int] = []
    unknown: list[int] = []
    for index, span in enumerate(path):
        if not (matches(after, span.name) and (_ok(span) or _maybe(span))):
            continue
        previous = path[index - 1] if index > 0 else None
        if previous is not None and matches(before, previous.name) and _ok(previous):
            continue
        could = previous is not None and matches(before, previous.name) and _maybe(previous)
        if could or _maybe(span):
            unknown.append(span.ordinal)
        else:
            violated.append(span.ordinal)
    return combine(
        violated,
        unknown,
        f"every successful {after} came directly after a successful {before}",
        f"{after} succeeded without a successful {before} directly before it",
        f"whether {before} directly before {after} succeeded is not recorded",
    )


def absence_after(path: Sequence[Span], stop: str, forbidden: str = "*") -> RuleOutcome:
    """No span matching ``forbidden`` after the first successful ``stop`` span."""
    violated: list[int] = []
    unknown: list[int] = []
    stopped = maybe_stopped = False
    for span in path:
        if (stopped or maybe_stopped) and matches(forbidden, span.name):
            (violated if stopped else unknown).append(span.ordinal)
        if matches(stop, span.name):
            stopped = stopped or _ok(span)
            maybe_stopped = maybe_stopped or _maybe(span)
    after = sorted({s.name for s in path if s.ordinal in set(violated)})
    return combine(
        violated,
        unknown,
        f"nothing matching {forbidden} ran after {stop}",
        f"{', '.join(after)} ran after {stop} had succeeded",
        f"whether {stop} had succeeded before later spans is not recorded",
    )


def count(
    path: Sequence[Span],
    tool: str,
    minimum: int | None,
    maximum: int | None,
    count_status: str = "any",
) -> RuleOutcome:
    """``minimum <= count <= maximum`` of spans matching ``tool`` (any status, or successful)."""
    spans = [s for s in path if matches(tool, s.name)]
    if count_status == "success":
        sure = [s for s in spans if _ok(s)]
        maybe = [s for s in spans if _maybe(s)]
    else:
        sure, maybe = spans, []
    low, high = len(sure), len(sure) + len(maybe)
    bounds = f"[{'0' if minimum is None else minimum}, {'∞' if maximum is None else maximum}]"
    what = f"{'successful ' if count_status == 'success' else ''}{tool} spans"
    if maximum is not None and low > maximum:
        excess = tuple(s.ordinal for s in sure[maximum:])
        return RuleOutcome("violated", f"{low} {what}, more than {maximum}", excess, low - maximum)
    if minimum is not None and high < minimum:
        present = tuple(s.ordinal for s in spans)
        return RuleOutcome("violated", f"{high} {what}, fewer than {minimum}", present, 1)
    if (maximum is not None and high > maximum) or (minimum is not None and low < minimum):
        return RuleOutcome(
            "unknown",
            f"between {low} and {high} {what} (unrecorded results), bounds {bounds}",
            tuple(s.ordinal for s in maybe),
        )
    return RuleOutcome("satisfied", f"{low} {what}, within {bounds}")


def retry_limit(
    path: Sequence[Span], tool: str, max_retries: int, group_by: str = "call_signature"
) -> RuleOutcome:
    """Retries per signature stay within ``max_retries``.

    A retry is a span whose signature (name and input hash, or name only with
    ``group_by: tool``) repeats an earlier span of the same run that failed (status ``error``).
    A span without an input hash has no known signature.
    """
    failed: set[tuple[str, str | None]] = set()
    maybe_failed: set[tuple[str, str | None]] = set()
    troubled_names: set[str] = set()  # names with an earlier failed or unrecorded span
    sure: dict[tuple[str, str | None], list[int]] = {}
    maybe: dict[tuple[str, str | None], list[int]] = {}
    unsigned: list[int] = []
    for span in path:
        if not matches(tool, span.name):
            continue
        if group_by == "call_signature" and span.input_hash is None:
            if span.name in troubled_names:
                unsigned.append(span.ordinal)  # may repeat a failed call; cannot tell
        else:
            key = (span.name, span.input_hash if group_by == "call_signature" else None)
            if key in failed:
                sure.setdefault(key, []).append(span.ordinal)
            elif key in maybe_failed:
                maybe.setdefault(key, []).append(span.ordinal)
            if span.status == "error":
                failed.add(key)
            elif _maybe(span):
                maybe_failed.add(key)
        if span.status == "error" or _maybe(span):
            troubled_names.add(span.name)
    violated: list[int] = []
    unknown: list[int] = []
    worst = 0
    for key in sorted(set(sure) | set(maybe), key=str):
        low = len(sure.get(key, []))
        high = low + len(maybe.get(key, [])) + len(unsigned)
        worst = max(worst, low)
        if low > max_retries:
            violated.extend(sure[key][max_retries:])
        elif high > max_retries:
            unknown.extend(maybe.get(key, []) + unsigned)
    if len(unsigned) > max_retries and not sure and not maybe:
        unknown.extend(unsigned)
    label = "call signature" if group_by == "call_signature" else "tool"
    return combine(
        violated,
        unknown,
        f"at most {worst} retries per {label} of {tool} (limit {max_retries})",
        f"more than {max_retries} retries of one {label} of {tool}",
        f"retries of {tool} cannot be counted: failed or unsigned calls are not recorded",
    )
