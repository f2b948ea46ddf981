"""``representation-trajectory/v0``: the geometry of an open model's hidden states along a run.

Advisory evidence only. Steps carry span references, never raw text.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from abw.models import TRAJECTORY_SCHEMA


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelInfo(_Model):
    name: str = Field(description="Hub id or the base name of a local folder.")
    layer: int = Field(
        description="Hidden-state layer used: 0 the embeddings, num_layers the last layer (a "
        "negative --layer counts from the end and is stored resolved)."
    )
    num_layers: int
    hidden_size: int
    dtype: str
    has_lm_head: bool = Field(description="False for encoder-only models: entropy is null.")


class Step(_Model):
    index: int = Field(ge=0)
    text_hash: str = Field(description="SHA-256 of the step text; the text itself is not stored.")
    span_id: str | None = None
    span_ordinal: int | None = None
    token_count: int = Field(ge=0)
    entropy: float | None = Field(description="Softmax entropy (nats) of the next-token logits.")
    velocity: float | None = Field(description="L2 distance to the previous step's vector.")
    curvature: float | None = Field(
        description="Turning angle in radians [0, pi] between consecutive step displacements; "
        "see docs/latent.md."
    )
    projection: list[float] = Field(min_length=2, max_length=2, description="PCA(2) coordinates.")
    vector: list[float] | None = Field(default=None, description="Hidden state, when kept.")
    vector_b64: str | None = Field(
        default=None, description="Hidden state as base64 little-endian float16, when compressed."
    )


class TrajectorySource(_Model):
    kind: Literal["steps", "claude_transcript"]
    source_hash: str | None = None
    trace_id: str | None = None
    scenario_id: str | None = None


class RepresentationTrajectory(_Model):
    schema_version: Literal["representation-trajectory/v0"] = TRAJECTORY_SCHEMA
    model: ModelInfo
    source: TrajectorySource
    step_count: int = Field(ge=0)
    steps: list[Step]
    mean_entropy: float | None = None
    mean_velocity: float | None = None
