"""abw latent and abw gate --latent on bad models and bad outputs: one line, exit 2, nothing
half-written. Each test was an internal error, a false message or a silent wrong answer."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest

from abw.errors import AbwInputError
from abw.latent.geometry import decode_f16
from abw.latent.tiny import make_tiny_model
from abw.latent_summary import summarize_latent
from tests.conftest import CORPUS, REPO

STEPS = ["the agent looks up the order record", "the agent issues the refund"]
EXAMPLE = REPO / "examples" / "refund-policy"
CLAUDE = CORPUS / "claude-code"
SESSIONS = ["spotter__tool_heavy.jsonl", "codemie__session-196820da.jsonl"]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two different models whose folders have the same name: hidden size 32 and 64."""
    root = tmp_path_factory.mktemp("bad-models")
    return {
        "small": make_tiny_model(root / "a" / "qwen2", "qwen2"),
        "wide": make_tiny_model(root / "b" / "qwen2", "qwen2", hidden=64, seed=1),
    }


def _one_line(code: int, out: str, err: str) -> str:
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (code, err)
    assert "internal error" not in err
    return err


def _demo(run_cli, model: Path, out: Path, *extra: str, steps: list[str] = STEPS):
    args = ["latent", "demo", "--model", model, "--out", out, "--offline", "-q", *extra]
    for step in steps:
        args += ["--step", step]
    return run_cli(*args)


def _latent_of_two_models(run_cli, models: dict[str, Path], root: Path, *extra: str) -> Path:
    for role, model in (("baseline", models["small"]), ("candidate", models["wide"])):
        code, _, err = _demo(run_cli, model, root / role / "a.json", *extra)
        assert code == 0, err
    return root


def _gate(run_cli, latent: Path, tmp_path: Path):
    traces = EXAMPLE / "traces"
    return run_cli(
        "gate", "--baseline", traces / "baseline", "--candidate", traces / "good",
        "--spec", EXAMPLE / "behavior.yaml", "--latent", latent, "--out", tmp_path / "g.json",
    )  # fmt: skip


@pytest.mark.parametrize("keep", ["full", "f16"])
def test_gate_refuses_kept_vectors_of_two_models_of_one_folder_name(
    run_cli, models, tmp_path, keep
) -> None:
    """Defect 1: the joint PCA could not stack 32 and 64 numbers (an internal error)."""
    latent = _latent_of_two_models(run_cli, models, tmp_path / "lat", "--keep-vectors", keep)
    err = _one_line(*_gate(run_cli, latent, tmp_path))
    assert "candidate/a.json: model.hidden_size: 64 differs from 32 in baseline/a.json" in err
    assert not (tmp_path / "g.json").exists()


def test_gate_refuses_geometry_of_two_models_of_one_folder_name(run_cli, models, tmp_path) -> None:
    """Defect 2: without kept vectors the 32- and 64-dimensional runs were compared (exit 0)."""
    latent = _latent_of_two_models(run_cli, models, tmp_path / "lat")
    err = _one_line(*_gate(run_cli, latent, tmp_path))
    assert "model.hidden_size" in err and "cannot be compared" in err


@pytest.mark.parametrize(
    ("field", "value"),
    [("dtype", "bfloat16"), ("num_layers", 4), ("has_lm_head", False), ("hidden_size", 64)],
)
def test_summary_names_both_files_and_the_field_that_differs(
    run_cli, models, tmp_path, field, value
) -> None:
    latent = tmp_path / "lat"
    code, _, err = _demo(run_cli, models["small"], latent / "baseline" / "a.json")
    assert code == 0, err
    document = json.loads((latent / "baseline" / "a.json").read_text(encoding="utf-8"))
    document["model"][field] = value
    (latent / "candidate").mkdir()
    (latent / "candidate" / "b.json").write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(AbwInputError, match="cannot be compared") as raised:
        summarize_latent(latent)
    error = raised.value
    assert error.field == f"model.{field}" and error.file.endswith("b.json")
    assert "baseline/a.json" in error.message and "\n" not in error.one_line()


