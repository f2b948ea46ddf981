"""``abw report --input gate-report.json --out PATH [--out PATH ...] [--format FMT]``."""

from __future__ import annotations

import os
from pathlib import Path

import click

from abw.cli.options import PathParam, output_option

_FORMATS = ("html", "markdown", "md", "sarif", "junit", "json")


@click.command()
@click.option(
    "--input",
    "-i",
    "input_path",
    required=True,
    type=PathParam(dir_okay=False),
    help="The gate-report/v0 JSON written by abw gate.",
)
@output_option(
    "--out",
    "-o",
    "outs",
    multiple=True,
    help="Output file; the format comes from the extension (.html .md .sarif .junit.xml/.xml "
    ".json). Repeat for several outputs.",
)
@output_option(
    "--out-dir",
    file_okay=False,
    help="Write all five formats here under their standard names.",
)
@click.option(
    "--format",
    "-f",
    "formats",
    multiple=True,
    type=click.Choice(_FORMATS, case_sensitive=False),
    help="Format of the --out file(s): one for all, or one per --out in order.",
)
@click.option("--details-url", help="Link to the full report (HTML artifact or CI run).")
@click.option(
    "--max-chars",
    type=click.IntRange(min=1000),
    default=65_536,
    show_default=True,
    help="Markdown size limit (65536 for a PR comment, 1048576 for a step summary).",
)
@click.option("--sarif-category", help="SARIF automationDetails.id (default abw/<spec id>/).")
@click.option(
    "--base-dir",
    help="Make absolute trace paths under this folder (the checkout) repository-relative in SARIF.",
)
def report(
    input_path: Path,
    outs: tuple[Path, ...],
    out_dir: Path | None,
    formats: tuple[str, ...],
    details_url: str | None,
    max_chars: int,
    sarif_category: str | None,
    base_dir: str | None,
) -> int:
    """Render a gate report as HTML, Markdown, SARIF 2.1.0, JUnit XML or JSON.

    Each format is a view of the same report; none recomputes the verdict. Exit code 0 when the
    files were written, 2 for bad input or usage.
    """
    from abw.atomic import write_atomic
    from abw.cli.gate_cmd import check_report_dir, report_files
    from abw.cli.options import check_not_inputs, check_outputs
    from abw.errors import AbwInputError, naming_field
    from abw.faults import raise_each
    from abw.render import (
        FORMATS,
        format_for_path,
        load_report,
        normalize_format,
        payload,
        write_reports,
    )
    from abw.render.markdown import HeadingTooLong

    if not outs and out_dir is None:
        raise AbwInputError("give --out PATH (repeatable) or --out-dir DIR", field="--out")
    if formats and not outs:  # (not ignored: --out-dir writes every format)
        raise AbwInputError(
            "--format names the format of --out files; --out-dir writes all five formats",
            field="--format",
        )
    if formats and len(formats) not in (1, len(outs)):
        raise AbwInputError(
            f"{len(formats)} --format values for {len(outs)} --out files: give one, or one per "
            "--out",
            field="--format",
        )
    plan: list[tuple[Path, str]] = []
    for i, out in enumerate(outs):
        if formats:
            fmt = normalize_format(formats[0] if len(formats) == 1 else formats[i])
        else:
            guessed = format_for_path(out)
            if guessed is None:
                raise AbwInputError(
                    "cannot tell the format from the extension; use --format "
                    "(html, markdown, sarif, junit, json)",
                    file=out,
                    field="--out",
                )
            fmt = guessed
        plan.append((out, fmt))

    check_outputs(*(("--out", out, False) for out, _ in plan), ("--out-dir", out_dir, True))
    if out_dir is not None:
        check_report_dir(out_dir, "--out-dir", [("--out", out, fmt) for out, fmt in plan])
    views = [("--out", out) for out, fmt in plan if fmt != "json"]  # (JSON: the same report)
    views += [(option, path) for option, path in report_files(out_dir) if path.suffix != ".json"]
    check_not_inputs(views, [("--input", input_path)])
    report_model = load_report(input_path)
    options = {
        "details_url": details_url,
        "max_chars": max_chars,
        "category": sarif_category,
        "base_dir": os.path.abspath(base_dir) if base_dir else None,  # (--base-dir . too)
    }
    written: list[tuple[str, Path]] = []
    failures: list[AbwInputError] = []  # (one output that cannot be written costs no other)
    try:
        for out, fmt in plan:
            try:
                with naming_field("--out"):
                    written.append((fmt, write_atomic(out, payload(report_model, fmt, options))))
            except HeadingTooLong:
                raise
            except AbwInputError as exc:
                failures.append(exc)
        if out_dir is not None:
            paths = write_reports(
                report_model, out_dir, FORMATS, failures=failures, field="--out-dir", **options
            )
            written += list(paths.items())
    except HeadingTooLong as exc:
        exc.field = "--max-chars"
        raise
    for fmt, path in written:
        click.echo(f"{fmt:8} {path}")
    raise_each(failures)
    return 0
