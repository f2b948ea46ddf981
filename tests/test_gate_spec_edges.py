"""Edge cases of the gate, specs and verdicts on real files, each as a user met it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import REPO

EXAMPLE = REPO / "examples" / "refund-policy"
TRACES = EXAMPLE / "traces"


def _copy_runs(folder: Path, source: str = "good") -> list[Path]:
    """The example's ``source`` runs, copied into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    return [Path(shutil.copy(p, folder)) for p in sorted((TRACES / source).glob("*.json"))]


def _edit_trace(path: Path, edit) -> None:
    """Rewrite one trace file with ``edit`` applied to its parsed JSON."""
    document = json.loads(path.read_text(encoding="utf-8"))
    edit(document)
    path.write_text(json.dumps(document), encoding="utf-8")


def _gate(run_cli, cand: Path, spec: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    return run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", cand, "--spec", spec,
        "--out", out, "-q", *extra,
    )  # fmt: skip


def test_span_time_before_datetime_min_in_utc_is_ignored_not_an_internal_error(tmp_path, run_cli):
    """0001-01-01T00:00:00+01:00 is a valid ISO time whose UTC instant Python cannot hold:
    unreadable, so ignored (docs/semantics.md), never "internal error"."""
    cand = tmp_path / "cand"
    first = _copy_runs(cand)[0]

    def early(document):
        document["spans"][0]["started_at"] = "0001-01-01T00:00:00+01:00"

    _edit_trace(first, early)
    code, _, err = _gate(run_cli, cand, EXAMPLE / "behavior.yaml", tmp_path / "r.json")
    assert "internal error" not in err
    assert code == 0, err


