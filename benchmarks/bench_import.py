"""Import speed: ``abw import claude`` on a large session folder vs. parse and hash floors.

    python benchmarks/bench_import.py --mb 500 [--rounds 3]

Floors, each in its own process on the same bytes, interleaved with the import round by round
(ratios are medians of per-round ratios): *json* reads every line and parses it with the
standard library's ``json.loads`` (the floor the throughput target is stated against);
*orjson* the same with orjson; *hash* parses with orjson and reduces every record to SHA-256
of its canonical JSON (``abw.hashing.content_hash``: the redaction work any importer must do,
by design). Prints MB/s, the ratios against their targets and peak RSS (target: independent
of input size — run with two sizes, e.g. --mb 100 and --mb 500, to see it).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ABW, PYTHON, TMP, folder_bytes, paired, verdict, within

PARSE = """
import sys, {module}
from pathlib import Path
for path in sorted(Path(sys.argv[1]).rglob("*.jsonl")):
    with open(path, "rb") as handle:
        for line in handle:
            if line.strip():
                {module}.loads(line)
"""

HASH_FLOOR = """
import sys, orjson
from pathlib import Path
from abw.hashing import content_hash
for path in sorted(Path(sys.argv[1]).rglob("*.jsonl")):
    with open(path, "rb") as handle:
        for line in handle:
            if line.strip():
                content_hash(orjson.loads(line))
"""


def run(megabytes: int, rounds: int) -> dict[str, float]:
    from gen_inputs import gen_sessions

    folder = gen_sessions(TMP / f"sessions-{megabytes}mb", megabytes)
    size_mb = folder_bytes(folder) / 1e6
    files = len(list(folder.glob("*.jsonl")))
    out = TMP / f"imported-{megabytes}mb"
    shutil.rmtree(out, ignore_errors=True)
    command = [
        ABW, "import", "claude", "--input", str(folder), "--out", str(out),
        "--exported-at", "2026-01-01T00:00:00Z", "-q",
    ]  # fmt: skip
    result = paired(
        {
            "json": [PYTHON, "-c", PARSE.format(module="json"), str(folder)],
            "orjson": [PYTHON, "-c", PARSE.format(module="orjson"), str(folder)],
            "hash": [PYTHON, "-c", HASH_FLOOR, str(folder)],
            "import": command,
        },
        rounds,
    )
    traces = len(list(out.glob("*.json")))
    shutil.rmtree(out, ignore_errors=True)
    print(f"import claude: {size_mb:.0f} MB, {files} sessions -> {traces} traces, {rounds} rounds")
    for name, label in (
        ("json", "floor: read + json.loads per line"),
        ("orjson", "floor: read + orjson.loads per line"),
        ("hash", "floor: orjson + canonical SHA-256"),
        ("import", "abw import claude"),
    ):
        mbs = size_mb / result.median(name)
        rss = result.peak_rss_mb[name]
        print(f"  {label:36s} {mbs:6.1f} MB/s  peak RSS {rss:4.0f} MB")
    of_json = 1 / result.ratio("import", "json")
    of_json_fastest = 1 / result.fastest_ratio("import", "json")
    over_hash = result.ratio("import", "hash")
    over_hash_fastest = result.fastest_ratio("import", "hash")
    met = verdict(within(0.5, of_json, of_json_fastest, at_least=True))
    print(
        f"  import throughput / json floor's   {of_json:.0%} (fastest runs: "
        f"{of_json_fastest:.0%}) (target >= 50%: {met})"
    )
    met = verdict(within(1.5, over_hash, over_hash_fastest))
    print(
        f"  import time / hash floor's         {over_hash:.2f}x (fastest runs: "
        f"{over_hash_fastest:.2f}x) (target <= 1.5x: {met})"
    )
    print(f"  import throughput / orjson floor's {1 / result.ratio('import', 'orjson'):.0%}")
    return {
        "mb": size_mb,
        "json_floor_mbs": size_mb / result.median("json"),
        "orjson_floor_mbs": size_mb / result.median("orjson"),
        "hash_floor_mbs": size_mb / result.median("hash"),
        "import_mbs": size_mb / result.median("import"),
        "import_of_json_floor": of_json,
        "import_over_hash_floor": over_hash,
        "import_of_json_floor_fastest": of_json_fastest,
        "import_over_hash_floor_fastest": over_hash_fastest,
        "import_rss_mb": result.peak_rss_mb["import"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    run(args.mb, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
