"""Gate speed: ``abw gate`` on B baseline × C candidate traces of ≈50 spans vs. parse floors.

    python benchmarks/bench_gate.py --baseline 1000 --candidate 10000 [--rounds 3]

Floors, each in its own process on the same files, interleaved with the gate round by round
(ratios are medians of per-round ratios, steadier than single timings on a shared machine):
*json* reads every trace file and parses it with the standard library's ``json.loads`` (the
floor the targets are stated against); *orjson* the same with orjson; *load* is abw's own
loader (``load_traces``: parse + schema validation into models); *lean* the gate's loader
(``load_lean_traces``: msgspec decode where proven exact, else the same validation). The gate
runs as the real CLI (``abw gate ... --out``); the report's SHA-256 is printed, and two gate
runs must agree.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ABW, PYTHON, TMP, paired, scale_main, verdict, within

PARSE = """
import sys, {module}
from pathlib import Path
for folder in sys.argv[1:]:
    for path in sorted(Path(folder).rglob("*.json")):
        {module}.loads(path.read_bytes())
"""

LOAD_FLOOR = """
import sys
from abw.traceio import load_traces
for folder in sys.argv[1:]:
    load_traces(folder)
"""

LEAN_LOAD = """
import sys
from abw.leanrun import load_lean_traces
for folder in sys.argv[1:]:
    load_lean_traces(folder)
"""

#: (baseline, candidate) -> (target gate/json ratio, target peak RSS MB or None), issue targets
TARGETS = {(200, 2000): (3.0, None), (1000, 10000): (2.0, 400.0)}


def run(baseline: int, candidate: int, rounds: int) -> dict[str, float]:
    from gen_inputs import gen_traces

    data = gen_traces(TMP / f"traces-{baseline}x{candidate}", baseline, candidate)
    folders = [str(data / "baseline"), str(data / "candidate")]
    report = data / "gate-report.json"
    gate_cmd = [
        ABW, "gate", "--baseline", folders[0], "--candidate", folders[1],
        "--spec", str(data / "spec.yaml"), "--out", str(report), "-q",
    ]  # fmt: skip
    result = paired(
        {
            "json": [PYTHON, "-c", PARSE.format(module="json"), *folders],
            "orjson": [PYTHON, "-c", PARSE.format(module="orjson"), *folders],
            "load": [PYTHON, "-c", LOAD_FLOOR, *folders],
            "lean": [PYTHON, "-c", LEAN_LOAD, *folders],
            "gate": gate_cmd,
        },
        rounds,
    )
    digest = hashlib.sha256(report.read_bytes()).hexdigest()
    gate_ratio = result.ratio("gate", "json")
    print(
        f"gate {baseline} baseline x {candidate} candidate traces (~50 spans each), {rounds} rounds"
    )
    for name, label in (
        ("json", "floor: read + json.loads"),
        ("orjson", "floor: read + orjson.loads"),
        ("load", "abw load_traces (+ validation)"),
        ("lean", "abw load_lean_traces (gate's)"),
        ("gate", "abw gate"),
    ):
        print(
            f"  {label:32s} {result.median(name):7.2f} s  peak RSS "
            f"{result.peak_rss_mb[name]:6.0f} MB"
        )
    target, rss_target = TARGETS.get((baseline, candidate), (None, None))
    fastest = result.fastest_ratio("gate", "json")
    line = f"  ratio gate / json floor  {gate_ratio:.2f}x (fastest runs: {fastest:.2f}x)"
    if target is not None:
        line += f"  (target <= {target:.0f}x: {verdict(within(target, gate_ratio, fastest))})"
    print(line)
    print(f"  ratio gate / orjson floor {result.ratio('gate', 'orjson'):.2f}x")
    print(f"  ratio gate / abw load     {result.ratio('gate', 'load'):.2f}x")
    if rss_target is not None:
        rss = result.peak_rss_mb["gate"]
        met = verdict(rss <= rss_target)
        print(f"  gate peak RSS {rss:.0f} MB (target <= {rss_target:.0f} MB: {met})")
    print(f"  report sha256 {digest[:16]}")
    return {
        "baseline": baseline,
        "candidate": candidate,
        "json_s": result.median("json"),
        "orjson_s": result.median("orjson"),
        "load_s": result.median("load"),
        "lean_load_s": result.median("lean"),
        "gate_s": result.median("gate"),
        "gate_over_json": gate_ratio,
        "gate_over_json_fastest": fastest,
        "gate_rss_mb": result.peak_rss_mb["gate"],
        "load_rss_mb": result.peak_rss_mb["load"],
        "report_sha256": digest,
    }


def main(argv: list[str] | None = None) -> int:
    return scale_main(run, __doc__, argv, rounds=3)


if __name__ == "__main__":
    sys.exit(main())
