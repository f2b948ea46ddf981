"""Trace semantics (DESIGN.md §3, docs/semantics.md), defined once for every reader.

The gate's checks (:mod:`abw.gating`), the path rules and assertions (:mod:`abw.rules`),
``abw diff``, spec inference, the behavior fingerprint and the latent step extraction all read
a run through these definitions; nothing here imports any of them. Each function takes spans
(anything with ``ordinal``, ``type``, ``name``, ``status``, ``input_hash`` and
``started_at``: the trace model's spans or a lean mirror of them) and, except :func:`in_order`,
expects them **in ordinal order** (:func:`in_order`, or ``TraceFile.ordered_spans``, which
sorts once per run).

- **path**: the non-``llm`` spans, in ordinal order.
- **errors**: spans with status ``error`` (any type).
- **retries**: spans whose (name, input hash) repeats an earlier span of the same run that
  failed (status ``error``); a span without an input hash is never a retry.
- **successes** / **attempts** of a tool: its spans with status ``success`` / every span of
  that name, whatever its status.
- **order violations** of ``{before: A, after: B}``: successful B spans with no successful A at
  an earlier ordinal (precedence over successful calls).
- **start time** of a run: the earliest ``started_at`` of its spans, as an aware UTC datetime
  (naive times read as UTC; unreadable ones are ignored); ``None`` when no span has one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from fnmatch import translate
from functools import lru_cache
from operator import attrgetter
from typing import Protocol, TypeVar


class SpanLike(Protocol):
    """What these definitions read of a span (``abw.models.trace.Span`` has all of it)."""

    @property
    def ordinal(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def input_hash(self) -> str | None: ...
    @property
    def started_at(self) -> str | None: ...


S = TypeVar("S", bound=SpanLike)
_ORDINAL = attrgetter("ordinal")

__all__ = [
    "OrderedSpans",
    "SpanLike",
    "attempts",
    "errors",
    "in_order",
    "name_matches",
    "order_violations",
    "path",
    "retries",
    "start_time",
    "successes",
]


class OrderedSpans(list[S]):
    """A run's spans in ordinal order (a list), indexed by name when first asked: a tool the
    spec names is then looked up, not searched for, however many rules name it
    (:func:`successes`, :func:`attempts` and :func:`order_violations` read the index). Never
    changed after it is built (``TraceFile.ordered_spans``)."""

    __slots__ = ("_by_name",)

    def named(self, name: str) -> Sequence[S]:
        """The spans named ``name``, in ordinal order."""
        return self._index().get(name, ())

    def names(self) -> frozenset[str]:
        """The names of the spans."""
        return frozenset(self._index())

    def _index(self) -> dict[str, list[S]]:
        try:
            return self._by_name
        except AttributeError:
            by_name = self._by_name = {}
            for span in self:
                group = by_name.get(span.name)
                if group is None:
                    by_name[span.name] = [span]
                else:
                    group.append(span)
            return by_name

    def __reduce__(self) -> tuple[type, tuple[list[S]]]:  # the index is rebuilt when asked
        return OrderedSpans, (list(self),)


def in_order(spans: Sequence[S]) -> Sequence[S]:
    """The spans in ordinal order: the sequence itself when it already is (as written)."""
    # (a comprehension reads a slot faster than attrgetter's generic lookup does, on 3.11)
    ordinals = [span.ordinal for span in spans]
    if ordinals == sorted(ordinals):  # (a stable sort of these spans keeps their order)
        return spans
    return sorted(spans, key=_ORDINAL)


def path(ordered: Iterable[S]) -> list[S]:
    """The run's path: its non-``llm`` spans (``ordered`` is in ordinal order)."""
    return [s for s in ordered if s.type != "llm"]


def errors(ordered: Iterable[S]) -> list[S]:
    """Spans with status ``error`` (any type)."""
    return [s for s in ordered if s.status == "error"]


