"""Compile an ``agent-behavior-contract/v0`` C = (P, I, G, R) into a runnable ``behavior-spec/v0``.

The mapping (also in docs/contracts.md):

* **I** invariants and **G** governance: a *hard* ``required_tool``, ``forbidden_tool``,
  ``precedence`` or ``max_path_length`` / ``max_errors`` / ``max_retries`` clause becomes the
  spec's built-in invariant of the same meaning; every other hard clause becomes a rule with
  ``enforcement: hard``; a *soft* clause becomes a rule with ``enforcement: soft`` (WARN)
  (``required_tool`` -> ``count`` min 1 successful, ``forbidden_tool`` -> ``count`` max 0,
  ``max_path_length`` -> ``count`` of ``*`` max n). An ``assertion`` clause becomes a value
  assertion with severity ``error`` (hard) or ``warn`` (soft).
* ``required_output_fields`` {fields} and ``expected_output`` {values}: hard -> the spec's
  ``output`` block (``required_fields`` / ``expected``); soft -> one ``warn`` assertion per
  field (``exists`` / ``equals``).
* **P** preconditions: rules with ``enforcement: precondition`` — a run that breaks one is
  outside the contract's promise, so its check is INCONCLUSIVE, never PASS or FAIL.
* **R** recovery: a hard ``recovery`` rule; the window is ``within_steps`` or ``k``.
* (p, delta, k): p < 1 -> ``failing_runs: tolerate`` with tau (``min_wilson_pass_rate``) = p:
  violations are evidence the pass-rate test weighs; p = 1 -> ``failing_runs: forbid`` (one
  violating run FAILs), tau staying the contract's ``thresholds.min_wilson_pass_rate`` (the
  evidence needed before PASS; a rate of 1 itself can never be shown by a sample); ``delta``
  (when given) -> a hard ``soft_budget`` rule over every soft rule with
  ``max_violations = floor(delta)``; ``k`` -> the default recovery window.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from abw.errors import (
    AbwInputError,
    describe_validation_error,
    from_validation_error,
    require_schema_version,
)
from abw.hashing import sha256_hex
from abw.models import CONTRACT_SCHEMA, SPEC_SCHEMA
from abw.models.contract import CLAUSE_RULE_KINDS
from abw.models.rules import RULE_KINDS
from abw.models.spec import WILDCARDS, glob_refusal
from abw.text import comment_line, log_yaml, log_yaml_quotes

BUILTIN_LIMITS = ("max_path_length", "max_errors", "max_retries")
#: Keys of a compiled rule or assertion that come from the clause, never from its params.
RULE_OWN_KEYS = ("id", "kind", "statement", "enforcement")
ASSERTION_OWN_KEYS = ("id", "statement", "severity")


def load_contract(path: str | Path) -> tuple[Any, str]:
    """Read and validate a contract file (JSON, or YAML for .yaml/.yml) -> (Contract, sha256)."""
    contract, source = _read_contract(path)
    return contract, sha256_hex(source.raw)  # the digest of the bytes validated, read once


def _read_contract(path: str | Path) -> tuple[Any, Any]:
    """A validated contract and its :class:`~abw.documents.Source` (for the lines errors name)."""
    from pydantic import ValidationError

    from abw.documents import read_source
    from abw.models.contract import Contract

    contract_path = Path(path)
    if contract_path.is_dir():
        raise AbwInputError("expected a contract file, found a folder", file=contract_path)
    source = read_source(contract_path)
    document = source.document
    if not isinstance(document, dict):
        raise AbwInputError("a contract must be a JSON object", file=contract_path)
    require_schema_version(document, CONTRACT_SCHEMA, file=contract_path, line_of=source.line_of)
    try:
        contract = Contract.model_validate(document)
    except ValidationError as exc:
        raise from_validation_error(
            exc,
            file=contract_path,
            unknown_key="unknown key",
            line_of=source.line_of,
            document=document,
        ) from None
    return contract, source


Location = tuple[str | int, ...]  # member names and item indexes, as pydantic names a field
LineOf = Callable[[Location], int | None]


def _dotted(location: Location) -> str:
    """``("invariants", "hard", 0, "params", "tool")`` -> ``invariants.hard[0].params.tool``."""
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else part
    return text


class _Compiler:
    """Compiles one contract; every spec value it writes remembers the clause it came from
    (``origins``), so an error in the compiled spec names the contract's field and line."""

    def __init__(self, contract: Any, line_of: LineOf | None = None) -> None:
        self.contract = contract
        self.line_of = line_of
        self.invariants: dict[str, Any] = {
            "required_tools": [],
            "forbidden_tools": [],
            "required_order": [],
        }
        self.output: dict[str, Any] = {"required_fields": [], "expected": {}}
        self.expected_by: dict[str, str] = {}  # an expected output field -> the clause setting it
        self.rules: list[dict[str, Any]] = []
        self.assertions: list[dict[str, Any]] = []
        self.soft_rules: list[str] = []
        # a spec location -> (the contract location it came from, whether what lies below it
        # comes from the clause's params); thresholds are the contract's own
        thresholds = ("thresholds",)
        self.origins: dict[Location, tuple[Location, bool]] = {thresholds: (thresholds, False)}
        self.where: Location = ()

    def error(self, message: str, *below: str | int) -> AbwInputError:
        """An error at ``below`` in the current clause, with its line when known."""
        location = (*self.where, *below)
        line = self.line_of(location) if self.line_of is not None else None
        return AbwInputError(message, line=line, field=_dotted(location))

    def params(self, clause: Any, required: tuple[str, ...]) -> dict[str, Any]:
        missing = [name for name in required if name not in clause.params]
        if missing:
            raise self.error(f"clause {clause.id} needs {', '.join(missing)}")
        return dict(clause.params)

    def exact_tool(self, clause: Any, bound: str) -> dict[str, Any]:
        """The params of a tool clause, whose ``tool`` names one exact tool: a glob there
        would name no real tool (a forbidden ``Bash*`` would forbid nothing)."""
        params = self.params(clause, ("tool",))
        tool = params["tool"]
        if isinstance(tool, str) and WILDCARDS.intersection(tool):
            how = f"a clause {{{{rule: count, params: {{{{tool: {{}}, {bound}}}}}}}}}"
            raise self.error(glob_refusal(tool, how), "params", "tool")
        return params

    def not_both(self, tool: Any, other: str) -> None:
        """Refuse, at this clause's tool, a hard tool clause whose tool an earlier hard clause
        puts in the ``other`` list: no run could pass (the compiled spec's error named no
        clause and no line)."""
        if tool in self.invariants[other]:
            raise self.error(
                f"{tool} is both required and forbidden: no run can pass; keep one of the two "
                "clauses",
                "params",
                "tool",
            )

    def came_from(self, spec_location: Location, *below: str | int, nested: bool = False) -> None:
        """Record that the spec value at ``spec_location`` is the current clause's ``below``."""
        self.origins[spec_location] = ((*self.where, *below), nested)

    def origin(self, location: Location) -> Location | None:
        """The contract location of the compiled spec's ``location`` (pydantic's union tags,
        such as ``count`` in ``rules.3.count.min``, dropped), or None."""
        for size in range(len(location), 0, -1):
            found = self.origins.get(location[:size])
            if found is not None:
                origin, nested = found
                rest = tuple(p for p in location[size:] if p not in RULE_KINDS)
                if nested and rest and rest[0] not in ("id", "statement"):
                    return (*origin, "params", *rest)
                return (*origin, *rest)
        return None

    def own_keys(self, clause: Any, keys: tuple[str, ...]) -> None:
        """An error for a ``params`` key the clause itself sets (its id, statement, kind and
        strength): in params it would replace the clause's own, e.g. make a hard clause soft."""
        for key in keys:
            if key in clause.params:
                message = f"{key} is set by the clause (its id, statement, rule and section)"
                raise self.error(message, "params", key)

    def rule(self, clause: Any, enforcement: str, kind: str, params: dict[str, Any]) -> None:
        self.own_keys(clause, RULE_OWN_KEYS)
        self.came_from(("rules", len(self.rules)), nested=True)
        self.rules.append(
            {
                "id": clause.id,
                "kind": kind,
                "statement": clause.statement,
                "enforcement": enforcement,
                **params,
            }
        )
        if enforcement == "soft":
            self.soft_rules.append(clause.id)

    def clause(self, clause: Any, enforcement: str, where: Location) -> None:
        self.where = where
        kind = clause.rule
        hard = enforcement == "hard"
        if kind == "required_tool":
            params = self.exact_tool(clause, "min: 1, count_status: success")
            if hard and set(params) == {"tool"}:
                self.not_both(params["tool"], "forbidden_tools")
                tools = self.invariants["required_tools"]
                self.came_from(("invariants", "required_tools", len(tools)), "params", "tool")
                tools.append(params["tool"])
            else:
                count = {"tool": _exact(params.pop("tool")), "min": 1, "count_status": "success"}
                self.rule(clause, enforcement, "count", {**count, **params})
        elif kind == "forbidden_tool":
            params = self.exact_tool(clause, "max: 0")
            if hard and set(params) == {"tool"}:
                self.not_both(params["tool"], "required_tools")
                tools = self.invariants["forbidden_tools"]
                self.came_from(("invariants", "forbidden_tools", len(tools)), "params", "tool")
                tools.append(params["tool"])
            else:
                self.rule(
                    clause,
                    enforcement,
                    "count",
                    {"tool": _exact(params.pop("tool")), "max": 0, **params},
                )
        elif (
            kind == "precedence"
            and hard
            and set(clause.params) == {"before", "after"}
            and all(isinstance(name, str) for name in clause.params.values())  # (names only)
        ):
            order = self.invariants["required_order"]
            self.came_from(("invariants", "required_order", len(order)), nested=True)
            order.append(dict(clause.params))
        elif kind in BUILTIN_LIMITS:
            value = self.params(clause, ("value",))["value"]
            # checked here, not only in the spec: a value that does not win the min() below
            # never reaches the spec, and a soft one reaches it as a count rule's ``max``
            if isinstance(value, bool) or not isinstance(value, int):
                raise self.error("Input should be a valid integer", "params", "value")
            if value < 0:
                raise self.error("Input should be greater than or equal to 0", "params", "value")
            if hard:
                current = self.invariants.get(kind)
                if current is None or value < current:
                    self.invariants[kind] = value
                    self.came_from(("invariants", kind), "params", "value")
            elif kind == "max_path_length":
                self.rule(clause, enforcement, "count", {"tool": "*", "max": value})
            else:
                raise self.error(f"{kind} can only be a hard clause")
        elif kind in ("required_output_fields", "expected_output"):
            self.output_clause(clause, enforcement)
        elif kind in CLAUSE_RULE_KINDS:
            params = dict(clause.params)
            if kind == "precedence":  # a clause means what the hard invariant means
                params.setdefault("subject", "successes")
            self.rule(clause, enforcement, kind, params)
        elif kind == "assertion":
            if enforcement == "precondition":
                raise self.error("an assertion cannot be a precondition")
            severity = "error" if hard else "warn"
            self.own_keys(clause, ASSERTION_OWN_KEYS)
            self.came_from(("assertions", len(self.assertions)), nested=True)
            self.assertions.append(
                {
                    "id": clause.id,
                    "statement": clause.statement,
                    "severity": severity,
                    **clause.params,
                }
            )
        else:  # pragma: no cover - the model's Literal rejects anything else
            raise self.error(f"unknown clause kind {kind}")

    def expect(self, clause_id: str, values: dict[str, Any]) -> None:
        """Add a hard ``expected_output`` clause's values to ``output.expected``; a field another
        hard clause expects to hold another value is refused (no run could meet both, and the
        spec holds one value a field: the other clause would vanish unseen)."""
        from abw.rules.jsonvalue import json_equal

        expected = self.output["expected"]
        for field in sorted(values):
            if field in expected and not json_equal(expected[field], values[field]):
                raise self.error(
                    f"clause {clause_id} expects output field {field!r} to be "
                    f"{json.dumps(values[field])}, but hard clause {self.expected_by[field]} "
                    f"expects {json.dumps(expected[field])}: no run can meet both",
                    "params",
                    "values",
                    field,
                )
            expected[field] = values[field]
            self.expected_by.setdefault(field, clause_id)

    def output_clause(self, clause: Any, enforcement: str) -> None:
        """Hard: the spec's ``output`` block; soft: one ``warn`` assertion per field."""
        kind = clause.rule
        name = "fields" if kind == "required_output_fields" else "values"
        value = self.params(clause, (name,))[name]
        if kind == "required_output_fields" and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            raise self.error("fields must be a list of field names", "params", name)
        if kind == "expected_output" and not isinstance(value, dict):
            raise self.error("values must be an object", "params", name)
        if enforcement == "hard":
            if kind == "required_output_fields":
                self.output["required_fields"] += [
                    v for v in value if v not in self.output["required_fields"]
                ]
            else:
                self.expect(clause.id, value)
            return
        if enforcement == "precondition":
            raise self.error(f"{kind} cannot be a precondition")
        items = value if kind == "required_output_fields" else sorted(value)
        for index, field in enumerate(items):
            pointer = "/output/" + field.replace("~", "~0").replace("/", "~1")
            matcher = (
                {"op": "exists"}
                if kind == "required_output_fields"
                else {"op": "equals", "value": value[field]}
            )
            self.came_from(("assertions", len(self.assertions)), nested=True)
            self.assertions.append(
                {
                    "id": f"{clause.id}.{_id_part(field, index)}",
                    "statement": clause.statement,
                    "severity": "warn",
                    "selector": pointer,
                    "matcher": matcher,
                }
            )

    def compile(self) -> dict[str, Any]:
        contract = self.contract
        for i, clause in enumerate(contract.preconditions):
            self.clause(clause, "precondition", ("preconditions", i))
        for section in ("invariants", "governance"):
            group = getattr(contract, section)
            for strength in ("hard", "soft"):
                for i, clause in enumerate(getattr(group, strength)):
                    self.clause(clause, strength, (section, strength, i))
        soft_assertions = {a["id"] for a in self.assertions if a["severity"] == "warn"}
        satisfaction = contract.satisfaction
        for i, recovery in enumerate(contract.recovery):
            self.where = ("recovery", i)
            if recovery.violation not in self.soft_rules:
                why = "an assertion" if recovery.violation in soft_assertions else "not a soft rule"
                message = f"recovery {recovery.id} names {recovery.violation}: {why}"
                raise self.error(message, "violation")
            self.came_from(("rules", len(self.rules)))
            self.rules.append(
                {
                    "id": recovery.id,
                    "kind": "recovery",
                    "statement": f"Violations of {recovery.violation} are recovered from.",
                    "violation": recovery.violation,
                    "actions": list(recovery.actions),
                    "within_steps": recovery.within_steps or satisfaction.k,
                }
            )
        if satisfaction.delta is not None and self.soft_rules:
            budget = math.floor(satisfaction.delta)
            self.rules.append(
                {
                    "id": "soft-violation-budget",
                    "kind": "soft_budget",
                    "statement": f"At most {budget} soft violations per run (delta).",
                    "rules": list(self.soft_rules),
                    "max_violations": budget,
                }
            )
        thresholds = (
            contract.thresholds.model_dump(mode="json") if contract.thresholds is not None else {}
        )
        if satisfaction.p < 1 and (thresholds.get("sprt") or {}).get("enabled"):
            self.where = ("thresholds", "sprt")
            raise self.error(
                f"the SPRT tests its p0 against its p1 and promises nothing about the "
                f"contract's p ({satisfaction.p}); leave it off: the confidence sequence "
                "tests p",
                "enabled",
            )
        if satisfaction.p < 1:
            thresholds["min_wilson_pass_rate"] = satisfaction.p
        # p < 1 promises a rate, not every run: violations are evidence the rate test weighs.
        chosen = contract.thresholds is not None and (
            "failing_runs" in contract.thresholds.model_fields_set
        )
        if not chosen:
            thresholds["failing_runs"] = "tolerate" if satisfaction.p < 1 else "forbid"
        document: dict[str, Any] = {"schema_version": SPEC_SCHEMA, "id": contract.id}
        if contract.name is not None:
            document["name"] = contract.name
        if contract.description is not None:
            document["description"] = contract.description
        document["invariants"] = {k: v for k, v in self.invariants.items() if v not in (None, [])}
        output = {k: v for k, v in self.output.items() if v}
        if output:
            document["output"] = output
        document["thresholds"] = thresholds
        if self.rules:
            document["rules"] = self.rules
        if self.assertions:
            document["assertions"] = self.assertions
        return document


