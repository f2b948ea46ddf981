"""abw.traceio: loaded spans share one read-only pydantic fields_set per key set."""

from __future__ import annotations

import copy

import pytest

from abw.traceio import load_traces, render_trace
from tests.conftest import REPO

EXAMPLE = REPO / "examples" / "refund-policy"
TRACES = EXAMPLE / "traces" / "baseline"


def test_loaded_spans_share_fields_sets_and_still_dump_unset_fields_exactly():
    runs = load_traces(TRACES)
    spans = [s for tf in runs for s in tf.trace.spans]
    refs = [s.source_ref for s in spans if s.source_ref is not None]
    assert refs, "the example's spans carry source_ref"
    assert len({id(s.__pydantic_fields_set__) for s in spans}) < len(spans) / 10
    assert len({id(r.__pydantic_fields_set__) for r in refs}) < len(refs) / 10
    for tf in runs:  # the file's own keys, nothing more: exclude_unset dumps are unchanged
        text = (TRACES / tf.path.rsplit("/", 1)[-1]).read_text()
        assert render_trace(tf.trace) == text
        for span in tf.trace.spans:
            assert set(span.model_dump(exclude_unset=True)) == span.__pydantic_fields_set__


def test_assigning_to_a_loaded_span_raises_but_model_copy_works():
    runs = load_traces(TRACES)
    span, other = runs[0].trace.spans[1], runs[1].trace.spans[1]
    before = set(other.__pydantic_fields_set__)
    moved = span.model_copy(update={"ordinal": 99})
    assert moved.ordinal == 99 and span.ordinal == 1
    assert copy.deepcopy(span) == span
    with pytest.raises(TypeError, match="read-only"):
        span.parent_span_id = "x"
    assert other.__pydantic_fields_set__ == before  # the shared set did not change


def _span_lines_by_parsing(text: bytes, span_count: int) -> dict[int, int]:
    """The definition: parse every span line and read its ordinal."""
    import orjson

    lines = text.split(b"\n")
    if b'"spans": [' not in lines:
        return {}
    start = lines.index(b'"spans": [') + 2
    mapping = {}
    for offset in range(span_count):
        raw = lines[start - 1 + offset] if start - 1 + offset < len(lines) else b""
        try:
            ordinal = orjson.loads(raw.rstrip(b",")).get("ordinal")
        except (orjson.JSONDecodeError, AttributeError):
            return {}
        if isinstance(ordinal, int):
            mapping[ordinal] = start + offset
    return mapping


def _layouts(trace) -> dict[str, bytes]:
    import json

    document = trace.model_dump(mode="json", exclude_none=True)
    spans = document.pop("spans")
    reordered = [dict(reversed(list(s.items()))) for s in spans]  # ordinal before span_id
    odd_ids = [{**s, "span_id": 'a "quoted\\" id, "ordinal": 999'} for s in spans]
    head = "{\n" + "".join(f"{json.dumps(k)}: {json.dumps(v)},\n" for k, v in document.items())
    return {
        "written": render_trace(trace).encode(),
        "compact": json.dumps({**document, "spans": spans}, separators=(",", ":")).encode(),
        "pretty": json.dumps({**document, "spans": spans}, indent=2).encode(),
        "keys reordered": (
            head + '"spans": [\n' + ",\n".join(json.dumps(s) for s in reordered) + "\n]\n}\n"
        ).encode(),
        "tricky ids": (
            head + '"spans": [\n' + ",\n".join(json.dumps(s) for s in odd_ids) + "\n]\n}\n"
        ).encode(),
    }


def test_span_lines_are_the_lines_a_parse_of_each_line_finds():
    from abw.traceio import _span_lines, parse_trace

    runs = [t for s in ("baseline", "regressed") for t in load_traces(EXAMPLE / "traces" / s)]
    assert runs
    for run in runs:
        for name, text in _layouts(run.trace).items():
            count = len(run.trace.spans)
            expected = _span_lines_by_parsing(text, count)
            assert _span_lines(text, count) == expected, name
            assert parse_trace(text, "x.json").span_lines == expected, name
            if name in ("written", "keys reordered", "tricky ids"):
                assert len(expected) == count, name  # the one-span-per-line layouts map all


def test_written_traces_keep_their_span_lines_in_two_integers():
    from abw.traceio import ConsecutiveLines

    for run in load_traces(TRACES):
        lines = run.span_lines
        assert isinstance(lines, ConsecutiveLines)
        assert dict(lines) == _span_lines_by_parsing(render_trace(run.trace).encode(), len(lines))
        assert run.line_of(len(lines)) == 1 and run.line_of(-1) == 1  # unknown: line 1
