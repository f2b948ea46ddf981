"""agent-behavior-contract/v0 -> behavior-spec/v0: the documented mapping, the CLI, errors,
and `abw gate --contract` giving the same report as the compiled spec."""

from __future__ import annotations

import json

import pytest

from abw.contract import compile_contract
from abw.models.contract import Contract
from abw.specio import load_spec
from abw.traceio import write_trace
from tests.rules_kit import span, trace

CONTRACT = {
    "schema_version": "agent-behavior-contract/v0",
    "id": "refund-contract",
    "name": "Refund agent",
    "preconditions": [
        {
            "id": "has-lookup",
            "statement": "The order is looked up.",
            "rule": "required_tool",
            "params": {"tool": "lookup"},
        },
    ],
    "invariants": {
        "hard": [
            {
                "id": "policy",
                "statement": "Policy check is required.",
                "rule": "required_tool",
                "params": {"tool": "policy_check"},
            },
            {
                "id": "order",
                "statement": "Policy before commit.",
                "rule": "precedence",
                "params": {"before": "policy_check", "after": "refund_commit"},
            },
            {
                "id": "len",
                "statement": "Short runs.",
                "rule": "max_path_length",
                "params": {"value": 8},
            },
            {
                "id": "done",
                "statement": "Nothing after finish.",
                "rule": "absence_after",
                "params": {"stop": "finish"},
            },
        ],
        "soft": [
            {
                "id": "few-lookups",
                "statement": "At most two lookups.",
                "rule": "count",
                "params": {"tool": "lookup", "max": 2},
            },
        ],
    },
    "governance": {
        "hard": [
            {
                "id": "no-delete",
                "statement": "Never delete.",
                "rule": "forbidden_tool",
                "params": {"tool": "delete_order"},
            },
            {
                "id": "decision",
                "statement": "The decision stays the baseline's.",
                "rule": "assertion",
                "params": {"selector": "/output/decision", "matcher": {"op": "same"}},
            },
        ],
        "soft": [
            {
                "id": "eur",
                "statement": "Refunds in EUR.",
                "rule": "arguments",
                "params": {
                    "tool": "refund_commit",
                    "mode": "observed_superset",
                    "expected": {"currency": "EUR"},
                },
            },
        ],
    },
    "recovery": [
        {"id": "cache-after-lookups", "violation": "few-lookups", "actions": ["cache_*"]},
    ],
    "satisfaction": {"p": 0.8, "delta": 1.5, "k": 2},
    "thresholds": {"min_runs": 2, "min_wilson_pass_rate": 0.1},
}


def test_mapping_of_every_part():
    spec = compile_contract(Contract.model_validate(CONTRACT))
    assert spec.id == "refund-contract" and spec.name == "Refund agent"
    inv = spec.invariants
    assert inv.required_tools == ["policy_check"]
    assert inv.forbidden_tools == ["delete_order"]
    assert [(o.before, o.after) for o in inv.required_order] == [("policy_check", "refund_commit")]
    assert inv.max_path_length == 8
    rules = {r.id: r for r in spec.rules}
    assert rules["has-lookup"].kind == "count" and rules["has-lookup"].enforcement == "precondition"
    assert (rules["has-lookup"].min, rules["has-lookup"].count_status) == (1, "success")
    assert (
        rules["done"].enforcement == "hard" and rules["done"].statement == "Nothing after finish."
    )
    assert rules["few-lookups"].enforcement == "soft"
    assert rules["eur"].kind == "arguments" and rules["eur"].enforcement == "soft"
    recovery = rules["cache-after-lookups"]
    assert (recovery.kind, recovery.within_steps, recovery.enforcement) == ("recovery", 2, "hard")
    budget = rules["soft-violation-budget"]
    assert (budget.rules, budget.max_violations) == (["few-lookups", "eur"], 1)
    (assertion,) = spec.assertions
    assert (assertion.id, assertion.severity, assertion.matcher.op) == ("decision", "error", "same")
    assert spec.thresholds.min_wilson_pass_rate == 0.8  # p wins
    assert spec.thresholds.min_runs == 2