def _exact(tool: Any) -> Any:
    """The matcher of exactly the spans the hard invariant reads for the tool ``tool`` names:
    a tool clause means one tool, hard (the exact names of ``required_tools``) or soft (a
    ``count`` rule, which reads globs), and, as the invariants do, spans of every type (a
    plain glob would leave out ``llm`` spans: a soft ``forbidden_tool`` on a model PASSed)."""
    from abw.models.rules import ALL_SPAN_TYPES
    from abw.semantics import literal_pattern

    if not isinstance(tool, str):
        return tool
    return {"name": literal_pattern(tool), "type": list(ALL_SPAN_TYPES)}


def _id_part(field: str, index: int) -> str:
    """``field`` where it may be part of an id; else its characters an id may hold, and its
    index (an output field may hold any text: ``refund/amount``, ``état``)."""
    if re.fullmatch(r"[A-Za-z0-9_.\-]+", field):
        return field
    return f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', field).strip('-')}-{index}".lstrip("-")


def compile_contract(
    contract: Any, *, file: str | Path | None = None, line_of: LineOf | None = None
) -> Any:
    """The :class:`~abw.models.spec.Spec` a contract compiles to (validated). An error names
    the contract's own field (``invariants.soft[0].params.min``, not the compiled spec's
    ``rules.3.count.min``), and its line in ``file`` through ``line_of``
    (:meth:`abw.documents.Source.line_of`)."""
    from pydantic import ValidationError

    from abw.models.spec import Spec

    compiler = _Compiler(contract, line_of)
    try:
        document = compiler.compile()
        return Spec.model_validate(document)
    except AbwInputError as exc:
        exc.file = None if file is None else str(file)
        raise
    except ValidationError as exc:
        loc, message = describe_validation_error(exc, unknown_key="unknown key", document=document)
        origin = compiler.origin(loc)
        field = ".".join(str(p) for p in loc) if origin is None else _dotted(origin)
        line = line_of(origin) if origin is not None and line_of is not None else None
        raise AbwInputError(message, file=file, line=line, field=field) from None


