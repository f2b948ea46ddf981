"""The gate's lean runs: the same report, byte for byte, as on the full trace models."""

from __future__ import annotations

import pytest
from conftest import REPO

from abw.contract import load_contract_as_spec
from abw.gating import gate, report_json
from abw.leanrun import LeanSpan, lean, load_lean_traces, stream_lean_traces
from abw.models.trace import Span
from abw.specio import load_spec
from abw.traceio import load_traces

EXAMPLE = REPO / "examples" / "refund-policy"
TRACES = EXAMPLE / "traces"


def _specs():
    spec, digest = load_spec(EXAMPLE / "behavior.yaml")
    compiled, compiled_digest = load_contract_as_spec(EXAMPLE / "contract.json")
    return {"spec": (spec, digest), "contract": (compiled, compiled_digest)}


@pytest.mark.parametrize("which", ["spec", "contract"])
@pytest.mark.parametrize("candidate", ["good", "regressed", "small"])
def test_lean_runs_give_the_same_report_bytes(which: str, candidate: str) -> None:
    spec, digest = _specs()[which]

    def report(loader, candidates=None) -> str:
        runs = loader(TRACES / "baseline"), (candidates or loader)(TRACES / candidate)
        return report_json(gate(*runs, spec, spec_file="s.yaml", spec_sha256=digest))

    full = report(load_traces)
    assert report(load_lean_traces) == full
    assert report(load_lean_traces, stream_lean_traces) == full  # as run_gate reads them


def test_the_gate_holds_no_more_than_two_candidate_runs_at_once(monkeypatch) -> None:
    """run_gate streams the candidate runs: each is summarized, then dropped (while the next
    loads, the loop still names the one before)."""
    import weakref

    import abw.leanrun
    from abw.gating import run_gate

    alive: list[weakref.ref] = []
    streamed = stream_lean_traces

    def watched(folder):
        for run in streamed(folder):
            assert all(ref() is None for ref in alive[:-1]), "an earlier run is still held"
            alive.append(weakref.ref(run))
            yield run

    monkeypatch.setattr(abw.leanrun, "stream_lean_traces", watched)
    run_gate(TRACES / "baseline", TRACES / "good", EXAMPLE / "behavior.yaml")
    assert len(alive) > 2


def test_a_lean_span_has_every_schema_field_and_drops_its_source_ref() -> None:
    assert LeanSpan.__struct_fields__ == tuple(Span.model_fields)
    for trace_file in load_lean_traces(TRACES / "baseline"):
        assert all(span.source_ref is None for span in trace_file.trace.spans)


def test_a_lean_span_keeps_the_extracted_arguments_only() -> None:
    full = load_traces(TRACES / "baseline")
    for trace_file in full:
        reduced = lean(trace_file)
        assert reduced.span_lines == trace_file.span_lines
        assert reduced.trace.path() == reduced.path_spans
        for span, small in zip(trace_file.trace.spans, reduced.trace.spans, strict=True):
            for field in LeanSpan.__struct_fields__:
                if field not in ("attributes", "source_ref"):
                    assert getattr(small, field) == getattr(span, field)
            expected = {k: v for k, v in span.attributes.items() if k == "arguments"}
            assert small.attributes == expected


def test_a_lean_run_survives_pickling_as_dask_sends_it() -> None:
    import pickle
    import sys

    for trace_file in load_lean_traces(TRACES / "regressed"):
        copy = pickle.loads(pickle.dumps(trace_file, protocol=5))
        assert copy.span_lines == trace_file.span_lines
        assert copy.trace.run == trace_file.trace.run
        for a, b in zip(copy.trace.spans, trace_file.trace.spans, strict=True):
            assert [getattr(a, f) for f in LeanSpan.__struct_fields__] == [
                getattr(b, f) for f in LeanSpan.__struct_fields__
            ]
            assert a.name is sys.intern(b.name) and a.type is sys.intern(b.type)
