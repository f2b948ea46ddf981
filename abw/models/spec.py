"""``behavior-spec/v0``: the locked, runnable behavior contract read by ``abw gate``.

Unknown keys are an error (fail closed): a typo in a contract must never weaken the gate.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from abw.models import SPEC_SCHEMA
from abw.models.rules import Assertion, Rule, check_rule_references


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OrderConstraint(_Closed):
    """Every successful ``after`` span needs a successful ``before`` span at an earlier ordinal.

    Both names may be shell-style globs (``refund_*``).
    """

    before: str = Field(min_length=1)
    after: str = Field(min_length=1)


class Invariants(_Closed):
    """Hard constraints: any violating candidate run is a counterexample and FAILs the gate."""

    required_tools: list[str] = Field(default_factory=list)
    forbidden_tools: list[str] = Field(default_factory=list)
    required_order: list[OrderConstraint] = Field(default_factory=list)
    max_path_length: int | None = Field(default=None, ge=0)
    max_errors: int | None = Field(default=None, ge=0)
    max_retries: int | None = Field(default=None, ge=0)


class OutputEval(_Closed):
    """Checks on ``run.canonical_output`` (the explicitly extracted final-answer fields)."""

    required_fields: list[str] = Field(default_factory=list)
    expected: dict[str, Any] = Field(default_factory=dict)


class Sprt(_Closed):
    """Wald's sequential probability ratio test on the per-run pass indicator."""

    enabled: bool = False
    alpha: float = Field(default=0.05, ge=1e-9, lt=1)  # below it the log-likelihood ratio
    beta: float = Field(default=0.20, ge=1e-9, lt=1)  # bounds overflow a float
    p0: float = Field(default=0.95, gt=0, lt=1, description="H0: acceptable pass rate.")
    p1: float = Field(default=0.80, gt=0, lt=1, description="H1: degraded pass rate.")
    max_runs: int = Field(default=50, ge=1, description="Truncation: INCONCLUSIVE past this.")
    boundaries: Literal["wald", "ville"] = "wald"

    @model_validator(mode="after")
    def _p1_below_p0(self) -> Sprt:
        if not self.p1 < self.p0:
            raise ValueError("sprt.p1 must be lower than sprt.p0")
        return self


class Thresholds(_Closed):
    path_edit_distance_warn: float = Field(default=0.12, ge=0)
    path_edit_distance_fail: float = Field(default=0.25, ge=0)
    fingerprint_distance_warn: float = Field(default=1.0, ge=0)
    fingerprint_distance_fail: float = Field(default=2.0, ge=0)
    tool_jaccard_warn: float = Field(default=0.15, ge=0)
    tool_jaccard_fail: float = Field(default=0.4, ge=0)
    min_runs: int = Field(default=1, ge=1)
    min_wilson_pass_rate: float = Field(default=0.7, ge=0, le=1)
    wilson_z: float = Field(default=1.96, gt=0)
    sprt: Sprt = Field(default_factory=Sprt)


class Spec(_Closed):
    """A behavior spec: hard invariants plus soft and statistical thresholds."""

    schema_version: Literal["behavior-spec/v0"] = SPEC_SCHEMA
    id: str = Field(min_length=1)
    name: str | None = None
    description: str | None = None
    invariants: Invariants = Field(default_factory=Invariants)
    output: OutputEval = Field(default_factory=OutputEval)
    thresholds: Thresholds = Field(default_factory=Thresholds)
    rules: list[Rule] = Field(
        default_factory=list,
        description="Temporal, count, retry and argument rules (docs/contracts.md).",
    )
    assertions: list[Assertion] = Field(
        default_factory=list,
        description="Value assertions between baseline and candidate runs (docs/contracts.md).",
    )
    baseline_violations: Literal["fail", "warn"] = Field(
        default="fail",
        description="A hard rule or invariant violation that baseline runs of the same scenario "
        "also have: fail (default: a violation is a violation) or warn (reported as already in "
        "the baseline; the run does not count as failed).",
    )
    strict: bool = Field(
        default=False,
        description="Every assertion counts as severity error (warn and info too): drifted "
        "FAILs, unknown is INCONCLUSIVE (also `abw gate --strict`).",
    )

    @model_validator(mode="after")
    def _rule_references(self) -> Spec:
        check_rule_references(self.rules, self.assertions)
        return self
