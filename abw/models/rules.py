"""Rules and value assertions of ``behavior-spec/v0`` (the optional ``rules`` and ``assertions``).

Rules are evaluated on one run's path (its non-``llm`` spans in ordinal order); assertions
compare a value selected from a candidate run with the same value of the baseline runs.
Semantics are in ``docs/contracts.md``; every model is closed (unknown keys are an error).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from abw.spelling import nearest

_ID = r"^[A-Za-z0-9_.\-]+$"
_POINTER = r"^(/([^~]|~[01])*)*$"

Enforcement = Literal["hard", "soft", "precondition"]
#: A glob on ``scenario_id`` (an empty one could match no scenario: scenario ids are not empty)
ScenarioGlob = Annotated[str, Field(min_length=1)]


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _Rule(_Closed):
    id: str | None = Field(
        default=None, pattern=_ID, description="Stable id; defaults to '<kind>-<index>'."
    )
    statement: str | None = Field(default=None, description="The rule in one plain sentence.")
    enforcement: Enforcement = Field(
        default="hard",
        description=(
            "hard: violated -> FAIL, unknown -> INCONCLUSIVE; soft: violated or unknown -> WARN; "
            "precondition: violated or unknown -> INCONCLUSIVE (the promise does not apply)."
        ),
    )
    scenarios: list[ScenarioGlob] = Field(
        default_factory=list, description="Globs on scenario_id; empty: every run."
    )

    #: The fields naming tools (names or globs) that some run must show for the rule to mean
    #: anything; every rule kind declares its own (abw.gating.vacuity reads them).
    tool_fields: ClassVar[tuple[str, ...]] = ()

    def references(self) -> tuple[Reference, ...]:
        """What this rule refers to and expects some run to show: what its kind reads
        (:meth:`kind_references`), and its ``scenarios`` (globs none of which matches a run's
        scenario: the rule covers no run).

        A reference no baseline or candidate run shows makes the rule vacuous (its check is
        INCONCLUSIVE, or a FAIL gains a note).
        """
        return (*self.kind_references(), *scope_references(self.scenarios))

    def kind_references(self) -> tuple[Reference, ...]:
        """The spans its ``tool_fields`` match (a matcher's names and types: a list of names
        is one reference, met by any of them), then the argument fields it reads
        (:meth:`argument_references`). Names a rule only forbids are no such reference, nor
        statuses: their absence is the expected outcome (no failed call in a healthy run); a
        kind lists its forbidden names as a :class:`ForbiddenRef` (a misspelt one WARNs)."""
        tools = [tool_reference(getattr(self, name)) for name in self.tool_fields]
        return (*tools, *self.argument_references())

    def argument_references(self) -> tuple[Reference, ...]:
        """The extracted argument fields (``attributes.arguments``) the rule reads."""
        return ()


@dataclass(frozen=True)
class ToolRef:
    """Spans some run must show: named by any of ``names`` (globs, ``=name`` literal) and of
    one of ``types`` (empty: every type but ``llm``, the path a rule reads by default).
    ``note_only``: a name that runs only after a violation (a recovery action), so a healthy
    run never shows it: no run showing it only annotates a FAIL."""

    names: tuple[str, ...]
    types: tuple[str, ...] = ()
    note_only: bool = False


@dataclass(frozen=True)
class ArgumentRef:
    """An extracted argument field (``attributes.arguments``) some span named by any of
    ``names`` must carry."""

    names: tuple[str, ...]
    field: str


@dataclass(frozen=True)
class OutputRef:
    """A ``canonical_output`` field some run must hold."""

    field: str


@dataclass(frozen=True)
class ScopeRef:
    """``scenarios`` globs (any of them) some run's scenario must match (a rule a recovery
    or soft budget counts on covers no run otherwise)."""

    globs: tuple[str, ...]


@dataclass(frozen=True)
class ForbiddenRef:
    """Names a check only forbids: never vacuous (their absence is the outcome it checks), but
    a name no run shows that was likely written for a name some run shows (a typo, an
    invisible character, a folded line, a regular expression), or one whose spans are never
    of the ``types`` it forbids, likely forbids nothing (abw.gating.vacuity: the check WARNs
    instead of PASSing)."""

    names: tuple[str, ...]
    types: tuple[str, ...] = ()  # a matcher's ``type``: the names' spans of these types only


Reference = ToolRef | ArgumentRef | OutputRef | ScopeRef | ForbiddenRef


def forbidden_reference(value: Any) -> tuple[Reference, ...]:
    """The names a rule field (a glob or a matcher) forbids, as one reference (none for a
    pattern that names nothing: ``*``)."""
    names = tuple(n for n in pattern_names(value) if n != "*")
    return (ForbiddenRef(names, tuple(getattr(value, "type", None) or ())),) if names else ()


def scope_references(scenarios: list[str]) -> tuple[Reference, ...]:
    """A rule's or assertion's ``scenarios`` globs as one reference (none: every run)."""
    return (ScopeRef(tuple(scenarios)),) if scenarios else ()


def pattern_names(pattern: Any) -> tuple[str, ...]:
    """The name globs of a pattern: a glob, or a matcher's name or names."""
    names = getattr(pattern, "name", pattern)
    return (names,) if isinstance(names, str) else tuple(names)


