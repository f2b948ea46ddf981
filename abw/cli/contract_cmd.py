"""``abw contract compile CONTRACT --out behavior.yaml``."""

from __future__ import annotations

from pathlib import Path

import click

from abw.cli.options import PathParam, check_spec_out, spec_out_options


@click.group()
def contract() -> None:
    """Formal behavior contracts (agent-behavior-contract/v0)."""


@contract.command("compile")
@click.argument("contract_path", type=PathParam())
@spec_out_options(required=False)
def compile_command(contract_path: Path, out: Path | None, force: bool) -> int:
    """Compile CONTRACT (C = (P, I, G, R)) into a runnable behavior spec (stdout without --out)."""
    from abw.atomic import write_atomic
    from abw.contract import load_contract_as_spec, spec_yaml, yaml_for_log

    if out is not None:
        check_spec_out(out, force, ("CONTRACT", contract_path))
    spec, digest = load_contract_as_spec(contract_path)
    text = spec_yaml(spec, source=contract_path.name, source_sha256=digest)
    if out is None:
        click.echo(yaml_for_log(text), nl=False)
    else:
        write_atomic(out, text)
        click.echo(f"abw: wrote {out}", err=True)
    return 0
