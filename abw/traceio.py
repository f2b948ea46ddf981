"""Read and write ``agent-behavior-trace/v0`` files.

Traces are written one span per line so that a span can be located by its line: SARIF results
and check-run annotations point there. Any valid JSON trace reads, however it is laid out.
"""

from __future__ import annotations

import json
import json.encoder as _json_encoder
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from abw import semantics
from abw.atomic import write_atomic
from abw.cached import cached_property
from abw.errors import AbwInputError, from_validation_error, require_schema_version
from abw.hashing import sha256_hex
from abw.hints import with_hint
from abw.limits import MAX_TRACE_BYTES, MAX_TRACE_OBJECTS, MAX_TRACE_SPANS
from abw.models import TRACE_SCHEMA
from abw.reader import LONE_SURROGATE, lone_surrogate, parse_json, read_bytes

_HEAD_KEYS = ("schema_version", "source", "run", "redaction")


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), allow_nan=False)
#: ``_ENCODER.encode`` without building a C encoder per call (json.dumps does, a third of a span
#: line's cost); it keeps no circular-reference markers: a model dump holds no cycles
_C_ENCODER = _json_encoder.c_make_encoder
_ENCODE = _C_ENCODER and _C_ENCODER(
    None, _ENCODER.default, _json_encoder.encode_basestring, None, ": ", ", ", False, False, False
)


def _dumps(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)``."""
    if _ENCODE is None:  # no C accelerator
        return _ENCODER.encode(value)
    return "".join(_ENCODE(value, 0))


def render_trace(trace: Any) -> str:
    """The file text of a trace: head fields one per line, then one span per line."""
    document = trace.model_dump(mode="json", exclude_none=True)
    spans = document.pop("spans", [])
    keys = [k for k in _HEAD_KEYS if k in document] + [k for k in document if k not in _HEAD_KEYS]
    lines = ["{"]
    lines += [f"{_dumps(key)}: {_dumps(document[key])}," for key in keys]
    lines.append('"spans": [')
    lines += [_dumps(span) + ("," if i < len(spans) - 1 else "") for i, span in enumerate(spans)]
    lines += ["]", "}"]
    return "\n".join(lines) + "\n"


def _lone_surrogate_error(trace: Any) -> AbwInputError:
    """The error for a trace holding a lone surrogate, naming the raw file and line of the span
    (or the head field) that holds it."""
    document = trace.model_dump(mode="python", exclude_none=True)
    for index, span in enumerate(document.pop("spans", [])):
        held = [key for key, value in span.items() if lone_surrogate(value) is not None]
        if held:
            ref = span.get("source_ref") or {}
            return AbwInputError(
                LONE_SURROGATE,
                file=ref.get("file"),
                line=ref.get("line"),
                field=f"spans.{index}.{held[0]}",
            )
    held = [key for key, value in document.items() if lone_surrogate(value) is not None]
    return AbwInputError(LONE_SURROGATE, field=held[0] if held else None)


def write_trace(trace: Any, path: str | Path) -> Path:
    """Write a trace atomically in the one-span-per-line layout; a trace over MAX_TRACE_SPANS,
    which no loader would read back, is refused here already."""
    if len(trace.spans) > MAX_TRACE_SPANS:
        raise AbwInputError(
            f"the run has {len(trace.spans):,} spans, over abw's limit of {MAX_TRACE_SPANS:,} "
            "spans per trace",
            file=path,
            field="spans",
        )
    try:
        data = render_trace(trace).encode("utf-8")
    except UnicodeEncodeError:  # text no file can hold: say where it came from
        raise _lone_surrogate_error(trace) from None
    return write_atomic(path, data)


@dataclass
class TraceFile:
    """A trace as read from disk: the model, where it was, its hash and its span lines."""

    path: str
    trace: Any  # abw.models.trace.Trace
    sha256: str
    span_lines: Mapping[int, int] = field(default_factory=dict)  # ordinal -> 1-based line

    def line_of(self, ordinal: int) -> int:
        return self.span_lines.get(ordinal, 1)

    @cached_property
    def ordered_spans(self) -> list[Any]:
        """All spans in ordinal order, sorted once per run (the trace's own list when it is
        already in order, as written by :func:`write_trace`)."""
        ordered = semantics.in_order(self.trace.spans)
        return ordered if isinstance(ordered, list) else list(ordered)

    @cached_property
    def path_spans(self) -> list[Any]:
        """The run's path (:func:`abw.semantics.path`), built once."""
        return semantics.path(self.ordered_spans)

    @cached_property
    def error_spans(self) -> list[Any]:
        """The run's errors (:func:`abw.semantics.errors`), found once."""
        return semantics.errors(self.ordered_spans)

    @cached_property
    def retry_spans(self) -> list[Any]:
        """The run's retries (:func:`abw.semantics.retries`), found once."""
        return semantics.retries(self.ordered_spans)