def tool_reference(value: Any, note_only: bool = False) -> ToolRef:
    """The spans a rule field (a glob, a matcher, or a list of globs) refers to."""
    items = value if isinstance(value, list) else [value]
    names = tuple(n for item in items for n in pattern_names(item))
    types = tuple(getattr(value, "type", None) or ())
    return ToolRef(names, types, note_only)


SpanTypeName = Literal["llm", "tool", "retriever", "memory", "handoff", "guardrail"]
SpanStatusName = Literal["success", "error", "cancelled", "unknown"]
#: Every span type, in the schema's order (a matcher naming them all reads every span).
ALL_SPAN_TYPES: tuple[str, ...] = get_args(SpanTypeName)


class SpanMatch(_Closed):
    """A combined matcher: name glob, span types and statuses must all match.

    ``type`` empty: every path span (non-``llm``); naming ``llm`` evaluates the rule over every
    span. ``status`` empty: the rule's default for that role (e.g. successful ``before`` spans).
    """

    name: str | list[str] = Field(
        default="*", description="Glob on the span name, or a list of globs (any of them)."
    )
    type: list[SpanTypeName] = Field(default_factory=list)
    status: list[SpanStatusName] = Field(default_factory=list)

    @model_validator(mode="after")
    def _names(self) -> SpanMatch:
        names = [self.name] if isinstance(self.name, str) else self.name
        if not names or not all(name.strip() for name in names):
            raise ValueError("a matcher's name must be a non-empty glob or list of globs")
        return self


def _names_something(name: str) -> str:
    """Refuse a name of spaces only (an unset template variable, a stray quote): no span is
    named so, and a forbidden one forbids nothing."""
    if not name.strip():
        raise ValueError(f"{name!r} is spaces only and names no tool")
    return name


#: A name or glob that names something: not empty, not spaces only.
SomeName = Annotated[str, Field(min_length=1), AfterValidator(_names_something)]
Pattern = SomeName | SpanMatch


class Binding(_Closed):
    """Extracted argument fields (``attributes.arguments``) that must be equal on both spans."""

    before: str = Field(min_length=1)
    after: str = Field(min_length=1)


class PrecedenceRule(_Rule):
    """Every ``after`` span (each attempt, or each success) has a successful ``before`` span at
    an earlier ordinal: within ``within`` path steps and with equal bound arguments when given."""

    kind: Literal["precedence"]
    tool_fields: ClassVar[tuple[str, ...]] = ("before", "after")
    before: Pattern
    after: Pattern
    subject: Literal["attempts", "successes"] = Field(
        default="attempts",
        description="attempts: every after span whatever its status (unknown too); "
        "successes: only successful after spans (invariants.required_order's meaning).",
    )
    within: int | None = Field(
        default=None, ge=1, description="The before span is at most this many path steps back."
    )
    bind: Binding | None = None

    def argument_references(self) -> tuple[Reference, ...]:
        """The bound argument of each side."""
        if self.bind is None:
            return ()
        return (
            ArgumentRef(pattern_names(self.before), self.bind.before),
            ArgumentRef(pattern_names(self.after), self.bind.after),
        )


