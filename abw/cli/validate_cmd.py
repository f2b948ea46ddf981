"""``abw validate FILE...``."""

from __future__ import annotations

from pathlib import Path

import click

from abw.text import log_line


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(files: tuple[Path, ...]) -> int:
    """Check FILES against the schema their schema_version names; print each problem.

    A folder stands for every *.json file under it (as for fingerprint and gate); a folder
    named like a document (``x.json/``) is refused as one.
    """
    from abw.errors import AbwInputError
    from abw.hints import with_hint
    from abw.traceio import trace_paths
    from abw.validate import validate_file

    bad = 0
    for given in files:
        try:
            # a folder named like a document (x.json/) is a file that is missing, not a set
            folder = given.is_dir() and given.suffix.lower() not in (".json", ".yaml", ".yml")
            paths = trace_paths(given) if folder else [given]
        except AbwInputError as exc:
            click.echo(log_line(exc.one_line()), err=True)
            bad += 1
            continue
        for path in paths:
            try:
                problems = validate_file(path)
            except AbwInputError as exc:
                exc.message = with_hint(exc.message, path)
                click.echo(log_line(exc.one_line()), err=True)
                bad += 1
                continue
            for problem in problems[:-1] if problems else ():
                click.echo(log_line(problem.one_line()), err=True)
            if problems:
                last = problems[-1]
                text = f"{last.file}: {last.path}: {with_hint(last.message, path)}"
                click.echo(log_line(text), err=True)
                bad += 1
            else:
                click.echo(log_line(f"{path}: ok"))
    return 2 if bad else 0
