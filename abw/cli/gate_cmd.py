"""``abw gate``: the verdict, the report, and the exit code."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from abw.cli.options import (
    check_not_inputs,
    check_outputs,
    dask_options,
    exit_policy_options,
    output_option,
    path_option,
    trace_set_options,
)
from abw.text import log_line, plural

if TYPE_CHECKING:
    from abw.models.report import GateReport


def report_files(report_dir: Path | None) -> list[tuple[str, Path | None]]:
    """("--report-dir", each file ``write_reports`` puts into ``report_dir``)."""
    if report_dir is None or importlib.util.find_spec("abw.render") is None:
        return []
    from abw.render import report_paths

    return [("--report-dir", path) for path in report_paths(report_dir).values()]


def check_report_dir(
    report_dir: Path | None, option: str, files: list[tuple[str, Path | None, str]] = ()
) -> None:
    """Refuse, before any work is done, a report folder one of whose report files cannot be
    written (a folder in its place, say), and an output file (option, path, its format) that
    a report file of another format would overwrite: a usage error, nothing written."""
    if report_dir is None or importlib.util.find_spec("abw.render") is None:
        return  # (without the renderers, deliver says so)
    from abw.atomic import check_target
    from abw.errors import AbwInputError, naming_field
    from abw.render import report_paths

    with naming_field(option):
        for fmt, path in report_paths(report_dir).items():
            check_target(path)
            for file_option, file, file_fmt in files:
                if file is not None and file_fmt != fmt and file.resolve() == path.resolve():
                    raise AbwInputError(
                        f"{option} writes the {fmt} report to {path.name} there, over the "
                        f"{file_fmt} file {file_option} names; give {file_option} another name",
                        field=file_option,
                    )


def deliver(
    report: GateReport,
    code: int,
    out: Path | None,
    report_dir: Path | None,
    *,
    quiet: bool = False,
    out_option: str = "--out",
    preface: str = "",
) -> int:
    """Settle ``code`` as the verdict's exit code, then write the report files and print
    ``preface`` and the summary: a failure from here on (a full disk, a read-only file, a
    closed stdout) is one line and the exit code stays ``code`` (abw.faults). An output that
    cannot be written costs no other: the rest are written and the summary printed, then each
    failure is its line. ``abw gate`` and ``abw sample`` end here."""
    from abw.atomic import write_atomic
    from abw.errors import AbwInputError, naming_field
    from abw.faults import raise_each, verdict_reached
    from abw.gating import report_chunks

    verdict_reached(code)
    failures: list[AbwInputError] = []
    written: dict[str, Path] = {}
    if out is not None:
        try:
            with naming_field(out_option):
                write_atomic(out, report_chunks(report))  # never the whole text at once
            written["report"] = out
        except AbwInputError as exc:
            failures.append(exc)
    if report_dir is not None:
        try:
            if importlib.util.find_spec("abw.render") is None:
                raise AbwInputError("report rendering is not available", field="--report-dir")
            from abw.render import write_reports

            with naming_field("--report-dir"):
                paths = write_reports(report, report_dir, failures=failures, field="--report-dir")
                written.update(sorted(paths.items()))
        except AbwInputError as exc:
            failures.append(exc)
    if preface:
        click.echo(preface, nl=False)
    click.echo(log_line(report.summary) if quiet else format_summary(report), nl=quiet)
    if not quiet:
        for name, path in written.items():
            click.echo(f"{name}: {path}")
    raise_each(failures)
    return code


def format_summary(report: GateReport) -> str:
    """What a person reads in a terminal: the verdict, then each check that is not PASS."""
    lines = [report.summary]
    lines += [f"  input warning: {warning.message}" for warning in report.input_warnings]
    for check in report.checks:
        if check.verdict != "PASS":
            lines.append(f"  {check.verdict:<12} {check.id}: {check.message}")
    passed = sum(c.verdict == "PASS" for c in report.checks)
    lines.append(f"  {passed} of {plural(len(report.checks), 'check')} passed.")
    return "\n".join(log_line(line) for line in lines) + "\n"


@click.command("gate")
@trace_set_options
@path_option("--spec", "spec_path", help="The behavior-spec/v0 YAML.")
@path_option(
    "--contract",
    "contract_path",
    help="An agent-behavior-contract/v0 file, compiled in place of --spec.",
)
@output_option("--out", help="gate-report.json.")
@output_option(
    "--report-dir", help="Also write every report format (json, html, markdown, sarif, junit) here."
)
@path_option(
    "--latent",
    help="Folder with baseline/ and candidate/ representation trajectories (advisory only).",
)
@exit_policy_options
@click.option("--fail-on-warn", is_flag=True, help="Same as --fail-on warn.")
@click.option(
    "--strict",
    is_flag=True,
    help="Every assertion counts as severity error: a drifted or unknown warn/info assertion "
    "FAILs or is INCONCLUSIVE (as the spec's strict: true).",
)
@path_option(
    "--previous",
    help="The latest gate-report.json of this candidate: check that the runs extend its "
    "sequence (else the sequence restarts at a spent-down level). An older report gives "
    "back the levels the gates after it spent.",
)
@click.option("--timestamp", is_flag=True, help="Record generated_at (breaks byte-identity).")
@dask_options("Summarize the candidate runs", "same report")
@click.option("--quiet", "-q", is_flag=True, help="Print only the verdict line.")
def gate_command(
    baseline: Path,
    candidate: Path,
    spec_path: Path | None,
    contract_path: Path | None,
    out: Path | None,
    report_dir: Path | None,
    latent: Path | None,
    fail_on: str,
    fail_on_warn: bool,
    allow_inconclusive: bool,
    strict: bool,
    previous: Path | None,
    timestamp: bool,
    workers: int | None,
    scheduler: str | None,
    quiet: bool,
) -> int:
    """Gate CANDIDATE traces against BASELINE traces under a behavior spec.

    Exit codes: 0 PASS or WARN, 1 FAIL (or WARN with --fail-on warn), 3 INCONCLUSIVE
    (0 with --allow-inconclusive), 2 invalid input.
    """
    from abw.errors import AbwInputError
    from abw.gcpause import gc_paused

    if quiet:  # no progress bar while loading many traces (abw.progress)
        os.environ["ABW_NO_PROGRESS"] = "1"

    if (spec_path is None) == (contract_path is None):
        raise AbwInputError("give exactly one of --spec and --contract", field="--spec")
    if workers is not None and scheduler is not None:
        raise AbwInputError("give at most one of --workers and --scheduler", field="--workers")
    # a path of the wrong kind is a usage error, found before the gate
    check_outputs(("--out", out, False), ("--report-dir", report_dir, True))
    check_report_dir(report_dir, "--report-dir", [("--out", out, "json")])
    check_not_inputs(
        [("--out", out), *report_files(report_dir)],
        [
            ("--baseline", baseline),
            ("--candidate", candidate),
            ("--spec", spec_path),
            ("--contract", contract_path),
            ("--latent", latent),
        ],
    )
    # building the models at import, load, gate and report writing allocate millions of
    # acyclic objects (docs/performance.md)
    with gc_paused():
        from abw.gating import run_gate
        from abw.verdicts import exit_code

        if workers is not None or scheduler is not None:
            from abw.shard import run_gate_distributed

            report = run_gate_distributed(
                baseline,
                candidate,
                spec_path,
                contract=contract_path,
                workers=workers,
                scheduler=scheduler,
                latent=latent,
                strict=strict,
                previous=previous,
            )
        elif contract_path is not None:
            from abw.contract import run_contract_gate

            report = run_contract_gate(
                baseline, candidate, contract_path, latent=latent, strict=strict, previous=previous
            )
        else:
            report = run_gate(
                baseline, candidate, spec_path, latent=latent, strict=strict, previous=previous
            )
        if timestamp:
            from datetime import UTC, datetime

            stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            report = report.model_copy(update={"generated_at": stamp})
        # the verdict is settled: from here on a failure (a full disk, a read-only folder, a closed
        # stdout) is reported in one line and the exit code stays the verdict's (abw.faults)
        code = exit_code(
            report.verdict,
            fail_on_warn=fail_on_warn or fail_on == "warn",
            allow_inconclusive=allow_inconclusive,
        )
        return deliver(report, code, out, report_dir, quiet=quiet)
