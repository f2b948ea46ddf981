"""Gate speed: ``abw gate`` on B baseline × C candidate traces of ≈50 spans vs. load floors.

    python benchmarks/bench_gate.py --baseline 1000 --candidate 10000

Floors, each in its own process on the same files: *parse* reads every trace file and parses
it with orjson (the least any tool must do to look at the data); *load* is abw's own loader
(``load_traces``: parse + schema validation into models). The gate runs as the real CLI
(``abw gate ... --out``). Prints wall seconds, peak RSS and the ratios gate/parse, gate/load.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ABW, PYTHON, TMP, best_of, ratio

PARSE_FLOOR = """
import sys, orjson
from pathlib import Path
for folder in sys.argv[1:]:
    for path in sorted(Path(folder).rglob("*.json")):
        orjson.loads(path.read_bytes())
"""

LOAD_FLOOR = """
import sys
from abw.traceio import load_traces
for folder in sys.argv[1:]:
    load_traces(folder)
"""


def run(baseline: int, candidate: int, repeat: int) -> dict[str, float]:
    from gen_inputs import gen_traces

    data = gen_traces(TMP / f"traces-{baseline}x{candidate}", baseline, candidate)
    folders = [str(data / "baseline"), str(data / "candidate")]
    parse_s, parse_rss, _ = best_of([PYTHON, "-c", PARSE_FLOOR, *folders], repeat)
    load_s, load_rss, _ = best_of([PYTHON, "-c", LOAD_FLOOR, *folders], repeat)
    gate_cmd = [
        ABW, "gate", "--baseline", folders[0], "--candidate", folders[1],
        "--spec", str(data / "spec.yaml"), "--out", str(data / "gate-report.json"), "-q",
    ]  # fmt: skip
    gate_s, gate_rss, _ = best_of(gate_cmd, repeat)
    print(f"gate {baseline} baseline x {candidate} candidate traces (~50 spans each)")
    print(f"  floor parse (read + orjson): {parse_s:8.2f} s  peak RSS {parse_rss:7.0f} MB")
    print(f"  floor load (abw load_traces): {load_s:7.2f} s  peak RSS {load_rss:7.0f} MB")
    print(f"  abw gate:                    {gate_s:8.2f} s  peak RSS {gate_rss:7.0f} MB")
    print(f"  ratio gate/parse {ratio(gate_s, parse_s)}   gate/load {ratio(gate_s, load_s)}")
    return {
        "baseline": baseline,
        "candidate": candidate,
        "parse_s": parse_s,
        "load_s": load_s,
        "gate_s": gate_s,
        "gate_rss_mb": gate_rss,
        "load_rss_mb": load_rss,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=int, default=1000)
    parser.add_argument("--candidate", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    run(args.baseline, args.candidate, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
