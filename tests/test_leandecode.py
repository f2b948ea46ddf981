"""The lean decoder and the model decide alike: whenever abw.leandecode accepts a document, the
exact path (abw.reader.parse_json + the pydantic Trace model, then reduction) accepts it too,
with an equal run, slot by slot; whenever it refuses, the loader gives the exact path's run or
its error. Checked on every example trace, traces imported from the corpus, the fuzz seeds,
the benchmark's generated traces and mutations of all of them (keys dropped, repeated,
renamed, retyped; big integers, floats for integers, extra keys, nulls, wrong enums, escapes,
whitespace), targeted and generated."""

from __future__ import annotations

import copy
import json
import math
import random
import sys

import pytest
from conftest import REPO
from fuzzkit import corpus_traces, minimal_trace_doc, mutate, trace_seeds
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abw.errors import AbwInputError
from abw.leandecode import LeanSpan, decode, key_bound
from abw.leanrun import lean, parse_lean_trace
from abw.models.trace import Trace
from abw.reader import key_token_bound
from abw.traceio import parse_trace, render_trace

PATH = "t.json"


def _exact(raw: bytes):
    try:
        return lean(parse_trace(raw, PATH))
    except AbwInputError as exc:
        return exc


def _model_slots(model) -> tuple:
    return (
        type(model),
        repr(model),
        model.model_dump(mode="python"),
        sorted(model.__pydantic_fields_set__),
        repr(model.model_extra),
    )


def _same_run(got, want) -> None:
    """Every slot of two loaded lean runs equal, types and key order included (repr)."""
    assert (got.path, got.sha256) == (want.path, want.sha256)
    assert type(got.span_lines) is type(want.span_lines)
    assert dict(got.span_lines) == dict(want.span_lines)
    a, b = got.trace, want.trace
    assert a.schema_version == b.schema_version
    for head in ("source", "run", "redaction"):
        assert _model_slots(getattr(a, head)) == _model_slots(getattr(b, head)), head
    assert len(a.spans) == len(b.spans)
    in_order = [(span.ordinal, span.name) for span in got.ordered_spans]
    assert in_order == [(span.ordinal, span.name) for span in want.ordered_spans]
    assert got.ordered_spans.names() == want.ordered_spans.names()
    for x, y in zip(a.spans, b.spans, strict=True):
        for field in LeanSpan.__struct_fields__:
            assert repr(getattr(x, field)) == repr(getattr(y, field)), field
            assert type(getattr(x, field)) is type(getattr(y, field)), field
        for field in ("span_id", "type", "name", "status", "input_hash", "output_hash"):
            value = getattr(x, field)
            assert value is None or value is sys.intern(value), field


def check(raw: bytes) -> bool:
    """The property, for one document; True when the lean decoder accepted it."""
    want = _exact(raw)
    accepted = decode(raw) is not None
    try:
        got = parse_lean_trace(raw, PATH)
    except AbwInputError as exc:
        got = exc
    if accepted:
        assert not isinstance(want, AbwInputError), f"lean accepted what the model refuses: {want}"
    if isinstance(want, AbwInputError):
        assert isinstance(got, AbwInputError)
        assert (got.one_line(), got.line, got.field) == (want.one_line(), want.line, want.field)
    else:
        assert not isinstance(got, AbwInputError), got
        _same_run(got, want)
    return accepted


# ---------------------------------------------------------------- real traces

EXAMPLE_TRACES = sorted((REPO / "examples").rglob("traces/**/*.json"))


