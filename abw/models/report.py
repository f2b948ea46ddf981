"""``gate-report/v0``: the verdict, every check with its evidence, the diff and the statistics.

Every report format (HTML, Markdown, SARIF, JUnit) is a view of this model; none recomputes a
verdict. The same inputs give a byte-identical report: no wall-clock time unless asked for.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from abw.models import REPORT_SCHEMA

Verdict = Literal["PASS", "WARN", "FAIL", "INCONCLUSIVE"]
Category = Literal[
    "output_eval",
    "behavior_contract",
    "operational_quality",
    "diff_shape",
    "sample_sufficiency",
    "execution",
]
Role = Literal["baseline", "candidate"]

#: Worst first; the overall verdict is the first of these that any check has.
VERDICT_SEVERITY: tuple[Verdict, ...] = ("FAIL", "INCONCLUSIVE", "WARN", "PASS")


def worst_verdict(verdicts: list[Verdict] | tuple[Verdict, ...]) -> Verdict:
    """FAIL > INCONCLUSIVE > WARN > PASS; an empty list is PASS."""
    for verdict in VERDICT_SEVERITY:
        if verdict in verdicts:
            return verdict
    return "PASS"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Violation(_Model):
    """One run that breaks a check, and the spans that prove it."""

    trace_id: str
    trace_file: str = Field(description="Path of the trace file as given to the gate.")
    scenario_id: str | None = None
    span_ordinals: list[int] = Field(default_factory=list)
    span_lines: list[int] = Field(
        default_factory=list, description="1-based lines of those spans in trace_file."
    )
    message: str
    in_baseline: bool | None = Field(
        default=None,
        description="Whether baseline runs of the same scenario break the same check: false = "
        "new in the candidate; null = not compared (no baseline run, or not a violation).",
    )
    baseline_violating_runs: int | None = Field(default=None, ge=0)
    baseline_runs: int | None = Field(default=None, ge=0)


class Check(_Model):
    id: str = Field(description="Stable id, e.g. behavior_contract.required_order[0].")
    rule: str = Field(description="Check kind, e.g. required_order; the SARIF ruleId.")
    category: Category
    verdict: Verdict
    message: str = Field(description="One plain sentence saying why.")
    scenario_id: str | None = None
    hard: bool = Field(description="True for invariants: one counterexample is proof.")
    runs_checked: int = 0
    measured: dict[str, Any] = Field(
        default_factory=dict, description="What was measured (values, k/n, distances)."
    )
    limits: dict[str, Any] = Field(
        default_factory=dict, description="What it was compared with (spec values, thresholds)."
    )
    violations: list[Violation] = Field(default_factory=list)


class RunDistance(_Model):
    trace_id: str
    trace_file: str
    nearest_baseline_trace_id: str | None
    path_edit_distance: float | None = Field(
        ge=0,
        description="None when the scenario has no baseline run: nothing to measure against.",
    )


class Divergence(_Model):
    """Where a candidate path first leaves the prefix tree of the baseline paths."""

    trace_id: str
    trace_file: str
    step: int = Field(description="0-based index in the path (non-llm spans).")
    span_ordinal: int | None = Field(description="Ordinal of the diverging span; None past end.")
    candidate_tool: str | None = Field(description="The candidate's tool there; None: path ended.")
    baseline_alternatives: list[str] = Field(
        description="Tools the baseline took at that node; '<end>' where a baseline path ended."
    )
    common_prefix: list[str]
    candidate_path: list[str]
    baseline_path: list[str] = Field(description="The nearest baseline path sharing the prefix.")


_ONE_SIDED = "None when the scenario has runs on one side only: nothing to compare with."


class DiffResult(_Model):
    scenario_id: str | None = None
    baseline_runs: int
    candidate_runs: int
    path_edit_distance_mean: float | None = Field(description=_ONE_SIDED)
    path_edit_distance_max: float | None = Field(description=_ONE_SIDED)
    per_run: list[RunDistance] = Field(default_factory=list)
    fingerprint_distance: float | None = Field(description=_ONE_SIDED)
    tool_jaccard_distance: float | None = Field(description=_ONE_SIDED)
    baseline_tool_means: dict[str, float] = Field(default_factory=dict)
    candidate_tool_means: dict[str, float] = Field(default_factory=dict)
    tools_new: list[str] | None = Field(default_factory=list, description=_ONE_SIDED)
    tools_missing: list[str] | None = Field(default_factory=list, description=_ONE_SIDED)
    first_divergence: Divergence | None = Field(
        default=None, description="The earliest divergence over all candidate runs."
    )
    divergences: list[Divergence] = Field(
        default_factory=list, description="One per diverging candidate run."
    )


class SprtState(_Model):
    enabled: bool
    decision: Literal["accept_h0", "accept_h1", "continue", "truncated", "disabled"]
    llr: float | None = None
    lower_boundary: float | None = None
    upper_boundary: float | None = None
    passes: int = 0
    failures: int = 0
    runs_used: int = 0
    max_runs: int | None = None
    p0: float | None = None
    p1: float | None = None
    alpha: float | None = None
    beta: float | None = None


class SequenceState(_Model):
    """The order the runs entered the sequential statistics, and its hash chain."""

    order: Literal["recording", "trace_id"] = Field(
        description="recording: by start time (trace id breaks ties); trace_id: some run has "
        "no start time, so the guarantee holds for a single look only."
    )
    n: int = Field(ge=0)
    chain: str = Field(
        description="H_n, H_i = sha256(H_{i-1} || SHA-256 of the run's trace id), H_0 = 0^64."
    )
    restarts: int = Field(
        default=0, ge=0, description="Times the sequence restarted (spent levels)."
    )
    continuity: Literal["new", "extends", "restarted"] = "new"
    continuity_message: str = ""
    left_out: list[str] = Field(
        default_factory=list,
        description="SHA-256s of the trace ids of runs an earlier gate saw before the sequence "
        "restarted for removed, replaced or reordered runs: they never count in it again "
        "(sorted).",
    )


class SampleStatistics(_Model):
    scenario_id: str | None = None
    n: int
    k: int = Field(description="Candidate runs that completed and passed every per-run hard check.")
    pass_rate: float | None
    z: float
    threshold: float = Field(description="tau = min_wilson_pass_rate.")
    wilson_lower: float | None
    wilson_upper: float | None
    wilson_decision: Literal["pass", "fail", "inconclusive"]
    min_runs: int
    sprt: SprtState
    runs_needed: int | None = Field(
        default=None,
        description="More passing runs the rule used needs to PASS; None when it has decided, "
        "when a hard check already FAILs, or when no number of runs can.",
    )
    rule: Literal["confidence_sequence", "wilson", "sprt"] = Field(
        default="wilson", description="The rule that decides the pass rate."
    )
    looks: Literal["any", "single"] = Field(
        default="single",
        description="any: the error bounds hold however often anyone looks or re-gates; "
        "single: only for one look at a fixed n.",
    )
    failing_runs: Literal["forbid", "tolerate"] = "forbid"
    decision: Literal["pass", "fail", "inconclusive"] = Field(
        default="inconclusive",
        description="The deciding rule's decision (a report without it: wilson_decision).",
    )
    runs_used: int | None = Field(
        default=None, description="Runs a sequential rule read before it decided."
    )
    fail_level: float | None = Field(
        default=None, description="Level of the FAIL side in this scenario (after corrections)."
    )
    pass_level: float | None = Field(
        default=None, description="Level of the PASS side in this scenario (after restarts)."
    )
    cs_lower: float | None = Field(default=None, description="Confidence-sequence lower bound.")
    cs_upper: float | None = Field(default=None, description="Confidence-sequence upper bound.")
    sequence: SequenceState | None = None

    @model_validator(mode="before")
    @classmethod
    def _older_report(cls, data: Any) -> Any:
        """A report written before ``decision`` was recorded: its rule was Wilson's (as the
        defaults of ``rule`` and ``looks`` say), so Wilson's decision is the decision."""
        if isinstance(data, dict) and "decision" not in data and "wilson_decision" in data:
            data = {**data, "decision": data["wilson_decision"]}
        return data


