"""``abw fingerprint TRACE...``: one stable behavior hash per trace file."""

from __future__ import annotations

import json
from pathlib import Path

import click

from abw.cli.options import PathParam
from abw.text import log_json, log_line


@click.command()
@click.argument("traces", nargs=-1, required=True, type=PathParam())
@click.option(
    "--with-content",
    is_flag=True,
    help="Also hash span input/output hashes (content; differs across machines and reruns).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def fingerprint(traces: tuple[Path, ...], with_content: bool, fmt: str) -> int:
    """Print a SHA-256 of each trace's behavior (span types, names, statuses, order, output).

    A folder stands for every *.json trace under it.

    Ids, times, durations, export metadata and (by default) content hashes are left out;
    see docs/fingerprint.md.
    """
    from abw.fingerprint import fingerprint as behavior_hash
    from abw.traceio import load_trace, trace_paths

    rows = []
    for path in [p for given in traces for p in trace_paths(given)]:
        trace_file = load_trace(path)
        rows.append(
            {
                "file": str(path),
                "trace_id": trace_file.trace.run.trace_id,
                "fingerprint": behavior_hash(trace_file.trace, with_content=with_content),
            }
        )
    if fmt == "json":
        click.echo(log_json(json.dumps(rows, indent=2, sort_keys=True)))
    else:
        for row in rows:
            click.echo(log_line(f"{row['fingerprint']}  {row['file']}"))
    return 0
