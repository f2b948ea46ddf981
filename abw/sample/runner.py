"""Run the agent once: a shell command with a time limit, and the transcript it leaves.

The command runs in its own process group, so a time limit or an interrupted ``abw sample``
ends the agent and everything it started. Its output goes to files in a private work folder,
never into memory or a trace; only the last line of stderr is kept, to be printed.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from abw.sample.scenarios import PLACEHOLDER, Scenario

_GRACE_S = 5.0  # after SIGTERM, how long a process group has before SIGKILL


@dataclass(frozen=True)
class RunResult:
    """What one agent run left behind."""

    started_at: str  # ISO 8601 UTC, millisecond precision
    exit_code: int | None  # None when the time limit stopped it; negative: killed by a signal
    timed_out: bool
    transcripts: tuple[Path, ...]  # files (or one folder) to import
    stderr_tail: str = ""
    interrupted: bool = False  # abw sample itself was stopped while the run was going

    @property
    def problem(self) -> str | None:
        """Why the run did not complete, in a few words; None when it did."""
        if self.timed_out:
            return "timed out"
        if self.exit_code is not None and self.exit_code < 0:
            return f"the command was killed by signal {-self.exit_code}"
        if self.exit_code != 0:
            return f"the command exited with code {self.exit_code}"
        if not self.transcripts:
            return "the run left no transcript"
        return None


def now_iso() -> str:
    stamp = datetime.now(UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


@dataclass
class ProcessTable:
    """The agent processes running now, so an interrupted ``abw sample`` can end them all."""

    _groups: set[int] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: bool = False

    def add(self, pid: int) -> None:
        with self._lock:
            self._groups.add(pid)

    def discard(self, pid: int) -> None:
        with self._lock:
            self._groups.discard(pid)

    def stop_all(self) -> None:
        """SIGTERM every running group, then SIGKILL what is left of each after a grace period
        (a group outlives its leader: ``sh -c`` dies of SIGTERM while the agent it started
        ignores it)."""
        with self._lock:
            self.stopping = True
            groups = list(self._groups)
        for pid in groups:
            _signal_group(pid, signal.SIGTERM)
        deadline = time.monotonic() + _GRACE_S
        for pid in groups:
            _end_group(pid, deadline)


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _group_alive(pid: int) -> bool:
    """Whether any process of the group ``pid`` leads is left."""
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # (a process of the group that runs as another user)
        pass
    return True


def _end_group(pid: int, deadline: float) -> None:
    """Wait until the group is gone or ``deadline`` passes, then SIGKILL whatever is left."""
    while _group_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    _signal_group(pid, signal.SIGKILL)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the run's process group, SIGKILL it after the grace period: the whole group,
    not only its leader, which may end first while the agent it started goes on (a late
    transcript would be taken for a later run's)."""
    _signal_group(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + _GRACE_S
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=_GRACE_S)  # (the leader reaped: no zombie left in the group)
    _end_group(process.pid, deadline)
    process.wait()


def _snapshot(pattern: str) -> dict[str, tuple[int, int]]:
    """Files matching ``pattern`` now, with their modification time and size."""
    found = {}
    for name in glob.glob(pattern, recursive=True):
        try:
            info = os.stat(name)
        except OSError:
            continue
        if os.path.isfile(name):
            found[name] = (info.st_mtime_ns, info.st_size)
    return found


def _tail(path: Path) -> str:
    try:
        data = path.read_bytes()[-4096:]
    except OSError:
        return ""
    lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    return " ".join(lines[-1].split())[:300] if lines else ""


def run_once(
    scenario: Scenario,
    *,
    base: Path,
    work: Path,
    sequence: int,
    timeout: float,
    suffix: str,
    table: ProcessTable,
) -> RunResult:
    """Run ``scenario.run`` once in ``work`` (a fresh, private folder) and find its transcript."""
    work.mkdir(parents=True, exist_ok=True)
    transcript = work / f"transcript{suffix}"
    command = scenario.run.replace(PLACEHOLDER, shlex.quote(str(transcript)))
    pattern = scenario.transcript_glob(base)
    before = _snapshot(pattern) if pattern else {}
    env = {
        **os.environ,
        **scenario.env,
        "ABW_SCENARIO": scenario.id,
        "ABW_RUN": str(sequence),
        "ABW_TRANSCRIPT": str(transcript),
    }
    stdout_path, stderr_path = work / f"stdout{suffix}", work / "stderr.txt"
    started_at = now_iso()
    timed_out = False
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        if table.stopping:
            return RunResult(started_at, None, False, (), interrupted=True)
        process = subprocess.Popen(
            command,
            shell=True,
            cwd=scenario.folder(base),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        table.add(process.pid)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _stop(process)
        finally:
            table.discard(process.pid)
    exit_code = None if timed_out else process.returncode
    if table.stopping:  # ended by abw sample's own interruption: not the agent's result
        return RunResult(started_at, exit_code, timed_out, (), interrupted=True)
    transcripts: tuple[Path, ...]
    if scenario.source == "stdout":
        transcripts = (stdout_path,) if stdout_path.stat().st_size else ()
    elif scenario.source == "placeholder":
        transcripts = (transcript,) if transcript.exists() else ()
    else:
        assert pattern is not None
        after = _snapshot(pattern)
        transcripts = tuple(Path(p) for p, v in sorted(after.items()) if before.get(p) != v)
    return RunResult(started_at, exit_code, timed_out, transcripts, _tail(stderr_path))
