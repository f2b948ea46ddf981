"""Temporal, count and retry rules over one run's path (non-``llm`` spans in ordinal order).

Three-valued: a span with status ``unknown`` (no result recorded) may have succeeded or not,
so a rule that it could decide either way is ``unknown``, never ``satisfied``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from abw.rules.arguments import extracted_arguments
from abw.rules.jsonvalue import json_key
from abw.rules.outcome import (
    RuleOutcome,
    Tri,
    any_status,
    combine,
    label,
    matches,
    span_matches,
)
from abw.text import plural

Span = Any  # abw.models.trace.Span


def _ok(span: Span) -> bool:
    return span.status == "success"


def _maybe(span: Span) -> bool:
    return span.status == "unknown"


class _Earlier:
    """The latest ``before`` spans seen so far (path indexes), for a linear-time precedence.

    ``sure`` / ``maybe``: the latest successful / unrecorded one; with ``bind``, per bound value
    (``by_key``) and for those whose arguments were not extracted (``loose``).
    """

    def __init__(self, field: str | None) -> None:
        self.field = field
        self.sure = self.maybe = self.loose = -1
        self.by_key: dict[str, list[int]] = {}  # value key -> [sure index, maybe index]

    def add(self, index: int, span: Span, found: Tri) -> None:
        slot = 0 if found else 1
        if found:
            self.sure = index
        else:
            self.maybe = index
        if self.field is None:
            return
        arguments = extracted_arguments(span)
        if arguments is None:
            self.loose = index
        elif self.field in arguments:
            self.by_key.setdefault(json_key(arguments[self.field]), [-1, -1])[slot] = index

    def decide(self, span: Span, field: str | None, start: int) -> Tri:
        """True: a successful, bound ``before`` lies in ``[start, here)``; None: one may."""
        if self.field is None:
            return True if self.sure >= start else (None if self.maybe >= start else False)
        arguments = extracted_arguments(span)
        if arguments is None:  # nothing to bind on this side
            return None if max(self.sure, self.maybe) >= start else False
        if field in arguments:
            sure, maybe = self.by_key.get(json_key(arguments[field]), [-1, -1])
            if sure >= start:
                return True
            if maybe >= start:
                return None
        return None if self.loose >= start else False


def precedence(
    path: Sequence[Span],
    before: Any,
    after: Any,
    subject: str = "attempts",
    within: int | None = None,
    bind: Any = None,
) -> RuleOutcome:
    """Every ``after`` span (each attempt whatever its status, or each success) has a successful
    ``before`` span at an earlier ordinal, at most ``within`` path steps back and with equal
    ``bind`` arguments when given (unknown when a side's arguments were not extracted; a call
    that passed no such field binds nothing)."""
    subject_status = ("success",) if subject == "successes" else ()
    noun, article = ("attempt", "an") if subject == "attempts" else ("success", "a")
    violated: list[int] = []
    unknown: list[int] = []
    earlier = _Earlier(None if bind is None else bind.before)
    for index, span in enumerate(path):
        role = span_matches(after, span, subject_status)
        if role is not False:
            start = 0 if within is None else max(0, index - within)
            found = earlier.decide(span, None if bind is None else bind.after, start)
            if found is not True:
                (unknown if found is None or role is None else violated).append(span.ordinal)
        match = span_matches(before, span, ("success",))
        if match is not False:
            earlier.add(index, span, match)
    a, b = label(after), label(before)
    where = f" within {plural(within, 'step')}" if within else ""
    bound = f" with {bind.before} = {bind.after}" if bind is not None else ""
    need = f"an earlier successful {b}{where}{bound}"
    return combine(
        violated,
        unknown,
        f"every {a} {noun} had {need} (subject: {subject})",
        f"{article} {noun} of {a} had no {need[3:]} (subject: {subject})",
        f"whether each {a} {noun} had {need} is not recorded (subject: {subject})",
    )


def _next_index(path: Sequence[Span], pattern: str, status: str) -> list[int]:
    """For each path index i, the smallest j > i whose span matches ``pattern`` with
    ``status`` (``len(path)`` when none): one backward pass."""
    found = [len(path)] * (len(path) + 1)
    for index in range(len(path) - 1, -1, -1):
        span = path[index]
        hit = span.status == status and matches(pattern, span.name)
        found[index] = index if hit else found[index + 1]
    return found[1:]


def response(
    path: Sequence[Span], trigger: str, reply: str, within_steps: int | None = None
) -> RuleOutcome:
    """Every successful ``trigger`` is followed by a successful ``reply`` (within k steps).

    Linear in the path: the next successful and the next unrecorded ``reply`` after each
    index are found once, backwards."""
    violated: list[int] = []
    unknown: list[int] = []
    next_ok = _next_index(path, reply, "success")
    next_maybe = _next_index(path, reply, "unknown")
    for index, span in enumerate(path):
        if not (matches(trigger, span.name) and (_ok(span) or _maybe(span))):
            continue
        end = len(path) if within_steps is None else min(len(path), index + 1 + within_steps)
        if next_ok[index] < end:
            continue
        if _maybe(span) or next_maybe[index] < end:
            unknown.append(span.ordinal)
        else:
            violated.append(span.ordinal)
    where = f" within {plural(within_steps, 'step')}" if within_steps else ""
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


def absence_after(
    path: Sequence[Span], stop: Any, forbidden: Any = "*", allowed: Sequence[Any] = ()
) -> RuleOutcome:
    """No span matching ``forbidden`` (and none of ``allowed``) after the first successful
    ``stop`` span."""
    violated: list[int] = []
    unknown: list[int] = []
    stopped = maybe_stopped = False
    for span in path:
        if stopped or maybe_stopped:
            hit = span_matches(forbidden, span)
            excused = [span_matches(a, span) for a in allowed]
            if hit is not False and True not in excused:
                sure = stopped and hit is True and None not in excused
                (violated if sure else unknown).append(span.ordinal)
        found = span_matches(stop, span, ("success",))
        stopped = stopped or found is True
        maybe_stopped = maybe_stopped or found is None
    names = sorted({s.name for s in path if s.ordinal in set(violated)})
    s, f = label(stop), label(forbidden)
    but = f" (allowed: {', '.join(label(a) for a in allowed)})" if allowed else ""
    return combine(
        violated,
        unknown,
        f"nothing matching {f} ran after {s}{but}",
        f"{', '.join(names)} ran after {s} had succeeded{but}",
        f"whether {s} had succeeded before later spans is not recorded{but}",
    )


def count(
    path: Sequence[Span],
    tool: Any,
    minimum: int | None,
    maximum: int | None,
    count_status: str = "any",
) -> RuleOutcome:
    """``minimum <= count <= maximum`` of spans matching ``tool`` (a name glob or a combined
    matcher of name, type and status; ``count_status: success`` counts successes only)."""
    default = ("success",) if count_status == "success" else ()
    hits = [(s, span_matches(tool, s, default)) for s in path]
    sure = [s for s, m in hits if m is True]
    maybe = [s for s, m in hits if m is None]
    low, high = len(sure), len(sure) + len(maybe)
    bounds = f"[{'0' if minimum is None else minimum}, {'∞' if maximum is None else maximum}]"
    what = f"{'successful ' if count_status == 'success' else ''}{label(tool)} spans"
    if maximum is not None and low > maximum:
        excess = tuple(s.ordinal for s in sure[maximum:])
        return RuleOutcome("violated", f"{low} {what}, more than {maximum}", excess, low - maximum)
    if minimum is not None and high < minimum:
        made = any_status(tool)  # the calls that were made, whatever their status
        present = tuple(s.ordinal for s in path if span_matches(made, s) is not False)
        return RuleOutcome("violated", f"{high} {what}, fewer than {minimum}", present, 1)
    if (maximum is not None and high > maximum) or (minimum is not None and low < minimum):
        return RuleOutcome(
            "unknown",
            f"between {low} and {high} {what} (unrecorded results), bounds {bounds}",
            tuple(s.ordinal for s in maybe),
        )
    return RuleOutcome("satisfied", f"{low} {what}, within {bounds}")


def retry_limit(
    path: Sequence[Span],
    tool: Any,
    max_retries: int | None,
    group_by: str = "call_signature",
    max_attempts: int | None = None,
) -> RuleOutcome:
    """Retries (or, with ``max_attempts``, attempts) per signature stay within the limit."""
    if max_attempts is not None:
        return _attempts(path, tool, max_attempts, group_by)
    return _retries(path, tool, max_retries or 0, group_by)


def _attempts(path: Sequence[Span], tool: Any, limit: int, group_by: str) -> RuleOutcome:
    """Every span is an attempt, whatever its status. Signature: (name, input_hash), or the
    name with ``group_by: tool``. A span without an input hash may belong to any signature
    of its name: ``unknown`` when it could push one over the limit."""
    groups: dict[tuple[str, str | None], list[int]] = {}
    unsigned: dict[str, list[int]] = {}
    for span in path:
        if span_matches(tool, span) is not True:
            continue
        if group_by == "call_signature" and span.input_hash is None:
            unsigned.setdefault(span.name, []).append(span.ordinal)
            continue
        key = (span.name, span.input_hash if group_by == "call_signature" else None)
        groups.setdefault(key, []).append(span.ordinal)
    violated: list[int] = []
    unknown: list[int] = []
    worst = 0
    for key in sorted(groups, key=str):
        ordinals, loose = groups[key], unsigned.get(key[0], [])
        worst = max(worst, len(ordinals))
        if len(ordinals) > limit:
            violated.extend(ordinals[limit:])
        elif len(ordinals) + len(loose) > limit:
            unknown.extend(loose)
    for loose in unsigned.values():
        if len(loose) > limit:
            unknown.extend(loose)
    kind = "call signature" if group_by == "call_signature" else "tool"
    name = label(tool)
    return combine(
        violated,
        unknown,
        f"at most {plural(worst, 'attempt')} per {kind} of {name} (limit {limit})",
        f"more than {plural(limit, 'attempt')} of one {kind} of {name}",
        f"attempts of {name} cannot be grouped: some calls have no input hash (limit {limit})",
    )


def _retries(path: Sequence[Span], tool: Any, max_retries: int, group_by: str) -> RuleOutcome:
    """A retry is a span whose signature (name and input hash, or name only with
    ``group_by: tool``) repeats an earlier span of the same run that failed (status ``error``),
    the ``max_retries`` invariant's definition. A span without an input hash has no known
    signature."""
    failed: set[tuple[str, str | None]] = set()
    maybe_failed: set[tuple[str, str | None]] = set()
    troubled_names: set[str] = set()  # names with an earlier failed or unrecorded span
    sure: dict[tuple[str, str | None], list[int]] = {}
    maybe: dict[tuple[str, str | None], list[int]] = {}
    unsigned: dict[str, list[int]] = {}  # per name: spans that may repeat its failed calls
    # per name, after a call without an input hash failed (or may have): every later call of
    # the name (ordinal, input hash), which may repeat it (its signature is unknown, so any of
    # them may be its own; but it has one, so only the calls of one signature at most, and
    # the later calls without a hash, can all be its retries)
    after_unsigned: dict[str, list[tuple[int, str | None]]] = {}
    for span in path:
        if span_matches(tool, span) is not True:
            continue
        if span.name in after_unsigned:
            after_unsigned[span.name].append((span.ordinal, span.input_hash))
        if group_by == "call_signature" and span.input_hash is None:
            if span.name in troubled_names:  # may repeat a failed call; cannot tell
                unsigned.setdefault(span.name, []).append(span.ordinal)
            if span.status == "error" or _maybe(span):
                after_unsigned.setdefault(span.name, [])
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
    # every signature that failed or may have: an unsigned span of its name may repeat it
    # (and only it: a span without an input hash repeats no call of another name)
    for key in sorted(failed | maybe_failed | set(sure) | set(maybe), key=str):
        low = len(sure.get(key, []))
        guessed = unsigned.get(key[0], [])
        high = low + len(maybe.get(key, [])) + len(guessed)
        worst = max(worst, low)
        if low > max_retries:
            violated.extend(sure[key][max_retries:])
        elif high > max_retries:
            unknown.extend(maybe.get(key, []) + guessed)
    for later in after_unsigned.values():
        signed = Counter(digest for _, digest in later if digest is not None)
        most = max(signed.values(), default=0) + sum(1 for _, digest in later if digest is None)
        if most > max_retries:
            unknown.extend(ordinal for ordinal, _ in later)
    unknown = sorted(set(unknown))
    kind = "call signature" if group_by == "call_signature" else "tool"
    name = label(tool)
    return combine(
        violated,
        unknown,
        f"at most {plural(worst, 'retry')} per {kind} of {name} (limit {max_retries})",
        f"more than {plural(max_retries, 'retry')} of one {kind} of {name}",
        f"retries of {name} cannot be counted: failed or unsigned calls are not recorded",
    )
