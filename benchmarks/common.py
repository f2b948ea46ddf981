"""Helpers shared by the benchmarks: run a command, measure wall time and peak RSS."""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TMP = REPO / "benchmarks" / "tmp"  # git-ignored; every generated input lives here
CORPUS = REPO / "tests" / "corpus"
PYTHON = sys.executable
ABW = str(Path(sys.executable).with_name("abw"))


@dataclass
class Measured:
    seconds: float
    peak_rss_mb: float
    returncode: int
    stderr: str


_COMPILED: list[bool] = []


def ensure_bytecode() -> None:
    """abw's modules byte-compiled (once per process), as an installed package's are (pip
    compiles them at install): where ``PYTHONDONTWRITEBYTECODE`` is set, or the tree is fresh
    and read-only, every timed run would otherwise compile each module from source again —
    about 80 ms of the gate's start-up on the machine of docs/performance.md. (In a process
    of its own: a child's peak RSS starts from this process's, so this one stays small.)"""
    if not _COMPILED:
        command = [PYTHON, "-m", "compileall", "-q", str(REPO / "abw")]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        _COMPILED.append(True)


def measure(args: list[str], *, env: dict[str, str] | None = None) -> Measured:
    """Run ``args`` once; wall time and the peak RSS of that child process alone (wait4)."""
    ensure_bytecode()
    started = time.perf_counter()
    proc = subprocess.Popen(
        args,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "ABW_NO_PROGRESS": "1", **(env or {})},
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Measured(
        seconds, usage.ru_maxrss / 1024, proc.returncode, err.decode("utf-8", "replace")
    )


def best_of(args: list[str], repeat: int) -> tuple[float, float, list[float]]:
    """(median seconds, max peak RSS MB, all times) over ``repeat`` runs."""
    runs = [measure(args) for _ in range(repeat)]
    for run in runs:
        if run.returncode not in (0, 1, 3):
            raise SystemExit(f"benchmark command failed ({run.returncode}): {args}\n{run.stderr}")
    times = [r.seconds for r in runs]
    return statistics.median(times), max(r.peak_rss_mb for r in runs), times


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def machine() -> str:
    """One line naming the machine the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem_kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{mem_kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        mem = "? RAM"
    return (
        f"{cpu}, {os.cpu_count()} cores, {mem}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )


def ratio(value: float, floor: float) -> str:
    return f"{value / floor:.2f}x" if floor > 0 else "n/a"


@dataclass
class Paired:
    """Interleaved runs of several commands: round r runs each command once, in turn, so every
    command sees the same load on a shared machine; ratios are medians of per-round ratios."""

    times: dict[str, list[float]]
    peak_rss_mb: dict[str, float]

    def median(self, name: str) -> float:
        return statistics.median(self.times[name])

    def ratio(self, name: str, floor: str) -> float:
        """Median over rounds of ``name``'s time / ``floor``'s time in the same round."""
        pairs = zip(self.times[name], self.times[floor], strict=True)
        return statistics.median(a / b for a, b in pairs)

    def fastest_ratio(self, name: str, floor: str) -> float:
        """``name``'s fastest run / ``floor``'s fastest run. On a shared machine a short floor
        can run 1.7x slower in some rounds than in others (its CPU time too, not only its wall
        time), which pulls the per-round ratios down: a target counts as met only when this
        ratio meets it as well (:func:`within`)."""
        return min(self.times[name]) / min(self.times[floor])


def within(limit: float, *ratios: float, at_least: bool = False) -> bool:
    """Whether every estimate of a ratio meets its target (``<= limit``; ``>=`` with
    ``at_least``)."""
    return all(r >= limit if at_least else r <= limit for r in ratios)


def paired(
    commands: dict[str, list[str]], rounds: int, after: Callable[[str], None] | None = None
) -> Paired:
    """Run every command ``rounds`` times, interleaved (see :class:`Paired`); ``after(name)``
    is called after each run (to read what the command wrote before the next round's run)."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    rss: dict[str, float] = dict.fromkeys(commands, 0.0)
    for _ in range(rounds):
        for name, args in commands.items():
            run = measure(args)
            if run.returncode not in (0, 1, 3):
                raise SystemExit(
                    f"benchmark command failed ({run.returncode}): {args}\n{run.stderr}"
                )
            times[name].append(run.seconds)
            rss[name] = max(rss[name], run.peak_rss_mb)
            if after is not None:
                after(name)
    return Paired(times, rss)


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def scale_main(
    run: Callable[[int, int, int], object], description: str, argv: list[str] | None, *, rounds: int
) -> int:
    """The command line of a benchmark over B baseline × C candidate traces: ``--baseline``,
    ``--candidate`` and ``--rounds``, then ``run(baseline, candidate, rounds)``."""
    parser = argparse.ArgumentParser(description=description.splitlines()[0])
    parser.add_argument("--baseline", type=int, default=1000)
    parser.add_argument("--candidate", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=rounds)
    args = parser.parse_args(argv)
    run(args.baseline, args.candidate, args.rounds)
    return 0
