"""``agent-behavior-contract/v0``: the formal contract C = (P, I, G, R).

P: preconditions, I: invariants, G: governance, R: recovery, with (p, delta, k)-satisfaction.
``abw contract compile`` turns it into a runnable ``behavior-spec/v0``; the mapping of every
clause kind is in ``docs/contracts.md`` and ``abw/contract.py``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from abw.models import CONTRACT_SCHEMA
from abw.models.rules import RULE_KINDS
from abw.models.spec import Thresholds

#: Rule kinds a clause may name; recovery and soft budgets come from the contract's own
#: ``recovery`` and (p, delta, k) fields.
CLAUSE_RULE_KINDS = tuple(k for k in RULE_KINDS if k not in ("recovery", "soft_budget"))

ClauseKind = Literal[  # type: ignore[valid-type]
    (
        "required_tool",
        "forbidden_tool",
        "max_path_length",
        "max_errors",
        "max_retries",
        *CLAUSE_RULE_KINDS,
        "assertion",
        "required_output_fields",
        "expected_output",
    )
]


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Clause(_Closed):
    """One rule of the contract; ``rule`` names its kind and the rest are its parameters."""

    id: str = Field(min_length=1)
    statement: str = Field(description="The rule in one plain sentence.")
    rule: ClauseKind = Field(description="Clause kind; its parameters are in params.")
    params: dict[str, Any] = Field(
        default_factory=dict,
        description="The parameters of the behavior-spec rule of the same kind "
        "(required_tool/forbidden_tool: tool; max_*: value; assertion: selector, matcher, ...; "
        "required_output_fields: fields; expected_output: values).",
    )


class HardSoft(_Closed):
    """Hard clauses must hold in every run; soft ones may be violated within delta and k."""

    hard: list[Clause] = Field(default_factory=list)
    soft: list[Clause] = Field(default_factory=list)


class Recovery(_Closed):
    """A soft violation of ``violation`` must be followed by one of ``actions`` within k steps."""

    id: str = Field(min_length=1)
    violation: str = Field(description="Id of the soft clause this recovers from.")
    actions: list[str] = Field(min_length=1, description="Tool names (globs) that recover.")
    within_steps: int | None = Field(
        default=None, ge=1, description="Recovery window; defaults to satisfaction.k."
    )


class Satisfaction(_Closed):
    """(p, delta, k)-satisfaction."""

    p: float = Field(
        default=0.95,
        gt=0,
        le=1,
        description="Required compliance probability: p < 1 compiles to failing_runs: "
        "tolerate with min_wilson_pass_rate = p; p = 1 to failing_runs: forbid.",
    )
    delta: float | None = Field(
        default=None,
        ge=0,
        description="Tolerated soft violations per run (floored); none: no budget, soft "
        "violations only WARN.",
    )
    k: int = Field(default=3, ge=1, description="Default recovery window in path steps.")


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
    thresholds: Thresholds | None = Field(
        default=None,
        description="Gate thresholds for the compiled spec; min_wilson_pass_rate is set to p.",
    )
