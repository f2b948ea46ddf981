"""Spec fields that could silently check nothing, and the accuracy of generated sentences."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO

EXAMPLE = REPO / "examples" / "refund-policy"
TRACES = EXAMPLE / "traces"


def _spec(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "behavior.yaml"
    path.write_text("schema_version: behavior-spec/v0\nid: qa\n" + body, encoding="utf-8")
    return path


def _gate(
    run_cli, spec: Path, out: Path, base: Path = TRACES / "baseline", cand: Path = TRACES / "good"
):
    return run_cli(
        "gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--out", out, "-q"
    )  # fmt: skip


@pytest.mark.parametrize(
    ("field", "name", "bound"),
    [
        ("forbidden_tools", "refund_*", "max: 0"),
        ("forbidden_tools", "mcp__prod_db__*", "max: 0"),
        ("required_tools", "class?fy", "min: 1, count_status: success"),
        ("required_tools", "Bash?", "min: 1, count_status: success"),
    ],
)
def test_a_glob_in_an_exact_name_field_is_refused(tmp_path, run_cli, field, name, bound):
    """``forbidden_tools: [refund_*]`` forbade only a tool named ``refund_*`` and PASSed runs
    calling refund_commit: a glob there is refused at its line, saying what to write."""
    spec = _spec(tmp_path, f"invariants:\n  {field}:\n    - {json.dumps(name)}\n")
    code, _, err = _gate(run_cli, spec, tmp_path / "r.json")
    assert code == 2, err
    assert f"{spec}:5: invariants.{field}.0: " in err
    rule = f"{{kind: count, tool: {json.dumps(name)}, {bound}}}"
    assert f"write a rule {rule}; for a tool named so" in err
    assert not (tmp_path / "r.json").exists()


def test_a_glob_in_a_contract_tool_clause_is_refused(tmp_path, run_cli):
    """A soft ``forbidden_tool`` clause on ``refund_*`` compiled to a count of the exact name
    ``refund_*``: it forbade nothing."""
    contract = json.loads((EXAMPLE / "contract.json").read_text(encoding="utf-8"))
    clause = {"id": "no-refund", "statement": "x", "rule": "forbidden_tool"}
    contract["invariants"]["soft"].append({**clause, "params": {"tool": "refund_*"}})
    path = tmp_path / "contract.json"
    path.write_text(json.dumps(contract, indent=2), encoding="utf-8")
    code, _, err = run_cli("contract", "compile", path, "--out", tmp_path / "spec.yaml")
    assert code == 2, err
    index = len(contract["invariants"]["soft"]) - 1
    assert f"invariants.soft[{index}].params.tool: 'refund_*' holds a glob wildcard" in err
    assert 'a clause {rule: count, params: {tool: "refund_*", max: 0}}' in err


def test_spec_init_requires_a_tool_named_with_a_glob_character_through_a_rule(tmp_path, run_cli):
    """A baseline tool named ``policy*check`` is written as an exact count rule, so the
    generated spec gates (required_tools refuses the name)."""
    base = tmp_path / "base"
    base.mkdir()
    for path in sorted((TRACES / "baseline").glob("*.json"))[:3]:
        text = path.read_text(encoding="utf-8").replace('"policy_check"', '"policy*check"')
        (base / path.name).write_text(text, encoding="utf-8")
    spec = tmp_path / "spec.yaml"
    code, _, err = run_cli("spec", "init", "--baseline", base, "--out", spec, "--id", "x")
    assert code == 0, err
    text = spec.read_text(encoding="utf-8")
    assert "required_tools: [classify, lookup_order, refund_commit]" in text
    assert '{kind: count, tool: "=policy*check", min: 1, count_status: success}' in text
    code, _, err = _gate(run_cli, spec, tmp_path / "r.json", base, base)
    assert code != 2, err


def _two_scenarios(tmp_path: Path) -> tuple[Path, Path]:
    """The example's baseline and regressed runs, every second one in scenario ``other``."""
    folders = []
    for name, source in (("b", "baseline"), ("c", "regressed")):
        folder = tmp_path / name
        folder.mkdir()
        for i, path in enumerate(sorted((TRACES / source).glob("*.json"))):
            document = json.loads(path.read_text(encoding="utf-8"))
            if i % 2:
                document["run"]["scenario_id"] = "other"
            (folder / path.name).write_text(json.dumps(document), encoding="utf-8")
        folders.append(folder)
    return folders[0], folders[1]


_FIXED = "thresholds:\n  failing_runs: tolerate\n  sequential: fixed\n"


