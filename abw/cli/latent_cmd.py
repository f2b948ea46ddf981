"""``abw latent`` / ``abw-latent``: representation trajectories of an open-weight model.

``demo`` reads step texts given on the command line or in a file; ``trace`` builds the steps
from raw Claude Code transcripts, one per path span of the trace ``abw import claude`` would
write. Only hashes of the texts are written. torch and transformers load only when a
subcommand runs; without them the command says how to install them and exits 2.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from abw.cli import RootGroup
from abw.cli.options import (
    PathParam,
    check_not_inputs,
    check_outputs,
    output_option,
    refuse_other_kind,
)
from abw.errors import AbwInputError, not_utf8

DEFAULT_MODEL = "Qwen/Qwen2.5-0.5B-Instruct"
#: The options passed on to ``abw.latent.run.compute``.
EXTRACTION_OPTIONS = (
    "layer",
    "keep_vectors",
    "context",
    "method",
    "max_step_tokens",
    "max_context_tokens",
    "batch_tokens",
)


def _choice(name: str, choices: list[str], help: str | None = None) -> Callable[..., Any]:
    """An option with a fixed set of values; the first is the default."""
    return click.option(
        name, default=choices[0], show_default=True, type=click.Choice(choices), help=help
    )


def _model_options(func: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--model",
            default=DEFAULT_MODEL,
            show_default=True,
            help="Hugging Face hub id (from the local cache, else downloaded) or a local folder.",
        ),
        click.option(
            "--layer",
            default=-1,
            show_default=True,
            type=int,
            help="Hidden-state layer: 0 = embeddings, -1 = final; negative counts from the end.",
        ),
        _choice("--device", ["auto", "cpu", "cuda"]),
        _choice(
            "--dtype",
            ["auto", "float32", "bfloat16", "float16"],
            "auto: bfloat16 on CUDA, float32 on the CPU. Entropy is always float32.",
        ),
        _choice(
            "--keep-vectors",
            ["none", "full", "f16"],
            "Also store each hidden state: full floats, or base64 float16 (vector_b64).",
        ),
        _choice(
            "--context",
            ["cumulative", "step"],
            "cumulative: step t is read after steps 0..t; step: every step alone.",
        ),
        _choice(
            "--method",
            ["batched", "naive"],
            "batched: one forward pass per trajectory, many per batch; naive: one per step.",
        ),
        click.option("--max-step-tokens", default=256, show_default=True, type=click.IntRange(1)),
        click.option(
            "--max-context-tokens",
            default=4096,
            show_default=True,
            type=click.IntRange(2),
            help="Longer contexts are cut into segments that start afresh.",
        ),
        click.option(
            "--batch-tokens",
            default=16384,
            show_default=True,
            type=click.IntRange(1),
            help="Padded tokens per forward pass.",
        ),
        click.option(
            "--offline", is_flag=True, help="Never contact the hub (cache or folder only)."
        ),
        click.option("--quiet", "-q", is_flag=True, help="No summary on stderr."),
    ]
    return functools.reduce(lambda f, option: option(f), reversed(options), func)


def _load(options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Load the model named in ``options``; return it and the extraction options."""
    from abw.latent import require_extras

    require_extras()
    from abw.latent.model import load_model

    lm = load_model(
        options["model"],
        device=options["device"],
        dtype=options["dtype"],
        offline=options["offline"],
    )
    lm.resolve_layer(options["layer"])
    return lm, {name: options[name] for name in EXTRACTION_OPTIONS}