class IncompleteRun(_Model):
    trace_id: str
    trace_file: str
    final_status: Literal["error", "cancelled", "unknown"]


class ExecutionStatus(_Model):
    """How the candidate runs of one scenario ended, apart from the behavior verdict."""

    scenario_id: str | None = None
    runs: int
    completed: int
    error: int = 0
    cancelled: int = 0
    unknown: int = 0
    incomplete_runs: list[IncompleteRun] = Field(default_factory=list)


class Multiplicity(_Model):
    """How the pass-rate tests of all scenarios share one error budget."""

    method: Literal["bonferroni", "none"]
    scenarios: int
    alpha: float = Field(description="The whole gate's budget for a false FAIL.")
    message: str


class EvidenceItem(_Model):
    kind: str
    description: str


class LatentAdvisory(_Model):
    """Summary numbers from representation trajectories; never change the verdict."""

    model: str | None = None
    baseline_trajectories: int = 0
    candidate_trajectories: int = 0
    baseline_mean_entropy: float | None = None
    candidate_mean_entropy: float | None = None
    baseline_velocity_profile: list[float] = Field(default_factory=list)
    candidate_velocity_profile: list[float] = Field(default_factory=list)
    velocity_profile_difference: float | None = None
    projections: dict[str, list[list[list[float]]]] = Field(
        default_factory=dict, description="role -> trajectories -> [x, y] points, for plots."
    )


