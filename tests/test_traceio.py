"""abw.traceio: loaded traces, their span lines."""

from __future__ import annotations

import copy

from abw.traceio import load_traces, render_trace
from tests.conftest import REPO

EXAMPLE = REPO / "examples" / "refund-policy"
TRACES = EXAMPLE / "traces" / "baseline"


def test_loaded_traces_render_back_to_their_file_and_spans_stay_ordinary_models():
    runs = load_traces(TRACES)
    for tf in runs:  # the file's own keys, nothing more: exclude_unset dumps are unchanged
        text = (TRACES / tf.path.rsplit("/", 1)[-1]).read_text()
        assert render_trace(tf.trace) == text
        for span in tf.trace.spans:
            assert set(span.model_dump(exclude_unset=True)) == span.__pydantic_fields_set__
    span, other = runs[0].trace.spans[1], runs[1].trace.spans[1]
    before = set(other.__pydantic_fields_set__)
    span.parent_span_id = "x"  # a loaded span is an ordinary model: assigning works
    assert "parent_span_id" in span.__pydantic_fields_set__
    assert other.__pydantic_fields_set__ == before  # and changes no other span
    assert copy.deepcopy(span) == span


def _span_lines_by_parsing(text: bytes, span_count: int) -> dict[int, int]:
    """The definition: parse every span line and read its ordinal."""
    import orjson

    lines = text.split(b"\n")
    squeezed = [line.replace(b" ", b"").replace(b"\t", b"").replace(b"\r", b"") for line in lines]
    if b'"spans":[' not in squeezed:  # the spans line, blanks aside
        return {}
    start = squeezed.index(b'"spans":[') + 2
    mapping = {}
    for offset in range(span_count):
        raw = lines[start - 1 + offset] if start - 1 + offset < len(lines) else b""
        try:  # blanks at the end of a line and then its comma aside
            ordinal = orjson.loads(raw.rstrip(b" \t\r").rstrip(b",")).get("ordinal")
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
        "spans reversed": (
            head + '"spans": [\n' + ",\n".join(json.dumps(s) for s in spans[::-1]) + "\n]\n}\n"
        ).encode(),
        "a span over two lines": render_trace(trace)
        .replace(', "name": ', ',\n"name": ', 1)
        .encode(),
        "tricky ids": (
            head + '"spans": [\n' + ",\n".join(json.dumps(s) for s in odd_ids) + "\n]\n}\n"
        ).encode(),
        "CR LF line breaks": render_trace(trace).replace("\n", "\r\n").encode(),
        "blanks around commas and the spans line": (
            head + '"spans":[  \n' + " ,\t\n".join(json.dumps(s) for s in spans) + "\n]\n}\n"
        ).encode(),
    }


ONE_SPAN_PER_LINE = (
    "written",
    "keys reordered",
    "spans reversed",
    "tricky ids",
    "CR LF line breaks",
    "blanks around commas and the spans line",
)


def test_span_lines_are_the_lines_a_parse_of_each_line_finds():
    from abw.traceio import _written_first_line, parse_trace, span_lines

    runs = [t for s in ("baseline", "regressed") for t in load_traces(EXAMPLE / "traces" / s)]
    assert runs
    for run in runs:
        for name, text in _layouts(run.trace).items():
            count = len(run.trace.spans)
            expected = _span_lines_by_parsing(text, count)
            assert span_lines(text, count) == expected, name
            assert parse_trace(text, "x.json").span_lines == expected, name
            one_per_line = ("written", "keys reordered", "spans reversed", "tricky ids")
            if name in (
                *one_per_line,
                "CR LF line breaks",
                "blanks around commas and the spans line",
            ):
                assert len(expected) == count, name  # the one-span-per-line layouts map all
            fast = _written_first_line(text, count) is not None
            assert fast == (name in ("written", "tricky ids") and count > 0), name


def test_written_traces_keep_their_span_lines_in_two_integers():
    from abw.traceio import ConsecutiveLines

    for run in load_traces(TRACES):
        lines = run.span_lines
        assert isinstance(lines, ConsecutiveLines)
        assert dict(lines) == _span_lines_by_parsing(render_trace(run.trace).encode(), len(lines))
        assert run.line_of(len(lines)) == 1 and run.line_of(-1) == 1  # unknown: line 1
