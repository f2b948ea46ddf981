"""Span-level facts the checks are built from (DESIGN.md §3).

Each takes a loaded run (:class:`~abw.traceio.TraceFile`), whose spans are put in ordinal
order once (``TraceFile.ordered_spans``) however many checks read them.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from abw.models.trace import Span
from abw.traceio import TraceFile


def successful(run: TraceFile, pattern: str, *, glob: bool = False) -> list[Span]:
    """Successful spans whose name is ``pattern`` (or matches it as a glob), in ordinal order."""
    return [
        s
        for s in run.ordered_spans
        if s.status == "success" and (fnmatchcase(s.name, pattern) if glob else s.name == pattern)
    ]


def error_spans(run: TraceFile) -> list[Span]:
    """Spans with status ``error`` (any type)."""
    return [s for s in run.ordered_spans if s.status == "error"]


def retry_spans(run: TraceFile) -> list[Span]:
    """The run's retries (:func:`retries`)."""
    return retries(run.ordered_spans)


def retries(spans: Iterable[Span]) -> list[Span]:
    """Spans (given in ordinal order) whose (name, input_hash) repeats an earlier span that
    failed.

    "Failed" means status ``error``; a span without an input hash is never a retry, since
    nothing shows that it repeated the same input.
    """
    failed: set[tuple[str, str]] = set()
    found: list[Span] = []
    for span in spans:
        key = (span.name, span.input_hash) if span.input_hash is not None else None
        if key is not None and key in failed:
            found.append(span)
        if key is not None and span.status == "error":
            failed.add(key)
    return found


def order_violations(run: TraceFile, before: str, after: str) -> list[Span]:
    """Successful ``after`` spans with no successful ``before`` span at an earlier ordinal."""
    first_before = next(iter(successful(run, before, glob=True)), None)
    return [
        s
        for s in successful(run, after, glob=True)
        if first_before is None or first_before.ordinal >= s.ordinal
    ]
