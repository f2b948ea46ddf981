"""agent-invariants' own contract schema (its ``src/schemas.ts``, zod), as strict pydantic
models: what ``abw spec convert`` refuses as the peer itself would (abw.spec_convert)."""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def peer_models() -> tuple[Any, dict[str, Any]]:
    """agent-invariants' own schema (its ``src/schemas.ts``, zod) as pydantic models: the
    contract's fields, and each rule kind's. Types are strict, as the peer's are (``"2"`` is
    no number, ``true`` no count); a ``null`` reads as an absent optional field. Unknown fields
    are not errors here: the caller notes each with :func:`_unknown_fields`."""
    from typing import Annotated, Literal

    from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

    def text(most: int) -> Any:
        return Annotated[
            str, StringConstraints(strip_whitespace=True, min_length=1, max_length=most)
        ]

    glob = text(500)
    count = Annotated[int, Field(ge=0, le=1_000_000)]
    evidence = Literal[
        "externally_observed", "configured_verifier", "manual_attestation", "self_attestation"
    ]

    class Peer(BaseModel):
        model_config = ConfigDict(strict=True, extra="ignore")

    class Matcher(Peer):
        type: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None
        tool: Annotated[str, StringConstraints(min_length=1, max_length=500)] | None = None
        ok: bool | None = None
        outcome_id: Annotated[str, StringConstraints(min_length=1, max_length=500)] | None = None
        verdict: Literal["satisfied", "violated", "unknown", "retracted"] | None = None
        claims_completion: bool | None = None

        @model_validator(mode="before")
        @classmethod
        def _not_empty(cls, value: Any) -> Any:
            if value == {}:
                raise ValueError("a matcher needs at least one field")
            return value

    class Contract(Peer):
        version: Literal[1]
        name: text(200)
        description: text(5_000) | None = None
        rules: Any = None  # (checked rule by rule)
        compare: Any = None  # (checked by _compare)

    class Base(Peer):
        id: str
        kind: str
        severity: Literal["warning", "error"] | None = None
        description: text(2_000) | None = None

    class DenyTool(Base):
        tool: glob

    class AllowTools(Base):
        tools: Annotated[list[glob], Field(min_length=1, max_length=1_000)]

    class RequireApproval(Base):
        tool: glob
        scope: glob | None = None
        within_events: Annotated[int, Field(gt=0, le=100_000)] | None = None

    class StopIsFinal(Base):
        stop_type: glob | None = None
        allowed_after: Annotated[list[glob], Field(max_length=100)] | None = None

    class CompletionRequiresOutcome(Base):
        completion_types: Annotated[list[glob], Field(min_length=1, max_length=100)] | None = None
        outcome_id: glob | None = None
        evidence_classes: Annotated[list[evidence], Field(min_length=1, max_length=4)] | None = None

    class RetryLimit(Base):
        tool: glob | None = None
        max_attempts: Annotated[int, Field(ge=1, le=10_000)]
        group_by: Literal["tool", "call_signature"] | None = None

    class EventBudget(Base):
        max_events: count | None = None
        max_tool_calls: count | None = None
        max_tool_failures: count | None = None

        @model_validator(mode="after")
        def _a_budget(self) -> EventBudget:
            if (self.max_events, self.max_tool_calls, self.max_tool_failures) == (None,) * 3:
                raise ValueError(
                    "set at least one budget (max_events, max_tool_calls or max_tool_failures)"
                )
            return self

    class RequireOrder(Base):
        before: Matcher
        after: Matcher

    class RequireEvent(Base):
        match: Matcher
        min: count | None = None
        max: count | None = None

    class DenyEvent(Base):
        match: Matcher

    class ToolResultRequired(Base):
        tool: glob | None = None

    class ConfidenceRequiresOutcome(Base):
        threshold: Annotated[float, Field(ge=0, le=1)]
        evidence_classes: Annotated[list[evidence], Field(min_length=1, max_length=4)] | None = None

    kinds = {
        "deny_tool": DenyTool,
        "allow_tools": AllowTools,
        "require_approval": RequireApproval,
        "stop_is_final": StopIsFinal,
        "completion_requires_outcome": CompletionRequiresOutcome,
        "retry_limit": RetryLimit,
        "event_budget": EventBudget,
        "require_order": RequireOrder,
        "require_event": RequireEvent,
        "deny_event": DenyEvent,
        "tool_result_required": ToolResultRequired,
        "confidence_requires_outcome": ConfidenceRequiresOutcome,
    }
    return Contract, kinds


def first_problem(model: Any, value: dict[str, Any], where: str) -> tuple[str, str] | None:
    """``(field, message)`` of the first reason the peer's schema refuses ``value`` (at
    ``where``, ``""`` for the contract), or None. The field is the contract's own, down to the
    deepest part ``value`` holds (a missing field is named in the message, at its object)."""
    from pydantic import ValidationError

    try:
        model.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = list(first["loc"])
        msg = str(first["msg"]).removeprefix("Value error, ")
        path = [where] if where else []
        node: Any = value
        for part in loc:
            if not _holds(node, part):
                break
            node = node[part]
            path.append(str(part))
        return ".".join(path), f"{'.'.join(map(str, loc))}: {msg}" if loc else msg
    return None


def _holds(node: Any, part: Any) -> bool:
    if isinstance(node, dict):
        return part in node
    return isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
