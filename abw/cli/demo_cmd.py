"""``abw demo``: the refund-policy example end to end, with the three verdicts it exists for."""

from __future__ import annotations

from pathlib import Path

import click

from abw.cli.options import output_option, path_option


@click.command()
@output_option(
    "--out",
    default=Path("abw-demo-out"),
    show_default=True,
    help="Folder for traces, specs and reports.",
)
@path_option(
    "--example", help="The example folder (default: examples/refund-policy of this clone)."
)
def demo(out: Path, example: Path | None) -> int:
    """Import the refund agent's Claude Code transcripts, infer a spec from the baseline, accept
    the order constraint, then diff and gate three candidates: good (PASS), regressed (FAIL on
    policy_check before refund_commit, with identical final JSON) and small (INCONCLUSIVE).

    Exits 0 when the three verdicts come out as designed, 1 otherwise.
    """
    from abw.demo import run_demo

    outcomes, files = run_demo(out, example)
    click.echo(f"abw demo: refund-policy example -> {out}")
    click.echo(f"  traces     {files['traces']} (imported with `abw import claude`)")
    click.echo(f"  spec init  {files['generated_spec']}")
    click.echo(f"  reviewed   {files['spec']} (accepts policy_check before refund_commit)")
    click.echo("")
    for outcome in outcomes:
        mark = "" if outcome.verdict == outcome.expected else f" (expected {outcome.expected})"
        reason = outcome.summary.split(": ", 1)[-1]
        click.echo(f"  {outcome.candidate:<10} {outcome.verdict + mark:<13} {reason}")
        shown = outcome.files.get("html", outcome.files["json"])
        click.echo(f"  {'':<10} {'':<13} report: {shown}")
    click.echo("")
    click.echo(
        f"  reports per candidate in {out}/<candidate>/: "
        + ", ".join(sorted(p.name for p in outcomes[0].files.values()))
    )
    regressed = next(o for o in outcomes if o.candidate == "regressed")
    click.echo(
        "  explain:   abw explain 'behavior_contract.required_order[0]' --report "
        f"{regressed.files['json']}"
    )
    return 0 if all(o.verdict == o.expected for o in outcomes) else 1
