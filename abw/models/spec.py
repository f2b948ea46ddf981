"""``behavior-spec/v0``: the locked, runnable behavior contract read by ``abw gate``.

Unknown keys are an error (fail closed): a typo in a contract must never weaken the gate.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from abw.models import SPEC_SCHEMA
from abw.models.rules import Assertion, Rule, SomeName, check_rule_references


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


#: The glob wildcards a field of exact names refuses (``[`` stays literal there: peers and
#: traces hold names like ``##[error]``, and no one writes a bracket class for a tool family).
WILDCARDS = frozenset("*?")


def _exact_name(how: str) -> AfterValidator:
    """Refuse a wildcard in a field of exact names (``required_tools``, ``forbidden_tools``):
    it names no real tool, so a forbidden ``Bash*`` would forbid nothing and PASS."""

    def check(name: str) -> str:
        if WILDCARDS.intersection(name):
            raise ValueError(glob_refusal(name, how))
        return name

    return AfterValidator(check)


def glob_refusal(name: str, how: str) -> str:
    """Why ``name`` is refused as an exact tool name; ``how`` (a format of the quoted name)
    says what to write instead."""
    return (
        f"{name!r} holds a glob wildcard (* or ?) but this field takes exact tool names: "
        f"for every tool the glob matches write {how.format(json.dumps(name))}; for a tool "
        f"named so, the same with tool: {json.dumps('=' + name)}"
    )


RequiredName = Annotated[
    SomeName, _exact_name("a rule {{kind: count, tool: {}, min: 1, count_status: success}}")
]
#: (an empty name, an unset template variable, would forbid nothing and PASS)
ForbiddenName = Annotated[SomeName, _exact_name("a rule {{kind: count, tool: {}, max: 0}}")]


class OrderConstraint(_Closed):
    """Every successful ``after`` span needs a successful ``before`` span at an earlier ordinal.

    Both names may be shell-style globs (``refund_*``).
    """

    before: SomeName
    after: SomeName


class Invariants(_Closed):
    """Hard constraints: any violating candidate run is a counterexample and FAILs the gate."""

    required_tools: list[RequiredName] = Field(default_factory=list)
    forbidden_tools: list[ForbiddenName] = Field(default_factory=list)
    required_order: list[OrderConstraint] = Field(default_factory=list)
    max_path_length: int | None = Field(default=None, ge=0)
    max_errors: int | None = Field(default=None, ge=0)
    max_retries: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _required_or_forbidden(self) -> Invariants:
        both = sorted(set(self.required_tools) & set(self.forbidden_tools))
        if both:
            raise ValueError(
                f"{', '.join(both)} is both required and forbidden: no run can pass; keep it "
                "in one list"
            )
        return self


class OutputEval(_Closed):
    """Checks on ``run.canonical_output`` (the explicitly extracted final-answer fields)."""

    required_fields: list[str] = Field(default_factory=list)
    expected: dict[str, Any] = Field(default_factory=dict)


class Sprt(_Closed):
    """Wald's sequential probability ratio test on the per-run pass indicator.

    With it enabled the SPRT decides the pass rate (``failing_runs: tolerate`` only). Ville's
    boundaries (A = 1/alpha, B = beta, the default) bound both errors for any stopping rule;
    Wald's (A = (1-beta)/alpha, B = beta/(1-alpha)) only approximately, for a single sequence.
    """

    enabled: bool = False
    alpha: float = Field(
        default=0.05, ge=1e-9, lt=1, description="Bound on a false FAIL."
    )  # below 1e-9 the log-likelihood ratio bounds overflow a float
    beta: float = Field(default=0.20, ge=1e-9, lt=1, description="Bound on a missed regression.")
    p0: float = Field(default=0.95, gt=0, lt=1, description="H0: acceptable pass rate.")
    p1: float = Field(default=0.80, gt=0, lt=1, description="H1: degraded pass rate.")
    max_runs: int = Field(default=50, ge=1, description="Truncation: INCONCLUSIVE past this.")
    boundaries: Literal["wald", "ville"] = "ville"

    @model_validator(mode="after")
    def _consistent(self) -> Sprt:
        from abw.stats import sprt_problem

        problem = sprt_problem(self.p0, self.p1, self.alpha, self.beta, prefix="sprt.")
        if problem is not None:
            raise ValueError(problem)
        return self


class Thresholds(_Closed):
    path_edit_distance_warn: float = Field(default=0.12, ge=0)
    path_edit_distance_fail: float = Field(default=0.25, ge=0)
    fingerprint_distance_warn: float = Field(default=1.0, ge=0)
    fingerprint_distance_fail: float = Field(default=2.0, ge=0)
    tool_jaccard_warn: float = Field(default=0.15, ge=0)
    tool_jaccard_fail: float = Field(default=0.4, ge=0)
    min_runs: int = Field(default=1, ge=1)
    min_wilson_pass_rate: float = Field(
        default=0.7, ge=0, le=1, description="tau: the pass rate the candidate must show."
    )
    wilson_z: float = Field(default=1.96, gt=0, description="Wilson z (sequential: fixed only).")
    failing_runs: Literal["forbid", "tolerate"] = Field(
        default="forbid",
        description="forbid: one run violating a hard check FAILs it, and the pass-rate test "
        "can only hold PASS back; tolerate: violations WARN and the pass-rate test against tau "
        "decides FAIL / PASS / INCONCLUSIVE.",
    )
    sequential: Literal["anytime", "fixed"] = Field(
        default="anytime",
        description="anytime: a confidence sequence, valid however often anyone looks or "
        "re-gates; fixed: Wilson bounds, approximate and for a single look at a fixed n only.",
    )
    alpha: float = Field(
        default=0.05,
        ge=1e-9,  # (below, the levels of later restarts, alpha / 2^31, underflow a float)
        lt=1,
        description="The whole gate's error budget for the anytime pass-rate test: false FAIL "
        "(true rate >= tau) and false PASS (true rate < tau) each at most alpha, over every "
        "look, scenario and restart.",
    )
    sprt: Sprt = Field(default_factory=Sprt)

    @model_validator(mode="after")
    def _sprt_needs_tolerate(self) -> Thresholds:
        if self.sprt.enabled and self.failing_runs == "forbid":
            raise ValueError(
                "sprt.enabled needs failing_runs: tolerate (under forbid one failing run "
                "already FAILs the gate, so the SPRT could never decide); set "
                "thresholds.failing_runs: tolerate or disable the SPRT"
            )
        return self


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
