"""abw-latent on the real transformers code path: tiny models built here, loaded by folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from abw.hashing import sha256_hex
from abw.latent.geometry import curvatures, decode_f16, entropy_from_logits, pca2, velocities
from abw.latent.model import load_model
from abw.latent.tiny import make_tiny_model
from tests.conftest import REPO

STEPS = [
    "the agent classifies the request as refund related",
    "the agent looks up the order record",
    "the agent checks the refund policy before calling the refund tool",
    "the agent issues the refund",
    "the agent reports the result to the user",
]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny-models")
    return {kind: make_tiny_model(root / kind, kind) for kind in ("qwen2", "llama", "bert")}


def _demo(run_cli, model: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    args = ["latent", "demo", "--model", model, "--out", out, "--offline", *extra]
    for step in STEPS:
        args += ["--step", step]
    return run_cli(*args)


def _reference(model_dir: Path, texts: list[str], layer: int = -1):
    """Per step, independently: forward the prefix the step sees, read its last token."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    bos = tokenizer("a", add_special_tokens=True)["input_ids"][:-1]  # the BOS, if any
    ids: list[int] = list(bos)
    vectors, entropies = [], []
    for index, text in enumerate(texts):
        ids += tokenizer(("\n" if index else "") + text, add_special_tokens=False)["input_ids"]
        with torch.no_grad():
            out = model(input_ids=torch.tensor([ids]), output_hidden_states=True)
        vectors.append(out.hidden_states[layer][0, -1].numpy())
        entropies.append(float(entropy_from_logits(out.logits[0, -1].numpy())))
    return np.stack(vectors), entropies


@pytest.mark.parametrize("kind", ["qwen2", "llama"])
def test_demo_causal_matches_hand_computation(run_cli, models, tmp_path, kind) -> None:
    out = tmp_path / "rt.json"
    code, _, err = _demo(run_cli, models[kind], out, "--keep-vectors", "full")
    assert code == 0, err
    assert run_cli("validate", out)[0] == 0
    text = out.read_text(encoding="utf-8")
    assert all(step not in text for step in STEPS)  # never raw text
    doc = json.loads(text)
    assert doc["model"] == {
        "name": kind,
        "layer": 2,
        "num_layers": 2,
        "hidden_size": 32,
        "dtype": "float32",
        "has_lm_head": True,
    }
    assert [s["text_hash"] for s in doc["steps"]] == [sha256_hex(t) for t in STEPS]
    vectors = np.array([s["vector"] for s in doc["steps"]])
    ref_vectors, ref_entropies = _reference(models[kind], STEPS)
    np.testing.assert_allclose(vectors, ref_vectors, atol=1e-5)
    np.testing.assert_allclose([s["entropy"] for s in doc["steps"]], ref_entropies, rtol=1e-6)
    vel = velocities(ref_vectors)
    curv = curvatures(ref_vectors)
    assert doc["steps"][0]["velocity"] is None and doc["steps"][1]["curvature"] is None
    np.testing.assert_allclose([s["velocity"] for s in doc["steps"][1:]], vel[1:], rtol=1e-4)
    np.testing.assert_allclose([s["curvature"] for s in doc["steps"][2:]], curv[2:], rtol=1e-4)
    np.testing.assert_allclose(
        [s["projection"] for s in doc["steps"]], pca2(ref_vectors), atol=1e-4
    )
    assert doc["mean_entropy"] == pytest.approx(np.mean(ref_entropies))
    # determinism: the same command writes the same bytes
    again = tmp_path / "again.json"
    assert _demo(run_cli, models[kind], again, "--keep-vectors", "full")[0] == 0
    assert again.read_bytes() == out.read_bytes()


