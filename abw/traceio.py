"""Read and write ``agent-behavior-trace/v0`` files.

Traces are written one span per line so that a span can be located by its line: SARIF results
and check-run annotations point there. Any valid JSON trace reads, however it is laid out.
"""

from __future__ import annotations

import json
import json.encoder as _json_encoder
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from abw import semantics
from abw.atomic import write_atomic
from abw.cached import cached_property
from abw.errors import AbwInputError, from_validation_error, require_schema_version
from abw.hashing import sha256_hex
from abw.hints import with_hint
from abw.jsonlocate import element_lines, value_line
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


def repeated_ordinal(ordinals: list[int]) -> int | None:
    """The index of the first span that repeats an earlier span's ordinal, or None."""
    if len(set(ordinals)) == len(ordinals):
        return None
    seen: set[int] = set()
    again = 0
    while ordinals[again] not in seen:
        seen.add(ordinals[again])
        again += 1
    return again


def write_trace(trace: Any, path: str | Path, *, make_folders: bool = True) -> Path:
    """Write a trace atomically in the one-span-per-line layout (``make_folders``: as
    :func:`abw.atomic.write_atomic`); one that no loader would read back — over
    MAX_TRACE_SPANS spans, or repeating a span's ordinal — is refused here already (a library
    caller builds traces by hand)."""
    if len(trace.spans) > MAX_TRACE_SPANS:
        raise AbwInputError(
            f"the run has {len(trace.spans):,} spans, over abw's limit of {MAX_TRACE_SPANS:,} "
            "spans per trace",
            file=path,
            field="spans",
        )
    again = repeated_ordinal([span.ordinal for span in trace.spans])
    if again is not None:
        raise AbwInputError(
            f"span ordinals repeat (ordinal {trace.spans[again].ordinal} again)",
            file=path,
            field=f"spans.{again}.ordinal",
        )
    try:
        data = render_trace(trace).encode("utf-8")
    except UnicodeEncodeError:  # text no file can hold: say where it came from
        raise _lone_surrogate_error(trace) from None
    except ValueError:  # a NaN or an infinity: no JSON number (it was written as null)
        raise _non_finite_error(trace, path) from None
    return write_atomic(path, data, make_folders=make_folders)


def _non_finite_error(trace: Any, path: str | Path) -> AbwInputError:
    """The error for a trace holding a NaN or an infinity, naming its first field so."""

    def where(value: Any, at: str) -> str | None:
        if isinstance(value, float) and not math.isfinite(value):
            return at
        if not isinstance(value, dict | list):
            return None
        items = value.items() if isinstance(value, dict) else enumerate(value)
        return next((hit for key, item in items if (hit := where(item, f"{at}.{key}"))), None)

    found = where(trace.model_dump(mode="python", exclude_none=True), "")
    field = found.lstrip(".") if found else None
    return AbwInputError("a NaN or an infinity is no JSON number", file=path, field=field)


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
        """All spans in ordinal order, sorted once per run (when not already in order, as
        :func:`write_trace` writes them), indexed by name (:class:`abw.semantics.OrderedSpans`)."""
        return semantics.OrderedSpans(semantics.in_order(self.trace.spans))

    def known_in_order(self) -> TraceFile:
        """This run, its spans known to be in ordinal order as they are (its parser saw the
        ordinals 0, 1, 2, ...): :attr:`ordered_spans` takes them as they are, unsorted."""
        self.__dict__["ordered_spans"] = semantics.OrderedSpans(self.trace.spans)
        return self

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
        return semantics.retries(self.ordered_spans, self.error_spans)


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


_SPANS_LINE = b'\n"spans": [\n'
_WRITTEN_END = b"\n]\n}\n"
_RAW_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])  # each element's bytes, unparsed


def _one_span_per_line(text: bytes, span_count: int) -> int | None:
    """The line of the first span when ``text`` holds its ``span_count`` spans one per line as
    :func:`write_trace` writes them, else None: after the first ``"spans": [`` line come
    exactly ``span_count`` lines, then ``]`` and ``}`` end the text, and those lines are the
    array's elements joined by ``",\n"`` (msgspec reads them as raw JSON values, unparsed).

    Then the k-th of those lines is the k-th span. (A line break is never inside a JSON
    string, so ``"spans": [`` there is that key and its array; the lines hold its elements
    with nothing between them but the commas and ``span_count - 1`` line breaks, so no element
    holds a line break, and the ``}`` after them, the text's last, closes the top-level
    object.)"""
    at = text.find(_SPANS_LINE)
    if span_count == 0 or at < 0 or not text.endswith(_WRITTEN_END):
        return None
    first, end = at + len(_SPANS_LINE), len(text) - len(_WRITTEN_END)
    if end <= first or text.count(b"\n", first, end) != span_count - 1:
        return None
    region = text[first:end]
    try:
        elements = _RAW_ELEMENTS.decode(b"[" + region + b"]")
    except msgspec.DecodeError:
        return None
    if len(elements) != span_count or b",\n".join(elements) != region:
        return None
    return text.count(b"\n", 0, at + 1) + 2