def test_soft_builtins_become_rules_and_no_delta_means_no_budget():
    contract = {
        **CONTRACT,
        "recovery": [],
        "satisfaction": {},
        "invariants": {
            "soft": [
                {"id": "t", "statement": "s", "rule": "required_tool", "params": {"tool": "x"}},
                {"id": "f", "statement": "s", "rule": "forbidden_tool", "params": {"tool": "y"}},
                {"id": "p", "statement": "s", "rule": "max_path_length", "params": {"value": 3}},
                {
                    "id": "o",
                    "statement": "s",
                    "rule": "precedence",
                    "params": {"before": "a", "after": "b"},
                },
            ]
        },
    }
    spec = compile_contract(Contract.model_validate(contract))
    got = {r.id: (r.kind, r.enforcement) for r in spec.rules}
    assert got["t"] == ("count", "soft") and got["f"] == ("count", "soft")
    assert got["p"] == ("count", "soft") and got["o"] == ("precedence", "soft")
    assert "soft-violation-budget" not in got
    assert spec.invariants.required_tools == [] and spec.thresholds.min_wilson_pass_rate == 0.95


def test_cli_compile_round_trips_through_load_spec(tmp_path, run_cli):
    source = tmp_path / "contract.json"
    source.write_text(json.dumps(CONTRACT))
    out = tmp_path / "behavior.yaml"
    code, _, err = run_cli("contract", "compile", source, "--out", out)
    assert code == 0, err
    text = out.read_text()
    assert text.startswith("# Compiled by `abw contract compile` from contract.json")
    loaded, _ = load_spec(out)
    assert loaded == compile_contract(Contract.model_validate(CONTRACT))
    code, stdout, _ = run_cli("contract", "compile", source)
    assert code == 0 and stdout == text
    code, _, _ = run_cli("validate", out)
    assert code == 0


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"bogus": 1}, "bogus: unknown key"),
        (
            {"recovery": [{"id": "r", "violation": "policy", "actions": ["x"]}]},
            "recovery[0].violation: recovery r names policy: not a soft rule",
        ),
        (
            {"preconditions": [{"id": "x", "statement": "s", "rule": "count", "params": {}}]},
            "preconditions[0].params.tool: Field required",
        ),
        (
            {
                "preconditions": [
                    {"id": "x", "statement": "s", "rule": "count", "params": {"tool": "t"}}
                ]
            },
            "preconditions[0]: a count rule needs min, max or both",
        ),
        (
            {
                "governance": {
                    "hard": [
                        {
                            "id": "x",
                            "statement": "s",
                            "rule": "response",
                            "params": {"trigger": "a", "response": "b", "within": 2},
                        }
                    ]
                }
            },
            "governance.hard[0].params.within: unknown key",
        ),
        (
            {"preconditions": [{"id": "x", "statement": "s", "rule": "required_tool"}]},
            "preconditions[0]: clause x needs tool",
        ),
        ({"schema_version": "behavior-spec/v0"}, "schema_version: expected schema_version"),
        # the missing key is the bind's own: it was named as the clause's after, which is there
        (
            {
                "governance": {
                    "hard": [
                        {
                            "id": "x",
                            "statement": "s",
                            "rule": "precedence",
                            "params": {"before": "a", "after": "b", "bind": {"before": "id"}},
                        }
                    ]
                }
            },
            "governance.hard[0].params.bind.after: Field required",
        ),
        # named at the second clause (the compiled spec's error named no clause and no line)
        (
            {
                "governance": {
                    "hard": [
                        {"id": k, "statement": "s", "rule": rule, "params": {"tool": "lookup"}}
                        for k, rule in (("r", "required_tool"), ("f", "forbidden_tool"))
                    ]
                }
            },
            "governance.hard[1].params.tool: lookup is both required and forbidden",
        ),
        # a promise about p that the SPRT (p0 against p1) cannot keep: it FAILed 71 % of
        # candidates complying at 0.85 with p 0.6, and PASSed 99.5 % at 0.96 with p 0.99
        (
            {
                "satisfaction": {"p": 0.6},
                "thresholds": {"failing_runs": "tolerate", "sprt": {"enabled": True}},
            },
            "thresholds.sprt.enabled: the SPRT tests its p0 against its p1 and promises nothing",
        ),
    ],
)
def test_bad_contracts_are_one_line_errors(tmp_path, run_cli, change, expected):
    source = tmp_path / "contract.json"
    source.write_text(json.dumps({**CONTRACT, **change}))
    code, _, err = run_cli("contract", "compile", source)
    assert code == 2
    assert expected in err and str(source) in err and len(err.strip().splitlines()) == 1


def _expecting(clause_id: str, values: dict) -> dict:
    return {
        "id": clause_id,
        "statement": "s",
        "rule": "expected_output",
        "params": {"values": values},
    }


