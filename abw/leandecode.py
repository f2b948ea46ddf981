"""The gate's fast trace decoder: msgspec structs decoded straight from the file's bytes.

It decides nothing on its own. :func:`decode` returns a decoded trace only when it can show
that the exact path (:func:`abw.reader.parse_json`, then :func:`abw.traceio.trace_from_document`
with the pydantic :class:`~abw.models.trace.Trace` model, the single source of the schema)
accepts the same bytes with the same values; in every other case it returns ``None`` and the
caller takes the exact path, which gives today's error message or today's run. So the messages
are the exact path's by construction, and what has to hold is: *whenever this decoder accepts,
the model accepts, with equal values* (``tests/test_leandecode.py`` checks it on the example,
corpus and fuzz traces and on generated mutations of them).

How each rule of the exact path is kept:

- **duplicate keys** (msgspec keeps the last), unknown keys (which msgspec drops and the model
  would keep) and explicit ``null`` values: a file as :func:`abw.traceio.write_trace` writes it is,
  with JSON's whitespace deleted, the decoder's own encoding of what it decoded
  (:func:`is_own_encoding`, all in C), which proves none of them is there; with the line
  breaks kept, it is that encoding laid out a head field and a span a line
  (:func:`written_first_line`), which proves the same and gives the span lines. Any other file:
  the keys the decode holds — every struct field that is not ``None`` plus every key of the
  decoded mappings, walked — must number exactly :func:`key_bound`, an upper bound on the key
  tokens of the text. Otherwise: the exact path. So the mirror may give optional fields a
  ``None`` default whatever the model's default: a ``null`` the model would refuse never
  counts.
- **types**: ``strict=True`` (no coercions; the model's lax coercions, such as ``"3"`` for an
  int, are the exact path's to make); enums are the model's own ``Literal`` types; ``ge`` bounds
  are the model's; a float field is accepted only below 2**53, where an int converts exactly
  (msgspec's conversion of an int then equals the model's ``float()``).
- **numbers and text**: msgspec refuses NaN, Infinity, numbers beyond a double, integers over
  4,300 digits, lone surrogates, invalid UTF-8, control characters and a byte-order mark, as the
  reader does; integers stay exact.
- **limits**: at most MAX_TRACE_SPANS spans; at most MAX_TRACE_OBJECTS ``{`` in the text (an
  upper bound on its objects; counted only in a text long enough to hold more); mappings and
  lists nested at most :data:`MAX_WALK_DEPTH` deep (far inside the standard library's
  recursion limit); ``schema_version`` exactly ``agent-behavior-trace/v0``; ordinals unique.
- **head fields** (``source``, ``run``, ``redaction``, a handful per file) are validated by the
  model's own sub-models, so the gate gets the same pydantic objects as from the exact path.
"""

from __future__ import annotations

import sys
from itertools import repeat
from typing import Annotated, Any, NamedTuple

import msgspec
from msgspec import Meta, Struct
from msgspec.structs import astuple
from pydantic import TypeAdapter, ValidationError

from abw.limits import MAX_TRACE_OBJECTS, MAX_TRACE_SPANS
from abw.models import TRACE_SCHEMA
from abw.models.trace import Redaction, Run, Source, SpanOutcome, SpanStatus, SpanType

MAX_WALK_DEPTH = 64  # nesting of decoded mappings and lists accepted here (deeper: exact path)
_EXACT_FLOAT_INT = float(1 << 53)  # ints below it convert to float exactly
_ARGUMENTS = "arguments"
NO_ATTRIBUTES: dict[str, Any] = {}  # shared by every lean span without extracted arguments


class SourceRefStruct(Struct, gc=False, omit_defaults=True):
    """:class:`abw.models.trace.SourceRef`'s fields (validated, then dropped by the gate)."""

    file: str | None = None
    line: Annotated[int, Meta(ge=1)] | None = None