def _generated_traces() -> list[tuple[str, bytes]]:
    """Traces as the gate benchmark generates them (benchmarks/gen_inputs.py)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from gen_inputs import _trace_text
    finally:
        sys.path.pop(0)
    rng = random.Random(3)
    tools = ["Read", "Bash", "Edit", "Grep"] * 10
    return [(f"gen-{i}", _trace_text(f"run-{i}", "s", tools, rng).encode()) for i in range(3)]


CORPUS_TRACES = corpus_traces()
GENERATED_TRACES = _generated_traces()
SEEDS = [(p.name, p.read_bytes()) for p in EXAMPLE_TRACES] + CORPUS_TRACES
SEEDS += trace_seeds() + GENERATED_TRACES


@pytest.mark.parametrize("name,raw", SEEDS, ids=[n for n, _ in SEEDS])
def test_seed_traces_decide_alike(name: str, raw: bytes) -> None:
    check(raw)


def test_written_traces_take_the_lean_path() -> None:
    """The decoder is not vacuous: every example trace, every trace imported from the corpus
    and every generated one is decoded."""
    written = SEEDS[: len(EXAMPLE_TRACES)] + CORPUS_TRACES + GENERATED_TRACES
    assert CORPUS_TRACES and [n for n, raw in written if decode(raw) is None] == []


def test_the_key_bound_is_the_reader_bound_on_json_whitespace() -> None:
    for _, raw in SEEDS:
        assert key_bound(raw) <= key_token_bound(raw)
    # four keys, and a quote-colon inside a string: counted too (an upper bound, never less)
    assert key_bound(b'{"a" :1, "b"\n\t:\r {"c":2}, "d": "x\\" :"}') == 5
    assert key_token_bound(b'{"a" \x0b:1}') == 1 and key_bound(b'{"a" \x0b:1}') == 0


# ---------------------------------------------------------------- targeted mutations


def _doc() -> dict:
    doc = minimal_trace_doc(4)
    doc["spans"][1].update(
        {
            "attributes": {"arguments": {"order_id": "A-1", "n": [1, 2.5, {"k": None}]}, "x": 1},
            "duration_ms": 12.5,
            "started_at": "2026-01-01T00:00:00Z",
            "outcome": "ok",
            "parent_span_id": "s0",
            "output_hash": "f" * 64,
            "source_ref": {"file": "a.jsonl", "line": 3},
        }
    )
    doc["run"]["canonical_output"] = {"decision": "approved", "amount": 10}
    return doc


def _written(doc: dict) -> bytes:
    return render_trace(Trace.model_validate(doc)).encode()


def _dumps(doc: dict) -> bytes:
    return json.dumps(doc).encode()


def _span(change):
    def apply(doc):
        change(doc["spans"][1])
        return _dumps(doc)

    return apply


def _set(**values):
    return _span(lambda s: s.update(values))


def _drop(key):
    return _span(lambda s: s.pop(key))


def _text(old: str, new: str):
    def apply(doc):
        raw = _written(doc).decode()
        assert old in raw, old
        return raw.replace(old, new, 1).encode()

    return apply


TARGETED = {
    # layouts the lean path must take, and take correctly
    "written": _written,
    "compact": lambda d: json.dumps(d, separators=(",", ":")).encode(),
    "pretty": lambda d: json.dumps(d, indent=2).encode(),
    "spaced colons": _text('"ordinal": 1,', '"ordinal" \n\t: 1,'),
    "escaped key": _text('"name": "check', '"\\u006eame": "check'),
    "escaped value": _text('"name": "check_fraud_policy"', '"name": "check\\u005ffraud_policy"'),
    "int duration": _set(duration_ms=12),
    "zero duration": _set(duration_ms=0),
    "negative zero duration": _text('"duration_ms": 12.5', '"duration_ms": -0.0'),
    "exponent duration": _text('"duration_ms": 12.5', '"duration_ms": 1.25E1'),
    "big ordinal": _set(ordinal=2**70),
    "spans out of order": lambda d: _dumps({**d, "spans": d["spans"][::-1]}),
    "no redaction": lambda d: _dumps({k: v for k, v in d.items() if k != "redaction"}),
    "deep arguments": _set(attributes={"arguments": json.loads("[" * 60 + "]" * 60)}),
    "null arguments": _set(attributes={"arguments": None, "y": 2}),
    "no attributes": _drop("attributes"),
    # what the model accepts differently, refuses, or the decoder cannot prove
    "duplicate span key": _text('"ordinal": 1,', '"ordinal": 1, "ordinal": 2,'),
    "duplicate same value": _text('"ordinal": 1,', '"ordinal": 1, "ordinal": 1,'),
    "duplicate argument key": _text('"order_id": "A-1"', '"order_id": "A-1", "order_id": "B"'),
    "duplicate run key": _text('"scenario_id": "s1"', '"scenario_id": "s1", "scenario_id": "s2"'),
    "duplicate top key": _text('"spans": [', '"spans": [], "spans": ['),
    "duplicate source_ref key": _text('"line": 3', '"line": 3, "line": 4'),
    "unknown span key": _set(extra_field=1),
    "unknown source_ref key": _set(source_ref={"file": "a", "line": 2, "col": 1}),
    "unknown top key": lambda d: _dumps({**d, "zzz": {"a": 1}}),
    "unknown run key": lambda d: _dumps({**d, "run": {**d["run"], "branch": "main"}}),
    "null input_hash": _set(input_hash=None),
    "null attributes": _set(attributes=None),
    "null spans": lambda d: _dumps({**d, "spans": None}),
    "null redaction": lambda d: _dumps({**d, "redaction": None}),
    "null source_ref": _set(source_ref=None),
    "null ordinal": _set(ordinal=None),
    "no spans": lambda d: _dumps({k: v for k, v in d.items() if k != "spans"}),
    "float ordinal": _set(ordinal=1.0),
    "string ordinal": _set(ordinal="1"),
    "bool ordinal": _set(ordinal=True),
    "negative ordinal": _set(ordinal=-1),
    "repeated ordinal": _set(ordinal=0),
    "huge int duration": _set(duration_ms=2**53 + 1),
    "2**53 duration": _set(duration_ms=2**53),
    "negative duration": _set(duration_ms=-1),
    "string duration": _set(duration_ms="12.5"),
    "bool duration": _set(duration_ms=True),
    "infinite duration": _text('"duration_ms": 12.5', '"duration_ms": 1e400'),
    "NaN duration": _text('"duration_ms": 12.5', '"duration_ms": NaN'),
    "wrong type enum": _set(type="Tool"),
    "wrong status enum": _set(status="ok"),
    "wrong outcome enum": _set(outcome="success"),
    "int name": _set(name=7),
    "list span_id": _set(span_id=["s1"]),
    "source_ref line 0": _set(source_ref={"file": "a", "line": 0}),
    "source_ref line float": _set(source_ref={"file": "a", "line": 2.0}),
    "attributes a list": _set(attributes=[1]),
    "too deep arguments": _set(attributes={"arguments": json.loads("[" * 200 + "]" * 200)}),
    "very deep arguments": _text('"n": [', '"n": ' + "[" * 5000 + "]" * 5000 + ', "m": ['),
    "integer of 4301 digits": _text('"amount": 10', '"amount": 1' + "0" * 4300),
    "integer of 4300 digits": _text('"amount": 10', '"amount": 1' + "0" * 4299),
    "lone surrogate": _set(name="\ud800"),
    "control character": _text('"check_fraud_policy"', '"check\x01fraud"'),
    "byte-order mark": lambda d: b"\xef\xbb\xbf" + _written(d),
    "trailing comma": _text('"ordinal": 1,', '"ordinal": 1,,'),
    "trailing data": lambda d: _written(d) + b"{}",
    "wrong schema_version": lambda d: _dumps({**d, "schema_version": "agent-behavior-trace/v1"}),
    "no schema_version": lambda d: _dumps({k: v for k, v in d.items() if k != "schema_version"}),
    "not an object": lambda d: _dumps([d]),
    "source without platform": lambda d: _dumps({**d, "source": {"export_format": "x"}}),
    "run with a wrong final_status": lambda d: _dumps(
        {**d, "run": {**d["run"], "final_status": 0}}
    ),
    "redaction applied a string": lambda d: _dumps({**d, "redaction": {"applied": "yes"}}),
    "quote-colon in a string": _set(name='a": "b'),
}


@pytest.mark.parametrize("name", list(TARGETED))
def test_targeted_mutations_decide_alike(name: str) -> None:
    raw = TARGETED[name](_doc())
    accepted = check(raw)
    if name in list(TARGETED)[: list(TARGETED).index("duplicate span key")]:
        assert accepted, "the lean path should take this one"


def test_invalid_utf8_bytes_decide_alike() -> None:
    raw = _written(_doc()).replace(b"check_fraud_policy", b"check\xff\xfefraud", 1)
    assert not check(raw)


# ---------------------------------------------------------------- generated mutations

_ODD_VALUES = [
    None, True, False, 0, -1, 1.0, -0.0, 2**53, 2**53 + 1, 2**64, -(2**63) - 1, 10**30, 1e300,
    "", "x", "llm", "tool", "success", "ok", "\u00e9", [], {}, [None], {"arguments": 1},
    {"a": {"b": [1, {"c": 2}]}},
]  # fmt: skip


def _odd(rng: random.Random) -> object:
    """One of :data:`_ODD_VALUES`, a fresh copy: a shared list or dict that later mutations
    changed in place could come to hold itself (a cycle no JSON encoder writes)."""
    return copy.deepcopy(rng.choice(_ODD_VALUES))


def _mutate_doc(doc: object, rng: random.Random, depth: int = 0) -> object:
    """One JSON-aware change at a random node: retype, drop, rename, add, repeat a key."""
    if isinstance(doc, dict) and doc and (depth == 0 or rng.random() < 0.7):
        key = rng.choice(list(doc))
        roll = rng.random()
        if roll < 0.2:
            doc[key] = _odd(rng)
        elif roll < 0.3:
            del doc[key]
        elif roll < 0.4:
            doc[key + rng.choice(["_", "s", ""])] = doc.pop(key)
        elif roll < 0.5:
            doc[rng.choice(["extra", "input_hash", "outcome", "arguments"])] = _odd(rng)
        else:
            doc[key] = _mutate_doc(doc[key], rng, depth + 1)
        return doc
    if isinstance(doc, list) and doc:
        index = rng.randrange(len(doc))
        roll = rng.random()
        if roll < 0.15:
            doc.append(doc[index])
        elif roll < 0.25:
            del doc[index]
        elif roll < 0.35:
            doc[index] = _odd(rng)
        else:
            doc[index] = _mutate_doc(doc[index], rng, depth + 1)
        return doc
    if isinstance(doc, int) and not isinstance(doc, bool) and rng.random() < 0.5:
        return rng.choice([float(doc), -doc, doc + 2**64, str(doc)])
    if isinstance(doc, float) and math.isfinite(doc) and rng.random() < 0.5:
        return rng.choice([int(doc), -doc, doc * 1e300, repr(doc)])
    return _odd(rng) if rng.random() < 0.5 else doc


def _render(doc: object, rng: random.Random) -> bytes:
    """The document in a random layout: written, compact, indented, odd whitespace, a repeated
    key inserted as text."""
    roll = rng.random()
    if roll < 0.4 and isinstance(doc, dict):
        try:
            return _written(doc)
        except ValueError:  # the model refuses it (pydantic's error is one): another layout
            pass
    if roll < 0.6:
        text = json.dumps(doc, separators=(",", ":"))
    elif roll < 0.8:
        text = json.dumps(doc, indent=rng.choice([1, 2, "\t"]))
    else:
        text = json.dumps(doc).replace('": ', rng.choice(['" : ', '"\n:', '":\t', '":']))
    data = text.encode()
    if rng.random() < 0.15:  # a key repeated: same or another value
        marks = [i for i in range(len(data)) if data.startswith(b'", "', i)]
        if marks:
            at = rng.choice(marks) + 3
            end = data.find(b", ", at)
            if end > 0:
                data = data[:end] + b", " + data[at:end] + data[end:]
    return data


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(range(len(SEEDS))), st.integers(0, 2**32 - 1), st.integers(1, 3))
def test_generated_mutations_decide_alike(index: int, seed: int, rounds: int) -> None:
    rng = random.Random(seed)
    raw = SEEDS[index][1]
    try:
        doc = json.loads(raw)
    except ValueError:
        doc = None
    if doc is None or rng.random() < 0.2:  # byte-level and fuzz mutations
        for _ in range(rounds):
            raw = mutate(raw, rng)
        check(raw)
        return
    for _ in range(rounds):
        doc = _mutate_doc(doc, rng)
    check(_render(doc, rng))


def test_the_mirror_has_the_models_fields() -> None:
    from abw.leandecode import SourceRefStruct, TraceStruct
    from abw.models.trace import SourceRef, Span

    assert LeanSpan.__struct_fields__ == tuple(Span.model_fields)
    assert SourceRefStruct.__struct_fields__ == tuple(SourceRef.model_fields)
    assert set(TraceStruct.__struct_fields__) == set(Trace.model_fields)


def test_the_limits_decide_alike() -> None:
    """Over MAX_TRACE_OBJECTS objects, or over MAX_TRACE_SPANS spans: the exact path's refusal."""
    from abw.limits import MAX_TRACE_OBJECTS, MAX_TRACE_SPANS

    doc = _doc()
    doc["spans"][1]["attributes"] = {"arguments": [{}] * MAX_TRACE_OBJECTS}
    assert not check(_dumps(doc))
    doc = minimal_trace_doc(1)
    span = doc["spans"][0]
    doc["spans"] = [{**span, "ordinal": i, "span_id": f"s{i}"} for i in range(MAX_TRACE_SPANS + 1)]
    assert not check(_dumps(doc))


