"""Sharding on Dask: the sharded gate's report is byte-identical to the single-machine one, and
the per-scenario (n, k) reduced from the shards equal the report's statistics."""

from __future__ import annotations

import pytest
from conftest import REPO

from abw.gating import report_json, run_gate
from abw.shard import run_gate_sharded

EXAMPLE = REPO / "examples" / "refund-policy"


@pytest.mark.parametrize(
    ("candidate", "scheduler", "partitions"),
    [("good", "processes", 3), ("regressed", "threads", 7), ("small", "synchronous", 2)],
)
def test_sharded_report_is_byte_identical(candidate, scheduler, partitions):
    args = (EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / candidate)
    spec = EXAMPLE / "behavior.yaml"
    single = run_gate(*args, spec)
    sharded, counts = run_gate_sharded(*args, spec, partitions=partitions, scheduler=scheduler)
    assert report_json(sharded) == report_json(single)
    expected = {s.scenario_id: (s.n, s.k) for s in single.statistics if s.n}
    assert counts == expected


def test_sharded_per_run_outcomes_match_the_report():
    from abw.shard import per_run_outcome
    from abw.specio import load_spec
    from abw.traceio import load_traces

    spec, _ = load_spec(EXAMPLE / "behavior.yaml")
    baseline = load_traces(EXAMPLE / "traces" / "baseline")
    candidate = load_traces(EXAMPLE / "traces" / "regressed")
    report = run_gate(
        EXAMPLE / "traces" / "baseline",
        EXAMPLE / "traces" / "regressed",
        spec=EXAMPLE / "behavior.yaml",
    )
    by_file = {r.trace_file: r for r in report.runs if r.role == "candidate"}
    for trace_file in candidate:
        outcome = per_run_outcome(trace_file, spec, baseline)
        status = by_file[trace_file.path]
        assert outcome.passed == status.passed
        assert list(outcome.failed_checks) == status.failed_checks
