"""Assemble a ``representation-trajectory/v0`` document from extracted vectors (never raw text)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from abw.atomic import write_atomic
from abw.errors import AbwInputError
from abw.hashing import sha256_hex
from abw.latent.geometry import F16_MAX, curvatures, encode_f16, pca2, sig9, velocities
from abw.models.trajectory import (
    ModelInfo,
    RepresentationTrajectory,
    Step,
    TrajectorySource,
)

KEEP_VECTORS = ("none", "full", "f16")


@dataclass(frozen=True)
class StepRef:
    """What a step is, without its text: the text's hash and the span it stands for."""

    text_hash: str
    span_id: str | None = None
    span_ordinal: int | None = None

    @classmethod
    def of_text(cls, text: str, span_id: str | None = None, ordinal: int | None = None) -> StepRef:
        return cls(sha256_hex(text), span_id, ordinal)


_num = sig9


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return _num(float(np.mean(kept))) if kept else None


def build_trajectory(
    *,
    model: ModelInfo,
    source: TrajectorySource,
    refs: list[StepRef],
    vectors: np.ndarray,
    entropies: list[float | None],
    token_counts: list[int],
    keep_vectors: str = "none",
) -> RepresentationTrajectory:
    """Geometry of one trajectory: velocity, curvature and PCA(2) from its step vectors."""
    if keep_vectors not in KEEP_VECTORS:
        raise AbwInputError(
            f"--keep-vectors {keep_vectors!r} is not one of {', '.join(KEEP_VECTORS)}",
            field="--keep-vectors",
        )
    if keep_vectors == "f16" and vectors.size and not np.abs(vectors).max() <= F16_MAX:
        raise AbwInputError(
            f"a hidden-state value ({float(np.abs(vectors).max()):.6g}) is beyond float16's "
            "range (it would be kept as infinite): keep the vectors with --keep-vectors full",
            field="--keep-vectors",
        )
    vel = velocities(vectors)
    curv = curvatures(vectors)
    coords = pca2(vectors)
    steps = []
    for i, ref in enumerate(refs):
        vector = vectors[i]
        steps.append(
            Step(
                index=i,
                text_hash=ref.text_hash,
                span_id=ref.span_id,
                span_ordinal=ref.span_ordinal,
                token_count=int(token_counts[i]),
                entropy=_num(entropies[i]),
                velocity=_num(vel[i]),
                curvature=_num(curv[i]),
                projection=[_num(float(coords[i, 0])), _num(float(coords[i, 1]))],
                vector=[float(x) for x in np.asarray(vector, dtype=np.float32)]
                if keep_vectors == "full"
                else None,
                vector_b64=encode_f16(vector) if keep_vectors == "f16" else None,
            )
        )
    return RepresentationTrajectory(
        model=model,
        source=source,
        step_count=len(steps),
        steps=steps,
        mean_entropy=_mean(entropies),
        mean_velocity=_mean(vel),
    )


def render_trajectory(trajectory: RepresentationTrajectory) -> str:
    """Deterministic file text: sorted keys, one step per line, absent vectors left out."""
    document = trajectory.model_dump(mode="json")
    steps = document.pop("steps")
    for step in steps:
        for key in ("vector", "vector_b64"):
            if step[key] is None:
                del step[key]
    head = json.dumps(document, sort_keys=True, ensure_ascii=False, allow_nan=False)
    lines = [json.dumps(s, sort_keys=True, ensure_ascii=False, allow_nan=False) for s in steps]
    body = ",\n".join(lines)
    return head[:-1] + ', "steps": [\n' + body + ("\n" if lines else "") + "]}\n"


def write_trajectory(trajectory: RepresentationTrajectory, path: Path) -> Path:
    return write_atomic(path, render_trajectory(trajectory))
