"""``abw explain CHECK_ID --report gate-report.json``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from abw.cli.options import PathParam


@click.command()
@click.argument("check_id")
@click.option(
    "--report",
    "report_path",
    default="gate-report.json",
    show_default=True,
    type=PathParam(),
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def explain(check_id: str, report_path: Path, fmt: str) -> int:
    """Explain one check of a gate report: its inputs, violating spans and why."""
    from abw.explain import explain as explain_text
    from abw.explain import find_check
    from abw.render import load_report

    report = load_report(report_path)
    if fmt == "json":
        check = find_check(report, check_id)
        from abw.text import log_json

        click.echo(log_json(json.dumps(check.model_dump(mode="json"), indent=2, sort_keys=True)))
    else:
        click.echo(explain_text(report, check_id), nl=False)
    return 0
