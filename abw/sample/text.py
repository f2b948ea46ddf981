"""What ``abw sample`` prints: a line per recorded run and a summary per scenario (the CLI and
the Action print the same text)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from abw.text import log_line, plural

if TYPE_CHECKING:
    from abw.sample.loop import RunEvent, SampleResult


def run_line(event: RunEvent) -> str:
    """One line per recorded run: what it was, and where its scenario stands now."""
    state = event.state
    if event.problem is not None:
        outcome = f"did not complete: {event.problem}"
        if event.stderr_tail:
            outcome += f" (stderr: {event.stderr_tail})"
    else:
        outcome = {True: "passed", False: "failed", None: "recorded"}[event.passed]
    standing = f"{plural(state.n, 'run')}, {state.passed} passed, {state.evidence}: " + (
        f"decided {state.verdict}" if state.decided else "undecided"
    )
    return log_line(f"{event.scenario_id} #{event.sequence}: {outcome}; {standing}")


def sample_summary(result: SampleResult) -> str:
    """Per scenario: the verdict, the runs it took, and why sampling stopped."""
    lines = []
    for sid, state in result.states.items():
        stopped = result.stopped.get(sid) or "stopped"
        failures = result.failures[sid]
        fails = f", {failures} did not complete" if failures else ""
        lines.append(
            f"  {sid}: {state.verdict} ({stopped}) after {plural(state.n, 'run')}, "
            f"{result.new_runs[sid]} new{fails}; {state.passed} passed, {state.evidence}"
        )
        lines.append(f"    {state.why}")
    total = sum(result.new_runs.values())
    head = (
        f"abw sample: {plural(total, 'new agent run')} over "
        f"{plural(len(result.states), 'scenario')}"
    )
    return "\n".join(log_line(line) for line in [head, *lines]) + "\n"