class EvidenceLedger(_Model):
    used: list[EvidenceItem]
    advisory: list[EvidenceItem]
    never_used: list[EvidenceItem]
    latent: LatentAdvisory | None = None


class InputFile(_Model):
    role: Role
    file: str
    sha256: str
    trace_id: str
    scenario_id: str | None = None


class Inputs(_Model):
    spec_file: str
    spec_sha256: str
    traces: list[InputFile]
    digest: str = Field(description="SHA-256 over the spec hash and every trace hash, sorted.")


class RunStatus(_Model):
    role: Role
    trace_id: str
    trace_file: str
    scenario_id: str | None = None
    passed: bool | None = Field(description="Per-run hard checks passed; None for baseline runs.")
    path_length: int
    errors: int
    retries: int
    failed_checks: list[str] = Field(default_factory=list)


class InputWarning(_Model):
    """An input that looks wrong (abw.gating.input_warnings); it never changes the verdict."""

    kind: Literal[
        "platform_mix",
        "version_mix",
        "duplicate_trace_id",
        "shared_runs",
        "one_sided_scenario",
        "baseline_spread",
    ]
    message: str = Field(description="One plain sentence: what looks wrong and what to do.")
    scenario_id: str | None = None
    role: Role | None = None
    files: list[str] = Field(default_factory=list, description="Some of the files concerned.")


class ToolInfo(_Model):
    name: str = "abw"
    version: str
    information_uri: str = "https://github.com/abw/gate"


class GateReport(_Model):
    schema_version: Literal["gate-report/v0"] = REPORT_SCHEMA
    tool: ToolInfo
    verdict: Verdict
    summary: str = Field(description="One sentence: the verdict and why.")
    spec_id: str
    generated_at: str | None = Field(default=None, description="Only when asked for.")
    checks: list[Check]
    diff: list[DiffResult] = Field(description="One per scenario.")
    statistics: list[SampleStatistics] = Field(description="One per scenario.")
    execution: list[ExecutionStatus] = Field(
        default_factory=list, description="One per scenario: how the candidate runs ended."
    )
    multiplicity: Multiplicity | None = None
    runs: list[RunStatus]
    evidence_ledger: EvidenceLedger
    inputs: Inputs
    input_warnings: list[InputWarning] = Field(
        default_factory=list,
        description="Inputs that look wrong: mixed platforms or CLI versions, shared trace ids, "
        "one-sided scenarios, a baseline of unrelated tasks. Shown, never part of the verdict.",
    )