def _spec(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "behavior.yaml"
    path.write_text("schema_version: behavior-spec/v0\nid: qa\n" + body, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("second_rule", "error"),
    [
        (  # a copy-pasted rule (same id) is refused at the copy, not at the spec's line 1
            "{kind: count, id: one-commit, tool: classify, max: 1}",
            "rules.1: rule ids repeat: one-commit",
        ),
        (
            "{kind: recovery, violation: count-9, actions: [policy_check], within_steps: 2}",
            "rules.1.violation: recovery rule names unknown rule ids: count-9",
        ),
    ],
)
def test_a_spec_wide_rule_error_names_its_rule_and_line(tmp_path, run_cli, second_rule, error):
    """Repeated rule ids and unknown rule references were refused at the spec's line 1 with
    no field; they name the rule they are about, at its line."""
    spec = _spec(
        tmp_path,
        "rules:\n"
        "  - {kind: count, id: one-commit, tool: refund_commit, max: 1}\n"
        f"  - {second_rule}\n",
    )
    code, _, err = _gate(run_cli, TRACES / "good", spec, tmp_path / "r.json")
    assert code == 2
    assert err.strip() == f"abw: error: {spec}:5: {error}", err


def test_repeated_clause_id_in_a_contract_names_the_clause_and_its_line(tmp_path, run_cli):
    contract = json.loads((EXAMPLE / "contract.json").read_text(encoding="utf-8"))
    hard = contract["governance"]["hard"]
    hard[1]["id"] = hard[0]["id"]
    path = tmp_path / "contract.json"
    path.write_text(json.dumps(contract, indent=1), encoding="utf-8")
    code, _, err = run_cli("contract", "compile", path, "--out", tmp_path / "s.yaml")
    assert code == 2
    found = re.fullmatch(rf"abw: error: {re.escape(str(path))}:(\d+): (.*)\n", err)
    assert found, err
    assert found[2] == f"governance.hard[1]: rule ids repeat: {hard[0]['id']}"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert hard[0]["id"] in "\n".join(lines[int(found[1]) - 1 : int(found[1]) + 2])


def _two_scenarios(tmp_path: Path) -> tuple[Path, Path]:
    """The example's baseline and good runs, every other run moved to scenario refund-b."""
    base, cand = tmp_path / "base", tmp_path / "cand"

    def rename(document):
        document["run"]["scenario_id"] = "refund-b"

    for folder, source in ((base, "baseline"), (cand, "good")):
        for path in _copy_runs(folder, source)[::2]:
            _edit_trace(path, rename)
    return base, cand


def _multiplicity(run_cli, tmp_path: Path, thresholds: str) -> tuple[str, list[dict]]:
    base, cand = _two_scenarios(tmp_path)
    spec = _spec(tmp_path, f"thresholds: {{{thresholds}}}\n")
    out = tmp_path / "r.json"
    code, _, err = run_cli(
        "gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--out", out, "-q"
    )
    assert code in (0, 3), err
    report = json.loads(out.read_text(encoding="utf-8"))
    return report["multiplicity"]["message"], report["statistics"]


def test_multiplicity_sentence_names_the_fail_level_the_statistics_use(tmp_path, run_cli):
    """Two scenarios under tolerate: each FAIL side is tested at alpha/2/2 = 0.0125 on the first
    sequence (statistics[].fail_level); the sentence used to say alpha/2 = 0.025 was used."""
    message, statistics = _multiplicity(run_cli, tmp_path, "failing_runs: tolerate")
    levels = {s["fail_level"] for s in statistics}
    assert levels == {0.0125}
    assert "0.0125" in message and "alpha/2 = 0.025" in message, message


def test_multiplicity_sentence_under_forbid_claims_no_fail_side(tmp_path, run_cli):
    message, statistics = _multiplicity(run_cli, tmp_path, "failing_runs: forbid")
    assert {s["fail_level"] for s in statistics} == {None}
    assert "is tested at" not in message and "FAIL side is not tested" in message, message


HUGE = 10**400  # an integer JSON number (kept exact by abw's reader) beyond a float's range


def _huge_amount(folder: Path, source: str, count: int) -> None:
    """``count`` of the example's ``source`` runs in ``folder`` with refund_amount HUGE."""

    def huge(document):
        document["run"]["canonical_output"]["refund_amount"] = HUGE

    for path in _copy_runs(folder, source)[:count]:
        _edit_trace(path, huge)


@pytest.mark.parametrize("baseline", ["consensus", "median"])
@pytest.mark.parametrize("budget", ["abs: 10", "rel: 0.1", "abs: 10, direction: decrease"])
def test_number_delta_on_an_integer_beyond_a_float_decides(tmp_path, run_cli, baseline, budget):
    """A huge integer output used to stop the gate with "internal error" (int too large to
    convert to float); the change is computed exactly: drifted (FAIL), or compatible when
    it is against the budgeted direction."""
    cand = tmp_path / "cand"
    _huge_amount(cand, "good", 1)
    spec = _spec(
        tmp_path,
        "assertions:\n  - {id: amount, statement: kept, selector: /output/refund_amount, "
        f"matcher: {{op: number_delta, {budget}}}, baseline: {baseline}}}\n",
    )
    code, _, err = _gate(run_cli, cand, spec, tmp_path / "r.json")
    assert "internal error" not in err
    assert code == (0 if "decrease" in budget else 1), err


def test_baseline_median_beyond_a_float_is_unknown(tmp_path, run_cli):
    """The median of two middle integers whose mean is beyond a float: unknown, not a crash."""
    base, cand = tmp_path / "base", tmp_path / "cand"
    for path in _copy_runs(base, "baseline")[:2]:
        _edit_trace(path, lambda d: d["run"]["canonical_output"].update(refund_amount=HUGE + 1))
    for path in sorted(base.glob("*.json"))[2:]:
        path.unlink()
    _copy_runs(cand)
    spec = _spec(
        tmp_path,
        "assertions:\n  - {id: amount, statement: kept, selector: /output/refund_amount, "
        "matcher: {op: number_delta, abs: 10}, baseline: median}\n",
    )
    out = tmp_path / "r.json"
    code, _, err = run_cli(
        "gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--out", out, "-q"
    )
    assert code == 3, err
    check = next(c for c in json.loads(out.read_text())["checks"] if "amount" in c["id"])
    assert check["verdict"] == "INCONCLUSIVE"
    assert "beyond a float's range" in check["violations"][0]["message"]


def test_allowlist_over_no_span_type_is_refused_not_passed(tmp_path, run_cli):
    """``types: []`` governed no span, so the allowlist PASSed every run whatever it called
    (as a count with min 0 and no max, it can never be broken): refused when loaded."""
    spec = _spec(tmp_path, "rules:\n  - {kind: tool_allowlist, tools: [classify], types: []}\n")
    code, _, err = _gate(run_cli, TRACES / "good", spec, tmp_path / "r.json")
    assert code == 2, err
    assert f"{spec}:4: rules.0.types:" in err and "can never be broken" in err


def test_an_empty_scenario_glob_is_refused_where_it_is_written(tmp_path, run_cli):
    """``scenarios: [""]`` matches no scenario (ids are never empty): it was accepted, and the
    rule then read "scenarios  match no run's scenario"."""
    spec = _spec(
        tmp_path, "rules:\n  - kind: count\n    tool: classify\n    max: 3\n    scenarios: ['']\n"
    )
    code, _, err = _gate(run_cli, TRACES / "good", spec, tmp_path / "r.json")
    assert code == 2, err
    assert f"{spec}:7: rules.0.scenarios.0: String should have at least 1 character" in err


@pytest.mark.parametrize(
    ("bounds", "sentence"),
    [
        ("max: 0", "classify is never called"),
        ("{min: 1, max: 1}", "classify is called exactly once"),
        ("min: 2", "classify is called at least 2 times"),
        ("max: 3", "classify is called at most 3 times"),
        ("{min: 1, max: 3}", "classify is called between 1 and 3 times"),
    ],
)
def test_a_count_says_its_bounds_in_words(tmp_path, run_cli, bounds, sentence):
    """``max: 0`` read "classify is called between 0 and 0 times"."""
    bounds = bounds.strip("{}").replace(", ", "\n    ")
    spec = _spec(tmp_path, f"rules:\n  - kind: count\n    tool: classify\n    {bounds}\n")
    out = tmp_path / "r.json"
    _gate(run_cli, TRACES / "good", spec, out)
    (check,) = [c for c in json.loads(out.read_text())["checks"] if ".rules." in c["id"]]
    assert sentence in check["message"], check["message"]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("yes", 'YAML 1.1 reads yes as true; quote it ("yes") for text, or write true'),
        ("1.10", "Input should be a valid string "
         "(YAML reads this unquoted value as a number: put it in quotes for text)"),
    ],
)  # fmt: skip
def test_a_plain_yaml_value_that_is_no_text_says_to_quote_it(tmp_path, run_cli, value, said):
    """A tool named ``yes`` or ``1.10`` is read by YAML as a boolean or a number: the error
    only said "Input should be a valid string"."""
    spec = _spec(tmp_path, f"invariants:\n  required_tools: [classify, {value}]\n")
    code, _, err = _gate(run_cli, TRACES / "good", spec, tmp_path / "r.json")
    assert code == 2, err
    assert err.strip().endswith(f"{spec}:4: invariants.required_tools.1: {said}")


