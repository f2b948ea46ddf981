"""``agent-behavior-contract/v0``: the formal contract C = (P, I, G, R).

P: preconditions, I: invariants, G: governance, R: recovery, with (p, delta, k)-satisfaction.
``abw contract compile`` turns it into a runnable ``behavior-spec/v0``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from abw.models import CONTRACT_SCHEMA


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Clause(_Closed):
    """One rule of the contract; ``rule`` names its kind and the rest are its parameters."""

    id: str = Field(min_length=1)
    statement: str = Field(description="The rule in one plain sentence.")
    rule: str = Field(description="Rule kind, e.g. required_tool, precedence, forbidden_tool.")
    params: dict[str, Any] = Field(default_factory=dict)


class HardSoft(_Closed):
    hard: list[Clause] = Field(default_factory=list)
    soft: list[Clause] = Field(default_factory=list)


class Recovery(_Closed):
    """A soft violation of ``violation`` must be followed by one of ``actions`` within k steps."""

    id: str = Field(min_length=1)
    violation: str = Field(description="Id of the soft clause this recovers from.")
    actions: list[str] = Field(min_length=1, description="Tool names (globs) that recover.")
    within_steps: int = Field(ge=1)


class Satisfaction(_Closed):
    """(p, delta, k)-satisfaction."""

    p: float = Field(default=0.95, gt=0, le=1, description="Required compliance probability.")
    delta: float = Field(default=0.0, ge=0, description="Tolerated soft violations per run.")
    k: int = Field(default=3, ge=1, description="Recovery window in steps.")


class Contract(_Closed):
    schema_version: Literal["agent-behavior-contract/v0"] = CONTRACT_SCHEMA
    id: str = Field(min_length=1)
    name: str | None = None
    description: str | None = None
    preconditions: list[Clause] = Field(default_factory=list)
    invariants: HardSoft = Field(default_factory=HardSoft)
    governance: HardSoft = Field(default_factory=HardSoft)
    recovery: list[Recovery] = Field(default_factory=list)
    satisfaction: Satisfaction = Field(default_factory=Satisfaction)
