"""``abw sample``: run the agent, record each run, re-gate, and stop each scenario once decided.

A scenario's runs go one after another (the sequential test reads each run before the next is
paid for); ``parallel`` scenarios run at once. After every recorded run the gate runs on all
recorded traces (:mod:`abw.sample.decision` reads it), so the stopping rule is the gate's own
verdict, with whatever statistics the gate uses. A run already on disk from an earlier
``abw sample`` is part of the sequence; new runs continue it.
"""

from __future__ import annotations

import shutil
import signal
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abw.faults import signals_held
from abw.sample.decision import ScenarioState, scenario_state, undecided
from abw.sample.record import build_trace, recorded_sequences, write_run
from abw.sample.runner import ProcessTable, RunResult, run_once
from abw.sample.scenarios import Scenario, load_scenarios
from abw.text import plural

if TYPE_CHECKING:
    from abw.models.report import GateReport
    from abw.traceio import TraceFile


@dataclass(frozen=True)
class Limits:
    """How many runs abw sample may pay for, and how long each may take."""

    max_runs: int = 50  # per scenario, counting runs recorded earlier
    budget_runs: int | None = None  # new runs in this invocation, over all scenarios
    timeout: float = 1800.0  # seconds per run
    parallel: int = 1  # scenarios running at once


@dataclass(frozen=True)
class RunEvent:
    """One recorded run, as progress reports it."""

    scenario_id: str
    sequence: int
    path: Path
    passed: bool | None  # None: the gate did not rate it
    problem: str | None  # why the run did not complete, or None
    stderr_tail: str
    state: ScenarioState


@dataclass
class SampleResult:
    states: dict[str, ScenarioState]
    new_runs: dict[str, int]
    failures: dict[str, int]  # execution failures among the new runs
    stopped: dict[str, str] = field(default_factory=dict)  # why a scenario stopped


class SampleInterrupted(Exception):
    """``abw sample`` was stopped from outside; the runs recorded so far are on disk."""

    def __init__(self, recorded: int) -> None:
        super().__init__(f"interrupted after recording {plural(recorded, 'new run')}")
        self.recorded = recorded


def _suffix(importer: str) -> str:
    from abw.importers import get_importer

    suffixes = get_importer(importer).suffixes
    return ".jsonl" if ".jsonl" in suffixes else suffixes[0]


