"""``abw spec init``: write a behavior spec computed from baseline traces."""

from __future__ import annotations

from pathlib import Path

import click


@click.group()
def spec() -> None:
    """Create and inspect behavior specs (behavior-spec/v0)."""


@spec.command("init")
@click.option(
    "--baseline",
    required=True,
    type=click.Path(path_type=Path),
    help="Folder (or file) of baseline traces.",
)
@click.option("--out", required=True, type=click.Path(path_type=Path), help="YAML file to write.")
@click.option("--id", "spec_id", default=None, help="Spec id (default: the --out file's stem).")
@click.option("--name", default=None, help="Human-readable spec name.")
def init(baseline: Path, out: Path, spec_id: str | None, name: str | None) -> int:
    """Infer required tools, budgets and default thresholds from BASELINE traces.

    Order constraints that held in every baseline run are written as commented suggestions:
    uncomment the ones that are rules.
    """
    from abw.atomic import write_atomic
    from abw.spec_init import infer, render_yaml
    from abw.traceio import load_traces

    inferred = infer(load_traces(baseline))
    write_atomic(out, render_yaml(inferred, spec_id or out.stem or "behavior-spec", name))
    click.echo(
        f"wrote {out}: {len(inferred.required_tools)} required tool(s), max_path_length "
        f"{inferred.max_path_length}, {len(inferred.order_suggestions)} order suggestion(s) "
        f"from {inferred.runs} baseline run(s)"
    )
    return 0