#: JSON's whitespace within a line: the line reading below reads past it around a line's text
#: and its comma, so a file with CR LF line breaks (a Windows checkout) keeps its span lines
_BLANKS = b" \t\r"
_SPAN_HEAD = re.compile(rb'\{"span_id": "(?:[^"\\]|\\.)*", "ordinal": (\d+)[,}]')


def _line_ordinal(raw: bytes) -> int | None:
    """The ordinal of a span line; :class:`ValueError` when the line is not one span object.

    A line as :func:`write_trace` writes it (``{"span_id": "...", "ordinal": N, ...}``) is read
    without parsing it again (that parse took 7 % of a large gate); any other line is parsed."""
    line = raw.rstrip(_BLANKS).rstrip(b",")
    head = _SPAN_HEAD.match(line)
    if head is not None and line.endswith(b"}"):
        return int(head.group(1))
    try:
        ordinal = orjson.loads(line).get("ordinal")
    except (orjson.JSONDecodeError, AttributeError):
        raise ValueError("not a span line") from None
    return ordinal if isinstance(ordinal, int) else None


class ConsecutiveLines(Mapping[int, int]):
    """``{0: first, 1: first + 1, ...}`` for ``count`` spans, in two integers: the span lines
    of a file :func:`write_trace` wrote (ordinals 0, 1, ... one per line), which a dict would
    hold at ≈ 2 KB per run of 50 spans."""

    __slots__ = ("count", "first")

    def __init__(self, first: int, count: int) -> None:
        self.first, self.count = first, count

    def __getitem__(self, ordinal: int) -> int:
        if type(ordinal) is int and 0 <= ordinal < self.count:
            return self.first + ordinal
        raise KeyError(ordinal)

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.count))

    def __len__(self) -> int:
        return self.count

    def __reduce__(self) -> tuple[Any, tuple[int, int]]:
        return ConsecutiveLines, (self.first, self.count)


# a whole span line as write_trace writes it: the head _SPAN_HEAD reads (the same id and digits,
# possessive where nothing could be given back), then anything, ending in "}" or "},"
_WRITTEN_SPAN_LINE = re.compile(
    rb'^\{"span_id": "[^"\\]*+(?:\\.[^"\\]*+)*+", "ordinal": (\d++)[,}][^\n]*(?<=\}),?$',
    re.MULTILINE,
)
_SPANS_LINE = b'\n"spans": [\n'
_WRITTEN_END = b"\n]\n}\n"
_ORDINAL_TEXTS: list[bytes] = []


def _ordinal_texts(count: int) -> list[bytes]:
    """``[b"0", b"1", ..., b"count-1"]`` (one list, grown as needed)."""
    if len(_ORDINAL_TEXTS) < count:
        _ORDINAL_TEXTS.extend(b"%d" % i for i in range(len(_ORDINAL_TEXTS), count))
    return _ORDINAL_TEXTS[:count]


def _written_first_line(text: bytes, span_count: int) -> int | None:
    """The line of span 0 when ``text`` is laid out as :func:`write_trace` writes it with
    ordinals 0, 1, ... in order (what the line-by-line reading below then finds), else None.

    Checked in two passes of C: the first ``"spans": [`` line is followed by exactly
    ``span_count`` lines, then ``]`` and ``}``; each of them is a whole span line as
    :func:`_line_ordinal` reads it by _SPAN_HEAD, the k-th with ordinal k (a match is one whole
    line, so ``span_count`` matches in ``span_count`` lines are all of them)."""
    at = text.find(_SPANS_LINE)
    if span_count == 0 or at < 0 or not text.endswith(_WRITTEN_END):
        return None
    first, end = at + len(_SPANS_LINE), len(text) - len(_WRITTEN_END)
    if (
        end <= first
        or text.count(b"\n", first, end) != span_count - 1
        or _WRITTEN_SPAN_LINE.findall(text, first, end) != _ordinal_texts(span_count)
    ):
        return None
    return text.count(b"\n", 0, at + 1) + 2


def laid_out_lines(first: int, spans: list[Any]) -> Mapping[int, int]:
    """The span lines of a file shown to hold ``spans`` one per line from line ``first`` on,
    in this order (:func:`abw.leandecode.written_first_line`): what :func:`span_lines` reads."""
    ordinals = [span.ordinal for span in spans]
    if ordinals == list(range(len(ordinals))):
        return ConsecutiveLines(first, len(ordinals))
    return {ordinal: first + offset for offset, ordinal in enumerate(ordinals)}


