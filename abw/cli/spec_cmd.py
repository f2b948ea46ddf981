"""``abw spec init`` (a behavior spec computed from baseline traces) and ``abw spec convert``
(a peer tool's contract as a behavior spec)."""

from __future__ import annotations

from pathlib import Path

import click

from abw.cli.options import PathParam, check_spec_out, spec_out_options


@click.group()
def spec() -> None:
    """Create and inspect behavior specs (behavior-spec/v0)."""


@spec.command("init")
@click.option(
    "--baseline",
    required=True,
    type=PathParam(),
    help="Folder (or file) of baseline traces.",
)
@spec_out_options(required=True)
@click.option("--id", "spec_id", default=None, help="Spec id (default: the --out file's stem).")
@click.option("--name", default=None, help="Human-readable spec name.")
def init(baseline: Path, out: Path, spec_id: str | None, name: str | None, force: bool) -> int:
    """Infer required tools, budgets and default thresholds from BASELINE traces.

    Order constraints that held in every baseline run are written as commented suggestions:
    uncomment the ones that are rules.
    """
    from abw.atomic import write_atomic
    from abw.gating.vacuity import observed, spec_findings
    from abw.spec_init import infer, render_yaml
    from abw.specio import spec_from_text
    from abw.text import log_line, plural
    from abw.traceio import load_traces

    check_spec_out(out, force)
    traces = load_traces(baseline)
    inferred = infer(traces)
    text = render_yaml(inferred, spec_id or out.stem or "behavior-spec", name)
    write_atomic(out, text)
    click.echo(
        f"wrote {out}: {plural(len(inferred.required_tools), 'required tool')}, max_path_length "
        f"{inferred.max_path_length}, {plural(len(inferred.order_suggestions), 'order suggestion')}"
        f" from {plural(inferred.runs, 'baseline run')}"
    )
    # vacuous names, if any; of the text written (reading --out back would block on a pipe)
    for line in spec_findings(spec_from_text(text, out), observed(traces)):
        click.echo(log_line(f"warning: {out}: {line}"), err=True)
    incomplete = _incomplete(traces)
    if incomplete:
        click.echo(log_line(f"warning: {out}: {incomplete}"), err=True)
    return 0


def _incomplete(traces: list) -> str:
    """A sentence on the baseline runs that did not complete (error, cancelled, unknown), which
    spec init reads like the others; empty when every run completed."""
    from collections import Counter

    from abw.text import plural

    ended = Counter(t.trace.run.final_status for t in traces)
    ended.pop("success", None)
    if not ended:
        return ""
    how = ", ".join(f"{count} {status}" for status, count in sorted(ended.items()))
    return (
        f"{sum(ended.values())} of {plural(len(traces), 'baseline run')} did not complete "
        f"({how}); their spans count too (required_tools holds only what they also did, the "
        "budgets cover their errors): re-record or remove them unless they are the behavior "
        "you accept"
    )


@spec.command("convert")
@click.argument("contract_path", type=PathParam())
@click.option(
    "--from",
    "source_format",
    type=click.Choice(["behaviorlock", "agent-invariants"]),
    default=None,
    help="The contract's format (default: recognised from its shape).",
)
@spec_out_options(required=False)
@click.option("--id", "spec_id", default=None, help="Spec id (default: the contract's name).")
def convert(
    contract_path: Path,
    source_format: str | None,
    out: Path | None,
    force: bool,
    spec_id: str | None,
) -> int:
    """Convert a behaviorlock or agent-invariants CONTRACT into a behavior spec (stdout without
    --out). Each construct abw cannot express exactly is printed on stderr, one line each, and
    written into the spec's header; none is dropped in silence."""
    from abw.atomic import write_atomic
    from abw.contract import spec_yaml, yaml_for_log
    from abw.errors import AbwInputError
    from abw.hashing import sha256_hex
    from abw.importers.rawio import load_json, read_raw
    from abw.spec_convert import convert as convert_contract
    from abw.spec_convert import header

    if out is not None:
        check_spec_out(out, force, ("CONTRACT", contract_path))
    raw = read_raw(contract_path)
    document = load_json(raw, contract_path)
    try:
        conversion = convert_contract(document, source_format, spec_id)
    except AbwInputError as exc:
        line = None if exc.field is None else _field_line(raw, exc.field)
        raise AbwInputError(exc.message, file=contract_path, line=line, field=exc.field) from None
    text = header(conversion, contract_path.name, sha256_hex(raw)) + spec_yaml(conversion.spec)
    from abw.text import log_line, plural

    for note in conversion.unexpressible:
        click.echo(log_line(f"abw: not expressed exactly: {note}"), err=True)
    if out is None:
        click.echo(yaml_for_log(text), nl=False)
    else:
        write_atomic(out, text)
        notes = plural(len(conversion.unexpressible), "note")
        click.echo(f"abw: wrote {out} ({notes})", err=True)
    return 0


def _field_line(raw: bytes, field: str) -> int | None:
    """The line of the contract's ``rules.3.tools`` (a dotted field, indexes as numbers)."""
    from abw.jsonlocate import value_line

    location = [int(p) if p.isdigit() else p for p in field.split(".")]
    return value_line(raw, location)
