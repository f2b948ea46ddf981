"""Summary numbers of representation trajectories for the gate report: advisory, numpy only.

``summarize_latent(folder)`` reads ``folder/baseline`` and ``folder/candidate`` (every
``*.json`` below each, sorted by path) and returns a
:class:`~abw.models.report.LatentAdvisory`. Definitions (docs/latent.md):

- mean entropy of a role: the mean over its trajectories of each trajectory's mean step
  entropy (every run counts once); None when no step has an entropy (encoder models);
- velocity profile of a trajectory: its velocities (steps 1..n-1) linearly resampled onto
  :data:`PROFILE_POINTS` points evenly spaced over the run's progress 0..1 (one velocity gives a
  flat profile; a one-step trajectory has none); a role's profile is the pointwise mean;
- velocity profile difference: the mean absolute pointwise difference, candidate minus
  baseline, in the model's hidden-state units; None when either role has no profile;
- projections: with every hidden state kept (``--keep-vectors``), one PCA(2) over all vectors of
  both roles, so the plots share axes; otherwise each file's own PCA coordinates.

This never imports torch or transformers, and never changes a verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from abw.documents import read_source
from abw.errors import AbwInputError, from_validation_error
from abw.folders import files_within
from abw.latent.geometry import decode_f16, pca2, resample, sig9
from abw.models.report import LatentAdvisory
from abw.models.trajectory import RepresentationTrajectory
from abw.text import plural

PROFILE_POINTS = 20
ROLES = ("baseline", "candidate")


def load_trajectory(path: Path) -> RepresentationTrajectory:
    """One representation-trajectory/v0 file, or a one-line error naming the field
    (:func:`refuse_odd_vectors` included)."""
    source = read_source(path)
    try:
        trajectory = RepresentationTrajectory.model_validate(source.document)
    except ValidationError as exc:
        raise from_validation_error(
            exc, file=path, root_field="$", line_of=source.line_of, document=source.document
        ) from None
    refuse_odd_vectors(trajectory, path, source.line_of)
    return trajectory


def refuse_odd_vectors(
    trajectory: RepresentationTrajectory,
    file: str | Path,
    line_of: Callable[[tuple[str | int, ...]], int | None] | None = None,
) -> None:
    """Refuse a kept hidden state (``vector``, ``vector_b64``) that is not
    ``model.hidden_size`` finite numbers: no projection could stack it with the others (an
    infinite one made the projection an internal error). ``abw validate`` says the same
    (abw.validate)."""
    size = trajectory.model.hidden_size
    for index, step in enumerate(trajectory.steps):
        for field in ("vector", "vector_b64"):
            if getattr(step, field) is None:
                continue
            try:
                values = np.asarray(
                    step.vector if field == "vector" else decode_f16(step.vector_b64)
                )
                length = len(values)
            except ValueError:  # (binascii.Error: not base64; an odd byte count)
                values, length = None, None
            if values is not None and length == size and not np.isfinite(values).all():
                raise AbwInputError(
                    "a kept hidden state holds an infinite or NaN value (a float16 overflow?)",
                    file=file,
                    line=line_of(("steps", index, field)) if line_of else None,
                    field=f"steps.{index}.{field}",
                )
            if length != size:
                problem = "not base64 float16" if length is None else plural(length, "number")
                raise AbwInputError(
                    f"a kept hidden state holds {problem}, not model.hidden_size = {size}",
                    file=file,
                    line=line_of(("steps", index, field)) if line_of else None,
                    field=f"steps.{index}.{field}",
                )


def load_role(folder: Path, role: str) -> list[tuple[Path, RepresentationTrajectory]]:
    """Every trajectory file of ``folder/role``, sorted by path; at least one."""
    where = folder / role
    if not where.is_dir():
        raise AbwInputError(f"expected a {role}/ folder of trajectories", file=where)
    files = files_within(folder, where, "*.json", "latent folder")
    if not files:
        raise AbwInputError(f"no representation-trajectory files in {role}/", file=where)
    return [(path, load_trajectory(path)) for path in files]


def _vector(step: object) -> np.ndarray | None:
    vector = getattr(step, "vector", None)
    if vector is not None:
        return np.asarray(vector, dtype=np.float64)
    encoded = getattr(step, "vector_b64", None)
    return decode_f16(encoded).astype(np.float64) if encoded is not None else None


def _mean_entropy(trajectories: list[RepresentationTrajectory]) -> float | None:
    means = []
    for trajectory in trajectories:
        values = [s.entropy for s in trajectory.steps if s.entropy is not None]
        if values:
            means.append(float(np.mean(values)))
    return sig9(float(np.mean(means))) if means else None


def velocity_profile(trajectories: list[RepresentationTrajectory]) -> list[float]:
    """The pointwise mean of the trajectories' resampled velocity profiles (may be empty)."""
    profiles = []
    for trajectory in trajectories:
        values = [s.velocity for s in trajectory.steps if s.velocity is not None]
        if values:
            profiles.append(resample(values, PROFILE_POINTS))
    if not profiles:
        return []
    return [sig9(float(v)) for v in np.mean(np.stack(profiles), axis=0)]  # type: ignore[misc]