def test_wilson_bounds_name_the_z_each_bound_used(tmp_path, run_cli):
    """With two scenarios the upper bound uses the Bonferroni-corrected z, but the message
    labelled both bounds "(z=1.96)"."""
    base, cand = _two_scenarios(tmp_path)
    out = tmp_path / "r.json"
    _gate(run_cli, _spec(tmp_path, _FIXED), out, base, cand)
    checks = [c for c in json.loads(out.read_text())["checks"] if c["rule"] == "wilson"]
    assert len(checks) == 2
    for check in checks:
        assert "(lower z=1.96, upper z=2.241: the FAIL side split" in check["message"]
        assert check["limits"]["z_upper"] == pytest.approx(2.2414, abs=1e-4)


def test_the_sprt_says_it_decides_over_sequential_fixed(tmp_path, run_cli):
    """``sprt.enabled`` with ``sequential: fixed``: the SPRT took over without a word."""
    spec = _spec(tmp_path, _FIXED + "  sprt:\n    enabled: true\n")
    out = tmp_path / "r.json"
    _gate(run_cli, spec, out)
    (check,) = [c for c in json.loads(out.read_text())["checks"] if c["rule"] == "sprt"]
    assert (
        "sprt.enabled: the SPRT decides, not the Wilson bounds of sequential: fixed"
        in (check["message"])
    )


@pytest.mark.parametrize(
    ("bounds", "sentence"),
    [
        ("max: 0", "classify is never called"),
        ("max: 0\n    count_status: success", "classify never succeeds"),
        ("min: 1\n    max: 1", "classify is called exactly once"),
        ("min: 1", "classify is called at least once"),
        ("max: 1", "classify is called at most once"),
        ("min: 2\n    count_status: success", "classify succeeds at least 2 times"),
        ("min: 1\n    max: 3", "classify is called between 1 and 3 times"),
    ],
)
def test_a_count_sentence_reads_right_at_edge_values(tmp_path, run_cli, bounds, sentence):
    """``max: 0`` read "classify is called never"; ``min: 1`` "at least 1 time"."""
    spec = _spec(tmp_path, f"rules:\n  - kind: count\n    tool: classify\n    {bounds}\n")
    out = tmp_path / "r.json"
    _gate(run_cli, spec, out)
    (check,) = [c for c in json.loads(out.read_text())["checks"] if ".rules." in c["id"]]
    assert sentence in check["message"], check["message"]


def test_exact_names_without_glob_characters_still_gate(tmp_path, run_cli):
    """Names like ``mcp__prod_db__query``, ``a.b:c-d`` or ``tool[1]`` (``[`` is literal in
    an exact name, as the peers read it) stay accepted."""
    body = "invariants:\n  forbidden_tools: [mcp__prod_db__query, 'a.b:c-d', 'tool[1]']\n"
    code, _, err = _gate(run_cli, _spec(tmp_path, body), tmp_path / "r.json")
    assert code != 2, err


@pytest.mark.parametrize(
    ("rule", "sentence"),
    [
        ('{kind: retry_limit, tool: "*", max_attempts: 1}', "at most 1 attempt per call_signature"),
        ('{kind: retry_limit, tool: "*", max_retries: 0}', "no retries of a failed call per"),
        (
            "{kind: precedence, before: classify, after: lookup_order, within: 1}",
            "earlier successful classify within 1 step (subject",
        ),
        (
            "{kind: response, trigger: classify, response: lookup_order, within_steps: 1}",
            "successful lookup_order within 1 step ",
        ),
    ],
)
def test_rule_sentences_read_right_at_one_and_zero(tmp_path, run_cli, rule, sentence):
    """``max_attempts: 1`` read "at most 1 attempts", ``max_retries: 0`` "at most 0 retries",
    ``within: 1`` "within 1 steps"."""
    out = tmp_path / "r.json"
    _gate(run_cli, _spec(tmp_path, f"rules:\n  - {rule}\n"), out)
    (check,) = [c for c in json.loads(out.read_text())["checks"] if ".rules." in c["id"]]
    assert sentence in check["message"], check["message"]


def test_a_budget_sentence_reads_right_at_one(tmp_path, run_cli):
    """``max_violations: 1`` read "at most 1 violations"."""
    body = (
        'rules:\n  - {kind: retry_limit, id: r, tool: "*", max_retries: 0}\n'
        "  - {kind: soft_budget, rules: [r], max_violations: 1}\n"
    )
    out = tmp_path / "r.json"
    _gate(run_cli, _spec(tmp_path, body), out)
    messages = [c["message"] for c in json.loads(out.read_text())["checks"]]
    assert any("at most 1 violation of r per run" in m for m in messages), messages
