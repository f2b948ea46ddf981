"""Peers: abw's whole gate against peer tools' convert + evaluate of the same candidate runs.

    python benchmarks/bench_peers.py --baseline 1000 --candidate 10000 [--rounds 3]

The peers (benchmarks/peers/requirements.txt: deepeval's ToolCorrectnessMetric, agentevals'
trajectory match, AgentAssay's ContractOracle) are installed on first use into a virtual
environment of their own, benchmarks/tmp/peers (git-ignored; needs the package index once).
Each peer reads and parses every candidate trace, converts it to its own trace form and runs
its deterministic checks closest to the benchmark spec (benchmarks/peers/run_peer.py); abw runs
``abw gate`` as the real CLI on the baseline and the candidate runs (every check of the spec,
the nearest baseline path, the divergence, the report). Rounds are interleaved; the figures
are medians. A peer's runs/s are given twice: over its whole process, and over its loop alone
(its import left out, the best case for it); abw's over its whole process only, counting the
candidate runs alone.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ABW, TMP, paired, scale_main

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "peers" / "requirements.txt"
RUNNER = HERE / "peers" / "run_peer.py"
PEERS = ("deepeval", "agentevals", "agentassay")
PEER_ENV = TMP / "peers"


def peer_python() -> Path | None:
    """The peers' interpreter, installed from REQUIREMENTS on first use; None (with the reason
    printed) when they cannot be installed here."""
    python = PEER_ENV / "bin" / "python"
    stamp = PEER_ENV / "requirements.txt"
    if python.exists() and stamp.exists() and stamp.read_text() == REQUIREMENTS.read_text():
        return python
    shown = PEER_ENV.relative_to(HERE.parent) if PEER_ENV.is_relative_to(HERE.parent) else PEER_ENV
    print(f"  installing the peers into {shown} (once)")
    steps = [
        [sys.executable, "-m", "venv", "--clear", str(PEER_ENV)],
        [str(python), "-m", "pip", "install", "--quiet", "-r", str(REQUIREMENTS)],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
            print(f"  peers not measured: cannot install them: {last}")
            return None
    stamp.write_text(REQUIREMENTS.read_text())
    return python


def run(baseline: int, candidate: int, rounds: int) -> dict[str, object] | None:
    from gen_inputs import gen_traces

    print(f"peers: {candidate} candidate runs (~50 spans each), {rounds} rounds")
    python = peer_python()
    if python is None:
        return None
    data = gen_traces(TMP / f"traces-{baseline}x{candidate}", baseline, candidate)
    folder = data / "candidate"
    out = TMP / "peer-result.json"
    commands = {
        "abw": [
            ABW, "gate", "--baseline", str(data / "baseline"), "--candidate", str(folder),
            "--spec", str(data / "spec.yaml"), "--out", str(TMP / "peer-gate-report.json"), "-q",
        ],
        **{peer: [str(python), str(RUNNER), peer, str(folder), str(out)] for peer in PEERS},
    }  # fmt: skip
    loop: dict[str, list[float]] = {peer: [] for peer in PEERS}

    def read_loop_time(name: str) -> None:
        if name in loop:
            loop[name].append(json.loads(out.read_text())["loop_s"])

    timed = paired(commands, rounds, after=read_loop_time)
    results: dict[str, object] = {"candidate_runs": candidate}
    abw_rate = candidate / timed.median("abw")
    print(f"  {'abw gate (whole process)':40s} {abw_rate:7.0f} runs/s")
    fastest = 0.0
    for peer in PEERS:
        whole = candidate / timed.median(peer)
        alone = candidate / statistics.median(loop[peer])
        fastest = max(fastest, alone)
        print(f"  {peer + ' (whole process / loop alone)':40s} {whole:7.0f} / {alone:.0f} runs/s")
        results[peer] = {"whole_runs_per_s": whole, "loop_runs_per_s": alone}
    results["abw_runs_per_s"] = abw_rate
    results["abw_over_fastest_peer_loop"] = abw_rate / fastest
    print(f"  abw gate / fastest peer's loop alone: {abw_rate / fastest:.2f}x the runs/s")
    return results


def main(argv: list[str] | None = None) -> int:
    return scale_main(run, __doc__, argv, rounds=3)


if __name__ == "__main__":
    sys.exit(main())
