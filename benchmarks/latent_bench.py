"""Benchmark abw-latent: batched one-pass extraction vs the naive one-forward-per-step loop.

For each model and dtype, each method runs in its own subprocess so its peak memory is its own:
on CUDA ``torch.cuda.max_memory_allocated`` (reset before each measured run), on the CPU the
peak resident set size. One subprocess measures every trajectory count in turn (the model is
loaded once). Both methods' vectors and entropies are compared over the trajectories both ran
and must agree within tolerance. Models are built from a config (random weights, nothing is
downloaded): the default small Qwen2, or ``--size`` with the architecture and size of a
published model (``abw.latent.tiny.SIZES``); or ``--model`` loads a folder or cached hub id.

The naive loop runs one forward pass per step, so its steps/s does not depend on how many
trajectories it is given: ``--naive-trajectories N`` runs it on the first N only (the same N
trajectories the batched run starts with) and uses that rate for every row.

    python benchmarks/latent_bench.py                       # CPU, built-in small model
    python benchmarks/latent_bench.py --size qwen2.5-0.5b,qwen2.5-1.5b --device cuda \\
        --dtype float32,bfloat16 --trajectories 32,256 --steps 24 --naive-trajectories 32
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

TOOLS = ["Bash", "Read", "Edit", "Grep", "Glob", "Write", "Task", "WebFetch", "TodoWrite"]
# fmt: off
WORDS = [
    "the", "agent", "checks", "refund", "policy", "order", "record", "status", "tests", "file",
    "pattern", "lookup", "classify", "issue", "result", "user", "request", "database", "fraud",
    "amount", "customer", "report", "error", "retry",
]
# fmt: on
METHODS = ("batched", "naive")


def make_steps(trajectories: int, steps: int, seed: int = 0) -> list[list[str]]:
    """Deterministic synthetic tool calls, 20-60 words of input each.

    The first N trajectories of a larger set are the N trajectories of a smaller one.
    """
    rng = random.Random(seed)
    out = []
    for _ in range(trajectories):
        run = []
        for _ in range(steps):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60)))
            run.append(f"{rng.choice(TOOLS)} " + json.dumps({"command": words}))
        out.append(run)
    return out


def _ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


def _names(text: str) -> list[str]:
    return [part for part in text.split(",") if part]


def _peak_rss_mib() -> float:
    # ru_maxrss is KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _profile(lm: Any, trajectories: list[list[str]], options: dict[str, Any], path: str) -> None:
    """Write the operators that took the time in one more batched run (torch.profiler)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    from abw.latent.extract import extract

    cuda = lm.device.type == "cuda"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    start = time.perf_counter()
    with profile(activities=activities) as prof:
        extract(lm, trajectories, method="batched", **options)
        if cuda:
            torch.cuda.synchronize()
    wall = time.perf_counter() - start
    averages = prof.key_averages()
    lines = [f"profiled batched run: {len(trajectories)} trajectories, wall {wall:.3f} s"]
    sort = "self_cpu_time_total"
    if cuda:
        sort = "self_device_time_total"
        kernels = [e for e in averages if e.device_type == torch.autograd.DeviceType.CUDA]
        busy = sum(e.self_device_time_total for e in kernels) / 1e6
        lines.append(f"GPU kernel time {busy:.3f} s = {100 * busy / wall:.0f} % of wall")
    lines.append(averages.table(sort_by=sort, row_limit=25))
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def child(args: argparse.Namespace) -> None:
    """Run one method over each trajectory count; write numbers and vectors under ``result``."""
    import torch

    from abw.latent.extract import extract, tokenize_steps
    from abw.latent.model import load_model

    lm = load_model(args.model, device=args.device, dtype=args.dtype, offline=True)
    cuda = lm.device.type == "cuda"
    if cuda and args.no_cudnn_attention:
        torch.backends.cuda.enable_cudnn_sdp(False)
    options = {
        "context": args.context,
        "max_context_tokens": args.max_context_tokens,
        "batch_tokens": args.batch_tokens,
    }
    counts = _ints(args.trajectories)
    if args.only == "naive" and args.naive_trajectories:
        counts = sorted({min(n, args.naive_trajectories) for n in counts})
    everything = make_steps(max(counts), args.steps)
    extract(lm, everything[:2], method=args.only, **options)  # warm-up (kernels, allocator)
    weights_mib = round(torch.cuda.memory_allocated() / 2**20, 1) if cuda else None
    rows = []
    for count in counts:
        trajectories = everything[:count]
        started = time.perf_counter()
        for t, texts in enumerate(trajectories):
            tokenize_steps(lm, texts, context=args.context, max_step_tokens=256, label=f"{t}")
        tokenize_seconds = time.perf_counter() - started
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        rss_before = _peak_rss_mib()
        start = time.perf_counter()
        results = extract(lm, trajectories, method=args.only, **options)
        if cuda:
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        steps = sum(len(t) for t in trajectories)
        rows.append(
            {
                "method": args.only,
                "trajectories": count,
                "device": lm.device.type,
                "dtype": lm.dtype_name,
                "model": lm.name,
                "steps": steps,
                "tokens": sum(sum(r.token_counts) for r in results),
                "seconds": round(seconds, 4),
                "tokenize_seconds": round(tokenize_seconds, 4),
                "steps_per_second": round(steps / seconds, 2),
                "weights_gpu_mib": weights_mib,
                "peak_gpu_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1)
                if cuda
                else None,
                "peak_rss_mib": round(_peak_rss_mib(), 1),
                "rss_rise_mib": round(_peak_rss_mib() - rss_before, 1),
            }
        )
        vectors = np.concatenate([r.vectors for r in results])
        entropies = np.array(
            [np.nan if e is None else e for r in results for e in r.entropies], dtype=np.float64
        )
        np.savez(f"{args.result}-{count}.npz", vectors=vectors, entropies=entropies)
    if args.profile and args.only == "batched":  # a look at where the time goes, not a figure
        try:
            _profile(lm, everything[:32], options, args.profile)
        except Exception as exc:  # the measured rows above stand without it
            Path(args.profile).write_text(f"profiling failed: {exc!r}\n", encoding="utf-8")
    Path(args.result + ".json").write_text(json.dumps(rows), encoding="utf-8")