class LeanSpan(Struct, gc=False, eq=False, omit_defaults=True):
    """One span as the gate reads it: :class:`abw.models.trace.Span`'s fields, decoded (each
    ``None`` when absent); once loaded as a held run (:func:`lean_forms`; a streamed candidate
    run keeps its spans as decoded), ``attributes`` holds only the extracted ``arguments``
    (one shared empty mapping when there are none), ``source_ref`` is None and the id, names
    and hashes are interned: runs of one scenario repeat them (span-0000, the same tool inputs
    and outputs), and a repeated 64-character hash costs 113 bytes, an interned one a pointer
    (a distinct one costs about 36 bytes more in the interning table). Compared and hashed by
    identity, as a plain object."""

    span_id: str
    ordinal: Annotated[int, Meta(ge=0)]
    type: SpanType
    name: str
    status: SpanStatus
    input_hash: str | None = None
    output_hash: str | None = None
    attributes: dict[str, Any] | None = None
    parent_span_id: str | None = None
    outcome: SpanOutcome | None = None
    started_at: str | None = None
    duration_ms: Annotated[float, Meta(ge=0, lt=_EXACT_FLOAT_INT)] | None = None
    source_ref: SourceRefStruct | None = None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # names interned again on unpickling
        return _restore, astuple(self)

    def __repr__(self) -> str:
        return f"LeanSpan({self.ordinal}, {self.type}, {self.name!r}, {self.status})"


def _restore(*values: Any) -> LeanSpan:
    return copied_lean_form(LeanSpan(*values))


def copied_lean_form(span: LeanSpan) -> LeanSpan:
    """The lean form (:func:`lean_forms`) of a span built from values this decoder did not
    decode (a validated model's, unpickled ones): its type and status interned too."""
    span.type, span.status = sys.intern(span.type), sys.intern(span.status)  # type: ignore[assignment]
    lean_forms([span])
    return span


def lean_forms(spans: list[LeanSpan]) -> None:
    """Each span in its lean form, in place: its id, name and hashes interned (its type and
    status, decoded as the one object of their ``Literal``, already are), ``attributes``
    reduced to the extracted ``arguments`` alone, when not None (else the one shared empty
    mapping), ``source_ref`` dropped. (One loop, not a call per span.)"""
    intern = sys.intern
    for span in spans:
        span.span_id, span.name = intern(span.span_id), intern(span.name)
        if span.input_hash is not None:
            span.input_hash = intern(span.input_hash)
        if span.output_hash is not None:
            span.output_hash = intern(span.output_hash)
        attributes = span.attributes
        arguments = attributes.get(_ARGUMENTS) if attributes else None
        span.attributes = NO_ATTRIBUTES if arguments is None else {_ARGUMENTS: arguments}
        span.source_ref = None


class TraceStruct(Struct, gc=False, omit_defaults=True):
    """:class:`abw.models.trace.Trace`'s top level; the head fields as plain mappings (in the
    order :func:`abw.traceio.write_trace` writes them)."""

    schema_version: str
    source: dict[str, Any]
    run: dict[str, Any]
    redaction: dict[str, Any] | None = None
    spans: list[LeanSpan] | None = None


_DECODER = msgspec.json.Decoder(TraceStruct, strict=True)
# the head fields by the model's own sub-models, in one call (an absent redaction: its defaults)
_HEAD = TypeAdapter(tuple[Source, Run, Redaction])
_ENCODER = msgspec.json.Encoder()
_SPAN_FIELDS = len(LeanSpan.__struct_fields__)
_REF_FIELDS = len(SourceRefStruct.__struct_fields__)
_TRACE_FIELDS = len(TraceStruct.__struct_fields__)
_CONTAINERS = (dict, list)
_JSON_WHITESPACE = b" \t\n\r"
_OBJECTS_BYTES = 2 * MAX_TRACE_OBJECTS
_SPACES = b" \t\r"  # JSON's whitespace but the line break
# write_trace's layout, its whitespace but the line breaks deleted (written_first_line): a
# line per head field, in TraceStruct's order, then the spans
_HEAD_FIELDS = [(name, b'"%s":' % name.encode()) for name in TraceStruct.__struct_fields__[:-1]]
_SPANS_LINE, _WRITTEN_END = b',\n"spans":[\n', b"\n]\n}\n"


