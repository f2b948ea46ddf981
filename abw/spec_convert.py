"""Peer contracts -> ``behavior-spec/v0`` (``abw spec convert``): behaviorlock contracts
(``schemaVersion: 1``, scenarios of assertions) and agent-invariants contracts (``version: 1``,
rules and a compare policy).

A construct abw cannot express exactly is never dropped in silence: :func:`convert` returns one
line per construct (``<where>: <what abw does instead, or that it is left out>``), and the CLI
prints them and writes them into the spec's header. The mappings are the ones in
docs/contracts.md ("agent-invariants and behaviorlock"); they assume the traces come from
``abw import agent-invariants`` / ``abw import behaviorlock``, which name spans and outputs the
way these rules read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from abw.agent_invariants_schema import first_problem, peer_models
from abw.errors import AbwInputError
from abw.models.rules import ALL_SPAN_TYPES
from abw.semantics import literal_pattern
from abw.text import comment_line

TOOL = {"type": ["tool"]}
DEFAULT_EVIDENCE = ["externally_observed", "configured_verifier"]
#: agent-invariants' outcome verdicts from worst to best, ``none`` (no outcome) below them.
OUTCOME_ORDER = ["none", "violated", "retracted", "unknown", "satisfied"]
FORMATS = ("behaviorlock", "agent-invariants")


@dataclass
class Conversion:
    """The spec document (validated) and the constructs it could not express, one line each."""

    source_format: str
    spec: Any
    unexpressible: list[str] = field(default_factory=list)


def detect(document: Any) -> str:
    """``behaviorlock`` or ``agent-invariants`` from the document's shape."""
    if isinstance(document, dict) and "schemaVersion" in document and "scenarios" in document:
        return "behaviorlock"
    if isinstance(document, dict) and "rules" in document and "version" in document:
        return "agent-invariants"
    raise AbwInputError(
        "not a behaviorlock contract (schemaVersion, scenarios) or an agent-invariants "
        "contract (version, rules)"
    )


def convert(
    document: Any, source_format: str | None = None, spec_id: str | None = None
) -> Conversion:
    """Convert a peer contract; ``source_format`` defaults to :func:`detect`."""
    from pydantic import ValidationError

    from abw.models.spec import Spec

    fmt = source_format or detect(document)
    if fmt not in FORMATS:
        raise AbwInputError(f"unknown contract format {fmt!r} (known: {', '.join(FORMATS)})")
    if not isinstance(document, dict):
        raise AbwInputError(f"a {fmt} contract is a JSON object")
    notes: list[str] = []
    if fmt == "behaviorlock":
        body = _behaviorlock(document, notes)
    else:
        body = _agent_invariants(document, notes)
    body["id"] = spec_id or body["id"]
    try:
        spec = Spec.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])  # the spec's, not the contract's field
        raise AbwInputError(f"the converted spec is invalid: {where}: {first['msg']}") from None
    return Conversion(fmt, spec, notes)


def _slug(text: Any, fallback: str) -> str:
    import re

    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", str(text or "")).strip("-.")
    return slug or fallback


# ----------------------------------------------------------------- behaviorlock


def _selector(pointer: str) -> str:
    """A behaviorlock selector (JSON Pointer into the scenario) -> abw's, over the traces
    ``abw import behaviorlock`` writes (the scenario's status and observations are the run's
    canonical output; its id is the scenario id)."""
    if pointer == "/id":
        return "/scenario_id"
    return "/output" + pointer if pointer else "/output"


