"""A lean representation of a loaded run, for the gate: what every check reads, and no more.

A validated trace model costs about 1 KB per span (instance and extras dicts, the whole
``attributes`` mapping, ``source_ref``, pydantic's bookkeeping); a gate over 10,000 runs of
50 spans held 0.6 GB of them. The gate reads per span only its schema fields (ordinal, type,
name, status, outcome, hashes, parent, times) and the explicitly extracted
``attributes.arguments``; the span lines are on the :class:`~abw.traceio.TraceFile`. Every file
is still validated by the full :class:`~abw.models.trace.Trace` model (the single source of
the schema: the same errors, naming file, line and field); only then is the run reduced to
:class:`LeanSpan` objects (slots, names interned) and the model dropped. ``gate`` gives the
same report, byte for byte, on lean runs as on full ones (``tests/test_leanrun.py``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abw import semantics
from abw.traceio import TraceFile, load_trace, trace_paths

_NO_ATTRIBUTES: dict[str, Any] = {}
_ARGUMENTS = "arguments"


class LeanSpan:
    """One span as the gate reads it (the trace model's fields; attributes: arguments only)."""

    __slots__ = (
        "attributes",
        "duration_ms",
        "input_hash",
        "name",
        "ordinal",
        "outcome",
        "output_hash",
        "parent_span_id",
        "span_id",
        "started_at",
        "status",
        "type",
    )

    def __init__(self, span: Any) -> None:
        intern = sys.intern
        self.span_id = span.span_id
        self.ordinal = span.ordinal
        self.type = intern(span.type)
        self.name = intern(span.name)
        self.status = intern(span.status)
        self.input_hash = span.input_hash
        self.output_hash = span.output_hash
        self.parent_span_id = span.parent_span_id
        self.outcome = span.outcome
        self.started_at = span.started_at
        self.duration_ms = span.duration_ms
        arguments = span.attributes.get(_ARGUMENTS) if span.attributes else None
        self.attributes = _NO_ATTRIBUTES if arguments is None else {_ARGUMENTS: arguments}

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compact pickles for Dask workers
        return _restore, tuple(getattr(self, name) for name in self.__slots__)

    def __repr__(self) -> str:
        return f"LeanSpan({self.ordinal}, {self.type}, {self.name!r}, {self.status})"


def _restore(*values: Any) -> LeanSpan:
    span = LeanSpan.__new__(LeanSpan)
    for name, value in zip(LeanSpan.__slots__, values, strict=True):
        setattr(span, name, sys.intern(value) if name in _INTERNED else value)
    return span


_INTERNED = frozenset({"type", "name", "status"})


@dataclass(frozen=True, slots=True)
class LeanTrace:
    """A run's head (the validated ``source``, ``run`` and ``redaction`` models) and its lean
    spans, in the file's order."""

    schema_version: str
    source: Any
    run: Any
    redaction: Any
    spans: list[LeanSpan]

    def path(self) -> list[LeanSpan]:
        """The run's path (:func:`abw.semantics.path`)."""
        return semantics.path(semantics.in_order(self.spans))


def lean(trace_file: TraceFile) -> TraceFile:
    """The same run with a :class:`LeanTrace` in place of the trace model."""
    trace = trace_file.trace
    lean_trace = LeanTrace(
        trace.schema_version,
        trace.source,
        trace.run,
        trace.redaction,
        [LeanSpan(span) for span in trace.spans],
    )
    return TraceFile(trace_file.path, lean_trace, trace_file.sha256, trace_file.span_lines)


def load_lean_traces(folder: str | Path) -> list[TraceFile]:
    """:func:`abw.traceio.load_traces`, each run reduced to its lean form as it is loaded."""
    from abw.gcpause import gc_paused
    from abw.progress import track
    from abw.traceio import PROGRESS_MIN_FILES

    paths = trace_paths(folder)
    label = f"loading {Path(folder).name}"
    with gc_paused():
        quiet = len(paths) < PROGRESS_MIN_FILES
        return [lean(load_trace(p)) for p in track(paths, label, quiet=quiet)]