NUMBER_TEXT = st.one_of(
    st.floats(min_value=0, allow_nan=False, allow_infinity=False).map(repr),
    st.integers(0, 2**64).map(str),
    st.from_regex(r"\A(0|[1-9][0-9]{0,24})(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,3})?\Z"),
)


@settings(max_examples=500, deadline=None)
@given(NUMBER_TEXT)
def test_durations_decode_to_the_standard_librarys_value(text: str) -> None:
    """msgspec's reading of a number is the reader's, bit for bit, wherever it accepts it."""
    raw = _text('"duration_ms": 12.5', f'"duration_ms": {text}')(_doc())
    decoded = decode(raw)
    if decoded is not None:
        assert repr(decoded.spans[1].duration_ms) == repr(float(json.loads(text)))
    check(raw)


def test_written_traces_are_proven_by_their_own_encoding() -> None:
    """The cheap proof holds for every file as write_trace writes it (else the gate would
    take the slower key count for each, silently)."""
    from abw.leandecode import _DECODER, is_own_encoding, squeezed

    written = SEEDS[: len(EXAMPLE_TRACES)] + CORPUS_TRACES + GENERATED_TRACES
    assert [
        n for n, raw in written if not is_own_encoding(squeezed(raw), _DECODER.decode(raw))
    ] == []


