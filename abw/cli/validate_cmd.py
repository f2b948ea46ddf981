"""``abw validate FILE...``."""

from __future__ import annotations

from pathlib import Path

import click

from abw.text import log_line


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(files: tuple[Path, ...]) -> int:
    """Check FILES against the schema their schema_version names; print each problem."""
    from abw.errors import AbwInputError
    from abw.validate import validate_file

    bad = 0
    for path in files:
        try:
            problems = validate_file(path)
        except AbwInputError as exc:
            click.echo(log_line(exc.one_line()), err=True)
            bad += 1
            continue
        for problem in problems:
            click.echo(log_line(problem.one_line()), err=True)
        if problems:
            bad += 1
        else:
            click.echo(log_line(f"{path}: ok"))
    return 2 if bad else 0
