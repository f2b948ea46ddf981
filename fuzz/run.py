"""Run every fuzz target with atheris and print executions and crashes per target.

    .venv/bin/python fuzz/run.py                 # 100,000 executions per target (make fuzz)
    .venv/bin/python fuzz/run.py --runs 5000 --only trace,spec

Each target runs in its own process (fuzz/harness.py) seeded from the real corpus
(tests/corpus) into fuzz/out/seeds/<target>/; inputs that break the contract are saved in
fuzz/out/crashes/<target>/. Exit code 1 when any target crashed, else 0.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))


def _max_len(target, default: int) -> int:
    """Specs are small; other inputs may be whole JSON documents, which must not be cut."""
    if target.name == "spec":
        return min(default, 2048)
    return max([default, *(len(data) for _, data in target.seeds)])


def main(argv: list[str] | None = None) -> int:
    import fuzzkit

    if importlib.util.find_spec("atheris") is None:
        print("fuzz/run.py needs atheris: pip install atheris (Linux wheels; else clang)")
        return 2

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000, help="executions per target")
    parser.add_argument("--only", default="", help="comma list of target names")
    parser.add_argument("--max-len", type=int, default=16_384, help="libFuzzer -max_len")
    parser.add_argument("--jobs", type=int, default=1, help="targets fuzzed at once")
    parser.add_argument("--out", type=Path, default=HERE / "out")
    args = parser.parse_args(argv)

    chosen = [t for t in fuzzkit.targets() if not args.only or t.name in args.only.split(",")]
    pending = []
    for target in chosen:
        slug = target.name.replace(":", "-")
        seeds = args.out / "seeds" / slug
        seeds.mkdir(parents=True, exist_ok=True)
        for name, data in target.seeds:
            (seeds / name).write_bytes(data)
        stats = args.out / f"{slug}.stats.json"
        stats.unlink(missing_ok=True)
        command = [
            sys.executable,
            str(HERE / "harness.py"),
            target.name,
            f"-runs={args.runs}",
            f"-max_len={_max_len(target, args.max_len)}",
            "-seed=1",
            "-rss_limit_mb=2048",
            "-timeout=30",
            "-print_final_stats=1",
            f"-artifact_prefix={args.out}/",  # slow/crash units go here, never the cwd
            str(seeds),
        ]
        env = {
            **os.environ,
            "ABW_FUZZ_STATS": str(stats),
            "ABW_FUZZ_CRASHES": str(args.out / "crashes"),
        }
        pending.append((target.name, command, env, stats, args.out / f"{slug}.log"))

    results = []
    running: list = []
    started = time.monotonic()
    while pending or running:
        while pending and len(running) < args.jobs:
            name, command, env, stats, log = pending.pop(0)
            handle = open(log, "wb")  # noqa: SIM115 - closed when the process ends
            proc = subprocess.Popen(command, env=env, stdout=handle, stderr=subprocess.STDOUT)
            running.append((name, proc, handle, stats, log, time.monotonic()))
        for entry in list(running):
            name, proc, handle, stats, log, t0 = entry
            if proc.poll() is None:
                continue
            handle.close()
            running.remove(entry)
            data = json.loads(stats.read_text()) if stats.exists() else {}
            done = re.search(
                r"stat::number_of_executed_units:\s+(\d+)", log.read_text("utf-8", "replace")
            )
            if done:  # libFuzzer's own count is authoritative
                data["executions"] = max(data.get("executions", 0), int(done.group(1)))
            hard = proc.returncode != 0  # libFuzzer itself stopped: segfault, OOM, timeout
            results.append(
                {
                    "target": name,
                    "executions": data.get("executions", 0),
                    "ok": data.get("ok", 0),
                    "error": data.get("error", 0),
                    "crashes": data.get("crashes", 0) + (1 if hard else 0),
                    "kinds": data.get("kinds", {}),
                    "seconds": round(time.monotonic() - t0, 1),
                    "log": str(log),
                }
            )
        time.sleep(0.2)

    width = max(len(r["target"]) for r in results) if results else 6
    print(f"{'target':<{width}}  {'executions':>10}  {'ok':>8}  {'error':>8}  {'crashes':>7}  secs")
    for r in sorted(results, key=lambda r: r["target"]):
        print(
            f"{r['target']:<{width}}  {r['executions']:>10}  {r['ok']:>8}  {r['error']:>8}"
            f"  {r['crashes']:>7}  {r['seconds']}"
        )
        for kind, count in sorted(r["kinds"].items()):
            print(f"    {count} x {kind}")
    total = sum(r["executions"] for r in results)
    crashes = sum(r["crashes"] for r in results)
    print(f"total: {total} executions, {crashes} crashes, {time.monotonic() - started:.0f} s")
    (args.out / "summary.json").write_text(json.dumps(results, indent=2, sort_keys=True))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
