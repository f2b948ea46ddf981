"""``abw validate FILE...`` (with ``--baseline DIR``: also tool names no baseline run shows)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any

import click

from abw.cli.options import PathParam
from abw.models import CONTRACT_SCHEMA, SPEC_SCHEMA
from abw.text import log_line


@click.command()
@click.argument("files", nargs=-1, required=True, type=PathParam())
@click.option(
    "--baseline",
    type=PathParam(),
    default=None,
    help="Folder (or file) of traces: also report what a spec or contract names that no run "
    "there shows.",
)
def validate(files: tuple[Path, ...], baseline: Path | None) -> int:
    """Check FILES against the schema their schema_version names; print each problem.

    A folder stands for every *.json file under it (as for fingerprint and gate); a folder
    named like a document (``x.json/``) is refused as one. With --baseline, every behavior spec
    or contract among FILES is also checked for references no run of those traces shows (tool
    names and span types, argument and output fields, selectors, scenarios): a check on such
    a reference cannot PASS (the gate makes it INCONCLUSIVE).
    """
    from dataclasses import replace

    from abw.errors import AbwInputError
    from abw.hints import with_hint
    from abw.traceio import trace_paths
    from abw.validate import validate_file

    seen = None
    if baseline is not None:
        from abw.traceio import load_traces

        seen = _Baseline(load_traces(baseline))
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
                vacuous, misspelt = (
                    _findings(path, seen) if not problems and seen is not None else ([], [])
                )
            except AbwInputError as exc:
                exc.message = with_hint(exc.message, path)
                click.echo(log_line(exc.one_line()), err=True)
                bad += 1
                continue
            for problem in problems[:-1] if problems else ():
                click.echo(log_line(problem.one_line()), err=True)
            if problems:
                last = problems[-1]
                hinted = replace(last, message=with_hint(last.message, path))
                click.echo(log_line(hinted.one_line()), err=True)
                bad += 1
            elif vacuous:
                for line in vacuous:
                    click.echo(log_line(line), err=True)
                bad += 1
            else:
                for line in misspelt:
                    click.echo(log_line(f"warning: {line}"), err=True)
                click.echo(log_line(f"{path}: ok"))
    return 2 if bad else 0


class _Baseline:
    """The baseline runs ``--baseline`` names, seen as a whole and (for specs with scoped
    rules, on first use) one run at a time."""

    def __init__(self, traces: list[Any]) -> None:
        from abw.gating.vacuity import observed

        self.traces = traces
        self.seen = observed(traces)

    @cached_property
    def runs(self) -> dict[str | None, list[Any]]:
        from abw.gating.reach import by_scenario

        return by_scenario(self.traces)


def _findings(path: Path, baseline: _Baseline) -> tuple[list[str], list[str]]:
    """One line per part of a spec, or of the spec a contract compiles to (as the gate runs
    it), whose references the baseline does not show (abw.gating.vacuity.spec_findings), or
    whose triggers no baseline run of its scenarios shows (abw.gating.reach); and, apart (the
    gate WARNs on them), one per part forbidding a name that looks misspelt."""
    from abw.gating.reach import spec_scope_findings
    from abw.gating.vacuity import spec_findings, spec_misspellings
    from abw.validate import read_document

    source = read_document(path)  # (read once: the spec's findings come from these bytes)
    document = source.document
    kind = document.get("schema_version") if isinstance(document, dict) else None
    if kind == SPEC_SCHEMA:
        from abw.specio import spec_from_document

        text = source.raw.decode("utf-8")
        spec = spec_from_document(document, path, text)
        line_of = source.line_of
    elif kind == CONTRACT_SCHEMA:
        from abw.contract import load_contract_as_spec

        spec, _ = load_contract_as_spec(path)
        line_of = None  # its findings name the spec it compiles to, not its own lines
    else:
        return [], []
    findings = spec_findings(spec, baseline.seen) + spec_scope_findings(spec, lambda: baseline.runs)
    misspelt = spec_misspellings(spec, baseline.seen)
    return (
        [f"{_where(path, finding, line_of)}: {finding}" for finding in findings],
        [f"{_where(path, line, line_of)}: {line}" for line in misspelt],
    )


def _where(path: Path, finding: str, line_of: Callable[[list], int | None] | None) -> str:
    """``path:line`` of the spec part a finding names (``invariants.required_tools[0]``,
    ``rules[2] (id)``, ``output.expected``), or ``path`` when its line is unknown."""
    import re

    match = re.match(r"([A-Za-z_.]+)(?:\[(\d+)\])?[: ]", finding)
    if line_of is None or match is None:
        return str(path)
    location: list[str | int] = match.group(1).split(".")
    if match.group(2) is not None:
        location.append(int(match.group(2)))
    line = line_of(location)
    return str(path) if line is None else f"{path}:{line}"
