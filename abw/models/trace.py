"""``agent-behavior-trace/v0``: one agent run as an ordered list of hashed spans."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from abw.models import TRACE_SCHEMA

SpanType = Literal["llm", "tool", "retriever", "memory", "handoff", "guardrail"]
SpanStatus = Literal["success", "error", "cancelled", "unknown"]
FinalStatus = Literal["success", "error", "cancelled", "unknown"]
SpanOutcome = Literal[
    "ok",  # the call ran and succeeded
    "error",  # the call ran and failed (non-zero exit, error result)
    "rejected",  # a person declined the call
    "denied",  # a permission rule or sandbox refused the call
    "interrupted",  # the run was interrupted while the call was pending
    "incomplete",  # no result was ever recorded (e.g. file cut off)
    "timeout",  # the call ran out of time
]


class _Open(BaseModel):
    """Unknown keys are kept: a trace written by a newer adapter still loads. A NaN or an
    infinity (no JSON number) is dumped as itself, not as null, so that writing the trace
    refuses it (abw.traceio.write_trace) instead of changing the value."""

    model_config = ConfigDict(extra="allow", strict=True, ser_json_inf_nan="constants")


class Source(_Open):
    platform: str = Field(description="Agent platform, e.g. claude_code, codex_cli, otel.")
    export_format: str = Field(description="Raw format read, e.g. jsonl, otlp-json.")
    exported_at: str | None = Field(
        default=None, description="When the trace was written (ISO 8601, UTC)."
    )
    source_hash: str = Field(description="SHA-256 of the raw source bytes.")


class Run(_Open):
    trace_id: str
    scenario_id: str | None = None
    environment: str | None = None
    final_status: FinalStatus = "unknown"
    started_at: str | None = Field(
        default=None,
        description="When the run started (ISO 8601, UTC), when the recorder knew it (abw sample "
        "records the moment it launched the agent); else the earliest span time is used.",
    )
    final_output_hash: str | None = Field(
        default=None, description="SHA-256 of the canonical JSON of the final output."
    )
    canonical_output: dict[str, Any] | None = Field(
        default=None,
        description="Fields extracted from the final output because they were named explicitly.",
    )


class SourceRef(_Open):
    """Where a span came from in the raw export, without any of its content."""

    file: str | None = Field(default=None, description="Base name of the raw file.")
    line: int | None = Field(default=None, ge=1, description="1-based line in the raw file.")


class Span(_Open):
    span_id: str
    ordinal: int = Field(ge=0, description="Position in the trajectory, from 0.")
    type: SpanType
    name: str
    status: SpanStatus
    input_hash: str | None = None
    output_hash: str | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    parent_span_id: str | None = None
    outcome: SpanOutcome | None = Field(
        default=None, description="Finer outcome behind the status (rejected, denied, ...)."
    )
    started_at: str | None = None
    duration_ms: float | None = Field(default=None, ge=0)
    source_ref: SourceRef | None = None


class Redaction(_Open):
    applied: bool = True
    method: str = "hash-only"
    removed_fields: list[str] = Field(default_factory=list)
    kept_fields: list[str] | None = Field(
        default=None,
        description="Tool-input fields copied raw into span attributes.arguments because they "
        "were named explicitly (--argument-fields), as '<span name>:<field path>'.",
    )


class Trace(_Open):
    """One recorded agent run."""

    schema_version: Literal["agent-behavior-trace/v0"] = TRACE_SCHEMA
    source: Source
    run: Run
    spans: list[Span] = Field(default_factory=list)
    redaction: Redaction = Field(default_factory=Redaction)

    def path(self) -> list[Span]:
        """The non-``llm`` spans in ordinal order (:func:`abw.semantics.path`)."""
        from abw.semantics import in_order, path

        return path(in_order(self.spans))