def laid_out_lines(first: int, ordinals: Sequence[int]) -> Mapping[int, int]:
    """The span lines of a file shown to hold spans of these ``ordinals`` one per line from
    line ``first`` on, in this order (:func:`_one_span_per_line`,
    :func:`abw.leandecode.written_first_line`)."""
    if list(ordinals) == list(range(len(ordinals))):
        return ConsecutiveLines(first, len(ordinals))
    return {ordinal: first + offset for offset, ordinal in enumerate(ordinals)}


def span_lines(text: bytes, ordinals: Sequence[int]) -> Mapping[int, int]:
    """Map each span's ordinal to the 1-based line on which its object begins (``ordinals``:
    the spans', in the file's order), however the file is laid out: one span per line as
    :func:`write_trace` writes them (:func:`_one_span_per_line`), else as
    :func:`abw.jsonlocate.element_lines` finds them (CR LF line breaks, blanks around the
    commas, pretty-printed JSON, a span over several lines or several spans on one)."""
    if not ordinals:
        return {}
    first = _one_span_per_line(text, len(ordinals))
    if first is not None:
        return laid_out_lines(first, ordinals)
    try:
        lines = element_lines(text.decode("utf-8", "surrogatepass"), "spans")
    except UnicodeDecodeError:
        lines = None
    if lines is None or len(lines) != len(ordinals):
        return {}  # (not a trace the reader accepted: no lines to give)
    if lines == list(range(lines[0], lines[0] + len(lines))):
        return laid_out_lines(lines[0], ordinals)
    return dict(zip(ordinals, lines, strict=True))


def trace_from_document(document: Any, path: str, text: bytes | str | None = None) -> Any:
    """The :class:`~abw.models.trace.Trace` of a parsed document, under every rule a trace
    obeys (schema version, model, at most MAX_TRACE_SPANS spans, ordinals unique): the gate,
    ``fingerprint`` and ``abw validate`` all call this. ``text`` (the JSON the document was
    read from) lets an error name its line."""
    from pydantic import ValidationError

    from abw.models.trace import Trace

    def line_of(location: tuple[str | int, ...]) -> int | None:
        return None if text is None else value_line(text, location)

    if not isinstance(document, dict):
        raise AbwInputError("a trace must be a JSON object", file=path)
    require_schema_version(document, TRACE_SCHEMA, file=path, line_of=line_of)
    spans = document.get("spans")
    if isinstance(spans, list) and len(spans) > MAX_TRACE_SPANS:
        raise AbwInputError(
            f"{len(spans):,} spans, over abw's limit of {MAX_TRACE_SPANS:,} spans per trace; "
            "split the run or import fewer events",
            file=path,
            line=line_of(("spans",)),
            field="spans",
        )
    try:
        trace = Trace.model_validate(document)
    except ValidationError as exc:
        raise from_validation_error(exc, file=path, line_of=line_of, document=document) from None
    ordinals = [s.ordinal for s in trace.spans]
    again = repeated_ordinal(ordinals)
    if again is not None:
        raise AbwInputError(
            f"span ordinals repeat (ordinal {ordinals[again]} again)",
            file=path,
            line=line_of(("spans", again, "ordinal")),
            field=f"spans.{again}.ordinal",
        )
    return trace


def parse_trace(raw: bytes, path: str) -> TraceFile:
    """Validate trace bytes; any problem is an :class:`AbwInputError` naming file and field."""
    document = parse_json(
        raw, path, max_objects=MAX_TRACE_OBJECTS, what="the trace", unicode_text=True
    )
    trace = trace_from_document(document, path, raw)
    del document
    ordinals = [span.ordinal for span in trace.spans]
    return TraceFile(path, trace, sha256_hex(raw), span_lines(raw, ordinals))


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


#: A trace file's name: ``*.json``, in any case (``run.JSON`` is a trace too; left out, a
#: violating run would drop from the count unseen).
TRACE_FILES = "*.[jJ][sS][oO][nN]"


def trace_paths(folder: str | Path) -> list[Path]:
    """:func:`trace_files`, as paths."""
    return [Path(text) for text in trace_files(folder)]


def trace_files(folder: str | Path) -> list[str]:
    """The trace files (:data:`TRACE_FILES`) under a folder (recursively), in a stable order,
    named as ``str(path)`` names them (or the one file given).

    Hidden files and folders (a name starting with ``.``) are never read: abw's staging folders
    (abw.atomic.staging_folder) and temporaries are hidden, so a killed import or write leaves
    nothing a gate would take for a trace."""
    root = Path(folder)
    if not root.exists():
        raise AbwInputError("no such folder", file=root)
    if root.is_file():
        return [str(root)]
    from abw.folders import walk_files

    texts = walk_files(root, root, TRACE_FILES, "trace folder", skip_hidden=True)
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
        quiet = len(paths) < PROGRESS_MIN_FILES
        return list(track(map(load_trace, paths), label, total=len(paths), quiet=quiet))


PROGRESS_MIN_FILES = 200
