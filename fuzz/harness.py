"""One atheris (libFuzzer) harness for one target: ``python fuzz/harness.py TARGET [args]``.

Targets come from tests/fuzzkit.py: ``trace``, ``spec`` and ``import:<name>`` for every importer.
Inputs are libFuzzer byte mutations mixed with fuzzkit's structure-aware mutations (truncation,
type swaps, huge values, deep nesting, duplicate records, NaN/Infinity), seeded from the real
corpus. A broken contract is counted and its input saved; the run goes on. Counts are written
to ``$ABW_FUZZ_STATS`` (JSON) as the run proceeds and when it ends.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import random
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.setrecursionlimit(1000)  # the default; instrumented frames must not raise it silently

with atheris.instrument_imports(include=["abw"]):
    import fuzzkit

    TARGET = next(t for t in fuzzkit.targets() if t.name == sys.argv[1])
    for _name, _seed in TARGET.seeds:  # import the target's modules under instrumentation
        fuzzkit.check_contract(TARGET, _seed, Path(_name).suffix or TARGET.suffix)

STATS_PATH = os.environ.get("ABW_FUZZ_STATS")
CRASH_DIR = Path(os.environ.get("ABW_FUZZ_CRASHES", "fuzz/out/crashes")) / TARGET.name.replace(
    ":", "-"
)
SUFFIXES = sorted({Path(n).suffix or TARGET.suffix for n, _ in TARGET.seeds}) or [TARGET.suffix]
RUNS = next((int(a.split("=", 1)[1]) for a in sys.argv if a.startswith("-runs=")), -1)
stats = {"target": TARGET.name, "executions": 0, "ok": 0, "error": 0, "crashes": 0, "kinds": {}}


def _save_stats() -> None:
    if STATS_PATH:
        Path(STATS_PATH).write_text(json.dumps(stats, sort_keys=True))


atexit.register(_save_stats)


def test_one_input(data: bytes) -> None:
    suffix = SUFFIXES[data[0] % len(SUFFIXES)] if data else SUFFIXES[0]
    stats["executions"] += 1
    try:
        stats[fuzzkit.check_contract(TARGET, data, suffix)] += 1
    except fuzzkit.Crash as exc:
        stats["crashes"] += 1
        kind = str(exc).splitlines()[0][:120]
        stats["kinds"][kind] = stats["kinds"].get(kind, 0) + 1
        CRASH_DIR.mkdir(parents=True, exist_ok=True)
        (CRASH_DIR / (hashlib.sha256(data).hexdigest()[:16] + suffix)).write_bytes(data)
        _save_stats()
    if stats["executions"] % 1000 == 0 or stats["executions"] == RUNS:
        _save_stats()  # libFuzzer ends with exit(), which skips atexit: save on the last run


def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    """Half libFuzzer's byte mutations, half fuzzkit's structure-aware ones."""
    rng = random.Random(seed)
    if rng.random() < 0.5:
        return atheris.Mutate(data, max_size)
    return fuzzkit.mutate(data, rng)[:max_size]


def main() -> None:
    atheris.Setup(sys.argv[:1] + sys.argv[2:], test_one_input, custom_mutator=custom_mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
