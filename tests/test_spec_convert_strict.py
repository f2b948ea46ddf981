"""``abw spec convert`` of an agent-invariants contract never makes a spec weaker than the
contract in silence: what the peer's own schema (strict on every rule and on the contract)
refuses is refused (exit 2, one line naming the file, line and field), and a field abw does
not read is noted, one line each (docs/contracts.md, "agent-invariants and behaviorlock").

Each case is the real contract of tests/corpus/agent-invariants with one thing changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import CORPUS

PEER = CORPUS / "agent-invariants" / "agent-invariants.json"
NOTE = "abw: not expressed exactly: "
NOT_PEER = "not a field of agent-invariants' schema (the peer rejects the contract): left out"


def _contract(tmp_path: Path, edit: Any) -> Path:
    """The peer's contract after ``edit(document)``, one member a line."""
    document = json.loads(PEER.read_text())
    edit(document)
    path = tmp_path / "contract.json"
    path.write_text(json.dumps(document, indent=1))
    return path


def _line(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _notes(err: str) -> list[str]:
    return [line.removeprefix(NOTE) for line in err.splitlines() if line.startswith(NOTE)]


def _set(index: int, key: str, value: Any) -> Any:
    def edit(document: dict[str, Any]) -> None:
        document["rules"][index][key] = value

    return edit


def _drop(index: int, key: str) -> Any:
    def edit(document: dict[str, Any]) -> None:
        del document["rules"][index][key]

    return edit


# rules of the corpus contract: 0 payments-need-approval (require_approval), 1 stop-means-stop,
# 2 no-shell (deny_tool), 3 results-for-calls, 4 no-retry-loop (retry_limit),
# 5 prove-before-done (completion_requires_outcome), 6 tool-budget (event_budget)
REFUSED = [
    # (case, edit, the field named, its line's text, the message's end)
    (
        "severity-info",
        _set(2, "severity", "info"),
        "rules.2.severity",
        '"severity"',
        "severity: Input should be 'warning' or 'error'",
    ),
    (
        "tool-as-list",
        _set(2, "tool", ["shell.*"]),
        "rules.2.tool",
        '"tool": [',
        "tool: Input should be a valid string",
    ),
    (
        "deny-tool-without-tool",
        _drop(2, "tool"),
        "rules.2",
        '"id": "no-shell"',
        "tool: Field required",
    ),
    (
        "budget-without-budget",
        lambda d: d["rules"].__setitem__(6, {"id": "tool-budget", "kind": "event_budget"}),
        "rules.6",
        '"id": "tool-budget"',
        "set at least one budget (max_events, max_tool_calls or max_tool_failures)",
    ),
    (
        "threshold-over-one",
        lambda d: d["rules"].append(
            {"id": "sure", "kind": "confidence_requires_outcome", "threshold": 7}
        ),
        "rules.7.threshold",
        '"threshold"',
        "threshold: Input should be less than or equal to 1",
    ),
    (
        "within-events-as-string",
        _set(0, "within_events", "20"),
        "rules.0.within_events",
        '"within_events"',
        "within_events: Input should be a valid integer",
    ),
    (
        "unknown-evidence-class",
        _set(5, "evidence_classes", ["externally_observed", "vibes"]),
        "rules.5.evidence_classes.1",
        '"vibes"',
        "evidence_classes.1: Input should be 'externally_observed', 'configured_verifier', "
        "'manual_attestation' or 'self_attestation'",
    ),
    (
        "budget-as-boolean",
        _set(6, "max_tool_failures", True),
        "rules.6.max_tool_failures",
        '"max_tool_failures"',
        "max_tool_failures: Input should be a valid integer",
    ),
    (
        "empty-allow-list",
        lambda d: d["rules"].append({"id": "tools-ok", "kind": "allow_tools", "tools": []}),
        "rules.7.tools",
        '"tools"',
        "tools: List should have at least 1 item after validation, not 0",
    ),
    (
        "empty-matcher",
        lambda d: d["rules"].append({"id": "never", "kind": "deny_event", "match": {}}),
        "rules.7.match",
        '"match"',
        "match: a matcher needs at least one field",
    ),
]


@pytest.mark.parametrize(
    ("edit", "field", "text", "why"),
    [case[1:] for case in REFUSED],
    ids=[case[0] for case in REFUSED],
)
def test_what_the_peer_refuses_is_refused_at_its_field(tmp_path, run_cli, edit, field, text, why):
    """Each was converted with exit 0 and no line: a severity ``info`` became a hard rule, a
    tool list matched names the peer never reads, a budget-less event_budget or a rule without
    its tool vanished (the latter with a note), a threshold of 7 gated nothing."""
    path = _contract(tmp_path, edit)
    out = tmp_path / "spec.yaml"
    code, stdout, err = run_cli("spec", "convert", path, "--out", out)
    assert (code, stdout) == (2, "") and not out.exists()
    assert err.count("\n") == 1, err
    line = _line(path, text)
    if field.count(".") == 1:  # a whole rule: the line of its opening brace, above its id
        line -= 1
    assert err.startswith(f"abw: error: {path}:{line}: {field}: rule "), err
    assert "is not a valid agent-invariants rule: " in err and err.endswith(f"{why}\n"), err


@pytest.mark.parametrize(
    ("edit", "field", "why"),
    [
        (lambda d: d.__setitem__("version", 2), "version", "version: Input should be 1"),
        (lambda d: d.pop("name"), None, "name: Field required"),
        (lambda d: d.__setitem__("name", ["x"]), "name", "name: Input should be a valid string"),
        (
            lambda d: d.__setitem__("rules", []),
            "rules",
            "must hold at least one rule, as the peer requires",
        ),
    ],
    ids=["version-2", "no-name", "name-as-list", "no-rules"],
)
def test_what_the_peer_refuses_in_the_contract_is_refused(tmp_path, run_cli, edit, field, why):
    path = _contract(tmp_path, edit)
    code, _, err = run_cli("spec", "convert", path)
    assert code == 2 and err.count("\n") == 1, err
    where = f"{path}:{_line(path, json.dumps(field))}: {field}" if field else str(path)
    assert err.startswith(f"abw: error: {where}: ") and err.endswith(f"{why}\n"), err


UNKNOWN = [
    # (case, edit, the note's place (where.key (id)))
    (
        "deny-tool-except-when",
        _set(2, "except_when", {"tool": "shell.safe"}),
        "rules.2.except_when (no-shell)",
    ),
    (
        "approval-max-age",
        _set(0, "max_age_events", 3),
        "rules.0.max_age_events (payments-need-approval)",
    ),
    ("budget-max-llm-calls", _set(6, "max_llm_calls", 2), "rules.6.max_llm_calls (tool-budget)"),
    ("contract-key", lambda d: d.__setitem__("frobnicate", True), "frobnicate"),
]


@pytest.mark.parametrize(
    ("edit", "where"), [case[1:] for case in UNKNOWN], ids=[case[0] for case in UNKNOWN]
)
def test_an_unknown_field_is_a_note_never_silence(tmp_path, run_cli, edit, where):
    """docs/contracts.md: unknown rule kinds, fields or compare options are each printed as
    ``abw: not expressed exactly: …`` and written into the header; these disappeared."""
    plain_code, plain_out, plain_err = run_cli("spec", "convert", PEER)
    assert plain_code == 0
    path = _contract(tmp_path, edit)
    code, out, err = run_cli("spec", "convert", path)
    assert code == 0, err
    added = [n for n in _notes(err) if n not in _notes(plain_err)]
    assert added == [f"{where}: {NOT_PEER}"]
    assert f"#   {where}: {NOT_PEER}\n" in out  # in the spec's header too
    # the rest of the contract converts as before
    assert yaml.safe_load(out) == yaml.safe_load(plain_out)


def test_every_unknown_field_is_noted_once_and_the_probe_is_refused(tmp_path, run_cli):
    """The reported probe: three rules with an unknown field each and an unknown contract key
    are four notes; its ``severity: info`` rule makes the peer refuse it, so abw does too."""
    rules = [
        {"id": "no-shell", "kind": "deny_tool", "tool": "shell.*", "except_when": {"x": 1}},
        {"id": "approve", "kind": "require_approval", "tool": "p.*", "max_age_events": 3},
        {"id": "budget", "kind": "event_budget", "max_tool_calls": 8, "max_llm_calls": 2},
    ]

    def edit(document: dict[str, Any]) -> None:
        document["rules"] = list(rules)
        document["frobnicate"] = True

    path = _contract(tmp_path, edit)
    code, _, err = run_cli("spec", "convert", path, "--out", tmp_path / "spec.yaml")
    assert code == 0, err
    unknown = sorted(n.split(":")[0] for n in _notes(err) if n.endswith(NOT_PEER))
    assert unknown == [
        "frobnicate",
        "rules.0.except_when (no-shell)",
        "rules.1.max_age_events (approve)",
        "rules.2.max_llm_calls (budget)",
    ]
    rules.append({"id": "sev", "kind": "deny_tool", "tool": "rm", "severity": "info"})
    path = _contract(tmp_path, edit)
    code, _, err = run_cli("spec", "convert", path)
    line = _line(path, '"info"')
    assert code == 2 and f"{path}:{line}: rules.3.severity: " in err


@pytest.mark.parametrize("severity", ["warning", "error"])
def test_the_peers_severities_still_convert(tmp_path, run_cli, severity):
    code, out, err = run_cli("spec", "convert", _contract(tmp_path, _set(2, "severity", severity)))
    assert code == 0, err
    spec = yaml.safe_load(out)
    (rule,) = [r for r in spec["rules"] if r["id"] == "no-shell.0"]
    assert rule.get("enforcement", "hard") == ("soft" if severity == "warning" else "hard")