@pytest.mark.parametrize("field", ["forbidden_tools", "required_tools"])
def test_an_empty_tool_name_is_refused_where_it_is_written(tmp_path, run_cli, field):
    """``forbidden_tools: [""]`` (an unset template variable) forbade nothing and PASSed; an
    empty name in a rule was already refused. No tool is named by the empty string."""
    spec = _spec(tmp_path, f"invariants:\n  {field}: ['']\n")
    code, _, err = _gate(run_cli, TRACES / "good", spec, tmp_path / "r.json")
    assert code == 2, err
    assert f"{spec}:4: invariants.{field}.0: String should have at least 1 character" in err


def test_an_argument_both_expected_and_ignored_is_refused(tmp_path, run_cli):
    """``ignore_fields`` are dropped before the comparison, so an expected field that is also
    ignored is never compared: ``expected: {currency: EUR}, ignore_fields: [currency]`` PASSed
    runs that paid in USD. Refused where the ignored field is written."""
    spec = _spec(
        tmp_path,
        "rules:\n  - kind: arguments\n    tool: refund_commit\n"
        "    expected: {currency: EUR}\n    ignore_fields: [amount, currency]\n",
    )
    code, _, err = _gate(run_cli, TRACES / "good", spec, tmp_path / "r.json")
    assert code == 2, err
    assert f"{spec}:7: rules.0.ignore_fields:" in err and "names currency" in err
