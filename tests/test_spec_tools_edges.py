"""Edges of ``abw spec convert`` and ``abw contract compile`` on realistically edited real files:
the agent-invariants contract of tests/corpus and the refund-policy example contract."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS

PEER = CORPUS / "agent-invariants" / "agent-invariants.json"
CONTRACT = Path(__file__).parent.parent / "examples" / "refund-policy" / "contract.json"


def _peer(tmp_path: Path, rule: dict) -> Path:
    """The peer's contract with its first rule replaced by ``rule``, one member a line."""
    document = json.loads(PEER.read_text())
    document["rules"][0] = rule
    path = tmp_path / "contract.json"
    path.write_text(json.dumps(document, indent=1))
    return path


def _line(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.mark.parametrize(
    ("rule", "key"),
    [
        ({"id": "tools-ok", "kind": "allow_tools", "tools": "lookup_order"}, "tools"),
        (
            {"id": "stop", "kind": "stop_is_final", "allowed_after": "run.completed"},
            "allowed_after",
        ),
        (
            {
                "id": "prove",
                "kind": "completion_requires_outcome",
                "evidence_classes": "configured_verifier",
            },
            "evidence_classes",
        ),
    ],
)
def test_convert_refuses_a_string_where_a_list_is_expected(tmp_path, run_cli, rule, key):
    """A string where the peer wants a list of names was read as its characters (an allowlist
    of ``l``, ``o``, ...) or replaced by the defaults, and the spec written with no note."""
    path = _peer(tmp_path, rule)
    code, _, err = run_cli("spec", "convert", path, "--out", tmp_path / "spec.yaml")
    assert code == 2 and not (tmp_path / "spec.yaml").exists()
    line = _line(path, f'"{key}"')
    assert err == f"abw: error: {path}:{line}: rules.0.{key}: must be a list of non-empty strings\n"


@pytest.mark.parametrize(
    ("rule", "key", "why"),
    [
        (
            {"id": "no-shell", "kind": "deny_tool", "tool": 5},
            "tool",
            "Input should be a valid string",
        ),
        (
            {"id": "loop", "kind": "retry_limit", "max_attempts": "2"},
            "max_attempts",
            "Input should be a valid integer",
        ),
    ],
)
def test_convert_error_names_the_contract_field_and_line(tmp_path, run_cli, rule, key, why):
    """A rule that converts to an invalid one was reported at the converted spec's field
    (``rules.0.count.tool.constrained-str``), with no line of the contract."""
    path = _peer(tmp_path, rule)
    code, _, err = run_cli("spec", "convert", path)
    line = _line(path, f'"{key}"')
    assert code == 2
    assert err.startswith(f"abw: error: {path}:{line}: rules.0.{key}: rule {rule['id']} (")
    assert err.endswith(f"{key}: {why}\n") and err.count("\n") == 1


def _contract(tmp_path: Path, section: str, clause: dict) -> Path:
    document = json.loads(CONTRACT.read_text())
    document["invariants"][section].append(clause)
    path = tmp_path / "contract.json"
    path.write_text(json.dumps(document, indent=2))
    return path


def _compile(run_cli, path: Path) -> tuple[int, str, str]:
    return run_cli("contract", "compile", path)


@pytest.mark.parametrize("value", [True, 2.5, "3"])
def test_contract_limit_value_is_checked_when_it_is_not_the_smallest(tmp_path, run_cli, value):
    """A hard ``max_errors`` clause of ``true`` or ``2.5`` compiled without a word when a
    smaller limit was already there (only the smallest reaches the spec, and is checked)."""
    clause = {"id": "few", "statement": "s", "rule": "max_errors", "params": {"value": value}}
    path = _contract(tmp_path, "hard", clause)
    code, _, err = _compile(run_cli, path)
    line = _last_line(path, '"value"')
    assert code == 2
    assert err == (
        f"abw: error: {path}:{line}: invariants.hard[10].params.value: "
        "Input should be a valid integer\n"
    )


def test_soft_path_length_error_names_value_not_max(tmp_path, run_cli):
    """A soft ``max_path_length`` of ``true`` was reported at ``params.max``, a field the
    contract does not have (the compiled count rule's)."""
    clause = {"id": "short", "statement": "s", "rule": "max_path_length", "params": {"value": True}}
    path = _contract(tmp_path, "soft", clause)
    code, _, err = _compile(run_cli, path)
    assert code == 2 and "invariants.soft[1].params.value: Input should be a valid integer" in err


@pytest.mark.parametrize(
    ("rule", "params", "key"),
    [
        ("count", {"tool": "refund_commit", "max": 0, "enforcement": "soft"}, "enforcement"),
        ("count", {"tool": "refund_commit", "max": 0, "id": "other"}, "id"),
        ("count", {"tool": "refund_commit", "max": 0, "kind": "new_tools"}, "kind"),
        (
            "assertion",
            {"selector": "/path", "matcher": {"op": "exists"}, "severity": "info"},
            "severity",
        ),
    ],
)
def test_params_cannot_replace_what_the_clause_sets(tmp_path, run_cli, rule, params, key):
    """``params.enforcement: soft`` in a *hard* clause compiled to a soft rule (a WARN where the
    contract promised FAIL), ``params.severity: info`` to an info assertion, ``params.id`` to
    another id, all in silence."""
    clause = {"id": "no-commit", "statement": "s", "rule": rule, "params": params}
    path = _contract(tmp_path, "hard", clause)
    code, _, err = _compile(run_cli, path)
    line = _last_line(path, f'"{key}": {json.dumps(params[key])}')
    assert code == 2
    assert err.startswith(f"abw: error: {path}:{line}: invariants.hard[10].params.{key}: ")


def _last_line(path: Path, text: str) -> int:
    return max(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_soft_output_clause_takes_any_field_name(tmp_path, run_cli):
    """A soft ``expected_output`` on a field such as ``refund/amount`` failed with an error at
    ``params.id``, a field the contract does not have: the assertion id held the field."""
    values = {"refund/amount": 10, "état": "ok", "decision": "approve"}
    clause = {
        "id": "out",
        "statement": "s",
        "rule": "expected_output",
        "params": {"values": values},
    }
    path = _contract(tmp_path, "soft", clause)
    code, out, err = _compile(run_cli, path)
    assert (code, err) == (0, "")
    for selector in ("/output/refund~1amount", "/output/état", "/output/decision"):
        assert f"selector: {selector}\n" in out
    assert "id: out.decision\n" in out


def test_bad_clause_id_is_named_as_the_clause_id(tmp_path, run_cli):
    """A clause id a rule id cannot be was reported at ``params.id``."""
    clause = {"id": "no refunds!", "statement": "s", "rule": "count", "params": {"tool": "x"}}
    path = _contract(tmp_path, "hard", clause)
    code, _, err = _compile(run_cli, path)
    line = _line(path, '"no refunds!"')
    assert code == 2 and err.startswith(f"abw: error: {path}:{line}: invariants.hard[10].id: ")


def test_example_contract_still_compiles_the_same(tmp_path, run_cli):
    """The checks above leave the real example's compiled spec as it was."""
    document = copy.deepcopy(json.loads(CONTRACT.read_text()))
    path = tmp_path / "contract.json"
    path.write_text(json.dumps(document))
    code, out, _ = _compile(run_cli, path)
    assert code == 0 and "enforcement: soft" in out and "severity: error" in out


BEHAVIORLOCK = CORPUS / "behaviorlock"
BL_CONTRACT = BEHAVIORLOCK / "behaviorlock__readme_behaviorlock.json"


def _renamed(source: Path, target: Path, scenario: str) -> Path:
    """A behaviorlock file with its scenario ``destructive-action`` renamed."""
    text = source.read_text().replace('"destructive-action"', json.dumps(scenario))
    target.write_text(text)
    return target


def test_convert_scenario_with_glob_characters_is_its_own_scenario(tmp_path, run_cli):
    """A behaviorlock scenario ``destructive-action[v2]`` was written as the glob ``scenarios:
    [destructive-action[v2]]``, which matches no run: the README example went INCONCLUSIVE
    ("did you mean destructive-action[v2]?") instead of PASS."""
    scenario = "destructive-action[v2]"
    for side in ("baseline", "candidate"):
        raw = _renamed(
            BEHAVIORLOCK / f"behaviorlock__readme_{side}.trace.json", tmp_path / side, scenario
        )
        code, _, _ = run_cli(
            "import", "behaviorlock", "--input", raw, "--out", tmp_path / f"t-{side}"
        )
        assert code == 0
    contract = _renamed(BL_CONTRACT, tmp_path / "behaviorlock.json", scenario)
    assert run_cli("spec", "convert", contract, "--out", tmp_path / "spec.yaml")[0] == 0
    code, out, _ = run_cli(
        "gate",
        "--baseline",
        tmp_path / "t-baseline",
        "--candidate",
        tmp_path / "t-candidate",
        "--spec",
        tmp_path / "spec.yaml",
        "--out",
        tmp_path / "report.json",
    )
    assert code == 0 and out.startswith("PASS")


def _bl_contract(tmp_path: Path, edit) -> Path:
    document = json.loads(BL_CONTRACT.read_text())
    edit(document)
    path = tmp_path / "behaviorlock.json"
    path.write_text(json.dumps(document, indent=2))
    return path


def test_convert_keeps_an_assertion_whose_id_has_spaces(tmp_path, run_cli):
    """An assertion id ``permission not weaker`` (not an abw id) dropped the assertion."""

    def edit(document):
        document["scenarios"][0]["assertions"][0]["id"] = "permission not weaker"

    code, out, err = run_cli("spec", "convert", _bl_contract(tmp_path, edit))
    assert code == 0 and "- id: permission-not-weaker\n" in out
    assert "written with the id permission-not-weaker" in err and "left out" not in err


def test_convert_qualifies_repeated_ids_by_an_odd_scenario_id(tmp_path, run_cli):
    """An assertion id in two scenarios, one named ``refund flow: EU``, was qualified as
    ``refund flow: EU.permission-not-weaker``, an invalid id: exit 2 with no line."""

    def edit(document):
        second = copy.deepcopy(document["scenarios"][0])
        second["id"] = "refund flow: EU"
        document["scenarios"].append(second)

    code, out, _ = run_cli("spec", "convert", _bl_contract(tmp_path, edit))
    assert code == 0
    assert "- id: destructive-action.permission-not-weaker\n" in out
    assert "- id: refund-flow-EU.permission-not-weaker\n" in out


def test_convert_repeated_id_in_one_scenario_names_its_place(tmp_path, run_cli):
    """Two assertions with one id in one scenario: the error named ``assertions.1`` of the
    converted spec and line 1, not the contract's assertion."""

    def edit(document):
        assertions = document["scenarios"][0]["assertions"]
        assertions.append(copy.deepcopy(assertions[0]))

    path = _bl_contract(tmp_path, edit)
    code, _, err = run_cli("spec", "convert", path)
    line = _last_line(path, '"id": "permission-not-weaker"')
    assert code == 2
    assert err.startswith(f"abw: error: {path}:{line}: scenarios.0.assertions.1.id: ")


@pytest.mark.parametrize("tool", ["shell[1].exec", "=shell.exec"])
def test_convert_reads_peer_globs_as_the_peer_does(tmp_path, run_cli, tool):
    """The peer's globs know only ``*`` and ``?``: ``deny_tool: "shell[1].*"`` denies
    ``shell[1].exec``. Copied as is, abw read ``[1]`` as a character class (and a leading
    ``=`` as "literal"), so the regressed candidate's shell call broke no rule."""
    invariants = CORPUS / "agent-invariants"
    pattern = tool.replace(".exec", ".*")
    run = (invariants / "candidate-regression.jsonl").read_text().replace("shell.exec", tool)
    (tmp_path / "candidate.jsonl").write_text(run)
    contract = _peer(tmp_path, {"id": "deny-shell", "kind": "deny_tool", "tool": pattern})
    for side, raw in (("b", invariants / "baseline.jsonl"), ("c", tmp_path / "candidate.jsonl")):
        assert (
            run_cli("import", "agent-invariants", "--input", raw, "--out", tmp_path / side)[0] == 0
        )
    assert run_cli("spec", "convert", contract, "--out", tmp_path / "spec.yaml")[0] == 0
    report = tmp_path / "report.json"
    gate = ["--baseline", tmp_path / "b", "--candidate", tmp_path / "c"]
    run_cli("gate", *gate, "--spec", tmp_path / "spec.yaml", "--out", report)
    checks = {c["id"]: c for c in json.loads(report.read_text())["checks"]}
    assert checks["operational_quality.rules.deny-shell.0"]["verdict"] == "FAIL"


def test_convert_repeated_rule_id_names_its_second_place(tmp_path, run_cli):
    """Two rules ``tool-budget``: the error named the converted spec's ``rules.N``, not the
    contract's second rule."""
    path = _peer(tmp_path, {"id": "tool-budget", "kind": "deny_tool", "tool": "shell.*"})
    code, _, err = run_cli("spec", "convert", path)
    line = _last_line(path, '"id": "tool-budget"')
    assert (code, err) == (
        2,
        f"abw: error: {path}:{line}: rules.6.id: rule id tool-budget repeats\n",
    )


def test_convert_keeps_a_rule_whose_id_has_spaces(tmp_path, run_cli):
    """A peer rule id ``no shell, ever`` made the whole conversion fail (exit 2)."""
    rule = {"id": "no shell, ever", "kind": "deny_tool", "tool": "shell.*"}
    code, out, err = run_cli("spec", "convert", _peer(tmp_path, rule))
    assert code == 0 and "- id: no-shell-ever.0\n" in out
    assert "rules.0 (no shell, ever): written with the id no-shell-ever" in err


@pytest.mark.parametrize(
    ("key", "value", "why"),
    [
        ("fail_on_new_tools", "no", "must be true or false"),
        ("max_tool_call_increase_percent", "50", "must be a number >= 0"),
    ],
)
def test_convert_checks_compare_options(tmp_path, run_cli, key, value, why):
    """``fail_on_new_tools: "no"`` kept the new-tools rule on (a non-empty string is true);
    a percentage ``"50"`` failed at the converted spec's ``rules.9.tool_call_growth...``,
    shown at the line of the contract's ``rules``."""
    document = json.loads(PEER.read_text())
    document["compare"][key] = value
    path = tmp_path / "contract.json"
    path.write_text(json.dumps(document, indent=1))
    code, _, err = run_cli("spec", "convert", path)
    line = _line(path, f'"{key}"')
    assert (code, err) == (2, f"abw: error: {path}:{line}: compare.{key}: {why}\n")


@pytest.mark.parametrize("rule", ["required_tool", "forbidden_tool"])
def test_soft_tool_clause_names_one_tool_as_the_hard_one_does(tmp_path, run_cli, rule):
    """A hard ``forbidden_tool: "refund[1]"`` forbids that exact name (``forbidden_tools``
    takes names); made soft, it compiled to a ``count`` rule reading it as a glob, which
    matches ``refund1`` and never ``refund[1]``: the strength changed which tool it meant."""
    clause = {"id": "one-tool", "statement": "s", "rule": rule, "params": {"tool": "refund[1]"}}
    code, out, err = _compile(run_cli, _contract(tmp_path, "soft", clause))
    assert (code, err) == (0, "")
    assert "- id: one-tool\n  kind: count\n" in out and "  tool:\n    name: =refund[1]\n" in out


@pytest.mark.parametrize(
    ("section", "verdict"), [("soft", "WARN"), ("preconditions", "INCONCLUSIVE")]
)
def test_a_forbidden_tool_clause_reads_llm_spans_whatever_its_strength(
    tmp_path, run_cli, section, verdict
):
    """The hard ``forbidden_tools`` read spans of every type, a model's ``llm`` spans included;
    a soft or precondition ``forbidden_tool`` compiled to a ``count`` over a plain glob, which
    reads no llm span, and PASSed a run that used the forbidden model."""
    traces = Path(__file__).parent.parent / "examples" / "refund-policy" / "traces"
    example = traces / "good"
    model = json.loads(next(example.glob("*.json")).read_text())
    llm = next(s["name"] for s in model["spans"] if s["type"] == "llm")
    clause = {"id": "no-model", "statement": "s", "rule": "forbidden_tool", "params": {"tool": llm}}
    document = {
        "schema_version": "agent-behavior-contract/v0",
        "id": "c",
        "name": "c",
        **(
            {"preconditions": [clause]}
            if section == "preconditions"
            else {"invariants": {section: [clause]}}
        ),
    }
    contract = tmp_path / "contract.json"
    contract.write_text(json.dumps(document))
    _, _, err = run_cli(
        "gate", "--baseline", traces / "baseline", "--candidate", example, "--contract", contract,
        "--out", tmp_path / "r.json",
    )  # fmt: skip
    report = json.loads((tmp_path / "r.json").read_text())
    check = next(c for c in report["checks"] if "no-model" in c["id"])
    assert check["verdict"] == verdict, err
