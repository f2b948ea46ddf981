"""Run every benchmark from one command (``make bench``) and print figures and ratios.

    python benchmarks/run_all.py            # full scale: 500 MB import, 1,000 x 10,000 gate
    python benchmarks/run_all.py --quick    # 50 MB import, 200 x 2,000 gate: a few minutes

The peer comparison (bench_peers.py) installs its peer tools once into benchmarks/tmp/peers
(a few minutes, from the package index); where that cannot be done it says so and the other
figures stand.

Every figure is printed next to its floor, measured in the same run on the same bytes with the
commands interleaved round by round; ratios are medians of per-round ratios (the machines this
runs on are often shared, and single timings there vary by ±20 %).

Inputs are generated from the real corpus into benchmarks/tmp/ (git-ignored) on first use and
reused afterwards. Results are also written to benchmarks/tmp/results.json. The numbers and the
machine they were measured on are recorded in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_gate
import bench_import
import bench_peers
import bench_startup
import bench_workers
from common import TMP, machine


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small inputs, fewer repeats")
    parser.add_argument("--only", default="startup,import,gate,workers,peers", help="comma list")
    args = parser.parse_args(argv)
    only = set(args.only.split(","))
    print(f"machine: {machine()}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    started = time.monotonic()
    results: dict[str, object] = {"machine": machine(), "quick": args.quick}
    if "startup" in only:
        results["startup"] = bench_startup.run(5 if args.quick else 15)
    rounds = 3
    if "import" in only:
        sizes = (50,) if args.quick else (100, 500)
        results["import"] = [bench_import.run(mb, rounds) for mb in sizes]
    if "gate" in only:
        scales = ((200, 2000),) if args.quick else ((200, 2000), (1000, 10000))
        results["gate"] = [bench_gate.run(b, c, rounds) for b, c in scales]
    if "workers" in only:
        scale = (200, 2000) if args.quick else (1000, 10000)
        results["workers"] = bench_workers.run(*scale, 1 if args.quick else 2)
    if "peers" in only:
        scale = (200, 2000) if args.quick else (1000, 10000)
        results["peers"] = bench_peers.run(*scale, 1 if args.quick else 3)
    print(f"total {time.monotonic() - started:.0f} s")
    TMP.mkdir(parents=True, exist_ok=True)
    (TMP / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