def read_steps_file(path: Path) -> list[str]:
    """A JSON list of strings, or one step per non-empty line."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise AbwInputError("no such file", file=path, field="--steps-file") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise not_utf8(exc, raw, path, field="--steps-file") from None
    if text.lstrip().startswith("["):
        from abw.reader import parse_json

        value = parse_json(text, path)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise AbwInputError("expected a JSON list of strings", file=path)
        return value
    return [line for line in text.splitlines() if line.strip()]


@click.group(name="latent", cls=RootGroup)
def latent() -> None:
    """Hidden-state trajectories of an open-weight model (advisory evidence).

    Needs the latent extra: pip install 'agent-behavior-workbench[latent]'.
    """


def _check_out(target: Path, given: tuple[str, Path | None]) -> None:
    """Refuse, before the model loads, an ``--out`` that is the input file, or an existing
    file that is no trajectory: a trace of ``abw import claude`` has the same name (the steps
    carry its span ids), and writing the trajectories into its folder replaced every trace."""
    from abw.models import TRAJECTORY_SCHEMA

    check_not_inputs([("--out", target)], [given], what="trajectory")
    refuse_other_kind(target, TRAJECTORY_SCHEMA, "--out")


@latent.command(short_help="Trajectory of step texts given with --step / --steps-file.")
@output_option(
    "--out",
    default=Path("representation-trajectory.json"),
    show_default=True,
)
@click.option("--step", "steps", multiple=True, help="One step's text; repeat in order.")
@click.option(
    "--steps-file",
    type=PathParam(),
    help="Steps after any --step: a JSON list of strings, or one step per line.",
)
@_model_options
def demo(out: Path, steps: tuple[str, ...], steps_file: Path | None, **options: Any) -> int:
    """Representation trajectory of step texts given here (written hashed, never raw)."""
    from abw.hashing import sha256_hex

    texts = list(steps) + (read_steps_file(steps_file) if steps_file else [])
    if not texts:
        raise AbwInputError("give at least one --step or a --steps-file", field="--step")
    from abw.latent.extract import refuse_undecodable

    for index, text in enumerate(texts):
        if not text.strip():
            raise AbwInputError(f"step {index} is empty", field="--step")
        refuse_undecodable(text, f"step {index}", "--step")
    _check_out(out, ("--steps-file", steps_file))
    lm, extraction = _load(options)
    from abw.latent.build import StepRef, write_trajectory
    from abw.latent.run import TrajectoryInput, compute
    from abw.models.trajectory import TrajectorySource

    source = TrajectorySource(kind="steps", source_hash=sha256_hex("\n".join(texts)))
    refs = [StepRef.of_text(text) for text in texts]
    (trajectory,) = compute(lm, [TrajectoryInput(texts, refs, source)], **extraction)
    write_trajectory(trajectory, out)
    if not options["quiet"]:
        from abw.text import plural

        click.echo(f"abw-latent: wrote {plural(trajectory.step_count, 'step')} to {out}", err=True)
    return 0


@latent.command(short_help="Trajectories of raw Claude Code transcripts, one per trace.")
@click.option(
    "--input",
    "input_path",
    required=True,
    type=PathParam(),
    help="A Claude Code session .jsonl, or a folder of them.",
)
@output_option(
    "--out",
    required=True,
    help="A .json file for one trajectory, or a folder for many.",
)
@click.option("--scenario-id", default=None, help="As for abw import claude.")
@click.option("--bash-tool-labels", default=None, help="As for abw import claude.")
@_model_options
def trace(
    input_path: Path,
    out: Path,
    scenario_id: str | None,
    bash_tool_labels: str | None,
    **options: Any,
) -> int:
    """Representation trajectories of raw Claude Code transcripts: one step per path span.

    Steps carry the span ids and ordinals of the trace `abw import claude` writes for the same
    file and options; the step texts (tool name and input) are never written.
    """
    from abw.importers.common import check_scenario_id
    from abw.latent.transcript import transcript_inputs

    check_scenario_id(scenario_id)  # (as abw import claude refuses it)
    warnings: list[str] = []
    inputs = transcript_inputs(
        input_path, scenario_id=scenario_id, labels=bash_tool_labels, warnings=warnings
    )
    single = out.suffix == ".json" and len(inputs) == 1 and not input_path.is_dir()
    if out.suffix == ".json" and not single:
        raise AbwInputError(
            f"{len(inputs)} trajectories to write: --out must be a folder", file=out, field="--out"
        )
    targets = [out] if single else [out / f"{name}.json" for name, _ in inputs]
    # every target before the model loads and before any file is written: no partial output
    check_outputs(
        *([] if single else [("--out", out, True)]),
        *(("--out", target, False) for target in targets),
    )
    for target in targets:
        _check_out(target, ("--input", input_path))
    lm, extraction = _load(options)
    from abw.latent.build import write_trajectory
    from abw.latent.run import compute

    trajectories = compute(lm, [item for _, item in inputs], **extraction)
    for target, trajectory in zip(targets, trajectories, strict=True):
        write_trajectory(trajectory, target)
    if not options["quiet"]:
        from abw.text import log_line

        for warning in warnings:
            click.echo(log_line(f"abw-latent: warning: {warning}"), err=True)
        from abw.text import plural

        steps = sum(t.step_count for t in trajectories)
        click.echo(
            f"abw-latent: wrote {plural(len(trajectories), 'trajectory')}, "
            f"{plural(steps, 'step')}, to {out}",
            err=True,
        )
    return 0