def _behaviorlock(document: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    scenarios = document.get("scenarios")
    if not isinstance(scenarios, list):
        raise AbwInputError("scenarios must be a list", field="scenarios")
    project = document.get("project") if isinstance(document.get("project"), dict) else {}
    assertions: list[dict[str, Any]] = []
    places: list[tuple[str, str]] = []  # each assertion's place in the contract, its scenario
    for s_index, scenario in enumerate(scenarios):
        if not isinstance(scenario, dict) or not isinstance(scenario.get("id"), str):
            raise AbwInputError("a scenario needs a string id", field=f"scenarios.{s_index}")
        for a_index, assertion in enumerate(scenario.get("assertions") or []):
            where = f"scenarios.{s_index}.assertions.{a_index}"
            if not isinstance(assertion, dict):
                raise AbwInputError("an assertion is an object", field=where)
            name = str(assertion.get("id") or f"assertion-{a_index}")
            selector = assertion.get("selector")
            if not isinstance(selector, str) or not (selector == "" or selector.startswith("/")):
                notes.append(
                    f"{where} ({name}): selector {selector!r} is not a JSON Pointer: left out"
                )
                continue
            severity = {"warning": "warn"}.get(assertion.get("severity"), assertion.get("severity"))
            new_id = _slug(name, f"assertion-{a_index}")
            if new_id != name:
                notes.append(
                    f"{where} ({name}): written with the id {new_id} (abw ids are [A-Za-z0-9_.-])"
                )
            converted = {
                "id": new_id,
                "statement": str(assertion.get("statement") or name),
                "severity": severity or "error",
                "selector": _selector(selector),
                "matcher": assertion.get("matcher"),
                "scenarios": [literal_pattern(scenario["id"])],  # the id, never a glob
            }
            if assertion.get("limitations"):
                converted["limitations"] = _names(assertion, "limitations", where, [])
            known = {"id", "statement", "severity", "selector", "matcher", "limitations"}
            _unknown_fields(assertion, known, where, notes, name=name)
            problem = _assertion_problem(converted)
            if problem:
                notes.append(f"{where} ({name}): {problem}: left out")
                continue
            assertions.append(converted)
            places.append((where, scenario["id"]))
    _qualify(assertions, places)
    notes.append(
        "gate: an error assertion whose value is unknown makes behaviorlock fail (exit 1); "
        "abw reports it INCONCLUSIVE (exit 3; --allow-inconclusive makes it 0)"
    )
    return {
        "id": _slug(project.get("name"), "behaviorlock"),
        "name": project.get("name") if isinstance(project.get("name"), str) else None,
        "assertions": assertions,
        "thresholds": _single_run_thresholds(),
    }


def _qualify(assertions: list[dict[str, Any]], places: list[tuple[str, str]]) -> None:
    """An id used in two scenarios is qualified by its scenario's; one that still repeats (twice
    in one scenario) is an input error at its second place."""
    ids = [item["id"] for item in assertions]
    repeated = {i for i in ids if ids.count(i) > 1}
    seen: set[str] = set()
    for item, (where, scenario) in zip(assertions, places, strict=True):
        if item["id"] in repeated:
            item["id"] = f"{_slug(scenario, 'scenario')}.{item['id']}"
        if item["id"] in seen:
            message = f"assertion id {item['id']} repeats in scenario {scenario}"
            raise AbwInputError(message, field=f"{where}.id")
        seen.add(item["id"])


def _unknown_fields(
    item: dict[str, Any],
    known: Any,
    where: str,
    notes: list[str],
    *,
    name: str | None = None,
    why: str = "has no abw equivalent",
) -> None:
    """One note per key of ``item`` (at ``where``; ``""``: the contract itself) that is not in
    ``known``: the one way a field abw does not read is reported, never dropped in silence."""
    for key in sorted(set(item) - set(known)):
        label = f"{where}.{key}" if where else str(key)
        named = f" ({name})" if name is not None else ""
        notes.append(f"{label}{named}: {why}: left out")


def _assertion_problem(assertion: dict[str, Any]) -> str | None:
    from abw.models.rules import Assertion

    return _problem(Assertion, assertion)


def _problem(model: Any, value: dict[str, Any]) -> str | None:
    """``field: message`` of the first reason ``value`` is not a valid ``model``, or None;
    the field is the converted item's own (pydantic's union tags left out)."""
    from pydantic import TypeAdapter, ValidationError

    from abw.models.rules import RULE_KINDS

    try:
        TypeAdapter(model).validate_python(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = [str(p) for p in first["loc"] if p not in RULE_KINDS and "-" not in str(p)]
        return f"{'.'.join(loc)}: {first['msg']}" if loc else str(first["msg"])
    return None


def _single_run_thresholds() -> dict[str, Any]:
    """The peers compare one run with one run and have no statistics or path-shape checks:
    only the converted rules and assertions decide."""
    return {
        "min_runs": 1,
        "min_wilson_pass_rate": 0,
        "path_edit_distance_warn": 1,
        "path_edit_distance_fail": 1,
        "fingerprint_distance_warn": 1000,
        "fingerprint_distance_fail": 1000,
        "tool_jaccard_warn": 1,
        "tool_jaccard_fail": 1,
    }


# ----------------------------------------------------------------- agent-invariants


class _Skip(Exception):
    """A construct abw cannot express; its message is the reason."""


#: The note for a field agent-invariants' schema does not have (it is strict: the peer itself
#: refuses such a contract, exit 2), written for a field of a known rule kind or of the contract.
NOT_A_PEER_FIELD = "not a field of agent-invariants' schema (the peer rejects the contract)"
#: Fields holding lists of names: checked by :func:`_names` first, which names the field.
NAME_LISTS = ("tools", "allowed_after", "completion_types", "evidence_classes")


def _check_peer_rule(rule: dict[str, Any], where: str, notes: list[str]) -> None:
    """Refuse (exit 2) a rule of a known kind that the peer's own schema refuses, naming its
    field: a wrong type, a severity other than warning|error, an event_budget without a
    budget, a threshold over 1. Each field the schema does not have is noted (left out)."""
    model = peer_models()[1].get(rule.get("kind"))
    if model is None:
        return  # an unknown kind: left out with its note
    for key in NAME_LISTS:
        if key in model.model_fields and key in rule:
            _names(rule, key, where, [])
    problem = first_problem(model, rule, where)
    if problem is not None:
        field, message = problem
        raise AbwInputError(
            f"rule {rule['id']} ({rule['kind']}) is not a valid agent-invariants rule: {message}",
            field=field,
        )
    _unknown_fields(rule, model.model_fields, where, notes, name=rule["id"], why=NOT_A_PEER_FIELD)


def _event_match(matcher: Any) -> dict[str, Any]:
    """An agent-invariants EventMatcher -> an abw span matcher, under the importer's mapping."""
    if not isinstance(matcher, dict):
        raise _Skip("the event matcher is not an object")
    kind, tool = matcher.get("type"), matcher.get("tool")
    extra = set(matcher) - {"type", "tool", "ok", "outcome_id", "verdict", "claims_completion"}
    if extra:
        raise _Skip(f"matcher fields {sorted(extra)} are unknown")
    if kind is None and tool is not None:
        kind = "tool.call"
    if kind is None:
        raise _Skip("a matcher without type or tool matches every event, results included")
    if any(c in str(kind) for c in "*?["):
        raise _Skip(f"the event-type glob {kind!r} spans several span kinds")
    if tool is not None and kind != "tool.call":
        raise _Skip(f"tool {tool!r} on a {kind} event")
    if kind == "tool.call":
        out: dict[str, Any] = {"name": _glob(tool or "*"), **TOOL}
        if "ok" in matcher:
            out["status"] = ["success"] if matcher["ok"] else ["error"]
        _only(matcher, {"type", "tool", "ok"})
        return out
    if kind == "tool.result":
        if matcher.get("ok") is False:
            _only(matcher, {"type", "ok"})
            return {"name": "*", **TOOL, "status": ["error"]}
        raise _Skip("results are folded into their calls; only {type: tool.result, ok: false} maps")
    if kind == "outcome.observed":
        _only(matcher, {"type", "outcome_id", "verdict"})
        out = {"name": f"outcome.*:{matcher.get('outcome_id') or '*'}", "type": ["guardrail"]}
        verdict = matcher.get("verdict")
        if verdict == "satisfied":
            out["status"] = ["success"]
        elif verdict is not None:
            raise _Skip(f"verdict {verdict!r}: abw's outcome span is only satisfied or not")
        return out
    if kind == "agent.message":
        _only(matcher, {"type", "claims_completion"})
        claims = matcher.get("claims_completion")
        names = {True: "agent.claims_completion", False: "agent.message"}
        name = names.get(claims, ["agent.message", "agent.claims_completion"])
        return {"name": name, "type": ["llm"]}
    if kind == "approval.granted":
        _only(matcher, {"type"})
        return {"name": "approval:*", "type": ["guardrail"]}
    _only(matcher, {"type"})
    return {"name": kind, "type": ["guardrail"]}


def _only(matcher: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(matcher) - allowed)
    if extra:
        raise _Skip(f"matcher fields {extra} do not apply to {matcher.get('type')} events here")


def _glob(pattern: Any) -> Any:
    """A peer glob (``*`` and ``?``; ``[`` and a leading ``=`` literal) as abw's glob that
    matches the same names: ``[`` as ``[[]``, a leading ``=`` as ``[=]``."""
    if not isinstance(pattern, str):
        return pattern  # (the converted rule's check names the field)
    pattern = pattern.replace("[", "[[]")
    return "[=]" + pattern[1:] if pattern.startswith("=") else pattern


#: An event type ``allowed_after`` a stop, as the spans the importer makes of such events
#: (docs/importers.md); any other type (``run.*``, ``control.*``, ``telemetry.*``) is a
#: guardrail span named by its type. (``tool.result`` is folded into its call: no span.)
_AFTER_STOP: dict[str, Any] = {
    "tool.call": {"name": "*", **TOOL},
    "approval.granted": {"name": "approval:*", "type": ["guardrail"]},
    "outcome.observed": {"name": "outcome.*", "type": ["guardrail"]},
    "agent.message": {"name": ["agent.message", "agent.claims_completion"], "type": ["llm"]},
}


def _names(rule: dict[str, Any], key: str, where: str, default: list[str]) -> list[str]:
    """The list of names at ``rule[key]`` (``default`` when absent or empty); anything else
    (a single string too, which would otherwise read as its characters) is an input error."""
    value = rule.get(key)
    if value is None or value == []:
        return list(default)
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise AbwInputError("must be a list of non-empty strings", field=f"{where}.{key}")
    return list(value)


def _proof(classes: list[str], outcome_id: Any = None) -> list[str]:
    return [f"outcome.{c}:{outcome_id or '*'}" for c in classes]


def _rule(rule: dict[str, Any], notes: list[str], where: str) -> list[dict[str, Any]]:
    kind = rule.get("kind")
    name = rule.get("id")
    if kind == "deny_tool":
        return [{"kind": "count", "tool": {"name": _glob(rule["tool"]), **TOOL}, "max": 0}]
    if kind == "allow_tools":
        if "tools" not in rule:
            raise KeyError("tools")
        tools = [_glob(t) for t in _names(rule, "tools", where, [])]
        return [{"kind": "tool_allowlist", "tools": tools}]
    if kind == "require_approval":
        scope = rule.get("scope")
        out: dict[str, Any] = {
            "kind": "precedence",
            "before": {"name": _glob(f"approval:{scope or '*'}"), "type": ["guardrail"]},
            "after": {"name": _glob(rule["tool"]), **TOOL},
            "subject": "attempts",
            "bind": {"before": "approval_id", "after": "approval_id"},
        }
        if rule.get("within_events") is not None:
            out["within"] = rule["within_events"]
            notes.append(
                f"{where} ({name}): within_events counts events (results, messages too); "
                "abw's within counts path steps"
            )
        notes.append(
            f"{where} ({name}): a call without approval_id is violated in abw (the peer accepts "
            "any in-scope grant for it)"
        )
        return [out]
    if kind == "stop_is_final":
        allowed = _names(
            rule, "allowed_after", where, ["run.completed", "run.failed", "telemetry.*"]
        )
        stop = rule.get("stop_type") or "control.stop"
        if any(c in stop for c in "*?["):
            raise _Skip(f"stop_type glob {stop!r}: abw stops at the first matching span")
        if "tool.result" not in allowed:
            notes.append(
                f"{where} ({name}): a tool.result after the stop is not seen (results are "
                "folded into their calls): a call made before the stop passes"
            )
        return [
            {
                "kind": "absence_after",
                "stop": {"name": stop, "type": ["guardrail"]},
                "forbidden": {"type": list(ALL_SPAN_TYPES)},
                "allowed": [_AFTER_STOP.get(event, event) for event in allowed],
            }
        ]
    if kind == "completion_requires_outcome":
        completion = [
            *_names(rule, "completion_types", where, ["run.completed"]),
            "agent.claims_completion",
        ]
        return [
            {
                "kind": "precedence",
                "before": {
                    "name": _proof(
                        _names(rule, "evidence_classes", where, DEFAULT_EVIDENCE),
                        rule.get("outcome_id"),
                    ),
                    "type": ["guardrail"],
                },
                "after": {"name": completion, "type": ["guardrail", "llm"]},
            }
        ]
    if kind == "confidence_requires_outcome":
        return [
            {
                "kind": "confidence",
                "tool": {"name": "agent.claims_completion", "type": ["llm"]},
                "field": "confidence",
                "threshold": rule["threshold"],
                "evidence": {
                    "name": _proof(_names(rule, "evidence_classes", where, DEFAULT_EVIDENCE))
                },
            }
        ]
    if kind == "retry_limit":
        group = rule.get("group_by") or "call_signature"
        if group == "call_signature":
            notes.append(
                f"{where} ({name}): calls without call_signature are unknown in abw when they "
                "could exceed the limit (the peer groups them by tool)"
            )
        return [
            {
                "kind": "retry_limit",
                "tool": {"name": _glob(rule.get("tool") or "*"), **TOOL},
                "max_attempts": rule["max_attempts"],
                "group_by": group,
            }
        ]
    if kind == "event_budget":
        out_rules = []
        if rule.get("max_tool_calls") is not None:
            out_rules.append({"kind": "count", "tool": dict(TOOL), "max": rule["max_tool_calls"]})
        if rule.get("max_tool_failures") is not None:
            out_rules.append(
                {
                    "kind": "count",
                    "tool": {**TOOL, "status": ["error"]},
                    "max": rule["max_tool_failures"],
                }
            )
        if rule.get("max_events") is not None:
            notes.append(
                f"{where} ({name}): max_events counts every event; abw counts spans (a result "
                "is part of its call's span): left out"
            )
        return out_rules
    if kind == "require_order":
        return [
            {
                "kind": "precedence",
                "before": _event_match(rule.get("before")),
                "after": _event_match(rule.get("after")),
            }
        ]
    if kind == "require_event":
        out = {"kind": "count", "tool": _event_match(rule.get("match")), "min": rule.get("min", 1)}
        if rule.get("max") is not None:
            out["max"] = rule["max"]
        return [out]
    if kind == "deny_event":
        return [{"kind": "count", "tool": _event_match(rule.get("match")), "max": 0}]
    if kind == "tool_result_required":
        notes.append(
            f"{where} ({name}): a call with no result in a run with no end event is unknown in "
            "abw (the recording may be cut off); the peer says violated"
        )
        tool = _glob(rule.get("tool") or "*")
        return [{"kind": "result_required", "tool": {"name": tool, **TOOL}}]
    raise _Skip(f"rule kind {kind!r} is unknown")


def _check_rule(item: dict[str, Any], rule: dict[str, Any], where: str) -> None:
    """An input error naming the contract's rule (and its field, when the converted rule's
    field has the same name) where ``item``, converted from ``rule``, is not a valid rule."""
    from abw.models.rules import Rule

    problem = _problem(Rule, item)
    if problem is None:
        return
    key = problem.split(".", 1)[0].split(":", 1)[0]
    field = f"{where}.{key}" if key in rule and key not in ("id", "kind") else where
    message = f"rule {rule['id']} ({rule.get('kind')}) converts to an invalid rule: {problem}"
    raise AbwInputError(message, field=field)


def _compare(document: dict[str, Any]) -> dict[str, Any]:
    """The contract's compare options, each of the type the peer takes (a string ``"no"``
    would turn an option on)."""
    compare = document.get("compare")
    if compare is None:
        return {}
    if not isinstance(compare, dict):
        raise AbwInputError("must be an object", field="compare")
    for key in ("fail_on_new_tools", "fail_on_new_violations", "require_same_outcome_or_better"):
        if key in compare and not isinstance(compare[key], bool):
            raise AbwInputError("must be true or false", field=f"compare.{key}")
    percent = compare.get("max_tool_call_increase_percent")
    if percent is not None and (
        isinstance(percent, bool) or not isinstance(percent, int | float) or percent < 0
    ):
        raise AbwInputError("must be a number >= 0", field="compare.max_tool_call_increase_percent")
    return compare


def _agent_invariants(document: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    rules_in = document.get("rules")
    if not isinstance(rules_in, list):
        raise AbwInputError("rules must be a list", field="rules")
    if not rules_in:
        raise AbwInputError("must hold at least one rule, as the peer requires", field="rules")
    contract = peer_models()[0]
    problem = first_problem(contract, document, "")
    if problem is not None:
        raise AbwInputError(
            f"not a valid agent-invariants contract: {problem[1]}", field=problem[0] or None
        )
    _unknown_fields(document, contract.model_fields, "", notes, why=NOT_A_PEER_FIELD)
    rules: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, rule in enumerate(rules_in):
        where = f"rules.{index}"
        if not isinstance(rule, dict) or not isinstance(rule.get("id"), str):
            raise AbwInputError("a rule needs a string id", field=where)
        if rule["id"] in seen:
            raise AbwInputError(f"rule id {rule['id']} repeats", field=f"{where}.id")
        seen.add(rule["id"])
        _check_peer_rule(rule, where, notes)
        key = _slug(rule["id"], f"rule-{index}")
        if key != rule["id"]:
            notes.append(
                f"{where} ({rule['id']}): written with the id {key} (abw ids are [A-Za-z0-9_.-])"
            )
        try:
            mapped = _rule(rule, notes, where)
        except (_Skip, KeyError, TypeError) as exc:
            reason = exc.args[0] if isinstance(exc, _Skip) else f"field {exc} missing or wrong"
            notes.append(f"{where} ({rule['id']}): {reason}: left out")
            continue
        statement = rule.get("description")
        for i, item in enumerate(mapped):
            item = {"id": f"{key}.{i}", **item}
            if isinstance(statement, str) and statement:
                item["statement"] = statement
            if rule.get("severity") == "warning":
                item["enforcement"] = "soft"
            _check_rule(item, rule, where)
            rules.append(item)
    compare = _compare(document)
    # the peer's defaults: fail_on_new_tools, fail_on_new_violations and
    # require_same_outcome_or_better are on unless the contract turns them off
    assertions = []
    if compare.get("fail_on_new_tools", True):
        rules.append({"id": "new_tool.0", "kind": "new_tools", "tool": dict(TOOL)})
    if compare.get("max_tool_call_increase_percent") is not None:
        rules.append(
            {
                "id": "tool_call_increase.0",
                "kind": "tool_call_growth",
                "tool": dict(TOOL),
                "max_increase_percent": compare["max_tool_call_increase_percent"],
            }
        )
    if compare.get("require_same_outcome_or_better", True):
        assertions.append(
            {
                "id": "outcome_regression",
                "statement": "The final observed outcome is the baseline's or better.",
                "selector": "/output/final_outcome",
                "matcher": {"op": "rank_not_lower", "order": OUTCOME_ORDER},
            }
        )
    for key in sorted(
        set(compare)
        - {
            "fail_on_new_tools",
            "fail_on_new_violations",
            "max_tool_call_increase_percent",
            "require_same_outcome_or_better",
        }
    ):
        notes.append(f"compare.{key}: unknown compare option: left out")
    # fail_on_new_violations: abw marks every violation new or already in the baseline, and
    # (baseline_violations: fail, the default) fails both, as the peer's compare does
    return {
        "id": _slug(document.get("name"), "agent-invariants"),
        "name": document.get("name") if isinstance(document.get("name"), str) else None,
        "rules": rules,
        "assertions": assertions,
        "thresholds": _single_run_thresholds(),
    }


def header(conversion: Conversion, source: str, digest: str) -> str:
    """The YAML header: where the spec came from, and every construct it could not express."""
    lines = [
        comment_line(
            f"# Converted by `abw spec convert` from the {conversion.source_format} contract "
            f"{source} (sha256 {digest})."
        ),
    ]
    if conversion.unexpressible:
        lines.append("# Not expressed exactly (one line each):")
        lines += [comment_line(f"#   {note}") for note in conversion.unexpressible]
    return "\n".join(lines) + "\n"
