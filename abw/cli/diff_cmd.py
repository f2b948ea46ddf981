"""``abw diff``: how candidate paths moved from the baseline, for people or machines."""

from __future__ import annotations

import json
from pathlib import Path

import click

from abw.cli.options import check_not_inputs, check_outputs, output_option, trace_set_options
from abw.text import log_line, plural


def join_path(names: list[str]) -> str:
    """``a > b > b > b > c`` as ``a > b ×3 > c``: long agent paths stay readable."""
    parts: list[str] = []
    for name in names:
        if parts and parts[-1][0] == name:
            parts[-1][1] += 1
        else:
            parts.append([name, 1])
    return " > ".join(n if k == 1 else f"{n} \u00d7{k}" for n, k in parts)


#: Diverging runs listed by name in the text output (all of them are in --format json).
LISTED_RUNS = 10


def _run_lines(r) -> list[str]:  # DiffResult
    """Every diverging run (up to LISTED_RUNS), farthest first, by trace id and file."""
    distance = {run.trace_file: run for run in r.per_run}
    runs = sorted(
        r.divergences,
        key=lambda d: (-distance[d.trace_file].path_edit_distance, d.trace_id, d.trace_file),
    )
    lines = [f"  diverging runs        {len(runs)} of {r.candidate_runs}"]
    for d in runs[:LISTED_RUNS]:
        near = distance[d.trace_file]
        lines.append(
            f"    {d.trace_id} ({d.trace_file}): edit distance {near.path_edit_distance:.3f}, "
            f"step {d.step} {d.candidate_tool or '<end>'} "
            f"(nearest baseline {near.nearest_baseline_trace_id or '-'})"
        )
    if len(runs) > LISTED_RUNS:
        lines.append(f"    ... and {len(runs) - LISTED_RUNS} more (--format json lists every run)")
    return lines


def format_text(results: list) -> str:  # list[DiffResult]
    """A short plain-text account of each scenario's diff."""
    lines: list[str] = []
    for r in results:
        lines.append(
            f"scenario {r.scenario_id or '(none)'}: {plural(r.baseline_runs, 'baseline run')}, "
            f"{plural(r.candidate_runs, 'candidate run')}"
        )
        if not r.candidate_runs or not r.baseline_runs:
            side = "candidate" if not r.candidate_runs else "baseline"
            lines.append(f"  no {side} runs for this scenario: nothing to compare")
            continue
        lines.append(
            f"  path edit distance    mean {r.path_edit_distance_mean:.3f}  "
            f"max {r.path_edit_distance_max:.3f}"
        )
        lines.append(f"  fingerprint distance  {r.fingerprint_distance:.3f}")
        lines.append(f"  tool Jaccard distance {r.tool_jaccard_distance:.3f}")
        if r.tools_new:
            lines.append(f"  tools new             {', '.join(r.tools_new)}")
        if r.tools_missing:
            lines.append(f"  tools missing         {', '.join(r.tools_missing)}")
        d = r.first_divergence
        if d is None:
            lines.append("  every candidate path is a baseline path")
            continue
        lines.append(
            f"  first divergence      step {d.step} in {d.trace_id} ({d.trace_file}): "
            f"{d.candidate_tool or '<end>'} where the baseline had "
            f"{', '.join(d.baseline_alternatives) or 'nothing'}"
        )
        lines.append(f"    after               {join_path(d.common_prefix) or '(start)'}")
        lines.append(f"    candidate path      {join_path(d.candidate_path) or '(empty)'}")
        lines.append(f"    nearest baseline    {join_path(d.baseline_path) or '(empty)'}")
        lines += _run_lines(r)
    return "\n".join(log_line(line) for line in lines) + "\n"


@click.command("diff")
@trace_set_options
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@output_option("--out", help="Write here.")
def diff_command(baseline: Path, candidate: Path, fmt: str, out: Path | None) -> int:
    """Compare candidate paths with the baseline: edit distance, fingerprint, Jaccard,
    first divergent step, tools new and missing."""
    from abw.atomic import write_atomic
    from abw.diffing import diff
    from abw.traceio import load_traces

    check_outputs(("--out", out, False))
    check_not_inputs(
        [("--out", out)], [("--baseline", baseline), ("--candidate", candidate)], what="diff"
    )
    results = diff(load_traces(baseline), load_traces(candidate))
    if fmt == "json":
        text = (
            json.dumps([r.model_dump(mode="json") for r in results], indent=2, sort_keys=True)
            + "\n"
        )
    else:
        text = format_text(results)
    if out is None:
        from abw.text import log_json

        click.echo(log_json(text) if fmt == "json" else text, nl=False)
    else:
        write_atomic(out, text)
        click.echo(f"wrote {out}", err=True)
    return 0