def _projections(
    roles: dict[str, list[RepresentationTrajectory]],
) -> dict[str, list[list[list[float]]]]:
    everything = [t for role in ROLES for t in roles[role]]
    vectors = [[_vector(s) for s in t.steps] for t in everything]
    joint = all(v is not None for traj in vectors for v in traj) and any(vectors)
    if joint:
        stacked = np.stack([v for traj in vectors for v in traj])  # type: ignore[misc]
        coords = pca2(stacked)
    out: dict[str, list[list[list[float]]]] = {}
    offset = 0
    for role in ROLES:
        out[role] = []
        for trajectory in roles[role]:
            if joint:
                points = coords[offset : offset + len(trajectory.steps)]
                offset += len(trajectory.steps)
                out[role].append([[sig9(float(x)), sig9(float(y))] for x, y in points])  # type: ignore[misc]
            else:
                out[role].append([list(s.projection) for s in trajectory.steps])
    return out


#: The ``model`` fields that must agree across all files: another name, layer, depth, width,
#: dtype or head is another model's geometry (a ``vector`` of another ``hidden_size`` could not
#: even be stacked by the joint projection).
SAME_MODEL_FIELDS = ("name", "layer", "num_layers", "hidden_size", "dtype", "has_lm_head")


def refuse_other_model(
    trajectory: RepresentationTrajectory,
    path: Path,
    first: RepresentationTrajectory,
    first_path: Path,
    folder: Path,
) -> None:
    """One line naming both files and the first ``model`` field (:data:`SAME_MODEL_FIELDS`)
    where ``trajectory`` differs from ``first``: different models cannot be compared."""
    for name in SAME_MODEL_FIELDS:
        mine, theirs = getattr(trajectory.model, name), getattr(first.model, name)
        if mine != theirs:
            shown = first_path.relative_to(folder) if first_path.is_relative_to(folder) else ""
            raise AbwInputError(
                f"{mine!r} differs from {theirs!r} in {shown or first_path}; trajectories "
                "of different models, layers or dtypes cannot be compared",
                file=path,
                field=f"model.{name}",
            )


def summarize_latent(folder: Path) -> LatentAdvisory:
    """Advisory summary of ``folder/baseline`` vs ``folder/candidate`` trajectories."""
    folder = Path(folder)
    if not folder.is_dir():
        raise AbwInputError("no such folder of representation trajectories", file=folder)
    loaded = {role: load_role(folder, role) for role in ROLES}
    first_path, first = loaded["baseline"][0]
    for role in ROLES:
        for path, trajectory in loaded[role]:
            refuse_other_model(trajectory, path, first, first_path, folder)
    roles = {role: [t for _, t in loaded[role]] for role in ROLES}
    base_profile = velocity_profile(roles["baseline"])
    cand_profile = velocity_profile(roles["candidate"])
    difference = None
    if base_profile and cand_profile:
        difference = sig9(
            float(np.mean(np.abs(np.asarray(cand_profile) - np.asarray(base_profile))))
        )
    return LatentAdvisory(
        model=first.model.name,
        baseline_trajectories=len(roles["baseline"]),
        candidate_trajectories=len(roles["candidate"]),
        baseline_mean_entropy=_mean_entropy(roles["baseline"]),
        candidate_mean_entropy=_mean_entropy(roles["candidate"]),
        baseline_velocity_profile=base_profile,
        candidate_velocity_profile=cand_profile,
        velocity_profile_difference=difference,
        projections=_projections(roles),
    )
