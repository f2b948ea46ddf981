"""Start-up: ``abw --help``, ``abw import claude --help`` and ``abw gate`` on the tiny example
vs. ``python -c pass``.

    python benchmarks/bench_startup.py [--repeat 15]

Each command runs --repeat times in a fresh process; the median is reported. Also lists the
heavy modules (pydantic, numpy, jinja2, github, torch, transformers) that ``abw --help`` loads —
there should be none.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ABW, PYTHON, REPO, TMP, best_of

HEAVY = ("pydantic", "numpy", "jinja2", "github", "torch", "transformers", "yaml", "scipy")
SMALL = REPO / "examples" / "refund-policy"


def heavy_modules(args: list[str]) -> list[str]:
    """Heavy top-level modules imported while running ``abw ARGS``."""
    code = (
        "import sys\nfrom abw.cli import cli, run\n"
        f"run(cli, {args!r})\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True).stdout
    loaded = eval(out.strip().splitlines()[-1]) if out.strip() else []
    return [m for m in HEAVY if m in loaded]


def run(repeat: int) -> dict[str, float]:
    base_s, _, _ = best_of([PYTHON, "-c", "pass"], repeat)
    help_s, help_rss, _ = best_of([ABW, "--help"], repeat)
    import_help_s, _, _ = best_of([ABW, "import", "claude", "--help"], repeat)
    out = TMP / "startup-report.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    gate = [
        ABW, "gate", "--baseline", str(SMALL / "traces" / "baseline"),
        "--candidate", str(SMALL / "traces" / "small"), "--spec", str(SMALL / "behavior.yaml"),
        "--out", str(out), "-q",
    ]  # fmt: skip
    gate_s, gate_rss, _ = best_of(gate, repeat)
    print(f"start-up (median of {repeat})")
    print(f"  python -c pass:        {base_s * 1000:7.0f} ms")
    print(
        f"  abw --help:            {help_s * 1000:7.0f} ms  (+{(help_s - base_s) * 1000:.0f} ms, "
        f"target +150 ms)  peak RSS {help_rss:.0f} MB"
    )
    print(
        f"  abw import claude --help: {import_help_s * 1000:4.0f} ms  "
        f"(+{(import_help_s - base_s) * 1000:.0f} ms)"
    )
    print(
        f"  abw gate (tiny):       {gate_s * 1000:7.0f} ms  (+{(gate_s - base_s) * 1000:.0f} ms)"
        f"  peak RSS {gate_rss:.0f} MB"
    )
    heavy = heavy_modules(["--help"])
    print(f"  heavy modules loaded by abw --help: {', '.join(heavy) or 'none'}")
    heavy = heavy_modules(["import", "claude", "--help"])
    print(f"  heavy modules loaded by abw import claude --help: {', '.join(heavy) or 'none'}")
    return {
        "python_s": base_s,
        "help_s": help_s,
        "import_help_s": import_help_s,
        "gate_small_s": gate_s,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    run(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
