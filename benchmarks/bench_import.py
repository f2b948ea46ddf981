"""Import speed: ``abw import claude`` on a large session folder vs. the parse floor.

    python benchmarks/bench_import.py --mb 500

The floor reads the same bytes and parses every line with orjson, in its own process; a second
floor also reduces every record to SHA-256 of its canonical JSON (the redaction work any
importer must do, by design). Prints
MB/s of both, the ratio (target: import ≥ 50% of the floor's throughput) and peak RSS (target:
independent of input size — run with two sizes, e.g. --mb 100 and --mb 500, to see it).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ABW, PYTHON, TMP, best_of, folder_bytes

PARSE_FLOOR = """
import sys, orjson
from pathlib import Path
for path in sorted(Path(sys.argv[1]).rglob("*.jsonl")):
    with open(path, "rb") as handle:
        for line in handle:
            if line.strip():
                orjson.loads(line)
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


def run(megabytes: int, repeat: int) -> dict[str, float]:
    from gen_inputs import gen_sessions

    folder = gen_sessions(TMP / f"sessions-{megabytes}mb", megabytes)
    size_mb = folder_bytes(folder) / 1e6
    files = len(list(folder.glob("*.jsonl")))
    out = TMP / f"imported-{megabytes}mb"
    floor_s, floor_rss, _ = best_of([PYTHON, "-c", PARSE_FLOOR, str(folder)], repeat)
    hash_s, _, _ = best_of([PYTHON, "-c", HASH_FLOOR, str(folder)], repeat)
    shutil.rmtree(out, ignore_errors=True)
    command = [
        ABW, "import", "claude", "--input", str(folder), "--out", str(out),
        "--exported-at", "2026-01-01T00:00:00Z", "-q",
    ]  # fmt: skip
    import_s, import_rss, _ = best_of(command, repeat)
    traces = len(list(out.glob("*.json")))
    shutil.rmtree(out, ignore_errors=True)
    floor_mbs, import_mbs = size_mb / floor_s, size_mb / import_s
    print(f"import claude: {size_mb:.0f} MB in {files} session files -> {traces} traces")
    print(f"  floor (read + orjson each line): {floor_mbs:6.1f} MB/s  RSS {floor_rss:4.0f} MB")
    print(f"  abw import claude:              {import_mbs:6.1f} MB/s  RSS {import_rss:4.0f} MB")
    hash_mbs = size_mb / hash_s
    print(f"  floor + canonical-JSON SHA-256 of every record: {hash_mbs:6.1f} MB/s")
    print(f"  import / floor throughput: {import_mbs / floor_mbs:.0%} (target >= 50%)")
    print(f"  import / (floor + hashing) throughput: {import_mbs / hash_mbs:.0%}")
    return {
        "mb": size_mb,
        "floor_mbs": floor_mbs,
        "hash_floor_mbs": hash_mbs,
        "import_mbs": import_mbs,
        "import_rss_mb": import_rss,
        "floor_rss_mb": floor_rss,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    run(args.mb, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