@pytest.mark.parametrize(
    "old,new",
    [
        ('"name": ', '"name": "x", "name": '),  # a repeated span key (msgspec keeps the last)
        ('"status": ', '"unknown_key": 1, "status": '),  # a key the struct drops
        ('"status": ', '"outcome": null, "status": '),  # an explicit null
        ('"trace_id": ', '"trace_id": "other", "trace_id": '),  # repeated in a head mapping
        ('"spans": [', '"redaction": {"applied": false}, "spans": ['),  # a repeated top key
    ],
)
def test_a_written_file_with_a_hidden_defect_is_not_its_own_encoding(old: str, new: str) -> None:
    from abw.leandecode import _DECODER, is_own_encoding, squeezed, written_first_line

    raw = render_trace(Trace.model_validate(minimal_trace_doc())).encode()
    assert old.encode() in raw
    damaged = raw.replace(old.encode(), new.encode(), 1)
    assert not is_own_encoding(squeezed(damaged), _DECODER.decode(damaged))
    assert written_first_line(damaged, _DECODER.decode(damaged)) is None
    check(damaged)


def test_written_traces_are_laid_out_as_written() -> None:
    """Every file as write_trace writes it takes the layout proof, which gives its span lines
    without reading them again (else the gate would scan every line, silently)."""
    from abw.leandecode import _DECODER, written_first_line

    written = SEEDS[: len(EXAMPLE_TRACES)] + CORPUS_TRACES + GENERATED_TRACES
    assert [n for n, raw in written if written_first_line(raw, _DECODER.decode(raw)) is None] == []
    assert {decode(raw).first_span_line for _, raw in written} == {7}  # type: ignore[union-attr]