def _run_child(
    args: argparse.Namespace, method: str, model: str, dtype: str, folder: Path
) -> list[dict[str, Any]]:
    result = str(folder / f"{method}-{dtype}")
    command = [sys.executable, __file__, "--only", method, "--result", result, "--model", model]
    command += ["--device", args.device, "--dtype", dtype, "--steps", str(args.steps)]
    command += ["--trajectories", args.trajectories, "--context", args.context]
    command += ["--max-context-tokens", str(args.max_context_tokens)]
    command += ["--batch-tokens", str(args.batch_tokens)]
    if args.naive_trajectories:
        command += ["--naive-trajectories", str(args.naive_trajectories)]
    if args.no_cudnn_attention:
        command += ["--no-cudnn-attention"]
    if args.profile:  # one file per model and dtype: FOLDER/<model>-<dtype>.txt
        Path(args.profile).mkdir(parents=True, exist_ok=True)
        command += ["--profile", str(Path(args.profile) / f"{Path(model).name}-{dtype}.txt")]
    subprocess.run(command, check=True)
    rows = json.loads(Path(result + ".json").read_text(encoding="utf-8"))
    for row in rows:
        data = np.load(f"{result}-{row['trajectories']}.npz")
        row["_vectors"], row["_entropies"] = data["vectors"], data["entropies"]
    return rows


def _compare(batched: dict[str, Any], naive: dict[str, Any], steps: int) -> tuple[float, float]:
    """Largest relative vector difference and largest entropy difference over shared steps."""
    shared = min(batched["trajectories"], naive["trajectories"]) * steps
    ours, theirs = batched["_vectors"][:shared], naive["_vectors"][:shared]
    scale = max(1.0, float(np.abs(theirs).max()))
    vector_diff = float(np.abs(ours - theirs).max()) / scale
    a, b = batched["_entropies"][:shared], naive["_entropies"][:shared]
    both = ~np.isnan(b)
    entropy_diff = float(np.abs(a[both] - b[both]).max()) if both.any() else 0.0
    return vector_diff, entropy_diff


def _measure(
    args: argparse.Namespace, model: str, size: str, dtype: str, folder: Path
) -> list[dict[str, Any]]:
    """One table row per trajectory count for ``model`` in ``dtype``."""
    methods = _names(args.methods)
    runs = {method: _run_child(args, method, model, dtype, folder) for method in methods}
    rows = []
    for batched in runs.get("batched", []):
        row = {"size": size, **{k: v for k, v in batched.items() if not k.startswith("_")}}
        row["batched_steps_per_second"] = row.pop("steps_per_second")
        row["peak_gpu_mib_batched"] = row.pop("peak_gpu_mib")
        naive_rows = [
            r for r in runs.get("naive", []) if r["trajectories"] <= batched["trajectories"]
        ]
        if naive_rows:
            naive = naive_rows[-1]
            vector_diff, entropy_diff = _compare(batched, naive, args.steps)
            atol = args.atol if args.atol is not None else (1e-4 if dtype == "float32" else 5e-2)
            row.update(
                naive_trajectories=naive["trajectories"],
                naive_steps_per_second=naive["steps_per_second"],
                peak_gpu_mib_naive=naive["peak_gpu_mib"],
                peak_rss_mib_naive=naive["peak_rss_mib"],
                speedup=round(batched["steps_per_second"] / naive["steps_per_second"], 1),
                vector_diff=vector_diff,
                entropy_diff=entropy_diff,
                same=vector_diff <= atol and entropy_diff <= max(atol, 1e-3) * 10,
            )
        rows.append(row)
    return rows