class Sampler:
    """The state of one ``abw sample``: traces recorded, per-scenario states, runs in flight."""

    def __init__(
        self,
        scenarios_file: Path,
        baseline: Path,
        spec_path: Path,
        out: Path,
        limits: Limits,
        on_run: Callable[[RunEvent], None] | None = None,
    ) -> None:
        from abw.specio import load_spec
        from abw.traceio import load_traces

        self.file = load_scenarios(scenarios_file)
        self.base = scenarios_file.resolve().parent
        self.spec, self.spec_sha256 = load_spec(spec_path)
        self.spec_file = str(spec_path)
        self.baseline = load_traces(baseline)
        self.out = out
        self.limits = limits
        self.on_run = on_run or (lambda event: None)
        self.candidate: list[TraceFile] = []
        if out.is_dir() and any(out.rglob("*.json")):
            self.candidate = load_traces(out)
        self.files = Counter(t.trace.run.scenario_id for t in self.candidate)
        self.report: GateReport | None = None
        self.states = {s.id: undecided(s.id) for s in self.file.scenarios}
        self.new_runs = {s.id: 0 for s in self.file.scenarios}
        self.failures = {s.id: 0 for s in self.file.scenarios}
        self.next_sequence = {
            s.id: max(recorded_sequences(out, s.id), default=0) + 1 for s in self.file.scenarios
        }
        self.suffixes = {s.id: _suffix(s.importer) for s in self.file.scenarios}
        self.table = ProcessTable()
        if self.candidate:
            self._regate()

    # -- decisions ---------------------------------------------------------------------------

    def _regate(self) -> None:
        """Gate every recorded trace and read each scenario's state from the report."""
        from abw.gating import gate

        self.report = gate(
            self.baseline,
            self.candidate,
            self.spec,
            spec_file=self.spec_file,
            spec_sha256=self.spec_sha256,
        )
        for sid in self.states:
            self.states[sid] = scenario_state(self.report, sid)

    def max_runs(self, scenario: Scenario) -> int:
        return scenario.max_runs or self.limits.max_runs

    def recorded(self, scenario_id: str) -> int:
        """The runs of a scenario recorded in ``--out``: every file, whatever the statistics
        count (copies of one run count once there, and would never reach ``--max-runs``)."""
        return self.files[scenario_id]

    def most_new_runs(self) -> int:
        """The most new runs this invocation can start (for a progress bar)."""
        total = sum(
            max(0, self.max_runs(s) - self.recorded(s.id))
            for s in self.file.scenarios
            if not self.states[s.id].decided
        )
        budget = self.limits.budget_runs
        return total if budget is None else min(total, budget)

    def stop_reason(self, scenario: Scenario) -> str | None:
        """Why no further run of ``scenario`` is started now (None: one may be)."""
        state = self.states[scenario.id]
        if state.decided:
            return "decided"
        if self.recorded(scenario.id) >= self.max_runs(scenario):
            return f"reached max runs ({self.max_runs(scenario)})"
        budget = self.limits.budget_runs
        if budget is not None and sum(self.new_runs.values()) >= budget:
            return f"run budget spent ({budget})"
        return None

    # -- running -----------------------------------------------------------------------------

    def _launch(
        self, pool: ThreadPoolExecutor, scenario: Scenario, work_root: Path
    ) -> Future[RunResult]:
        sequence = self.next_sequence[scenario.id]
        self.next_sequence[scenario.id] += 1
        self.new_runs[scenario.id] += 1
        timeout = scenario.timeout or self.limits.timeout
        return pool.submit(
            run_once,
            scenario,
            base=self.base,
            work=work_root / f"{scenario.id}-{sequence}",
            sequence=sequence,
            timeout=timeout,
            suffix=self.suffixes[scenario.id],
            table=self.table,
        )

    def _record(self, scenario: Scenario, sequence: int, result: RunResult, work: Path) -> None:
        """Import, write atomically, re-gate; the raw transcript is deleted with ``work``."""
        from abw.traceio import load_trace

        try:
            trace = build_trace(scenario, result, work / "imported")
            path = write_run(self.out, scenario, sequence, trace)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        self.candidate.append(load_trace(path))
        self.files[scenario.id] += 1
        self._regate()
        assert self.report is not None
        status = next((r for r in self.report.runs if r.trace_file == str(path)), None)
        problem = getattr(trace.run, "execution_problem", None)
        if problem is not None:
            self.failures[scenario.id] += 1
        self.on_run(
            RunEvent(
                scenario.id,
                sequence,
                path,
                None if status is None else status.passed,
                problem,
                result.stderr_tail,
                self.states[scenario.id],
            )
        )

    def run(self) -> SampleResult:
        """Run until every scenario is decided or out of runs.

        SIGINT or SIGTERM ends the running agents, records every run that had finished (a
        signal during recording waits until the trace is written) and raises
        :class:`SampleInterrupted`.
        """
        work_root = Path(tempfile.mkdtemp(prefix="abw-sample-"))
        in_flight: dict[Future[RunResult], tuple[Scenario, int]] = {}
        recorded = 0
        pool = ThreadPoolExecutor(max_workers=max(1, self.limits.parallel))

        def record(future: Future[RunResult]) -> None:
            nonlocal recorded
            scenario, sequence = in_flight.pop(future)
            result = future.result() if not future.cancelled() else None
            if result is None or result.interrupted:
                return  # stopped by this interruption: not a run of the agent
            with signals_held():
                self._record(scenario, sequence, result, work_root / f"{scenario.id}-{sequence}")
            recorded += 1

        previous = _install_handlers()
        try:
            while True:
                for scenario in self._startable(in_flight.values()):
                    sequence = self.next_sequence[scenario.id]
                    in_flight[self._launch(pool, scenario, work_root)] = (scenario, sequence)
                if not in_flight:
                    break
                done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: in_flight[f][1]):
                    record(future)
        except KeyboardInterrupt:
            _SIGNALS.stopping = True  # (already stopping: the agents are ended, to the end)
            self.table.stop_all()
            pool.shutdown(wait=True, cancel_futures=True)
            for future in sorted(in_flight, key=lambda f: in_flight[f][1]):
                record(future)  # runs that finished before the stop are kept
            raise SampleInterrupted(recorded) from None
        finally:
            self.table.stop_all()
            _restore_handlers(previous)
            _SIGNALS.stopping = False
            pool.shutdown(wait=True, cancel_futures=True)
            shutil.rmtree(work_root, ignore_errors=True)
        stopped = {s.id: self.stop_reason(s) or "" for s in self.file.scenarios}
        return SampleResult(dict(self.states), dict(self.new_runs), dict(self.failures), stopped)

    def _startable(self, running: Any) -> list[Scenario]:
        """Scenarios to start a run of now, in file order: at most ``parallel`` runs at once,
        one per scenario and one per transcript glob (whose new files would be ambiguous)."""
        running = list(running)
        busy = {scenario.id for scenario, _ in running}
        globs = {scenario.transcript_glob(self.base) for scenario, _ in running}
        chosen: list[Scenario] = []
        for scenario in self.file.scenarios:
            if len(running) + len(chosen) >= self.limits.parallel:
                break
            pattern = scenario.transcript_glob(self.base)
            if scenario.id in busy or (pattern is not None and pattern in globs):
                continue
            if self.stop_reason(scenario) is None:
                chosen.append(scenario)
                busy.add(scenario.id)
                globs.add(pattern)
        return chosen


class _Signals:
    """SIGINT and SIGTERM as a KeyboardInterrupt in the main thread (held back while a finished
    run is being written: :func:`abw.faults.signals_held`, which hands a held signal to this
    handler right after); once ``abw sample`` is stopping (``stopping``), a further signal
    changes nothing: a second Ctrl-C cut the wait for the agents to end, and the SIGKILL for
    those that ignore SIGTERM was never sent."""

    def __init__(self) -> None:
        self.stopping = False

    def handle(self, signum: int, frame: object) -> None:
        if not self.stopping:
            raise KeyboardInterrupt


_SIGNALS = _Signals()


def _install_handlers() -> dict[int, Any]:
    """SIGTERM (and SIGINT) become a KeyboardInterrupt in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        previous[sig] = signal.signal(sig, _SIGNALS.handle)
    return previous


def _restore_handlers(previous: dict[int, Any]) -> None:
    for sig, handler in previous.items():
        signal.signal(sig, handler)