def spec_yaml(spec: Any, *, source: str | None = None, source_sha256: str | None = None) -> str:
    """The spec as YAML text (a header names the contract it came from)."""
    import yaml

    document = json.loads(spec.model_dump_json(exclude_none=True))
    document = {"schema_version": document.pop("schema_version"), **document}
    for section, lead in (("rules", ("id", "kind")), ("assertions", ("id", "statement"))):
        if section in document:
            document[section] = [_tidy(item, lead) for item in document[section]]
    header = ""
    if source is not None:
        header = comment_line(f"# Compiled by `abw contract compile` from {source}")
        header += f" (sha256 {source_sha256}).\n" if source_sha256 else ".\n"
        header += "# Edit the contract, not this file.\n"
    return header + yaml.dump(
        document, Dumper=_spec_dumper(), sort_keys=False, allow_unicode=True, width=100
    )


def yaml_for_log(text: str) -> str:
    """Spec YAML (:func:`spec_yaml`) for standard output, where a CI runner reads every line:
    the same document with ``::`` and ``##[`` escaped (:func:`abw.text.log_yaml`)."""
    shown = log_yaml(text)
    if shown is None:
        raise AbwInputError(
            "the spec holds text a CI log would run as a workflow command (:: or ##[) in a "
            "form that cannot be escaped; write it to a file with --out",
            field="--out",
        )
    return shown


