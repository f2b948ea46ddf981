"""``abw sample``: run the agent until each scenario's verdict is decided, then gate."""

from __future__ import annotations

import os
from pathlib import Path

import click

from abw.cli.options import exit_policy_options, output_option, path_option


@click.command("sample")
@path_option("--scenarios", "scenarios_path", required=True, help="The scenarios.yaml.")
@path_option("--baseline", required=True, help="Folder (or file) of baseline traces.")
@path_option("--spec", "spec_path", required=True, help="The behavior-spec/v0 YAML.")
@output_option(
    "--out", required=True, help="Candidate traces folder (runs already there are continued)."
)
@output_option("--report", "report_path", help="Write gate-report.json here at the end.")
@output_option("--report-dir", help="Also write every report format here at the end.")
@click.option(
    "--parallel",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Scenarios running at once (a scenario's runs are always one after another).",
)
@click.option(
    "--max-runs",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Most runs per scenario, counting runs already in --out.",
)
@click.option(
    "--budget-runs",
    type=click.IntRange(min=0),
    default=None,
    help="Most new agent runs in this invocation, over all scenarios.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=1800.0,
    show_default=True,
    help="Seconds one run may take; past it the run is stopped.",
)
@exit_policy_options
@click.option("--quiet", "-q", is_flag=True, help="No per-run lines; only the summary.")
def sample_command(
    scenarios_path: Path,
    baseline: Path,
    spec_path: Path,
    out: Path,
    report_path: Path | None,
    report_dir: Path | None,
    parallel: int,
    max_runs: int,
    budget_runs: int | None,
    timeout: float,
    fail_on: str,
    allow_inconclusive: bool,
    quiet: bool,
) -> int:
    """Run the agent per scenario, import each run, and stop each scenario once the gate's
    sequential statistic decides it (or a hard check fails under failing_runs: forbid).

    The report is exactly what `abw gate --baseline BASELINE --candidate OUT --spec SPEC`
    writes. Exit codes as for abw gate: 0 PASS or WARN, 1 FAIL, 3 INCONCLUSIVE, 2 invalid input
    or interrupted (the runs recorded so far stay in OUT; the same command continues).
    """
    from abw.cli.gate_cmd import check_report_dir, deliver, report_files
    from abw.cli.options import (
        check_folders_apart,
        check_not_inputs,
        check_outputs,
        check_writable,
    )
    from abw.faults import verdict_reached
    from abw.gating import run_gate
    from abw.progress import Progress
    from abw.sample.loop import Limits, SampleInterrupted, Sampler
    from abw.sample.text import run_line, sample_summary
    from abw.verdicts import exit_code

    if quiet:
        os.environ["ABW_NO_PROGRESS"] = "1"
    outputs = (
        ("--out", out, True),
        ("--report", report_path, False),
        ("--report-dir", report_dir, True),
    )
    check_outputs(*outputs)  # before any agent run is paid for
    check_writable(*outputs)
    check_report_dir(report_dir, "--report-dir", [("--report", report_path, "json")])
    check_folders_apart(("--out", out), ("--baseline", baseline))
    check_not_inputs(
        [("--report", report_path), *report_files(report_dir)],
        [("--baseline", baseline), ("--spec", spec_path), ("--scenarios", scenarios_path)],
        trace_folder=("--out", out),
    )
    limits = Limits(max_runs, budget_runs, timeout, parallel)
    sampler = Sampler(scenarios_path, baseline, spec_path, out, limits)
    bar = Progress(sampler.most_new_runs(), "abw sample runs", quiet=quiet)

    def on_run(event) -> None:
        bar.advance()
        if not quiet:
            bar.write_line(run_line(event))

    sampler.on_run = on_run
    try:
        result = sampler.run()
    except SampleInterrupted as exc:
        bar.close()
        click.echo(
            f"abw sample: {exc}; they are in {out}. Run the same command to continue.", err=True
        )
        return 2
    finally:
        bar.close()
    summary = sample_summary(result)
    if not out.is_dir() or not any(out.rglob("*.json")):
        code = verdict_reached(exit_code("INCONCLUSIVE", allow_inconclusive=allow_inconclusive))
        click.echo(summary + "abw sample: no runs recorded; nothing to gate.")
        return code
    report = run_gate(baseline, out, spec_path)  # what `abw gate` gives on these traces
    code = exit_code(
        report.verdict, fail_on_warn=fail_on == "warn", allow_inconclusive=allow_inconclusive
    )
    return deliver(report, code, report_path, report_dir, out_option="--report", preface=summary)