def _table(rows: list[dict[str, Any]]) -> list[str]:
    """The rows as a Markdown table (the one ``docs/latent.md`` carries)."""

    def mib(value: float | None) -> str:
        return "-" if value is None else f"{value:,.0f}"

    lines = [
        "| model | dtype | batch (trajectories × steps) | tokens | batched steps/s | "
        "naive steps/s | speed-up | peak memory batched / naive (MiB) | largest difference "
        "(vector, entropy) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        gpu = r["device"] == "cuda"
        peak_b = r["peak_gpu_mib_batched"] if gpu else r["peak_rss_mib"]
        peak_n = r.get("peak_gpu_mib_naive") if gpu else r.get("peak_rss_mib_naive")
        naive = r.get("naive_steps_per_second")
        naive_text = "-" if naive is None else f"{naive:,.1f}"
        if naive is not None and r.get("naive_trajectories") != r["trajectories"]:
            naive_text += f" (first {r['naive_trajectories']})"
        diff = (
            "-"
            if "vector_diff" not in r
            else f"{r['vector_diff']:.1e}, {r['entropy_diff']:.1e} nats"
        )
        per_run = r["steps"] // r["trajectories"]
        lines.append(
            f"| {r['size']} | {r['dtype']} | {r['trajectories']} × {per_run} | {r['tokens']:,} "
            f"| {r['batched_steps_per_second']:,.1f} | {naive_text} | {r.get('speedup', '-')}× "
            f"| {mib(peak_b)} / {mib(peak_n)} | {diff} |"
        )
    return lines


def _models(args: argparse.Namespace, folder: Path) -> list[tuple[str, str]]:
    """``(label, model folder or id)`` for each model to measure, built where needed."""
    if args.model:
        return [(Path(args.model).name or args.model, args.model)]
    from abw.latent.tiny import make_sized_model, make_tiny_model

    out = []
    for size in _names(args.size):
        target = folder / size
        if not (target / "config.json").is_file():
            if size == "small":
                make_tiny_model(target, hidden=args.hidden, layers=args.layers)
            else:
                make_sized_model(target, size)
        out.append((size, str(target)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="Folder or cached hub id (default: built).")
    parser.add_argument(
        "--size", default="small", help="Built models, comma-separated: small or a SIZES name."
    )
    parser.add_argument("--models-dir", default=None, help="Keep (and reuse) built models here.")
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--dtype", default="auto", help="Comma-separated dtypes.")
    parser.add_argument("--methods", default="batched,naive")
    parser.add_argument("--trajectories", default="4", help="Comma-separated counts.")
    parser.add_argument("--naive-trajectories", type=int, default=None)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--context", default="cumulative", choices=["cumulative", "step"])
    parser.add_argument("--max-context-tokens", type=int, default=4096)
    parser.add_argument("--batch-tokens", type=int, default=16384)
    parser.add_argument(
        "--no-cudnn-attention",
        action="store_true",
        help="On CUDA, keep torch's attention off the cuDNN kernel (it plans per new shape).",
    )
    parser.add_argument("--hidden", type=int, default=256, help="Size of the small built model.")
    parser.add_argument("--layers", type=int, default=4, help="Layers of the small built model.")
    parser.add_argument("--atol", type=float, default=None, help="Default: 1e-4 fp32, 5e-2 bf16.")
    parser.add_argument("--json", dest="json_out", default=None, help="Also write results here.")
    parser.add_argument("--markdown", default=None, help="Also write the table here.")
    parser.add_argument(
        "--profile", default=None, help="Write torch.profiler tables into this folder."
    )
    parser.add_argument("--only", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--result", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only:
        child(args)
        return
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        models = Path(args.models_dir) if args.models_dir else folder
        for size, model in _models(args, models):
            for dtype in _names(args.dtype):
                new = _measure(args, model, size, dtype, folder)
                print("\n".join(_table(new)[2:]), flush=True)
                rows += new
    table = _table(rows)
    print(f"context {args.context}, {args.steps} steps per trajectory")
    print("\n".join(table))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    if args.markdown:
        Path(args.markdown).write_text("\n".join(table) + "\n", encoding="utf-8")
    if not all(row.get("same", True) for row in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