class _Unproven(Exception):
    """Raised inside the screens: this document goes to the exact path."""


def key_bound(raw: bytes) -> int:
    """An upper bound on the keys written in the JSON text ``raw``: with JSON's whitespace
    deleted, every key's closing quote and its colon become one ``":`` of their own (what
    :func:`abw.reader.key_token_bound` counts, less the non-JSON whitespace it also allows),
    in two passes of C (:func:`squeezed`, then a count)."""
    return squeezed(raw).count(b'":')


def _keys(value: Any, depth: int = 0) -> int:
    """The keys of every mapping in a decoded value (lists and mappings walked)."""
    if depth > MAX_WALK_DEPTH:
        raise _Unproven
    if type(value) is dict:
        count = len(value)
        values = value.values()
    else:
        count = 0
        values = value
    for item in values:
        if type(item) in _CONTAINERS:
            count += _keys(item, depth + 1)
    return count


def _span_keys(spans: list[LeanSpan]) -> int:
    """The keys the decode holds in the spans (struct fields that are not None, and every key
    of their decoded mappings, walked)."""
    count = len(spans) * _SPAN_FIELDS - sum(map(tuple.count, map(astuple, spans), repeat(None)))
    for span in spans:
        if span.attributes:
            count += _keys(span.attributes, 1)
        if span.source_ref is not None:
            count += _REF_FIELDS - astuple(span.source_ref).count(None)
    return count


def _nesting_bounded(spans: list[LeanSpan]) -> None:
    """Raise :class:`_Unproven` when some span's attributes nest over MAX_WALK_DEPTH deep."""
    for attributes in [held for span in spans if (held := span.attributes)]:
        _keys(attributes, 1)


def _nesting_bounded_everywhere(trace: TraceStruct) -> None:
    """Raise :class:`_Unproven` when some head mapping or span attributes nest over
    MAX_WALK_DEPTH deep."""
    for head in (trace.source, trace.run, trace.redaction or {}):
        _keys(head)
    _nesting_bounded(trace.spans or [])


def _proven_keys(raw: bytes, trace: TraceStruct) -> bool:
    """Whether the decode holds every key written in ``raw``, once (no repeated key, no key
    the structs drop, no explicit ``null``), and nests within MAX_WALK_DEPTH: by
    :func:`is_own_encoding` (files as :func:`abw.traceio.write_trace` writes them), else by
    the key count: the keys the decode holds must number exactly :func:`key_bound`, an upper
    bound on the keys written."""
    text = squeezed(raw)
    if is_own_encoding(text, trace):
        _nesting_bounded_everywhere(trace)
        return True
    count = _TRACE_FIELDS - astuple(trace).count(None)
    count += _keys(trace.source) + _keys(trace.run)
    if trace.redaction is not None:
        count += _keys(trace.redaction)
    count += _span_keys(trace.spans or [])
    return count == text.count(b'":')


def squeezed(raw: bytes) -> bytes:
    """``raw`` with JSON's whitespace deleted (inside strings too)."""
    return raw.translate(None, _JSON_WHITESPACE)


def is_own_encoding(text: bytes, trace: TraceStruct) -> bool:
    """Whether ``text`` (:func:`squeezed`) is the decoder's own encoding of what it decoded,
    squeezed: then the decode holds every key of the text, once. Deleting whitespace keeps a
    JSON text's structure (it touches no quote and no escape), so equal texts have the same
    objects with the same members; the encoding writes each decoded key once and omits every
    None, so a repeated, dropped or null member would have made the text longer."""
    encoded = _ENCODER.encode(trace)
    return text == encoded or text == squeezed(encoded)