def _first_span_line(lines: list[bytes]) -> int | None:
    """The 1-based line after the first line that is ``"spans": [``, blanks aside."""
    for index, line in enumerate(lines):
        if line.translate(None, _BLANKS) == b'"spans":[':
            return index + 2
    return None


def span_lines(text: bytes, span_count: int) -> Mapping[int, int]:
    """Map each span's ordinal to its line when the file uses the one-span-per-line layout."""
    first = _written_first_line(text, span_count)
    if first is not None:
        return ConsecutiveLines(first, span_count)
    lines = text.split(b"\n")
    start = _first_span_line(lines)
    if start is None:
        return {}
    mapping: dict[int, int] = {}
    consecutive = True  # ordinal k on the k-th span line, for every k
    for offset in range(span_count):
        raw = lines[start - 1 + offset] if start - 1 + offset < len(lines) else b""
        try:
            ordinal = _line_ordinal(raw)
        except ValueError:
            return {}
        if ordinal is not None:
            mapping[ordinal] = start + offset
        consecutive = consecutive and ordinal == offset
    return ConsecutiveLines(start, span_count) if consecutive and span_count else mapping


def trace_from_document(document: Any, path: str) -> Any:
    """The :class:`~abw.models.trace.Trace` of a parsed document, under every rule a trace
    obeys (schema version, model, at most MAX_TRACE_SPANS spans, ordinals unique): the gate,
    ``fingerprint`` and ``abw validate`` all call this."""
    from pydantic import ValidationError

    from abw.models.trace import Trace

    if not isinstance(document, dict):
        raise AbwInputError("a trace must be a JSON object", file=path)
    require_schema_version(document, TRACE_SCHEMA, file=path)
    spans = document.get("spans")
    if isinstance(spans, list) and len(spans) > MAX_TRACE_SPANS:
        raise AbwInputError(
            f"{len(spans):,} spans, over abw's limit of {MAX_TRACE_SPANS:,} spans per trace; "
            "split the run or import fewer events",
            file=path,
            field="spans",
        )
    try:
        trace = Trace.model_validate(document)
    except ValidationError as exc:
        raise from_validation_error(exc, file=path) from None
    ordinals = [s.ordinal for s in trace.spans]
    if len(set(ordinals)) != len(ordinals):
        raise AbwInputError("span ordinals repeat", file=path, field="spans.ordinal")
    return trace


def parse_trace(raw: bytes, path: str) -> TraceFile:
    """Validate trace bytes; any problem is an :class:`AbwInputError` naming file and field."""
    document = parse_json(
        raw, path, max_objects=MAX_TRACE_OBJECTS, what="the trace", unicode_text=True
    )
    trace = trace_from_document(document, path)
    del document
    return TraceFile(path, trace, sha256_hex(raw), span_lines(raw, len(trace.spans)))


def load_trace(
    path: str | Path, parse: Callable[[bytes, str], TraceFile] = parse_trace
) -> TraceFile:
    """Read one trace file (``parse``: :func:`parse_trace`, or the lean
    :func:`abw.leanrun.parse_lean_trace` that falls back to it)."""
    raw = read_bytes(path, MAX_TRACE_BYTES, "the trace file")
    try:
        return parse(raw, str(path))
    except AbwInputError as exc:  # a raw export where a trace belongs: say how to import it
        exc.message = with_hint(exc.message, path)
        raise


def trace_paths(folder: str | Path) -> list[Path]:
    """:func:`trace_files`, as paths."""
    return [Path(text) for text in trace_files(folder)]


def trace_files(folder: str | Path) -> list[str]:
    """The ``*.json`` trace files under a folder (recursively), in a stable order, named as
    ``str(path)`` names them (or the one file given).

    Hidden files and folders (a name starting with ``.``) are never read: abw's staging folders
    (abw.atomic.staging_folder) and temporaries are hidden, so a killed import or write leaves
    nothing a gate would take for a trace."""
    root = Path(folder)
    if not root.exists():
        raise AbwInputError("no such folder", file=root)
    if root.is_file():
        return [str(root)]
    from abw.folders import walk_files

    texts = walk_files(root, root, "*.json", "trace folder", skip_hidden=True)
    if not texts:
        raise AbwInputError(with_hint("no trace files (*.json) found", root), file=root)
    return texts


def load_traces(folder: str | Path) -> list[TraceFile]:
    """Every trace under a folder (or one file), sorted by path so file order never matters.

    Over many files, a progress bar is drawn on stderr when it is a terminal (abw.progress)."""
    from abw.gcpause import gc_paused
    from abw.progress import track

    paths = trace_paths(folder)
    label = f"loading {Path(folder).name}"
    with gc_paused():
        return [load_trace(p) for p in track(paths, label, quiet=len(paths) < PROGRESS_MIN_FILES)]


PROGRESS_MIN_FILES = 200
