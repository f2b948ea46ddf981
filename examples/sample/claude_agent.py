"""A stand-in for ``claude -p``: one run of the refund-policy support agent, as a real-format
Claude Code session transcript (JSONL), written with the example's own generator.

With probability ``--regress`` the run commits the refund *before* the policy check (the
regression the example's spec catches); ``--crash`` makes it exit 1 without a transcript and
``--sleep`` makes it slow, to exercise abw sample's execution-failure handling.

Usage: ``python claude_agent.py [--transcript PATH] [--regress P] [--seed N]``; without
``--transcript`` the JSONL goes to stdout. The run's records are stamped with the current time.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "refund-policy"))

import generate  # examples/refund-policy/generate.py


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcript", type=Path, default=None, help="Where to write the JSONL.")
    parser.add_argument("--regress", type=float, default=0.0, help="Chance of the wrong order.")
    parser.add_argument("--crash", type=float, default=0.0, help="Chance of exiting 1, no file.")
    parser.add_argument("--sleep", type=float, default=0.0, help="Seconds to wait first.")
    parser.add_argument(
        "--seed", type=int, default=None, help="Seed (combined with $ABW_RUN); default random."
    )
    return parser.parse_args(argv)


def rng_for(seed: int | None) -> random.Random:
    """A per-run generator: reproducible with --seed (each run of a sequence differs)."""
    if seed is None:
        return random.Random()
    return random.Random(seed * 1_000_003 + int(os.environ.get("ABW_RUN", "0")))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rng = rng_for(args.seed)
    if args.sleep:
        time.sleep(args.sleep)
    if rng.random() < args.crash:
        print("claude: API error: overloaded", file=sys.stderr)
        return 1
    regressed = rng.random() < args.regress
    profile = generate.Profile(runs=1, seed=0, read_policy=0.25, regressed_runs=(0,) * regressed)
    text = generate.run_transcript(rng, datetime.now(UTC), profile, 0)
    if args.transcript is None:
        sys.stdout.write(text)
    else:
        args.transcript.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
