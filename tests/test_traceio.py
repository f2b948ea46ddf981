"""abw.traceio: loaded traces, their span lines."""

from __future__ import annotations

import copy
import json

from abw.traceio import load_traces, render_trace
from tests.conftest import REPO
from tests.fuzzkit import corpus_traces
from tests.jsonkit import element_lines_by_scanning

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


def _span_lines_by_scanning(text: bytes) -> dict[int, int]:
    """The definition: each span's ordinal -> the line on which its object begins."""
    starts = element_lines_by_scanning(text.decode("utf-8", "surrogatepass"), "spans")
    ordinals = [span["ordinal"] for span in json.loads(text)["spans"]]
    return dict(zip(ordinals, starts, strict=True))


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
        "pretty, tabs": json.dumps({**document, "spans": spans}, indent="\t").encode(),
        "two spans on one line": (
            head
            + '"spans": [\n'
            + ",\n".join([", ".join(map(json.dumps, spans[:2])), *map(json.dumps, spans[2:])])
            + "\n]\n}\n"
        ).encode(),
        "a spans key in the run first": render_trace(trace)
        .replace('"run": {', '"run": {"notes": 1,\n"spans": [\n{"span_id": "x"}\n], ', 1)
        .encode(),
        "a line that begins inside a span": _inside_a_span(head, spans),
    }


def _inside_a_span(head: str, spans: list[dict]) -> bytes:
    """Spans 0 and 1 begin on one line, and the next line begins inside span 1 with an object
    that looks like a whole span line of ordinal 1: one line per span, as counted, but not a
    span per line."""
    fake = {"span_id": "f", "ordinal": 1}
    second = {**spans[1], "attributes": {"z": [{}, fake]}}
    text = json.dumps(second)
    cut = text.index(json.dumps(fake))
    first = json.dumps(spans[0]) + ", " + text[:cut].rstrip() + "\n" + text[cut:]
    lines = [first, *map(json.dumps, spans[2:])]
    return (head + '"spans": [\n' + ",\n".join(lines) + "\n]\n}\n").encode()


#: the layouts that hold one span per line after a ``"spans": [`` line, as write_trace writes
ONE_SPAN_PER_LINE = ("written", "keys reordered", "spans reversed", "tricky ids")


def test_span_lines_are_the_lines_the_spans_begin_on_however_the_file_is_laid_out():
    from abw.leanrun import parse_lean_trace
    from abw.traceio import _one_span_per_line, parse_trace, span_lines

    runs = [t for s in ("baseline", "regressed") for t in load_traces(EXAMPLE / "traces" / s)]
    runs += [parse_trace(raw, name) for name, raw in corpus_traces()]  # real sessions, imported
    assert len(runs) > 40
    for run in runs:
        for name, text in _layouts(run.trace).items():
            expected = _span_lines_by_scanning(text)
            ordinals = [span["ordinal"] for span in json.loads(text)["spans"]]
            assert len(expected) == len(run.trace.spans), name  # every layout maps every span
            assert span_lines(text, ordinals) == expected, name
            assert parse_trace(text, "x.json").span_lines == expected, name
            assert parse_lean_trace(text, "x.json").span_lines == expected, name
            fast = _one_span_per_line(text, len(ordinals)) is not None
            assert fast == (name in ONE_SPAN_PER_LINE and len(ordinals) > 0), name


def test_written_traces_keep_their_span_lines_in_two_integers():
    from abw.traceio import ConsecutiveLines

    for run in load_traces(TRACES):
        lines = run.span_lines
        assert isinstance(lines, ConsecutiveLines)
        assert dict(lines) == _span_lines_by_scanning(render_trace(run.trace).encode())
        assert run.line_of(len(lines)) == 1 and run.line_of(-1) == 1  # unknown: line 1
