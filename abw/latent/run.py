"""Trajectories in, representation trajectories out: load once, extract in batches, build."""

from __future__ import annotations

from dataclasses import dataclass

from abw.latent.build import StepRef, build_trajectory
from abw.latent.extract import extract
from abw.latent.model import LoadedModel
from abw.models.trajectory import ModelInfo, RepresentationTrajectory, TrajectorySource


@dataclass
class TrajectoryInput:
    """One run's step texts (in memory only), their references and where they came from."""

    texts: list[str]
    refs: list[StepRef]
    source: TrajectorySource


def model_info(lm: LoadedModel, layer: int) -> ModelInfo:
    return ModelInfo(
        name=lm.name,
        layer=lm.resolve_layer(layer),
        num_layers=lm.num_layers,
        hidden_size=lm.hidden_size,
        dtype=lm.dtype_name,
        has_lm_head=lm.has_lm_head,
    )


def compute(
    lm: LoadedModel,
    inputs: list[TrajectoryInput],
    *,
    layer: int = -1,
    keep_vectors: str = "none",
    **options: object,
) -> list[RepresentationTrajectory]:
    """One representation trajectory per input, all extracted in shared batches."""
    info = model_info(lm, layer)
    results = extract(lm, [item.texts for item in inputs], layer=layer, **options)  # type: ignore[arg-type]
    return [
        build_trajectory(
            model=info,
            source=item.source,
            refs=item.refs,
            vectors=result.vectors,
            entropies=result.entropies,
            token_counts=result.token_counts,
            keep_vectors=keep_vectors,
        )
        for item, result in zip(inputs, results, strict=True)
    ]