def _spec_dumper() -> Any:
    """PyYAML's safe dumper, writing double-quoted every string that :func:`abw.text.log_yaml`
    must escape for a CI log (``::``, ``##[``, controls: :func:`abw.text.log_yaml_quotes`)."""
    import yaml

    class SpecDumper(yaml.SafeDumper):
        pass

    def string(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = '"' if log_yaml_quotes(value) else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    SpecDumper.add_representer(str, string)
    return SpecDumper


def _tidy(item: dict[str, Any], lead: tuple[str, ...]) -> dict[str, Any]:
    """``lead`` keys first, empty lists (defaults) left out: easier to review."""
    first = {k: item[k] for k in lead if k in item}
    rest = {k: v for k, v in item.items() if k not in first and v != []}
    return {**first, **rest}


def load_contract_as_spec(path: str | Path) -> tuple[Any, str]:
    """Load a contract and compile it -> (Spec, sha256 of the contract file)."""
    contract, source = _read_contract(path)
    spec = compile_contract(contract, file=path, line_of=source.line_of)
    return spec, sha256_hex(source.raw)


def run_contract_gate(
    baseline: str | Path,
    candidate: str | Path,
    contract: str | Path,
    *,
    latent: str | Path | None = None,
    strict: bool = False,
    previous: str | Path | None = None,
) -> Any:
    """Like :func:`abw.gating.run_gate`, with a contract compiled in memory in place of a spec.

    The report's ``inputs.spec_file`` / ``spec_sha256`` name the contract file.
    """
    from abw.gating import gate, load_latent, load_previous
    from abw.leanrun import load_lean_traces, stream_lean_traces

    spec, digest = load_contract_as_spec(contract)
    if strict:
        spec = spec.model_copy(update={"strict": True})
    return gate(
        load_lean_traces(baseline),
        stream_lean_traces(candidate),
        spec,
        spec_file=str(contract),
        spec_sha256=digest,
        latent=load_latent(latent) if latent is not None else None,
        previous=load_previous(previous) if previous is not None else None,
    )