def test_layer_zero_is_the_token_embedding(run_cli, models, tmp_path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    out = tmp_path / "rt.json"
    assert _demo(run_cli, models["qwen2"], out, "--layer", "0", "--keep-vectors", "full")[0] == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["model"]["layer"] == 0
    tokenizer = AutoTokenizer.from_pretrained(models["qwen2"])
    model = AutoModelForCausalLM.from_pretrained(models["qwen2"], dtype=torch.float32)
    last = tokenizer("\n" + STEPS[-1], add_special_tokens=False)["input_ids"][-1]
    embedding = model.get_input_embeddings().weight[last].detach().numpy()
    np.testing.assert_allclose(doc["steps"][-1]["vector"], embedding, atol=1e-6)
    code, _, err = _demo(run_cli, models["qwen2"], tmp_path / "x.json", "--layer", "3")
    assert code == 2 and "--layer" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("kind", ["qwen2", "llama", "bert"])
@pytest.mark.parametrize("context", ["cumulative", "step"])
def test_batched_equals_naive(models, kind, context) -> None:
    from abw.latent.extract import extract

    lm = load_model(str(models[kind]), device="cpu", offline=True)
    trajectories = [STEPS, STEPS[:2], STEPS[3:], [STEPS[1]] * 3, STEPS[::-1]]
    # a small context and batch force segments and several batches
    options = {"context": context, "max_context_tokens": 24, "batch_tokens": 64}
    batched = extract(lm, trajectories, **options)
    naive = extract(lm, trajectories, method="naive", **options)
    for a, b in zip(batched, naive, strict=True):
        assert a.token_counts == b.token_counts
        np.testing.assert_allclose(a.vectors, b.vectors, atol=1e-5)
        if kind == "bert":
            assert a.entropies == b.entropies == [None] * len(a.entropies)
        else:
            np.testing.assert_allclose(a.entropies, b.entropies, rtol=1e-5)
    assert lm.lm_head_ok


def test_encoder_gives_geometry_without_entropy(run_cli, models, tmp_path) -> None:
    out = tmp_path / "rt.json"
    code, _, err = _demo(run_cli, models["bert"], out, "--keep-vectors", "f16")
    assert code == 0, err
    assert run_cli("validate", out)[0] == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["model"]["has_lm_head"] is False and doc["mean_entropy"] is None
    assert all(s["entropy"] is None for s in doc["steps"])
    assert all(s["velocity"] is not None for s in doc["steps"][1:])
    vectors = np.stack([decode_f16(s["vector_b64"]) for s in doc["steps"]])
    assert vectors.shape == (len(STEPS), 32)
    np.testing.assert_allclose(
        [s["velocity"] for s in doc["steps"][1:]], velocities(vectors)[1:], rtol=2e-2
    )


def test_steps_file_and_bad_input(run_cli, models, tmp_path) -> None:
    listed = tmp_path / "steps.json"
    listed.write_text(json.dumps(STEPS[:2]), encoding="utf-8")
    lines = tmp_path / "steps.txt"
    lines.write_text(STEPS[0] + "\n\n" + STEPS[1] + "\n", encoding="utf-8")
    docs = []
    for source in (listed, lines):
        out = tmp_path / f"{source.suffix[1:]}.json"
        args = ["latent", "demo", "--model", models["qwen2"], "--offline", "--out", out]
        assert run_cli(*args, "--steps-file", source)[0] == 0
        docs.append(json.loads(out.read_text(encoding="utf-8")))
    assert docs[0] == docs[1] and docs[0]["step_count"] == 2
    base = ["latent", "demo", "--model", models["qwen2"], "--out", tmp_path / "e.json"]
    import torch

    cases = [[], ["--step", "  "], ["--steps-file", tmp_path / "missing.txt"]]
    if not torch.cuda.is_available():
        cases.append(["--step", "x", "--device", "cuda"])
    for extra in cases:
        code, _, err = run_cli(*base, *extra)
        assert code == 2 and len(err.strip().splitlines()) == 1, err


def test_missing_model_is_one_line(run_cli, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code, out, err = run_cli("latent", "demo", "--step", "x", "--out", tmp_path / "x.json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Qwen/Qwen2.5-0.5B-Instruct" in err and "cache" in err
    # offline, the hub was never asked: the line says so, not that it "could not be reached"
    assert "offline" in err and "could not be reached" not in err
    code, _, err = run_cli("latent", "demo", "--model", "./no-such-model", "--step", "x")
    assert code == 2 and err.count("\n") == 1 and "not a model folder" in err
    assert not (tmp_path / "x.json").exists()


def test_missing_extras_say_how_to_install() -> None:
    code = (
        "import sys; sys.modules['torch'] = None; "
        "from abw.cli import run; from abw.cli.latent_cmd import latent; "
        "sys.exit(run(latent, ['demo', '--step', 'x'], prog_name='abw-latent'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "abw-latent: error: the latent extra is missing (torch): "
        "install with pip install 'agent-behavior-workbench[latent]'"
    ]


def test_hub_id_loads_from_the_local_cache(models, tmp_path) -> None:
    """A hub id found in the Hugging Face cache loads without the network (the default path)."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "models--abw--tiny-qwen2"
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    for file in models["qwen2"].iterdir():
        (snapshot / file.name).write_bytes(file.read_bytes())
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit, encoding="utf-8")
    out = tmp_path / "rt.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env["HF_HUB_CACHE"] = str(tmp_path / "hub")
    code = (
        "import sys; from abw.cli import run; from abw.cli.latent_cmd import latent; "
        f"sys.exit(run(latent, ['demo', '--model', 'abw/tiny-qwen2', '--out', {str(out)!r}, "
        "'--step', 'the agent looks up the order'], prog_name='abw-latent'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["model"]["name"] == "abw/tiny-qwen2" and doc["step_count"] == 1


def test_model_logits_fallback_matches_naive(models) -> None:
    """When the head check fails, entropies come from the model's own logits: still the same."""
    from abw.latent.extract import extract

    lm = load_model(str(models["llama"]), device="cpu", offline=True)
    trajectories = [STEPS, STEPS[1:3]]
    naive = extract(lm, trajectories, method="naive")
    lm.lm_head_checked, lm.lm_head_ok = True, False
    fallback = extract(lm, trajectories, layer=1)
    reference = extract(lm, trajectories, layer=1, method="naive")
    for a, b, c in zip(fallback, reference, naive, strict=True):
        np.testing.assert_allclose(a.vectors, b.vectors, atol=1e-5)
        np.testing.assert_allclose(a.entropies, c.entropies, rtol=1e-5)
    assert not np.allclose(fallback[0].vectors, naive[0].vectors)  # layer 1 is not the final
