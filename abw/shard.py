"""Gate a very large corpus with Dask: a map over files, an exact reduce, the same report.

The expensive part of a gate over many runs is per file: read, parse, validate, hash, and the
per-run hard checks. Those are a map over files; this module runs them on a Dask bag (any Dask
scheduler: threads, processes, or a ``dask.distributed`` cluster). What crosses back is exact:
the loaded traces with their hashes, and per scenario the integer sufficient statistics of the
per-run pass indicator, ``(n, k)`` — Wilson bounds and SPRT are functions of exact integers, so
summing shard counts loses nothing. The report itself is then built by the same
:func:`abw.gating.gate` a single machine runs, so it is byte-identical to ``abw gate`` on the
same inputs (``tests/test_shard.py`` checks both the bytes and the reduced counts).

Dask is optional (``pip install dask``); nothing else in abw imports this module. See
docs/performance.md for when to shard and what stays on the driver (the nearest-baseline diff
needs every baseline path; baselines are usually the small side).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class RunOutcome:
    """What one worker returns for one candidate run."""

    path: str
    scenario_id: str | None
    passed: bool
    failed_checks: tuple[str, ...]


def _require_dask() -> Any:
    try:
        import dask.bag as bag
    except ModuleNotFoundError:
        from abw.errors import AbwInputError

        raise AbwInputError("sharding needs Dask: pip install dask") from None
    return bag


def per_run_outcome(trace_file: Any, spec: Any, baseline: list[Any]) -> RunOutcome:
    """The gate's own per-run hard checks for one candidate run (exactly what ``gate`` does)."""
    from abw.gating import per_run_checks

    _, failed_by_path = per_run_checks(spec, baseline, [trace_file])
    failed = failed_by_path[trace_file.path]
    return RunOutcome(trace_file.path, trace_file.trace.run.scenario_id, not failed, tuple(failed))


def sufficient_statistics(outcomes: list[RunOutcome]) -> dict[str | None, tuple[int, int]]:
    """Per scenario ``(n, k)``: candidate runs and runs that passed every per-run hard check."""
    runs: Counter[str | None] = Counter()
    passes: Counter[str | None] = Counter()
    for outcome in outcomes:
        runs[outcome.scenario_id] += 1
        passes[outcome.scenario_id] += outcome.passed
    return {sid: (runs[sid], passes[sid]) for sid in runs}


def _load(paths: list[str], partitions: int, scheduler: str) -> list[Any]:
    from abw.traceio import load_trace

    bag = _require_dask()
    if not paths:
        return []
    return (
        bag.from_sequence(paths, npartitions=max(1, min(partitions, len(paths))))
        .map(load_trace)
        .compute(scheduler=scheduler)
    )


def run_gate_sharded(
    baseline: str | Path,
    candidate: str | Path,
    spec: str | Path,
    *,
    partitions: int = 8,
    scheduler: str = "processes",
) -> tuple[Any, dict[str | None, tuple[int, int]]]:
    """Load both sides and run the per-run checks on Dask; returns (GateReport, per-scenario
    ``(n, k)`` reduced from the shards). The report equals :func:`abw.gating.run_gate`'s."""
    from abw.gating import gate
    from abw.specio import load_spec
    from abw.traceio import trace_paths

    bag = _require_dask()
    loaded_spec, spec_sha256 = load_spec(spec)
    base_files = _load([str(p) for p in trace_paths(baseline)], partitions, scheduler)
    cand_paths = [str(p) for p in trace_paths(candidate)]
    cand_files = _load(cand_paths, partitions, scheduler)
    outcomes = (
        bag.from_sequence(cand_files, npartitions=max(1, min(partitions, len(cand_files))))
        .map(per_run_outcome, loaded_spec, base_files)
        .compute(scheduler=scheduler)
    )
    report = gate(base_files, cand_files, loaded_spec, spec_file=str(spec), spec_sha256=spec_sha256)
    return report, sufficient_statistics(outcomes)
