"""abw.traceio: loaded spans share one read-only pydantic fields_set per key set."""

from __future__ import annotations

import copy

import pytest

from abw.traceio import load_traces, render_trace
from tests.conftest import REPO

TRACES = REPO / "examples" / "refund-policy" / "traces" / "baseline"


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
