"""The latent GPU check's parts, on the CPU: sized models, the benchmark, the check script."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from abw.latent.extract import tokenize_steps
from abw.latent.model import load_model
from abw.latent.tiny import SIZES, make_tiny_model, sized_config
from tests.conftest import CORPUS, REPO

# Published parameter counts: Qwen2.5-0.5B 0.49B (0.36B without embeddings), -1.5B 1.54B (1.31B).
PUBLISHED = {"qwen2.5-0.5b": (0.49e9, 0.36e9), "qwen2.5-1.5b": (1.54e9, 1.31e9)}


@pytest.mark.parametrize("size", sorted(SIZES))
def test_sized_models_have_the_published_parameter_counts(size: str) -> None:
    import torch
    import transformers

    config = sized_config(size)  # as make_sized_model builds it
    with torch.device("meta"):  # shapes only: nothing is allocated
        model = transformers.Qwen2ForCausalLM(config)
    total = sum(p.numel() for p in model.parameters())  # tied head counted once
    embedding = model.get_input_embeddings().weight.numel()
    published_total, published_body = PUBLISHED[size]
    assert abs(total - published_total) / published_total < 0.01
    assert abs(total - embedding - published_body) / published_body < 0.01


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_model(tmp_path_factory.mktemp("tiny") / "qwen2", "qwen2")


def test_a_trajectory_is_tokenized_in_one_call_as_each_step_alone(tiny: Path) -> None:
    lm = load_model(str(tiny), device="cpu", offline=True)
    texts = [line[:300] for line in (CORPUS / "claude-code" / "spotter__short.jsonl").open()]
    for context in ("cumulative", "step"):
        alone = [
            lm.tokenizer(("\n" if context == "cumulative" and i else "") + text,
                         add_special_tokens=False)["input_ids"][:64]
            for i, text in enumerate(texts)
        ]  # fmt: skip
        assert tokenize_steps(lm, texts, context=context, max_step_tokens=64) == alone


def _env() -> dict[str, str]:
    scripts = Path(sys.executable).parent
    return {**os.environ, "PATH": f"{scripts}{os.pathsep}{os.environ['PATH']}"}


def test_the_benchmark_compares_both_methods_and_writes_its_table(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    command = [sys.executable, str(REPO / "benchmarks" / "latent_bench.py"), "--device", "cpu"]
    command += ["--hidden", "32", "--layers", "1", "--steps", "3", "--trajectories", "1,2"]
    command += ["--naive-trajectories", "1", "--dtype", "float32", "--json", str(out)]
    command += ["--markdown", str(tmp_path / "bench.md")]
    done = subprocess.run(command, capture_output=True, text=True, env=_env(), cwd=REPO)
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text(encoding="utf-8"))
    assert [(r["trajectories"], r["naive_trajectories"]) for r in rows] == [(1, 1), (2, 1)]
    assert all(r["same"] and r["vector_diff"] < 1e-4 for r in rows)
    table = (tmp_path / "bench.md").read_text(encoding="utf-8").splitlines()
    assert len(table) == 4 and "(first 1)" in table[3]


def test_the_check_script_traces_real_sessions_and_the_gate_keeps_its_verdict(
    tiny: Path, tmp_path: Path
) -> None:
    """The workflow's script, trace and gate steps, on the CPU with a tiny model."""
    env = {**_env(), "STEPS": "trace gate", "DEVICE": "cpu"}
    script = REPO / "benchmarks" / "latent_gpu_check.sh"
    done = subprocess.run(
        ["bash", str(script), str(tmp_path), str(tiny)],
        capture_output=True, text=True, env=env, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "latent gate check: verdict FAIL (exit 1) with and without --latent" in done.stdout
    assert "from 22 baseline and 75 candidate trajectories, plot present" in done.stdout
    results = tmp_path / "results"
    trace_log = (results / "trace.txt").read_text(encoding="utf-8")
    assert "wrote 22 trajectories, 871 steps" in trace_log

    # The check fails when the verdict moved, naming what moved.
    moved = tmp_path / "moved"
    shutil.copytree(results / "with-latent", moved)
    report = json.loads((moved / "gate-report.json").read_text(encoding="utf-8"))
    report["verdict"] = "PASS"
    (moved / "gate-report.json").write_text(json.dumps(report), encoding="utf-8")
    check = [sys.executable, str(REPO / "benchmarks" / "latent_gate_check.py")]
    done = subprocess.run(
        [*check, str(results / "plain"), str(moved), "1", "0"], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert "exit code 1 without --latent, 0 with it" in done.stderr
    assert "verdict FAIL without --latent, PASS with it" in done.stderr
