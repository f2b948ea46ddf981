"""A lean representation of a loaded run, for the gate: what every check reads, and no more.

A validated trace model costs about 1 KB per span (instance and extras dicts, the whole
``attributes`` mapping, ``source_ref``, pydantic's bookkeeping); a gate over 10,000 runs of
50 spans held 0.6 GB of them. The gate reads per span only its schema fields (ordinal, type,
name, status, outcome, hashes, parent, times) and the explicitly extracted
``attributes.arguments``; the span lines are on the :class:`~abw.traceio.TraceFile`.

A file is decoded straight from its bytes into msgspec structs (:mod:`abw.leandecode`) when
that decoder proves the full :class:`~abw.models.trace.Trace` model (the single source of the
schema) accepts it with the same values; anything else takes the exact path: validation by the
model (the same errors, naming file, line and field), then reduction. Either way the run is a
list of :class:`LeanSpan` structs: for a held run (the baseline) with ids, names and hashes
interned; a candidate run, streamed (:func:`stream_lean_traces`: summarized, then dropped),
keeps its spans as decoded. ``gate`` gives the same report, byte for byte, on lean runs, held
or streamed, as on full ones (``tests/test_leanrun.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from abw import semantics
from abw.hashing import sha256_hex
from abw.leandecode import LeanSpan, copied_lean_form, decode
from abw.models import TRACE_SCHEMA
from abw.traceio import (
    TraceFile,
    laid_out_lines,
    load_trace,
    parse_trace,
    span_lines,
    trace_files,
)


def lean_span(span: Any) -> LeanSpan:
    """The lean form of a validated :class:`~abw.models.trace.Span`."""
    return copied_lean_form(
        LeanSpan(
            span.span_id,
            span.ordinal,
            span.type,
            span.name,
            span.status,
            span.input_hash,
            span.output_hash,
            span.attributes,
            span.parent_span_id,
            span.outcome,
            span.started_at,
            span.duration_ms,
        )
    )


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
        [lean_span(span) for span in trace.spans],
    )
    return TraceFile(trace_file.path, lean_trace, trace_file.sha256, trace_file.span_lines)


def parse_lean_trace(raw: bytes, path: str, *, held: bool = True) -> TraceFile:
    """:func:`lean` of :func:`abw.traceio.parse_trace`, decoded straight from the bytes when
    :func:`abw.leandecode.decode` proves the model accepts them with the same values; else by
    that exact path (its errors, its run). ``held``: the run is kept (a baseline run; its
    names interned, :func:`abw.leandecode.lean_forms`); else it is read once and dropped."""
    decoded = decode(raw, held=held)
    if decoded is None:
        return lean(parse_trace(raw, path))
    spans, ordinals, first = decoded.spans, decoded.ordinals, decoded.first_span_line
    trace = LeanTrace(TRACE_SCHEMA, decoded.source, decoded.run, decoded.redaction, spans)
    lines = span_lines(raw, ordinals) if first is None else laid_out_lines(first, ordinals)
    trace_file = TraceFile(path, trace, sha256_hex(raw), lines)
    return trace_file.known_in_order() if decoded.consecutive else trace_file


def parse_streamed_trace(raw: bytes, path: str) -> TraceFile:
    """:func:`parse_lean_trace` of a run read once and dropped (a candidate run, summarized)."""
    return parse_lean_trace(raw, path, held=False)


def load_lean_trace(path: str | Path, *, held: bool = True) -> TraceFile:
    """:func:`abw.traceio.load_trace`, the run in its lean form (``held``: as
    :func:`parse_lean_trace`)."""
    return load_trace(path, parse_lean_trace if held else parse_streamed_trace)


def load_lean_traces(folder: str | Path) -> list[TraceFile]:
    """:func:`abw.traceio.load_traces`, each run in its lean form."""
    from abw.gcpause import gc_paused

    with gc_paused():
        return list(_loading(folder, held=True))


def stream_lean_traces(folder: str | Path) -> Iterator[TraceFile]:
    """The runs of :func:`load_lean_traces`, one at a time, each read when the one before is
    done with, for a caller that drops each (the gate summarizes a candidate run and keeps
    the summary alone, so the candidate runs are never all in memory)."""
    return _loading(folder, held=False)


def _loading(folder: str | Path, *, held: bool) -> Iterator[TraceFile]:
    """The folder's runs, loaded as iterated (the folder is listed now: a missing one is
    refused before any run is read)."""
    from abw.progress import track
    from abw.traceio import PROGRESS_MIN_FILES

    paths = trace_files(folder)
    label = f"loading {Path(folder).name}"
    quiet = len(paths) < PROGRESS_MIN_FILES
    loaded = map(partial(load_lean_trace, held=held), paths)
    return track(loaded, label, total=len(paths), quiet=quiet)