class ResponseRule(_Rule):
    """Every successful ``trigger`` span is followed by a successful ``response`` span.

    With ``within_steps`` the response must come at most that many path steps later.
    """

    kind: Literal["response"]
    tool_fields: ClassVar[tuple[str, ...]] = ("trigger", "response")
    trigger: str = Field(min_length=1)
    response: str = Field(min_length=1)
    within_steps: int | None = Field(default=None, ge=1)


class ImmediatelyBeforeRule(_Rule):
    """Every successful ``after`` span directly follows (previous path step) a successful
    ``before`` span."""

    kind: Literal["immediately_before"]
    tool_fields: ClassVar[tuple[str, ...]] = ("before", "after")
    before: str = Field(min_length=1)
    after: str = Field(min_length=1)


class AbsenceAfterRule(_Rule):
    """No path span matching ``forbidden`` after the first successful ``stop`` span, except
    spans matching one of ``allowed`` (an exception list)."""

    kind: Literal["absence_after"]
    tool_fields: ClassVar[tuple[str, ...]] = ("stop",)
    stop: Pattern
    forbidden: Pattern = "*"
    allowed: list[Pattern] = Field(
        default_factory=list, description="Spans that may still run after the stop."
    )

    def kind_references(self) -> tuple[Reference, ...]:
        return (*super().kind_references(), *forbidden_reference(self.forbidden))