def _written_lines() -> list[bytes]:
    doc = minimal_trace_doc()
    doc["spans"] = [dict(doc["spans"][0], ordinal=i, span_id=f"s{i}") for i in range(4)]
    return render_trace(Trace.model_validate(doc)).encode().split(b"\n")


@pytest.mark.parametrize(
    "edit",
    [
        lambda lines: [*lines[:6], lines[6] + lines[7], *lines[8:]],  # two spans on one line
        lambda lines: [*lines[:6], lines[6].replace(b", ", b",\n", 1), *lines[7:]],  # one on two
        lambda lines: [*lines[:2], lines[2] + lines[3], *lines[4:]],  # two head fields on one
        lambda lines: [*lines[:6], b"", *lines[6:]],  # an empty line before the spans
        lambda lines: [lines[0] + lines[1], *lines[2:]],  # the first head field after "{"
        lambda lines: [*lines[:-1], b"", b""],  # a second line break at the end
    ],
)
def test_a_moved_line_break_is_not_the_written_layout(edit) -> None:
    """A line break where write_trace puts none, or none where it puts one, fails the layout
    proof; the span lines are then read line by line, as the exact path reads them."""
    from abw.leandecode import _DECODER, written_first_line

    raw = b"\n".join(edit(_written_lines()))
    decoded = _DECODER.decode(raw) if decode(raw) is not None else None
    assert decoded is None or written_first_line(raw, decoded) is None
    check(raw)


