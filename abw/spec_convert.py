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

from abw.errors import AbwInputError
from abw.text import comment_line

TOOL = {"type": ["tool"]}
#: Span types every agent-invariants event can become (for "no event after a stop").
ALL_TYPES = ["llm", "tool", "retriever", "memory", "handoff", "guardrail"]
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
        where = ".".join(str(p) for p in first["loc"])
        raise AbwInputError(f"the converted spec is invalid: {first['msg']}", field=where) from None
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
    ids: list[str] = []
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
            converted = {
                "id": name,
                "statement": str(assertion.get("statement") or name),
                "severity": severity or "error",
                "selector": _selector(selector),
                "matcher": assertion.get("matcher"),
                "scenarios": [scenario["id"]],
            }
            if assertion.get("limitations"):
                converted["limitations"] = list(assertion["limitations"])
            known = {"id", "statement", "severity", "selector", "matcher", "limitations"}
            for key in sorted(set(assertion) - known):
                notes.append(f"{where} ({name}): field {key!r} has no abw equivalent: left out")
            problem = _assertion_problem(converted)
            if problem:
                notes.append(f"{where} ({name}): {problem}: left out")
                continue
            assertions.append(converted)
            ids.append(name)
    repeated = {i for i in ids if ids.count(i) > 1}
    for item in assertions:  # an id used in two scenarios: qualify it by its scenario
        if item["id"] in repeated:
            item["id"] = f"{item['scenarios'][0]}.{item['id']}"
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


def _assertion_problem(assertion: dict[str, Any]) -> str | None:
    from pydantic import TypeAdapter, ValidationError

    from abw.models.rules import Assertion

    try:
        TypeAdapter(Assertion).validate_python(assertion)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"{where}: {first['msg']}"
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
        out: dict[str, Any] = {"name": tool or "*", **TOOL}
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


def _proof(classes: Any, outcome_id: Any = None) -> list[str]:
    classes = classes if isinstance(classes, list) and classes else DEFAULT_EVIDENCE
    return [f"outcome.{c}:{outcome_id or '*'}" for c in classes]


def _rule(rule: dict[str, Any], notes: list[str], where: str) -> list[dict[str, Any]]:
    kind = rule.get("kind")
    name = rule.get("id")
    if kind == "deny_tool":
        return [{"kind": "count", "tool": {"name": rule["tool"], **TOOL}, "max": 0}]
    if kind == "allow_tools":
        return [{"kind": "tool_allowlist", "tools": list(rule["tools"])}]
    if kind == "require_approval":
        scope = rule.get("scope")
        out: dict[str, Any] = {
            "kind": "precedence",
            "before": {"name": f"approval:{scope or '*'}", "type": ["guardrail"]},
            "after": {"name": rule["tool"], **TOOL},
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
        allowed = rule.get("allowed_after") or ["run.completed", "run.failed", "telemetry.*"]
        stop = rule.get("stop_type") or "control.stop"
        if any(c in stop for c in "*?["):
            raise _Skip(f"stop_type glob {stop!r}: abw stops at the first matching span")
        return [
            {
                "kind": "absence_after",
                "stop": {"name": stop, "type": ["guardrail"]},
                "forbidden": {"type": ALL_TYPES},
                "allowed": list(allowed),
            }
        ]
    if kind == "completion_requires_outcome":
        completion = [
            *(rule.get("completion_types") or ["run.completed"]),
            "agent.claims_completion",
        ]
        return [
            {
                "kind": "precedence",
                "before": {
                    "name": _proof(rule.get("evidence_classes"), rule.get("outcome_id")),
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
                "evidence": {"name": _proof(rule.get("evidence_classes"))},
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
                "tool": {"name": rule.get("tool") or "*", **TOOL},
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
        return [{"kind": "result_required", "tool": {"name": rule.get("tool") or "*", **TOOL}}]
    raise _Skip(f"rule kind {kind!r} is unknown")


def _agent_invariants(document: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    rules_in = document.get("rules")
    if not isinstance(rules_in, list):
        raise AbwInputError("rules must be a list", field="rules")
    rules: list[dict[str, Any]] = []
    for index, rule in enumerate(rules_in):
        where = f"rules.{index}"
        if not isinstance(rule, dict) or not isinstance(rule.get("id"), str):
            raise AbwInputError("a rule needs a string id", field=where)
        try:
            mapped = _rule(rule, notes, where)
        except (_Skip, KeyError, TypeError) as exc:
            reason = exc.args[0] if isinstance(exc, _Skip) else f"field {exc} missing or wrong"
            notes.append(f"{where} ({rule['id']}): {reason}: left out")
            continue
        statement = rule.get("description")
        for i, item in enumerate(mapped):
            item = {"id": f"{rule['id']}.{i}", **item}
            if isinstance(statement, str) and statement:
                item["statement"] = statement
            if rule.get("severity") == "warning":
                item["enforcement"] = "soft"
            rules.append(item)
    compare = document.get("compare") if isinstance(document.get("compare"), dict) else {}
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