def written_first_line(raw: bytes, trace: TraceStruct) -> int | None:
    """The line of the first span when ``raw`` is laid out as :func:`abw.traceio.write_trace`
    lays out what was decoded, else None (then :func:`is_own_encoding` may still hold).

    Laid out means: with JSON's whitespace but its line breaks deleted, ``raw`` is the
    decoder's own encoding of the head fields, one per line, then of each span on a line of
    its own. With the line breaks deleted too that is the whole trace's own encoding, so this
    proves what :func:`is_own_encoding` proves; and, as the line breaks stayed where they
    were, the k-th span decoded is on the k-th span line: the lines
    :func:`abw.traceio.span_lines` gives (the lines the spans' objects begin on), from one
    comparison in C."""
    spans = trace.spans
    if not spans or not raw.endswith(_WRITTEN_END):
        return None
    encode = _ENCODER.encode
    head = [
        key + encode(value)
        for name, key in _HEAD_FIELDS
        if (value := getattr(trace, name)) is not None
    ]
    # the spans' encodings joined by ",\n": one encoding a line (a JSON text holds no raw line
    # break), the line breaks between them given their commas (one call, not one per span)
    span_text = _ENCODER.encode_lines(spans)[:-1].replace(b"\n", b",\n")
    parts = [b"{\n", b",\n".join(head), _SPANS_LINE, span_text, _WRITTEN_END]
    expected = b"".join(parts)
    text = raw.translate(None, _SPACES)
    if text != expected and text != expected.translate(None, _SPACES):
        return None
    return len(head) + 3  # "{", a line per head field, '"spans": [', then the spans


def _ordinals(spans: list[LeanSpan]) -> tuple[list[int], bool] | None:
    """The spans' ordinals in file order, and whether they are 0, 1, 2, ... (the spans are then
    in ordinal order, as written); None when some ordinal repeats."""
    ordinals = [span.ordinal for span in spans]
    if ordinals == list(range(len(ordinals))):
        return ordinals, True
    return (ordinals, False) if len(set(ordinals)) == len(ordinals) else None


class Decoded(NamedTuple):
    """An accepted trace: its head as the model's own objects, its spans in their lean form,
    their ordinals in file order (``consecutive``: 0, 1, 2, ..., so the spans are in ordinal
    order), and the line of its first span when it is laid out as written
    (:func:`written_first_line`; None: not shown)."""

    source: Source
    run: Run
    redaction: Redaction
    spans: list[LeanSpan]
    ordinals: list[int]
    consecutive: bool
    first_span_line: int | None = None


def decode(raw: bytes, *, held: bool = True) -> Decoded | None:
    """The trace in ``raw`` when the exact path provably accepts it with these values; None
    when that is not shown (the caller then takes the exact path). ``held``: the run is kept
    (a baseline run): its spans in their :func:`lean_forms`; a run read once and dropped keeps
    the spans as decoded (what the gate reads of them is the same)."""
    if len(raw) > _OBJECTS_BYTES and raw.count(b"{") > MAX_TRACE_OBJECTS:
        return None  # (a shorter text cannot hold more objects: each takes two bytes, "{}")
    try:
        trace = _DECODER.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None
    spans = trace.spans
    if (
        trace.schema_version != TRACE_SCHEMA
        or spans is None
        or len(spans) > MAX_TRACE_SPANS
        or (ordinals := _ordinals(spans)) is None
    ):
        return None
    first_line = written_first_line(raw, trace)
    try:
        if first_line is not None:
            _nesting_bounded_everywhere(trace)
        elif not _proven_keys(raw, trace):
            return None
    except _Unproven:
        return None
    if held:
        lean_forms(spans)
    given = trace.redaction  # None: absent (an explicit null failed the key count)
    try:
        source, run, redaction = _HEAD.validate_python(
            (trace.source, trace.run, {} if given is None else given)
        )
    except ValidationError:
        return None
    return Decoded(source, run, redaction, spans, *ordinals, first_line)
