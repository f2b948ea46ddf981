"""Benchmark abw-latent: batched one-pass extraction vs the naive one-forward-per-step loop.

Each method runs in its own subprocess so its peak memory is its own: on CUDA
``torch.cuda.max_memory_allocated``, on the CPU the peak resident set size (``ru_maxrss``)
and its rise over the loaded model. Both methods' vectors and entropies are compared and
must agree within tolerance. Without ``--model`` a small random Qwen2 model is built from a
config in a temporary folder (nothing is downloaded).

    python benchmarks/latent_bench.py                       # CPU, built-in small model
    python benchmarks/latent_bench.py --model Qwen/Qwen2.5-0.5B-Instruct --device cuda \\
        --trajectories 32 --steps 24
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

import numpy as np

TOOLS = ["Bash", "Read", "Edit", "Grep", "Glob", "Write", "Task", "WebFetch", "TodoWrite"]
# fmt: off
WORDS = [
    "the", "agent", "checks", "refund", "policy", "order", "record", "status", "tests", "file",
    "pattern", "lookup", "classify", "issue", "result", "user", "request", "database", "fraud",
    "amount", "customer", "report", "error", "retry",
]
# fmt: on


def make_steps(trajectories: int, steps: int, seed: int = 0) -> list[list[str]]:
    """Deterministic synthetic tool calls, 20-60 words of input each."""
    rng = random.Random(seed)
    out = []
    for _ in range(trajectories):
        run = []
        for _ in range(steps):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60)))
            run.append(f"{rng.choice(TOOLS)} " + json.dumps({"command": words}))
        out.append(run)
    return out


def _peak_rss_mib() -> float:
    # ru_maxrss is KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def child(args: argparse.Namespace) -> None:
    """Run one method and write its numbers and vectors to ``args.result``."""
    import torch

    from abw.latent.extract import extract
    from abw.latent.model import load_model

    lm = load_model(args.model, device=args.device, dtype=args.dtype, offline=True)
    trajectories = make_steps(args.trajectories, args.steps)
    options = {
        "context": args.context,
        "max_context_tokens": args.max_context_tokens,
        "batch_tokens": args.batch_tokens,
    }
    cuda = lm.device.type == "cuda"
    extract(lm, trajectories[:1], method=args.only, **options)  # warm-up (kernels, allocator)
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    rss_loaded = _peak_rss_mib()
    start = time.perf_counter()
    results = extract(lm, trajectories, method=args.only, **options)
    if cuda:
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    steps = sum(len(t) for t in trajectories)
    tokens = sum(sum(r.token_counts) for r in results)
    summary = {
        "method": args.only,
        "device": lm.device.type,
        "dtype": lm.dtype_name,
        "model": lm.name,
        "steps": steps,
        "tokens": tokens,
        "seconds": round(seconds, 4),
        "steps_per_second": round(steps / seconds, 2),
        "peak_gpu_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1) if cuda else None,
        "peak_rss_mib": round(_peak_rss_mib(), 1),
        "rss_rise_mib": round(_peak_rss_mib() - rss_loaded, 1),
    }
    vectors = np.concatenate([r.vectors for r in results])
    entropies = np.array(
        [np.nan if e is None else e for r in results for e in r.entropies], dtype=np.float64
    )
    np.savez(args.result, vectors=vectors, entropies=entropies)
    Path(args.result + ".json").write_text(json.dumps(summary), encoding="utf-8")


def _run_child(args: argparse.Namespace, method: str, model: str, folder: Path) -> dict:
    result = str(folder / f"{method}.npz")
    command = [
        sys.executable,
        __file__,
        "--only",
        method,
        "--result",
        result,
        "--model",
        model,
        "--device",
        args.device,
        "--dtype",
        args.dtype,
        "--trajectories",
        str(args.trajectories),
        "--steps",
        str(args.steps),
        "--context",
        args.context,
        "--max-context-tokens",
        str(args.max_context_tokens),
        "--batch-tokens",
        str(args.batch_tokens),
    ]
    subprocess.run(command, check=True)
    summary = json.loads(Path(result + ".json").read_text(encoding="utf-8"))
    data = np.load(result)
    summary["_vectors"], summary["_entropies"] = data["vectors"], data["entropies"]
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="Folder or cached hub id (default: built).")
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--trajectories", type=int, default=4)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--context", default="cumulative", choices=["cumulative", "step"])
    parser.add_argument("--max-context-tokens", type=int, default=4096)
    parser.add_argument("--batch-tokens", type=int, default=16384)
    parser.add_argument("--hidden", type=int, default=256, help="Size of the built model.")
    parser.add_argument("--layers", type=int, default=4, help="Layers of the built model.")
    parser.add_argument("--atol", type=float, default=None, help="Default: 1e-4 fp32, 5e-2 bf16.")
    parser.add_argument("--json", dest="json_out", default=None, help="Also write results here.")
    parser.add_argument("--only", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--result", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only:
        child(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        model = args.model
        if model is None:
            from abw.latent.tiny import make_tiny_model

            model = str(
                make_tiny_model(folder / "bench-qwen2", hidden=args.hidden, layers=args.layers)
            )
        batched = _run_child(args, "batched", model, folder)
        naive = _run_child(args, "naive", model, folder)
    scale = max(1.0, float(np.abs(naive["_vectors"]).max()))
    atol = args.atol if args.atol is not None else (1e-4 if batched["dtype"] == "float32" else 5e-2)
    vector_diff = float(np.abs(batched["_vectors"] - naive["_vectors"]).max()) / scale
    both = ~np.isnan(naive["_entropies"])
    entropy_diff = (
        float(np.abs(batched["_entropies"][both] - naive["_entropies"][both]).max())
        if both.any()
        else 0.0
    )
    same = vector_diff <= atol and entropy_diff <= max(atol, 1e-3) * 10
    rows = [batched, naive]
    print(
        f"model {batched['model']} on {batched['device']} ({batched['dtype']}), "
        f"{args.trajectories} trajectories x {args.steps} steps, {batched['tokens']} tokens, "
        f"context {args.context}"
    )
    print(f"{'method':<8} {'steps/s':>10} {'seconds':>9} {'peak GPU MiB':>13} {'peak RSS MiB':>13}")
    for row in rows:
        gpu = "-" if row["peak_gpu_mib"] is None else f"{row['peak_gpu_mib']:.1f}"
        print(
            f"{row['method']:<8} {row['steps_per_second']:>10.1f} {row['seconds']:>9.3f} "
            f"{gpu:>13} {row['peak_rss_mib']:>13.1f}"
        )
    speedup = batched["steps_per_second"] / naive["steps_per_second"]
    print(
        f"speed-up {speedup:.1f}x; max |vector diff| / max|v| = {vector_diff:.2e}, "
        f"max |entropy diff| = {entropy_diff:.2e} -> {'SAME' if same else 'DIFFERENT'}"
    )
    if args.json_out:
        clean = [{k: v for k, v in row.items() if not k.startswith("_")} for row in rows]
        report = {
            "results": clean,
            "speedup": round(speedup, 2),
            "vector_diff": vector_diff,
            "entropy_diff": entropy_diff,
            "same": same,
        }
        Path(args.json_out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
