"""``abw gate --workers``: wall time and the driver's own peak RSS for 1 and 2 workers against
the single-process gate, on the same traces; the reports must be byte-identical.

    python benchmarks/bench_workers.py --baseline 1000 --candidate 10000 [--rounds 2]
    python benchmarks/bench_workers.py --baseline 1000 --candidate 100000 --rounds 1

Each variant runs the library in a fresh process that prints its own peak RSS
(``RUSAGE_SELF``: the driver alone, not the scheduler, which ``--workers N`` runs in a process
of its own, nor the worker processes), the report's SHA-256 and how many "Sending large graph"
warnings Dask gave. Target: the driver's peak RSS at most 25 % of the single process's.

The single-process gate streams its candidate runs too (each summarized, then dropped), so
its peak is now about the driver's: *holding every run* is the same gate over the candidate
runs loaded all at once first (``load_lean_traces``), the single process as it was when the
target was set; the driver's share of that is printed as well.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PYTHON, TMP, ensure_bytecode, scale_main

DRIVER = """
import hashlib, json, resource, sys, warnings
from abw.gating import report_chunks, run_gate
from abw.gcpause import gc_paused
from abw.shard import run_gate_distributed
base, cand, spec, workers = sys.argv[1:5]
with warnings.catch_warnings(record=True) as caught, gc_paused():  # as abw gate does
    warnings.simplefilter("always")
    if workers == "0":
        report = run_gate(base, cand, spec)
    elif workers == "held":
        from abw.gating import gate
        from abw.leanrun import load_lean_traces
        from abw.specio import load_spec
        loaded, digest = load_spec(spec)
        report = gate(load_lean_traces(base), load_lean_traces(cand), loaded,
                      spec_file=spec, spec_sha256=digest)
    else:
        report = run_gate_distributed(base, cand, spec, workers=int(workers))
    digest = hashlib.sha256()
    for piece in report_chunks(report):  # as abw gate --out writes them
        digest.update(piece)
    digest = digest.hexdigest()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
graphs = sum("large graph" in str(w.message) for w in caught)
print(json.dumps({"sha256": digest, "driver_rss_mb": rss, "large_graph_warnings": graphs}))
"""


def _once(args: list[str]) -> tuple[float, dict[str, float | str]]:
    ensure_bytecode()
    started = time.perf_counter()
    out = subprocess.run(
        args, capture_output=True, text=True, check=True, env={**os.environ, "ABW_NO_PROGRESS": "1"}
    ).stdout
    return time.perf_counter() - started, json.loads(out.strip().splitlines()[-1])


def run(baseline: int, candidate: int, rounds: int) -> dict[str, object]:
    from gen_inputs import gen_traces

    data = gen_traces(TMP / f"traces-{baseline}x{candidate}", baseline, candidate)
    folders = [str(data / "baseline"), str(data / "candidate"), str(data / "spec.yaml")]
    variants = {
        "holding every run": "held",
        "single process": "0",
        "--workers 1": "1",
        "--workers 2": "2",
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    seen: dict[str, dict[str, float | str]] = {}
    for _ in range(rounds):
        for name, workers in variants.items():
            seconds, result = _once([PYTHON, "-c", DRIVER, *folders, workers])
            times[name].append(seconds)
            seen[name] = result
    single, held = seen["single process"], seen["holding every run"]
    print(f"gate on workers: {baseline} baseline x {candidate} candidate traces, {rounds} rounds")
    for name in variants:
        rss = float(seen[name]["driver_rss_mb"])
        share = rss / float(single["driver_rss_mb"])
        held_share = rss / float(held["driver_rss_mb"])
        same = "same report" if seen[name]["sha256"] == single["sha256"] else "REPORT DIFFERS"
        graphs = int(seen[name]["large_graph_warnings"])
        print(
            f"  {name:17s} {statistics.median(times[name]):7.2f} s  peak RSS {rss:6.0f} MB "
            f"({share:.0%} of single process, {held_share:.0%} of holding every run; "
            f"target <= 25%)  {same}" + (f"  {graphs} large-graph warnings" if graphs else "")
        )
    return {
        "baseline": baseline,
        "candidate": candidate,
        "seconds": {name: statistics.median(t) for name, t in times.items()},
        "driver_rss_mb": {name: seen[name]["driver_rss_mb"] for name in variants},
        "identical": all(seen[n]["sha256"] == single["sha256"] for n in variants),
        "large_graph_warnings": {name: seen[name]["large_graph_warnings"] for name in variants},
    }


def main(argv: list[str] | None = None) -> int:
    return scale_main(run, __doc__, argv, rounds=2)


if __name__ == "__main__":
    sys.exit(main())
