"""Latent geometry and the gate's advisory summary, checked against hand computations (no torch)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from abw.errors import AbwInputError
from abw.latent.geometry import (
    curvatures,
    decode_f16,
    encode_f16,
    entropy_from_logits,
    pca2,
    resample,
    velocities,
)
from abw.latent_summary import PROFILE_POINTS, summarize_latent
from abw.models.report import LatentAdvisory
from abw.validate import validate_document
from tests.conftest import REPO


def test_entropy_of_uniform_and_peaked_logits() -> None:
    # uniform over 4: ln 4; two equal logits and two at -inf-ish: ln 2
    assert entropy_from_logits(np.zeros(4)) == pytest.approx(math.log(4))
    assert entropy_from_logits(np.array([0.0, 0.0, -1e9, -1e9])) == pytest.approx(math.log(2))
    # p = softmax([ln 1, ln 3]) = [1/4, 3/4]: H = -(1/4 ln 1/4 + 3/4 ln 3/4)
    h = entropy_from_logits(np.log(np.array([1.0, 3.0])))
    assert h == pytest.approx(-(0.25 * math.log(0.25) + 0.75 * math.log(0.75)))
    # shift invariance and rows
    rows = entropy_from_logits(np.array([[1.0, 2.0, 3.0], [1001.0, 1002.0, 1003.0]]))
    assert rows[0] == pytest.approx(rows[1])


def test_velocity_is_l2_between_consecutive_vectors() -> None:
    x = np.array([[0.0, 0.0], [3.0, 4.0], [3.0, 4.0], [3.0, 5.0]])
    assert velocities(x) == [None, 5.0, 0.0, 1.0]
    assert velocities(np.zeros((0, 3))) == []
    assert velocities(np.ones((1, 3))) == [None]


def test_curvature_is_the_turning_angle() -> None:
    # straight on, a right angle, a U-turn
    x = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [2.0, 1.0], [2.0, 0.0]])
    got = curvatures(x)
    assert got[:2] == [None, None]
    assert got[2] == pytest.approx(0.0)
    assert got[3] == pytest.approx(math.pi / 2)
    assert got[4] == pytest.approx(math.pi)
    # a zero displacement leaves the angle undefined, on both sides of it
    y = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    assert curvatures(y) == [None, None, None, None]
    # 45 degrees in 3-D
    z = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 1.0, 0.0]])
    assert curvatures(z)[2] == pytest.approx(math.pi / 4)


def test_pca_on_a_line_and_a_rectangle() -> None:
    # points on the line y = 2x in 3-D: one axis, second coordinate zero
    line = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 0.0], [2.0, 4.0, 0.0]])
    coords = pca2(line)
    step = math.sqrt(5.0)
    # the largest loading (y) is made positive, so the coordinates increase along the line
    assert coords[:, 0] == pytest.approx([-step, 0.0, step])
    assert coords[:, 1] == pytest.approx([0.0, 0.0, 0.0])
    # a 4x2 rectangle's corners: first axis along the long side, second along the short one
    rect = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 2.0], [0.0, 2.0]])
    got = pca2(rect)
    assert sorted(np.abs(got[:, 0])) == pytest.approx([2.0] * 4)
    assert sorted(np.abs(got[:, 1])) == pytest.approx([1.0] * 4)
    assert got[1, 0] == pytest.approx(2.0) and got[2, 1] == pytest.approx(1.0)
    # the sign convention holds whatever the input sign: flipping the data flips the coordinates
    assert pca2(-rect)[:, 0] == pytest.approx(-got[:, 0])
    assert pca2(np.ones((1, 5))).tolist() == [[0.0, 0.0]]
    assert pca2(np.ones((3, 5))).tolist() == [[0.0, 0.0]] * 3


def test_resample_and_f16_round_trip() -> None:
    assert resample([0.0, 1.0], 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert resample([2.0], 3).tolist() == [2.0, 2.0, 2.0]
    assert resample([], 3).size == 0
    assert resample([0.0, 2.0, 0.0], 5).tolist() == [0.0, 1.0, 2.0, 1.0, 0.0]
    vector = np.array([0.5, -1.25, 3.0, 1e-3], dtype=np.float32)
    assert decode_f16(encode_f16(vector)) == pytest.approx(vector, rel=1e-3)


def _trajectory(velocities_: list[float | None], entropies: list[float | None], **extra):
    steps = []
    for i, (v, e) in enumerate(zip(velocities_, entropies, strict=True)):
        step = {
            "index": i,
            "text_hash": "0" * 64,
            "token_count": 3,
            "entropy": e,
            "velocity": v,
            "curvature": None,
            "projection": [float(i), 0.0],
        }
        if "vectors" in extra:
            step["vector"] = extra["vectors"][i]
        steps.append(step)
    return {
        "schema_version": "representation-trajectory/v0",
        "model": {
            "name": extra.get("model", "tiny"),
            "layer": 2,
            "num_layers": 2,
            "hidden_size": 2,
            "dtype": "float32",
            "has_lm_head": True,
        },
        "source": {"kind": "steps"},
        "step_count": len(steps),
        "steps": steps,
    }


def _write(folder: Path, role: str, name: str, document: dict) -> None:
    (folder / role).mkdir(parents=True, exist_ok=True)
    (folder / role / name).write_text(json.dumps(document), encoding="utf-8")


def test_summary_numbers_by_hand(tmp_path: Path) -> None:
    _write(tmp_path, "baseline", "a.json", _trajectory([None, 1.0, 1.0], [1.0, 2.0, 3.0]))
    _write(tmp_path, "baseline", "b.json", _trajectory([None, 3.0], [4.0, None]))
    _write(tmp_path, "candidate", "c.json", _trajectory([None, 0.0, 4.0], [0.5, 0.5, 0.5]))
    summary = summarize_latent(tmp_path)
    assert isinstance(summary, LatentAdvisory)
    assert (summary.baseline_trajectories, summary.candidate_trajectories) == (2, 1)
    # per-run means (2.0 and 4.0), then their mean
    assert summary.baseline_mean_entropy == pytest.approx(3.0)
    assert summary.candidate_mean_entropy == pytest.approx(0.5)
    # baseline: flat 1.0 and flat 3.0 -> 2.0 everywhere; candidate: 0 -> 4 linearly
    assert summary.baseline_velocity_profile == pytest.approx([2.0] * PROFILE_POINTS)
    ramp = np.linspace(0.0, 4.0, PROFILE_POINTS)
    assert summary.candidate_velocity_profile == pytest.approx(ramp.tolist())
    assert summary.velocity_profile_difference == pytest.approx(np.mean(np.abs(ramp - 2.0)))
    # without kept vectors the files' own projections are passed through
    assert summary.projections["candidate"] == [[[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]]]
    assert len(summary.projections["baseline"]) == 2
    # fits the gate report's schema (a report embeds it under evidence_ledger.latent)
    LatentAdvisory.model_validate(summary.model_dump(mode="json"))
    assert summarize_latent(tmp_path) == summary  # deterministic


def test_summary_joint_projection_when_vectors_are_kept(tmp_path: Path) -> None:
    vectors_a = [[0.0, 0.0], [4.0, 0.0]]
    vectors_b = [[4.0, 2.0], [0.0, 2.0]]
    _write(tmp_path, "baseline", "a.json", _trajectory([None, 4.0], [1.0, 1.0], vectors=vectors_a))
    _write(tmp_path, "candidate", "b.json", _trajectory([None, 4.0], [1.0, 1.0], vectors=vectors_b))
    summary = summarize_latent(tmp_path)
    joint = pca2(np.array(vectors_a + vectors_b))
    assert np.allclose(summary.projections["baseline"][0], joint[:2])
    assert np.allclose(summary.projections["candidate"][0], joint[2:])
    # a rectangle's corners: the long side is the first axis for both roles together
    assert np.allclose(np.abs(summary.projections["candidate"][0]), [[2.0, 1.0], [2.0, 1.0]])
    assert summary.velocity_profile_difference == 0.0


def test_summary_encoder_trajectories_have_no_entropy(tmp_path: Path) -> None:
    _write(tmp_path, "baseline", "a.json", _trajectory([None], [None]))
    _write(tmp_path, "candidate", "b.json", _trajectory([None], [None]))
    summary = summarize_latent(tmp_path)
    assert summary.baseline_mean_entropy is None and summary.candidate_mean_entropy is None
    assert summary.baseline_velocity_profile == [] and summary.velocity_profile_difference is None


def test_summary_bad_input_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(AbwInputError, match="candidate/ folder"):
        _write(tmp_path, "baseline", "a.json", _trajectory([None], [1.0]))
        summarize_latent(tmp_path)
    _write(tmp_path, "candidate", "b.json", _trajectory([None], [1.0], model="other"))
    with pytest.raises(AbwInputError, match="cannot be compared") as info:
        summarize_latent(tmp_path)
    assert "\n" not in info.value.one_line()
    bad = _trajectory([None], [1.0])
    del bad["steps"][0]["projection"]
    _write(tmp_path, "candidate", "b.json", bad)
    with pytest.raises(AbwInputError) as info:
        summarize_latent(tmp_path)
    assert info.value.field == "steps.0.projection" and info.value.file.endswith("b.json")
    (tmp_path / "candidate" / "b.json").write_text("{", encoding="utf-8")
    with pytest.raises(AbwInputError, match="invalid JSON"):
        summarize_latent(tmp_path)
    (tmp_path / "candidate" / "b.json").write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(AbwInputError, match="nested too deeply"):
        summarize_latent(tmp_path)
    (tmp_path / "candidate" / "b.json").write_bytes(b'{"a": "\xff"}')
    with pytest.raises(AbwInputError, match=r"not valid UTF-8 \(byte 8 of the line\)"):
        summarize_latent(tmp_path)
    with pytest.raises(AbwInputError, match="no such folder"):
        summarize_latent(tmp_path / "missing")


def test_hand_made_trajectory_validates_against_schema() -> None:
    assert validate_document(_trajectory([None, 1.0], [1.0, 2.0]), "t.json") == []


def test_gate_path_never_imports_torch() -> None:
    code = (
        "import sys, abw.cli.gate_cmd, abw.gating, abw.latent_summary, abw.latent.geometry; "
        "assert 'torch' not in sys.modules and 'transformers' not in sys.modules, 'torch loaded'"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("vector", [], "0 numbers"),
        ("vector", [0.1, 0.2, 0.3], "3 numbers"),
        ("vector_b64", "x", "not base64 float16"),
        ("vector_b64", "AAA", "not base64 float16"),
        ("vector_b64", "AAAAAAA=", "not base64 float16"),  # five bytes: no whole float16s
        ("vector_b64", encode_f16(np.zeros(3, dtype=np.float32)), "3 numbers"),
    ],
)
def test_a_kept_hidden_state_of_another_size_is_refused_at_its_field(
    tmp_path: Path, run_cli, field: str, value: object, problem: str
) -> None:
    """Was an internal error (numpy could not stack the projection's vectors)."""
    vectors = [[0.1, 0.2], [0.3, 0.1]]
    latent = tmp_path / "latent"
    _write(latent, "baseline", "a.json", _trajectory([None, 1.0], [1.0, 2.0], vectors=vectors))
    candidate = _trajectory([None, 0.5], [0.5, 0.5], vectors=vectors)
    candidate["steps"][1].pop("vector")
    candidate["steps"][1][field] = value
    (latent / "candidate").mkdir()
    path = latent / "candidate" / "c.json"
    path.write_text(json.dumps(candidate, indent=2), encoding="utf-8")
    with pytest.raises(AbwInputError) as raised:
        summarize_latent(latent)
    error = raised.value
    assert (error.field, error.message) == (
        f"steps.1.{field}",
        f"a kept hidden state holds {problem}, not model.hidden_size = 2",
    )
    lines = [n for n, text in enumerate(path.read_text().splitlines(), 1) if f'"{field}"' in text]
    assert error.line == lines[-1]  # step 1's, the last step
    example = REPO / "examples" / "refund-policy"
    code, _, err = run_cli(
        "gate", "--baseline", example / "traces" / "baseline",
        "--candidate", example / "traces" / "small", "--spec", example / "behavior.yaml",
        "--latent", latent, "--out", tmp_path / "report.json",
    )  # fmt: skip
    assert code == 2 and err.strip() == f"abw: error: {error.one_line()}"


def test_validate_refuses_what_the_gate_refuses_in_a_trajectory(tmp_path: Path, run_cli) -> None:
    document = _trajectory([None, 0.5], [0.5, 0.5], vectors=[[0.1, 0.2], [0.3]])
    path = tmp_path / "c.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    code, _, err = run_cli("validate", path)
    line = [n for n, t in enumerate(path.read_text().splitlines(), 1) if '"vector"' in t][-1]
    assert code == 2
    assert err.strip() == (
        f"{path}:{line}: $.steps[1].vector: a kept hidden state holds 1 number, "
        "not model.hidden_size = 2"
    )