class CountRule(_Rule):
    """Spans matching ``tool`` number between ``min`` and ``max`` (inclusive)."""

    kind: Literal["count"]
    tool_fields: ClassVar[tuple[str, ...]] = ("tool",)
    tool: Pattern = Field(description="Name glob, or a matcher of name, type and status.")
    min: int | None = Field(default=None, ge=0)
    max: int | None = Field(default=None, ge=0)
    count_status: Literal["any", "success"] = Field(
        default="any", description="Count every matching span, or only successful ones."
    )

    @model_validator(mode="after")
    def _bounds(self) -> CountRule:
        statuses = self.tool.status if isinstance(self.tool, SpanMatch) else []
        if self.count_status == "success" and statuses and statuses != ["success"]:
            raise ValueError(
                f"count_status: success counts successful spans only, but the matcher's status "
                f"names {', '.join(statuses)}: keep one of them"
            )
        if self.min is None and self.max is None:
            raise ValueError("a count rule needs min, max or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError("count rule: min must not exceed max")
        if self.min == 0 and self.max is None:
            raise ValueError("a count rule with min 0 and no max can never be broken: give max")
        return self

    def kind_references(self) -> tuple[Reference, ...]:
        """A ceiling of zero (``max: 0`` without ``min``) forbids the tool: not a reference
        some run must show, only one a typo may have emptied."""
        if self.max == 0 and not self.min:
            return forbidden_reference(self.tool)
        return super().kind_references()


class RetryLimitRule(_Rule):
    """Per call signature (or per tool): retries within ``max_retries``, or attempts within
    ``max_attempts``.

    A retry is a span whose signature repeats an earlier span of the same run that failed (the
    ``max_retries`` invariant's definition); an attempt is every span, whatever its status.
    """

    kind: Literal["retry_limit"]
    tool_fields: ClassVar[tuple[str, ...]] = ("tool",)
    tool: Pattern = "*"
    max_retries: int | None = Field(default=None, ge=0)
    max_attempts: int | None = Field(default=None, ge=1)
    group_by: Literal["call_signature", "tool"] = Field(
        default="call_signature",
        description="call_signature: (name, input_hash); tool: name only.",
    )

    @model_validator(mode="after")
    def _one_limit(self) -> RetryLimitRule:
        if (self.max_retries is None) == (self.max_attempts is None):
            raise ValueError("a retry_limit rule needs exactly one of max_retries, max_attempts")
        return self


class ToolAllowlistRule(_Rule):
    """Every path span of the listed ``types`` matches one of ``tools``."""

    kind: Literal["tool_allowlist"]
    tool_fields: ClassVar[tuple[str, ...]] = ()  # allows: a listed tool need not run
    tools: list[Pattern] = Field(min_length=1)
    types: list[SpanTypeName] = Field(
        default_factory=lambda: ["tool"], description="Span types the allowlist governs."
    )

    @field_validator("types")
    @classmethod
    def _governs_something(cls, types: list[SpanTypeName]) -> list[SpanTypeName]:
        if not types:
            raise ValueError(
                "an allowlist over no span type can never be broken: give types, e.g. [tool]"
            )
        return types


class ResultRequiredRule(_Rule):
    """Every span matching ``tool`` has a recorded result (completeness)."""

    kind: Literal["result_required"]
    tool_fields: ClassVar[tuple[str, ...]] = ("tool",)
    tool: Pattern = "*"


class ConfidenceRule(_Rule):
    """A span matching ``tool`` whose extracted ``field`` is at least ``threshold`` needs an
    earlier successful ``evidence`` span (a confident claim needs proof)."""

    kind: Literal["confidence"]
    tool_fields: ClassVar[tuple[str, ...]] = ("tool", "evidence")
    tool: Pattern
    field: str = Field(min_length=1, description="Key in the span's extracted arguments.")
    threshold: float
    evidence: Pattern

    def argument_references(self) -> tuple[Reference, ...]:
        """The claim's field: a span without it claims nothing, so a field no span carries
        makes the rule check nothing."""
        return (ArgumentRef(pattern_names(self.tool), self.field),)


class NewToolsRule(_Rule):
    """No path span of a tool that no baseline run of the same scenario used."""

    kind: Literal["new_tools"]
    tool_fields: ClassVar[tuple[str, ...]] = ()  # forbids tools the baseline never used
    tool: Pattern = "*"


class ToolCallGrowthRule(_Rule):
    """The run's spans matching ``tool`` grow at most ``max_increase_percent`` over the
    baseline runs of the same scenario (their ``baseline`` aggregate)."""

    kind: Literal["tool_call_growth"]
    tool_fields: ClassVar[tuple[str, ...]] = ("tool",)
    tool: Pattern = Field(default_factory=lambda: SpanMatch(type=["tool"]))
    max_increase_percent: float = Field(ge=0)
    baseline: Literal["median", "max", "min"] = "median"


ArgumentMode = Literal["exact", "observed_subset", "observed_superset", "ignore"]


class ArgumentsRule(_Rule):
    """Constraints on explicitly extracted argument fields (``span.attributes.arguments``).

    exact: observed == expected; observed_subset: every observed field is in ``expected`` with
    the same value (no extra fields); observed_superset: every expected field is observed with
    the same value (extra fields allowed); ignore: values are not compared, but the arguments
    must have been extracted. ``ignore_fields`` are dropped from both sides first.
    """

    kind: Literal["arguments"]
    tool_fields: ClassVar[tuple[str, ...]] = ("tool",)
    tool: str = Field(min_length=1)
    mode: ArgumentMode = "observed_superset"
    expected: dict[str, Any] = Field(default_factory=dict)
    ignore_fields: list[str] = Field(default_factory=list)

    @field_validator("ignore_fields")
    @classmethod
    def _not_expected(cls, ignored: list[str], info: ValidationInfo) -> list[str]:
        both = sorted(set(info.data.get("expected", {})) & set(ignored))
        if both:
            raise ValueError(
                f"names {', '.join(both)}, which expected sets: ignored fields are dropped "
                "first, so the expected value would never be compared"
            )
        return ignored

    def argument_references(self) -> tuple[Reference, ...]:
        """The fields ``exact`` and ``observed_superset`` require (``observed_subset`` only
        allows its fields, ``ignore`` compares none)."""
        if self.mode not in ("exact", "observed_superset"):
            return ()
        skip = set(self.ignore_fields)
        return tuple(ArgumentRef((self.tool,), k) for k in sorted(self.expected) if k not in skip)


class RecoveryRule(_Rule):
    """Each violation of the rule ``violation`` is followed by a successful ``actions`` span
    within ``within_steps`` path steps."""

    kind: Literal["recovery"]
    tool_fields: ClassVar[tuple[str, ...]] = ("actions",)
    violation: str = Field(pattern=_ID, description="Id of the (soft) rule recovered from.")
    actions: list[str] = Field(min_length=1, description="Tool names (globs) that recover.")
    within_steps: int = Field(ge=1)

    def kind_references(self) -> tuple[Reference, ...]:
        """The actions run only after a violation, which a healthy run need not have: a
        name no run shows annotates a FAIL, never makes a PASS vacuous (the gate adds the
        recovered-from rule's own references: abw.rules.checks)."""
        return (tool_reference(self.actions, note_only=True),)


class SoftBudgetRule(_Rule):
    """A run's violations of the listed rules, counted by span ordinal, stay within a budget."""

    kind: Literal["soft_budget"]
    tool_fields: ClassVar[tuple[str, ...]] = ()  # refers to rules, not tools
    rules: list[str] = Field(min_length=1)
    max_violations: int = Field(ge=0)


Rule = Annotated[
    PrecedenceRule
    | ResponseRule
    | ImmediatelyBeforeRule
    | AbsenceAfterRule
    | CountRule
    | RetryLimitRule
    | ToolAllowlistRule
    | ResultRequiredRule
    | ConfidenceRule
    | NewToolsRule
    | ToolCallGrowthRule
    | ArgumentsRule
    | RecoveryRule
    | SoftBudgetRule,
    Field(discriminator="kind"),
]

#: Every rule kind, in the order of :data:`Rule` (the one list: contracts derive theirs from it).
RULE_KINDS: tuple[str, ...] = tuple(
    get_args(model.model_fields["kind"].annotation)[0] for model in get_args(get_args(Rule)[0])
)


class ExistsMatcher(_Closed):
    op: Literal["exists"]


class EqualsMatcher(_Closed):
    op: Literal["equals"]
    value: Any


class AllowlistMatcher(_Closed):
    op: Literal["allowlist"]
    values: list[Any] = Field(min_length=1)


class SameMatcher(_Closed):
    op: Literal["same"]


class ContainsMatcher(_Closed):
    op: Literal["contains"]
    value: Any = Field(description="Text for a string value, any JSON value for an array.")


class SetSameMatcher(_Closed):
    op: Literal["set_same"]


class SequenceSameMatcher(_Closed):
    op: Literal["sequence_same"]


class NumberDeltaMatcher(_Closed):
    """|candidate - baseline| <= abs and |candidate - baseline| / |baseline| <= rel (each given
    budget must hold); ``direction`` limits which way of change is budgeted."""

    op: Literal["number_delta"]
    abs: float | None = Field(default=None, ge=0)
    rel: float | None = Field(default=None, ge=0)
    direction: Literal["both", "increase", "decrease"] = "both"

    @model_validator(mode="after")
    def _budget(self) -> NumberDeltaMatcher:
        if self.abs is None and self.rel is None:
            raise ValueError("number_delta needs abs, rel or both")
        return self


class RankNotLowerMatcher(_Closed):
    """``order`` lists values from lowest to highest rank (e.g. allow, ask, deny)."""

    op: Literal["rank_not_lower"]
    order: list[Any] = Field(min_length=2)


Matcher = Annotated[
    ExistsMatcher
    | EqualsMatcher
    | AllowlistMatcher
    | SameMatcher
    | ContainsMatcher
    | SetSameMatcher
    | SequenceSameMatcher
    | NumberDeltaMatcher
    | RankNotLowerMatcher,
    Field(discriminator="op"),
]


class Assertion(_Closed):
    """A value that must stay compatible between baseline and candidate runs."""

    id: str = Field(pattern=_ID)
    statement: str = Field(min_length=1, description="What holds, in one plain sentence.")
    severity: Literal["error", "warn", "info"] = Field(
        default="error",
        description="error: drifted -> FAIL, unknown -> INCONCLUSIVE; warn: either -> WARN; "
        "info: reported only.",
    )
    selector: str = Field(
        pattern=_POINTER,
        description="RFC 6901 JSON Pointer into the run's observations, e.g. /output/decision.",
    )
    matcher: Matcher
    baseline: Literal["consensus", "median", "min", "max"] = Field(
        default="consensus",
        description="consensus: the value every baseline run agrees on (else unknown); "
        "median/min/max: numbers only.",
    )
    scenarios: list[ScenarioGlob] = Field(
        default_factory=list, description="Globs on scenario_id; empty: every scenario."
    )
    limitations: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _observed(self) -> Assertion:
        head = _pointer(self.selector)[:1]
        if head and head[0] not in OBSERVATION_KEYS:
            meant = nearest(head[0], OBSERVATION_KEYS)
            hint = f" (did you mean /{meant}?)" if meant else ""
            known = ", ".join(f"/{k}" for k in OBSERVATION_KEYS)
            raise ValueError(
                f"selector {self.selector} resolves in no run{hint}: observations hold {known}"
            )
        return self

    def references(self) -> tuple[Reference, ...]:
        """What the selector reads that a run may lack: an output field (``/output/<f>``) or
        a tool's calls (``/tool_counts/<name>``, path spans). Deeper keys and array indexes
        are values, not judged."""
        parts = _pointer(self.selector)
        scope = scope_references(self.scenarios)
        if len(parts) >= 2 and parts[0] == "output":
            return (OutputRef(parts[1]), *scope)
        if len(parts) >= 2 and parts[0] == "tool_counts":
            return (ToolRef(("=" + parts[1],)), *scope)
        return scope


#: The top-level keys of a run's observations (abw.rules.assertions.observations).
OBSERVATION_KEYS = (
    "output",
    "final_status",
    "scenario_id",
    "path",
    "tools",
    "tool_counts",
    "path_length",
    "errors",
    "retries",
)


def _pointer(selector: str) -> list[str]:
    from abw.rules.jsonvalue import parse_pointer  # (abw.rules imports these models)

    return parse_pointer(selector)


def rule_id(rule: Any, index: int) -> str:
    """The rule's id, or ``<kind>-<index>`` (index in the spec's rule list) when it has none."""
    return rule.id or f"{rule.kind}-{index}"


def check_rule_references(rules: list[Any], assertions: list[Assertion]) -> None:
    """Ids are unique and every recovery / soft_budget names an existing rule; an error names
    the rule or assertion it is about (``rules.1``), so its line is that item's."""
    ids = [rule_id(rule, i) for i, rule in enumerate(rules)]
    _refuse_repeats("rules", "rule", ids)
    _refuse_repeats("assertions", "assertion", [a.id for a in assertions])
    known = dict(zip(ids, rules, strict=True))
    for index, rule in enumerate(rules):
        if rule.kind not in ("recovery", "soft_budget"):
            continue
        field = "violation" if rule.kind == "recovery" else "rules"
        refs = [rule.violation] if rule.kind == "recovery" else list(rule.rules)
        missing = [r for r in refs if r not in known]
        if missing:
            message = f"{rule.kind} rule names unknown rule ids: {', '.join(missing)}"
            _refuse(message, ("rules", index, field))
        if any(known[r].kind in ("recovery", "soft_budget") for r in refs):
            _refuse(f"{rule.kind} rules may refer only to path rules", ("rules", index, field))


def _refuse_repeats(section: str, what: str, ids: list[str]) -> None:
    """Refuse the first id given a second time in ``section``, at that second item (a
    contract's clause, when the spec was compiled from one)."""
    seen: set[str] = set()
    for index, item_id in enumerate(ids):
        if item_id in seen:
            _refuse(f"{what} ids repeat: {item_id}", (section, index))
        seen.add(item_id)


def _refuse(message: str, location: tuple[str | int, ...]) -> None:
    """A spec-wide check's error at the field it is about (pydantic's ``loc``), not at the
    spec's root: the error then names that field and its line."""
    from pydantic import ValidationError
    from pydantic_core import InitErrorDetails, PydanticCustomError

    error = PydanticCustomError("value_error", "{message}", {"message": message})
    details = InitErrorDetails(type=error, loc=location, input=None)
    raise ValidationError.from_exception_data("Spec", [details])
