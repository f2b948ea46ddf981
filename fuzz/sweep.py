"""Sweep every field of the real corpus, one at a time, through every importer.

    .venv/bin/python fuzz/sweep.py                        # every corpus folder, 6 seeds each
    .venv/bin/python fuzz/sweep.py --seeds 2 --only gemini,otel

Each field of each seed (tests/fuzzkit.py: ``wrong_typed``: once whatever its indexes, and in
JSON Lines once per kind of record) is

- given a value of another type (``[]``, ``{}``, ``1.5``, ``"x"``, ``null``, ``true``, ``-1``)
  or deleted: the import must keep fuzzkit's contract (traces, or one AbwInputError line);
- given a canary inside an object and inside an array: no written trace may hold it (the
  redaction promise: a container where a name or id is read is absent, docs/traces.md).
  behaviorlock is left out of this one: its canonical output is the values it recorded.

Prints one row per importer and the first input of each kind that broke; exit code 1 when
anything did. tests/test_wrong_types.py runs the same checks on fewer seeds in CI.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

WRONG = ([], {}, 1.5, "x", None, True, -1)
CANARY = "ABW-SWEEP-CANARY"
KEEPS_VALUES = {"behaviorlock"}


def _canary_problem(importer, seed_name: str, text: bytes, scratch: Path) -> str | None:
    """What went wrong importing ``text``: the canary in a trace, or an exception other than
    AbwInputError; None when nothing did."""
    from abw.errors import AbwInputError
    from abw.importers.base import ImportOptions
    from abw.traceio import render_trace

    path = scratch / f"sweep{Path(seed_name).suffix or '.json'}"
    path.write_bytes(text)
    try:
        traces = importer.import_file(path, ImportOptions(exported_at="2026-01-01T00:00:00Z"))
        written = "".join(map(render_trace, traces))
    except AbwInputError:
        return None
    except Exception as exc:  # (the contract's breach, as check_contract words it)
        return f"{type(exc).__name__}: {exc}"[:160]
    return "canary in a trace" if CANARY in written else None


def sweep(name: str, seeds_per_folder: int, scratch: Path) -> tuple[int, list[str]]:
    """(inputs run, what broke) for importer ``name`` over its corpus folders."""
    import fuzzkit

    from abw.importers import get_importer

    target = fuzzkit.Target(f"import:{name}", ".json", fuzzkit._importer_target(name), [])
    importer = get_importer(name)
    broken: dict[str, str] = {}
    runs = 0
    for folder in fuzzkit.CORPUS_FOLDERS[name]:
        for seed, data in fuzzkit.corpus_seeds(folder, limit=seeds_per_folder):
            suffix = Path(seed).suffix or target.suffix
            for where, text in fuzzkit.wrong_typed(data, (*WRONG, fuzzkit.DELETED)):
                runs += 1
                try:
                    fuzzkit.check_contract(target, text, suffix)
                except fuzzkit.Crash as exc:
                    broken.setdefault(str(exc)[:160], f"{folder}/{seed}: {where}")
            if name in KEEPS_VALUES:
                continue
            for where, text in fuzzkit.wrong_typed(data, ({"k": CANARY}, [CANARY])):
                runs += 1
                problem = _canary_problem(importer, seed, text, scratch)
                if problem is not None:
                    broken.setdefault(problem, f"{folder}/{seed}: {where}")
    return runs, [f"{kind}\n      first: {first}" for kind, first in broken.items()]


def main(argv: list[str] | None = None) -> int:
    import tempfile

    import fuzzkit

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=6, help="seeds per corpus folder")
    parser.add_argument("--only", default="", help="comma list of importer names")
    args = parser.parse_args(argv)
    names = [n for n in fuzzkit.CORPUS_FOLDERS if not args.only or n in args.only.split(",")]
    failed = 0
    print(f"{'importer':18s} {'inputs':>8s} {'broke':>6s} {'secs':>6s}")
    with tempfile.TemporaryDirectory(prefix="abw-sweep-") as scratch:
        for name in names:
            start = time.perf_counter()
            runs, broken = sweep(name, args.seeds, Path(scratch))
            secs = time.perf_counter() - start
            print(f"{name:18s} {runs:8d} {len(broken):6d} {secs:6.1f}", flush=True)
            for line in broken:
                print(f"    {line}")
            failed += len(broken)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