def retries(ordered: Iterable[S], error_spans: Iterable[S] | None = None) -> list[S]:
    """Spans whose (name, input_hash) repeats an earlier span that failed (status ``error``).

    A span without an input hash is never a retry: nothing shows it repeated the same input.
    ``error_spans``: the run's :func:`errors`, when already found (not searched for again).
    """
    ordered = ordered if isinstance(ordered, Sequence) else list(ordered)
    # only a span whose input hash some failed span has can be a retry, or make one: the rest
    # is skipped with a set lookup (most runs fail nowhere, or on few inputs)
    found_errors = errors(ordered) if error_spans is None else error_spans
    failing = {span.input_hash for span in found_errors}
    failing.discard(None)
    if not failing:
        return []
    failed: set[tuple[str, str]] = set()
    found: list[S] = []
    for span in ordered:
        if span.input_hash not in failing:
            continue
        key = (span.name, span.input_hash)
        if key in failed:
            found.append(span)
        if span.status == "error":
            failed.add(key)
    return found


def name_matches(pattern: str, name: str, *, glob: bool = False) -> bool:
    """Whether a span name is ``pattern`` or, with ``glob``, matches it: an anchored,
    case-sensitive shell glob, or the literal name after a leading ``=`` (``=tool[1]``)."""
    if not glob:
        return name == pattern
    literal = literal_of(pattern)
    return name == literal if literal is not None else _glob_match(pattern)(name) is not None


_GLOB_CHARS = frozenset("*?[")


@lru_cache(maxsize=1024)
def literal_of(pattern: str) -> str | None:
    """The one name a glob ``pattern`` matches when it is a literal (``=name``, or no glob
    character: fnmatchcase then matches that name only); None for a real glob."""
    if pattern.startswith("="):
        return pattern[1:]
    return None if _GLOB_CHARS.intersection(pattern) else pattern


@lru_cache(maxsize=1024)
def _glob_match(pattern: str) -> Callable[[str], object]:
    """The compiled glob's ``match`` (fnmatchcase's own translation)."""
    return re.compile(translate(pattern)).match


def _matching(ordered: Iterable[S], pattern: str, glob: bool, status: str | None) -> list[S]:
    """The spans named ``pattern`` (or matching it as a glob), of ``status`` when given; the
    pattern is read once, not once per span."""
    literal = literal_of(pattern) if glob else pattern
    if literal is not None:
        if type(ordered) is OrderedSpans:
            ordered = ordered.named(literal)
        if status is None:
            return [s for s in ordered if s.name == literal]
        return [s for s in ordered if s.status == status and s.name == literal]
    match = _glob_match(pattern)
    if status is None:
        return [s for s in ordered if match(s.name) is not None]
    return [s for s in ordered if s.status == status and match(s.name) is not None]


def literal_pattern(name: str) -> str:
    """The glob that matches exactly ``name``: ``name`` itself, or ``=name`` when it holds a
    glob character (``*``, ``?``, ``[``) or starts with ``=``."""
    return "=" + name if name.startswith("=") or any(c in name for c in "*?[") else name


def successes(ordered: Iterable[S], pattern: str, *, glob: bool = False) -> list[S]:
    """Successful spans named ``pattern`` (or matching it as a glob)."""
    return _matching(ordered, pattern, glob, "success")


def attempts(ordered: Iterable[S], pattern: str, *, glob: bool = False) -> list[S]:
    """Every span named ``pattern`` (or matching it as a glob), whatever its status."""
    return _matching(ordered, pattern, glob, None)


def order_violations(ordered: Sequence[S], before: str, after: str) -> list[S]:
    """Successful ``after`` spans with no successful ``before`` span at an earlier ordinal
    (both names may be globs)."""
    first = next(iter(successes(ordered, before, glob=True)), None)
    return [
        s
        for s in successes(ordered, after, glob=True)
        if first is None or first.ordinal >= s.ordinal
    ]


def _moment(text: object) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = datetime.fromisoformat(text.strip())
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):  # (0001-01-01T00:00+01:00 is before datetime.min in UTC)
        return None


def start_time(spans: Iterable[SpanLike]) -> datetime | None:
    """The run's start: the earliest readable ``started_at`` of its spans, or ``None``."""
    moments = filter(None, map(_moment, [text for span in spans if (text := span.started_at)]))
    return min(moments, default=None)