@pytest.mark.parametrize(
    "edit",
    [
        lambda lines: [*lines[:6], b" " + lines[6], *lines[7:]],  # a space before a span line
        lambda lines: [*lines[:9], lines[9] + b"\r", *lines[10:]],  # CR LF after the last span
        lambda lines: [*lines[:6], lines[6].replace(b", ", b" , ", 1), *lines[7:]],  # spaces
        lambda lines: [*lines[:6], lines[6] + b" ", *lines[7:]],  # a space after a comma
        lambda lines: [*lines[:6], lines[6] + b"\t", *lines[7:]],  # a tab after a comma
        lambda lines: [*lines[:6], lines[6] + b"\r", *lines[7:]],  # CR LF after a comma
        lambda lines: [*lines[:5], b'"spans":[', *lines[6:]],  # the spans line compact
        lambda lines: [*lines[:5], b'"spans": [ ', *lines[6:]],  # ... or with a space after
    ],
)
def test_blanks_around_a_line_or_its_comma_keep_the_layout(edit) -> None:
    """Blanks around a line's text or its comma: the layout holds, and the exact path gives
    the same span lines (checked)."""
    from abw.leandecode import _DECODER, written_first_line

    raw = b"\n".join(edit(_written_lines()))
    assert written_first_line(raw, _DECODER.decode(raw)) == 7
    check(raw)


WRITTEN = b"\n".join(_written_lines())
# anywhere, and more often next to a line break, where the layout proof has the most to lose
_AT_LINE_ENDS = [i + d for i, c in enumerate(WRITTEN) if c == ord("\n") for d in (-1, 0, 1)]
_PLACES = st.integers(0, len(WRITTEN)) | st.sampled_from(_AT_LINE_ENDS)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(_PLACES, st.sampled_from([b" ", b"\t", b"\r", b"\n", b"\r\n"])),
        min_size=1,
        max_size=4,
    )
)
def test_whitespace_anywhere_in_a_written_file_decides_alike(insertions) -> None:
    """JSON whitespace put anywhere into a written file (inside strings too): the lean decode,
    its layout proof and its span lines agree with the exact path's, whatever the file now is."""
    raw = WRITTEN
    for at, blank in sorted(insertions, reverse=True):
        raw = raw[:at] + blank + raw[at:]
    check(raw)


def test_spans_out_of_order_keep_the_layout_and_their_lines() -> None:
    """Spans in the written layout but not in ordinal order: the lines follow the file."""
    lines = _written_lines()
    lines[6:8] = lines[7], lines[6]
    raw = b"\n".join(lines)
    decoded = decode(raw)
    assert decoded is not None and decoded.first_span_line == 7
    assert [span.ordinal for span in decoded.spans] == [1, 0, 2, 3]
    assert dict(parse_lean_trace(raw, PATH).span_lines) == {1: 7, 0: 8, 2: 9, 3: 10}
    check(raw)