def _broken_folder(models: dict[str, Path], tmp_path: Path, how: str) -> Path:
    import shutil

    folder = tmp_path / f"m_{how}"
    shutil.copytree(models["small"], folder)
    config_path = folder / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    if how == "truncated":
        weights = folder / "model.safetensors"
        weights.write_bytes(weights.read_bytes()[:5])
    elif how == "mismatched":
        config["hidden_size"] = 64  # the weights are 32 wide
    elif how == "wrong_type":
        config["num_hidden_layers"] = "two"
    elif how == "bad_tokenizer":
        tokenizer = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
        tokenizer["model"]["type"] = "Nope"  # the tokenizers crate raises a plain Exception
        (folder / "tokenizer.json").write_text(json.dumps(tokenizer), encoding="utf-8")
    elif how == "no_tokenizer":
        for path in folder.iterdir():
            if path.name not in ("config.json", "model.safetensors"):
                path.unlink()
    config_path.write_text(json.dumps(config), encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ("truncated", "deserializing header"),
        ("mismatched", "do not have the sizes its config.json gives"),
        ("wrong_type", "num_hidden_layers"),
        ("bad_tokenizer", "cannot load model"),  # the tokenizers crate's own words
    ],
)
def test_a_broken_model_folder_is_one_line_naming_it(run_cli, models, tmp_path, how, reason):
    """Defect 3: each was an internal error."""
    folder = _broken_folder(models, tmp_path, how)
    err = _one_line(*_demo(run_cli, folder, tmp_path / "x.json"))
    assert f"{folder}: --model: cannot load model 'm_{how}'" in err and reason in err
    assert not (tmp_path / "x.json").exists()


def test_a_step_that_is_not_utf8_is_one_line(run_cli, models, tmp_path) -> None:
    """Defect 3: bytes that are not UTF-8 reach Python as lone surrogates; the tokenizer raised
    a TypeError (an internal error)."""
    bad = "ab\udcffcd"  # what Python makes of the argument b"ab\xffcd"
    err = _one_line(*_demo(run_cli, models["small"], tmp_path / "x.json", steps=["ok", bad]))
    assert "--step: step 1 is not valid UTF-8 text" in err

    from abw.latent.extract import extract
    from abw.latent.model import load_model

    lm = load_model(str(models["small"]), device="cpu", offline=True)
    with pytest.raises(AbwInputError, match="trajectory 0: step 1 is not valid UTF-8"):
        extract(lm, [["ok", bad]])  # trace's path: a transcript can spell a lone surrogate


def test_a_folder_without_tokenizer_files_is_a_model_error(run_cli, models, tmp_path) -> None:
    """Defect 4: transformers builds a tokenizer with no vocabulary, and the error blamed the
    user's text ("step 0 is empty")."""
    folder = _broken_folder(models, tmp_path, "no_tokenizer")
    err = _one_line(*_demo(run_cli, folder, tmp_path / "x.json"))
    assert f"{folder}: --model: cannot load model 'm_no_tokenizer'" in err
    assert "empty vocabulary" in err and "is empty" not in err


def test_trace_checks_every_target_before_writing_any(run_cli, models, tmp_path) -> None:
    """Defect 5: one target was a folder; the other trajectory had already been written."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    for name in SESSIONS:
        (sessions / name).write_bytes((CLAUDE / name).read_bytes())
    out = tmp_path / "out"
    blocked = out / (Path(max(SESSIONS)).stem + ".json")  # the one written last
    blocked.mkdir(parents=True)
    args = ["latent", "trace", "--input", sessions, "--out", out, "--model", models["small"]]
    err = _one_line(*run_cli(*args, "--offline", "-q"))
    assert f"{blocked}: --out:" in err
    assert sorted(p.name for p in out.iterdir()) == [blocked.name]  # nothing else written
    blocked.rmdir()
    code, _, err = run_cli(*args, "--offline", "-q")
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == sorted(Path(n).stem + ".json" for n in SESSIONS)


def test_a_hub_that_cannot_be_reached_is_one_line(tmp_path) -> None:
    """Online, with no hub to reach, the hub's retry lines ("'[Errno 111] Connection refused'
    thrown while requesting HEAD …", "Retrying in 8s [Retry 4/5]") came before abw's one line
    (docs/latent.md says one line). Run as a user would: a process of its own."""
    import os
    import subprocess
    import sys

    abw = Path(sys.executable).with_name("abw")
    env = {**os.environ, "HF_ENDPOINT": "http://127.0.0.1:9", "HF_HOME": str(tmp_path / "hf")}
    env.pop("HF_HUB_OFFLINE", None)
    done = subprocess.run(
        [str(abw), "latent", "demo", "--model", "no-such-org/no-such-model", "--step", "x"],
        capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "the hub could not be reached" in done.stderr


def _saved(model: Path, folder: Path, change) -> Path:
    """A copy of ``model`` whose weights ``change`` edited (saved with its tokenizer)."""
    import torch
    import transformers

    loaded = transformers.AutoModelForCausalLM.from_pretrained(model)
    with torch.no_grad():
        change(loaded)
    loaded.save_pretrained(folder)
    transformers.AutoTokenizer.from_pretrained(model).save_pretrained(folder)
    return folder


def test_a_model_that_gives_nan_is_one_line(run_cli, models, tmp_path) -> None:
    """Weights gone NaN: "internal error: SVD did not converge" (three steps) or "Out of range
    float values are not JSON compliant" (one)."""
    nan = _saved(
        models["small"], tmp_path / "nan", lambda m: m.model.embed_tokens.weight.fill_(float("nan"))
    )
    for steps in ([*STEPS, "a third step"], STEPS[:1]):
        err = _one_line(*_demo(run_cli, nan, tmp_path / "o.json", steps=steps))
        assert "hold NaN or infinite values" in err and "nan" in err
    assert not (tmp_path / "o.json").exists()