def test_two_hard_expected_outputs_for_one_field_are_refused(tmp_path, run_cli):
    """Two hard ``expected_output`` clauses that expect one field to hold two values: the
    spec kept the last and the first vanished (a gate that PASSed runs the contract forbids).
    No run can meet both: refused, naming the clauses; fields apart, or one value, merge."""
    governance = dict(CONTRACT["governance"])
    governance["hard"] = [
        *CONTRACT["governance"]["hard"],
        _expecting("deny", {"decision": "refund_denied", "currency": "EUR"}),
        _expecting("approve", {"decision": "refund_approved"}),
    ]
    source = tmp_path / "contract.json"
    source.write_text(json.dumps({**CONTRACT, "governance": governance}))
    code, _, err = run_cli("contract", "compile", source)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "governance.hard[3].params.values.decision" in err
    assert "clause approve" in err and "hard clause deny" in err
    code, _, err = run_cli("validate", source)
    assert code == 2 and "no run can meet both" in err

    governance["hard"][-1] = _expecting("approve", {"decision": "refund_denied", "amount": 1})
    compiled = compile_contract(Contract.model_validate({**CONTRACT, "governance": governance}))
    assert compiled.output.expected == {
        "decision": "refund_denied",
        "currency": "EUR",
        "amount": 1,
    }


def _write(folder, traces):
    folder.mkdir()
    for t in traces:
        write_trace(t, folder / f"{t.run.trace_id}.json")
    return folder


def test_gate_with_contract_equals_gate_with_compiled_spec(tmp_path, run_cli):
    good = [
        "lookup",
        "policy_check",
        span("refund_commit", arguments={"currency": "EUR"}),
        "finish",
    ]
    base = _write(
        tmp_path / "base",
        [trace(*good, output={"decision": "ok"}, trace_id=f"b{i}") for i in range(3)],
    )
    cand = _write(
        tmp_path / "cand",
        [
            trace(*good, output={"decision": "ok"}, trace_id="c0"),
            trace(
                "lookup",
                span("refund_commit", arguments={"currency": "EUR"}),
                "policy_check",
                "finish",
                output={"decision": "ok"},
                trace_id="c1",
            ),
        ],
    )
    source = tmp_path / "contract.json"
    source.write_text(json.dumps(CONTRACT))
    spec_file = tmp_path / "behavior.yaml"
    assert run_cli("contract", "compile", source, "--out", spec_file)[0] == 0
    via_contract, via_spec = tmp_path / "a.json", tmp_path / "b.json"
    code_a, _, _ = run_cli(
        "gate", "--baseline", base, "--candidate", cand, "--contract", source, "--out", via_contract
    )
    code_b, _, _ = run_cli(
        "gate", "--baseline", base, "--candidate", cand, "--spec", spec_file, "--out", via_spec
    )
    # p = 0.8 compiles to failing_runs: tolerate: the violating run is evidence (WARN), and 1
    # of 2 runs passing cannot yet show the rate either way.
    assert code_a == code_b == 3
    a, b = json.loads(via_contract.read_text()), json.loads(via_spec.read_text())
    assert a["verdict"] == b["verdict"] == "INCONCLUSIVE"
    assert [(c["id"], c["verdict"]) for c in a["checks"]] == [
        (c["id"], c["verdict"]) for c in b["checks"]
    ]
    assert a["inputs"]["spec_file"] == str(source)
    code, _, err = run_cli("gate", "--baseline", base, "--candidate", cand)
    assert code == 2 and "exactly one of --spec and --contract" in err


def test_a_hard_precedence_clause_with_a_matcher_compiles_to_the_rule():
    """``required_order`` takes names only: a hard clause whose ``after`` is a matcher object
    ({name, type}, as the precedence rule takes) was refused as "Input should be a valid
    string" at a field the clause never wrote; it compiles to the hard rule, as it does soft."""
    matcher = {"name": "refund_commit", "type": ["tool"]}
    document = {
        "schema_version": "agent-behavior-contract/v0",
        "id": "m",
        "satisfaction": {"p": 1},
        "invariants": {
            "hard": [
                {
                    "id": "a",
                    "statement": "s",
                    "rule": "precedence",
                    "params": {"before": "policy_check", "after": matcher},
                }
            ]
        },
    }
    spec = compile_contract(Contract.model_validate(document))
    assert spec.invariants.required_order == []
    (rule,) = spec.rules
    assert (rule.kind, rule.enforcement, rule.subject) == ("precedence", "hard", "successes")
    assert rule.model_dump(mode="json", exclude_none=True)["after"]["type"] == ["tool"]
