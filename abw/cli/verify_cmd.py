"""``abw verify-report``: does a gate report judge exactly these inputs?"""

from __future__ import annotations

from pathlib import Path

import click

from abw.cli.options import PathParam


@click.command("verify-report")
@click.argument("report", type=PathParam())
@click.option("--baseline", required=True, type=PathParam())
@click.option("--candidate", required=True, type=PathParam())
@click.option(
    "--spec",
    "spec_path",
    required=True,
    type=PathParam(),
    help="The spec (or contract) file the gate was given.",
)
@click.option(
    "--strict", is_flag=True, help="The gate was run with --strict (for gating it again)."
)
@click.option(
    "--previous",
    type=PathParam(),
    help="The earlier gate report the gate was given with --previous (for gating it again).",
)
@click.option("--quiet", "-q", is_flag=True, help="Print nothing; only the exit code.")
def verify_report(
    report: Path,
    baseline: Path,
    candidate: Path,
    spec_path: Path,
    strict: bool,
    previous: Path | None,
    quiet: bool,
) -> int:
    """Recompute the SHA-256 of the spec and every trace and compare them with REPORT's inputs;
    check that REPORT agrees with itself (verdict, summary, check verdicts) and, when the hashes
    match, gate the inputs again and compare every verdict. Each mismatch names its field.

    Exit codes: 0 the report judges exactly these inputs, 1 it does not, 2 invalid input.
    """
    from abw.faults import verdict_reached
    from abw.text import log_line
    from abw.verify_report import verify_report as verify

    result = verify(report, baseline, candidate, spec_path, strict=strict, previous=previous)
    code = verdict_reached(0 if result.ok else 1)  # kept if printing fails (abw.faults)
    if not quiet:
        if result.ok:
            click.echo(
                log_line(
                    f"ok: {report} judges exactly these inputs and agrees with itself "
                    f"({result.traces_checked} traces, digest {result.digest})"
                )
            )
        else:
            for problem in result.problems:
                click.echo(log_line(f"mismatch: {problem}"))
    return code
