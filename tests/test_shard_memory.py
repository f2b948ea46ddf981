"""What the driver keeps of the summaries that arrive from Dask workers (a real LocalCluster):
one copy of each value many runs repeat, no garbage cycles piling up batch after batch while
the collector is paused, and the same report."""

from __future__ import annotations

import gc
import os
import sys
import weakref
from collections import defaultdict

import distributed
import pytest
from conftest import REPO

import abw.shard
from abw.gating import report_json, run_gate
from abw.gating.summary import Context, Partial
from abw.leanrun import load_lean_traces
from abw.models.report import Divergence
from abw.shard import _results, dask_client, run_gate_distributed, summaries_on
from abw.sharedfields import ValuePool, shared
from abw.specio import load_spec

EXAMPLE = REPO / "examples" / "refund-policy"
BASELINE = EXAMPLE / "traces" / "baseline"
REGRESSED = EXAMPLE / "traces" / "regressed"


@pytest.fixture
def small_batches(monkeypatch):
    """Three files per batch: the example's runs arrive in many partials."""
    monkeypatch.setattr(abw.shard, "BATCH_FILES", 3)


def _context() -> Context:
    spec, _ = load_spec(EXAMPLE / "behavior.yaml")
    return Context(spec, load_lean_traces(BASELINE))


def _copies(values: list[object]) -> dict[object, set[int]]:
    """Per distinct value (lists as tuples), the ids of the objects holding it."""
    found: dict[object, set[int]] = defaultdict(set)
    for value in values:
        found[tuple(value) if isinstance(value, list) else value].add(id(value))
    return found


def test_equal_values_from_many_batches_are_one_copy(cluster, small_batches):
    with distributed.Client(cluster.scheduler_address) as client:
        merged = summaries_on(client, REGRESSED, _context())
    runs = merged.summaries
    divergences = [s.divergence for s in runs if s.divergence is not None]
    paths = [getattr(d, name) for d in divergences for name in ("candidate_path", "baseline_path")]
    messages = [v.message for s in runs for _, v in s.findings]
    for values in (paths, messages, [s.nearest for s in runs], [s.span_names for s in runs]):
        copies = _copies(values)
        assert len(copies) < len(values)  # some values repeat ...
        assert all(len(ids) == 1 for ids in copies.values())  # ... and are held once


def test_pooled_summaries_give_the_same_report(cluster, small_batches):
    single = run_gate(BASELINE, REGRESSED, EXAMPLE / "behavior.yaml")
    spread = run_gate_distributed(
        BASELINE, REGRESSED, EXAMPLE / "behavior.yaml", scheduler=cluster.scheduler_address
    )
    assert report_json(spread) == report_json(single)


class _Cycle:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


class _Future:
    """A finished future whose result, like a Dask client's reading of one, leaves a cycle."""

    def __init__(self, left: list[weakref.ref[_Cycle]]) -> None:
        self.left = left

    def result(self, timeout: float | None = None) -> str:
        self.left.append(weakref.ref(_Cycle()))
        return "partial"

    def release(self) -> None:
        pass


class _Client:
    def cancel(self, futures: list[_Future]) -> None:
        pass


def test_the_garbage_cycles_of_each_result_read_are_collected_as_results_arrive():
    """With the collector paused (as abw gate runs), what reading a result leaves in reference
    cycles (the Dask client's, and a LocalCluster scheduler's in this process) is freed as the
    results arrive, not held to the end."""
    left: list[weakref.ref[_Cycle]] = []
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for index, result in enumerate(_results(_Client(), [_Future(left) for _ in range(5)])):
            assert result == "partial"
            assert [ref() is None for ref in left] == [True] * index + [False]
    finally:
        if was_enabled:
            gc.enable()
    assert all(ref() is None for ref in left)


def test_the_same_context_gated_twice_on_one_client(cluster):
    context = _context()
    with distributed.Client(cluster.scheduler_address) as client:
        first = summaries_on(client, REGRESSED, context)
        second = summaries_on(client, REGRESSED, context)
    assert len(first.summaries) == len(second.summaries) > 0


def test_a_value_pool_keeps_one_copy_and_leaves_the_fields_set():
    pool = ValuePool()
    a, b = "".join(["Re", "ad"]), "".join(["Rea", "d"])
    assert a is not b and pool.value(a) is pool.value(b) is a
    assert pool.value(None) is None
    first, second = pool.items([a, "Grep"]), pool.items([b, "Grep"])
    assert first is second and first == ["Read", "Grep"] and first[0] is sys.intern(b)
    assert pool.items([1, 2]) is pool.items([1, 2]) and pool.items([]) is pool.items([])
    model = shared(
        Divergence(
            trace_id="t",
            trace_file="f",
            step=0,
            span_ordinal=None,
            candidate_tool=b,
            baseline_alternatives=[],
            common_prefix=[],
            candidate_path=[b, "Grep"],
            baseline_path=["Grep"],
        )
    )
    fields_set = model.__pydantic_fields_set__
    pool.fields(model, ("candidate_tool",), ("candidate_path", "baseline_path"))
    assert model.candidate_tool is a and model.candidate_path is first
    assert model.__pydantic_fields_set__ is fields_set
    assert model.baseline_path == ["Grep"]


def test_merging_without_a_pool_keeps_the_summaries_as_they_are(cluster):
    context = _context()
    with distributed.Client(cluster.scheduler_address) as client:
        partial = client.submit(
            abw.shard.summarize_batch,
            f"{REGRESSED}/",
            sorted(p.name for p in REGRESSED.glob("*.json")),
            context,
            os.getcwd(),
            abw.shard.code_digest(),
        ).result()
    merged = Partial()
    merged.merge(partial)
    assert merged.summaries == partial.summaries


def test_the_cluster_abw_starts_runs_its_scheduler_outside_the_driver():
    """``--workers N``: the scheduler's task states and the graph it unpickles are not held by
    the driver, which runs neither the scheduler nor a worker."""
    with dask_client(workers=1) as client:
        assert client.run_on_scheduler(os.getpid) != os.getpid()
        assert client.submit(os.getpid, pure=False).result() != os.getpid()
        assert len(client.scheduler_info()["workers"]) == 1


def test_the_scheduler_abw_starts_never_blocks_on_its_own_log_output():
    """Its log lines go to a pipe; unread, 64 KiB of them would stop the scheduler (and the
    gate) for good. The call runs in a thread so that a blocked scheduler fails the test."""
    from concurrent.futures import ThreadPoolExecutor

    def log_a_lot() -> str:  # local: sent by value, the scheduler imports no test module
        import logging

        log = logging.getLogger("distributed.scheduler")
        for _ in range(300):  # 300 KB, far more than a pipe holds
            log.warning("x" * 1000)
        return "logged"

    with dask_client(workers=1) as client:
        pool = ThreadPoolExecutor(1)
        try:
            assert pool.submit(client.run_on_scheduler, log_a_lot).result(timeout=60) == "logged"
            assert client.submit(sum, [1, 2], pure=False).result(timeout=60) == 3
        finally:
            pool.shutdown(wait=False)
