"""Trajectory geometry on plain numpy arrays: entropy, velocity, curvature, PCA(2), profiles.

No torch here: the gate's summary (:mod:`abw.latent_summary`) and the tests use these too.
All arithmetic is float64. Definitions (also in docs/latent.md):

- entropy ``H = -sum_i p_i log p_i`` in nats, ``p = softmax(logits)``;
- velocity ``v_t = ||x_t - x_{t-1}||_2`` for ``t >= 1`` (None at step 0);
- curvature ``k_t`` = turning angle in radians, in ``[0, pi]``, between the displacements
  ``d_{t-1} = x_{t-1} - x_{t-2}`` and ``d_t = x_t - x_{t-1}`` for ``t >= 2`` (None before,
  and None when either displacement is zero);
- PCA(2): centre the vectors, take the top two right singular vectors; each axis's sign is
  fixed so that its largest-magnitude loading (first one on ties) is positive.
"""

from __future__ import annotations

import base64

import numpy as np

#: Singular values below this fraction of the largest are treated as zero (no such axis).
_RANK_TOL = 1e-10


def sig9(value: float | None) -> float | None:
    """Nine significant digits: stable file text, far below the noise of any model."""
    return None if value is None else float(f"{value:.9g}")


def entropy_from_logits(logits: np.ndarray) -> np.ndarray:
    """Softmax entropy in nats of each row of ``logits`` (last axis is the vocabulary)."""
    z = np.asarray(logits, dtype=np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    p = np.exp(log_p)
    return -(p * log_p).sum(axis=-1)


def velocities(vectors: np.ndarray) -> list[float | None]:
    """L2 distance between consecutive vectors; None for the first step."""
    x = np.asarray(vectors, dtype=np.float64)
    if len(x) == 0:
        return []
    steps = np.linalg.norm(np.diff(x, axis=0), axis=1)
    return [None, *(float(v) for v in steps)]


def curvatures(vectors: np.ndarray) -> list[float | None]:
    """Turning angle (radians) between consecutive displacement vectors; None where undefined."""
    x = np.asarray(vectors, dtype=np.float64)
    out: list[float | None] = [None] * min(len(x), 2)
    d = np.diff(x, axis=0)
    for t in range(2, len(x)):
        a, b = d[t - 2], d[t - 1]
        na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        if na == 0.0 or nb == 0.0:
            out.append(None)
            continue
        cos = float(np.dot(a, b) / (na * nb))
        out.append(float(np.arccos(min(1.0, max(-1.0, cos)))))
    return out


def pca2(vectors: np.ndarray) -> np.ndarray:
    """``(n, 2)`` PCA coordinates of ``n`` vectors with the deterministic sign convention.

    Axes that do not exist (one vector, or all on a line) give zero coordinates.
    """
    x = np.asarray(vectors, dtype=np.float64)
    n = len(x)
    coords = np.zeros((n, 2), dtype=np.float64)
    if n < 2:
        return coords
    centred = x - x.mean(axis=0, keepdims=True)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    if s.size == 0 or s[0] == 0.0:
        return coords
    for axis in range(min(2, len(s))):
        if s[axis] <= _RANK_TOL * s[0]:
            break
        component = vt[axis]
        pivot = int(np.argmax(np.abs(component)))
        sign = 1.0 if component[pivot] >= 0 else -1.0
        coords[:, axis] = centred @ (sign * component)
    return coords


def resample(values: list[float], length: int) -> np.ndarray:
    """Linear interpolation of a sequence onto ``length`` points evenly spaced over [0, 1].

    One value gives a constant profile; none gives an empty array.
    """
    y = np.asarray(values, dtype=np.float64)
    if y.size == 0:
        return np.zeros(0)
    if y.size == 1:
        return np.full(length, y[0])
    return np.interp(np.linspace(0.0, 1.0, length), np.linspace(0.0, 1.0, y.size), y)


#: The largest float16
F16_MAX = 65504.0


def encode_f16(vector: np.ndarray) -> str:
    """Base64 of the vector as little-endian float16; a value beyond float16's range (it
    would be kept as infinite) is a ValueError."""
    values = np.asarray(vector, dtype=np.float64)
    if values.size and not np.abs(values).max() <= F16_MAX:
        raise ValueError(f"a value ({np.abs(values).max():.6g}) is beyond float16's range")
    return base64.b64encode(values.astype("<f2").tobytes()).decode("ascii")


def decode_f16(text: str) -> np.ndarray:
    """Inverse of :func:`encode_f16`, as float32."""
    return np.frombuffer(base64.b64decode(text), dtype="<f2").astype(np.float32)