#: The sizes of a tiny model (transformers' config fields)
_TINY = {
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
}


@pytest.mark.parametrize(
    ("model", "sizes", "said"),
    [
        # a tokenizer of another model, its ids past the embedding rows ("internal error:
        # index out of range in self")
        (
            "Qwen2ForCausalLM",
            {"vocab_size": 50, "num_key_value_heads": 2},
            "embeddings hold 50 rows: the tokenizer and the weights are of",
        ),
        # a ViT with a tokenizer beside it ("internal error: 'NoneType' object has no
        # attribute 'dtype'")
        ("ViTModel", {"image_size": 32, "patch_size": 8}, "reads pixel_values, not text"),
    ],
)
def test_a_model_that_loads_but_reads_no_such_text_is_one_line(
    run_cli, models, tmp_path, model, sizes, said
) -> None:
    import transformers

    folder = tmp_path / "model"
    loader = getattr(transformers, model)
    loader(loader.config_class(**_TINY, **sizes)).save_pretrained(folder)
    transformers.AutoTokenizer.from_pretrained(models["small"]).save_pretrained(folder)
    err = _one_line(*_demo(run_cli, folder, tmp_path / "o.json"))
    assert said in err


def test_f16_vectors_beyond_its_range_are_refused_when_written_and_read(
    run_cli, models, tmp_path
) -> None:
    """Hidden states past 65504 were kept as infinities under --keep-vectors f16 (exit 0), and
    the gate then failed: "internal error: SVD did not converge", no report."""
    big = _saved(models["small"], tmp_path / "big", lambda m: m.model.embed_tokens.weight.mul_(1e7))
    steps = [*STEPS, "a third step"]
    err = _one_line(
        *_demo(
            run_cli, big, tmp_path / "o.json", "--layer", "0", "--keep-vectors", "f16", steps=steps
        )
    )
    assert "beyond float16's range" in err and "--keep-vectors full" in err
    latent = tmp_path / "latent"
    for role in ("baseline", "candidate"):
        code, _, err = _demo(
            run_cli, models["small"], latent / role / "a.json", "--keep-vectors", "f16"
        )
        assert code == 0, err
    document = json.loads((latent / "baseline" / "a.json").read_text())
    vector = decode_f16(document["steps"][0]["vector_b64"])
    vector[0] = np.inf
    document["steps"][0]["vector_b64"] = base64.b64encode(vector.astype("<f2").tobytes()).decode()
    (latent / "baseline" / "a.json").write_text(json.dumps(document))
    err = _one_line(*_gate(run_cli, latent, tmp_path))
    assert "a.json" in err and "steps.0.vector_b64" in err and "infinite or NaN" in err


def test_trajectories_are_never_written_over_traces_or_their_input(
    run_cli, models, tmp_path
) -> None:
    """``abw latent trace --out`` a folder of the traces ``abw import claude`` wrote: every
    trace was replaced (the names are the same on purpose); ``demo --out`` its own
    ``--steps-file`` replaced it."""
    traces = tmp_path / "traces"
    session = CLAUDE / SESSIONS[0]
    code, _, err = run_cli("import", "claude", "--input", session, "--out", traces / "t.json")
    assert code == 0, err
    before = (traces / "t.json").read_bytes()
    args = ["latent", "trace", "--input", session, "--model", models["small"], "--offline"]
    err = _one_line(*run_cli(*args, "--out", traces / "t.json"))
    assert "is not a representation-trajectory/v0 file; refusing to overwrite it" in err
    assert (traces / "t.json").read_bytes() == before
    steps = tmp_path / "steps.txt"
    steps.write_text("step one\nstep two\n")
    err = _one_line(
        *run_cli(
            "latent",
            "demo",
            "--model",
            models["small"],
            "--offline",
            "--steps-file",
            steps,
            "--out",
            steps,
        )
    )
    assert "it is the --steps-file file" in err and steps.read_text() == "step one\nstep two\n"
    code, _, err = run_cli(*args, "--scenario-id", " s1 ", "--out", tmp_path / "x.json")
    assert code == 2 and "empty or with spaces around it" in err
