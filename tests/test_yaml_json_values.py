"""YAML 1.1 values that are no JSON value (a date, a timestamp, ``!!set``, ``!!binary``,
``!!omap``, ``!!pairs``) are refused by the YAML reader with the file, the line and the field,
in ``abw validate``, ``abw gate`` and ``abw contract compile`` alike: ``validate`` said ok and
the gate died with "internal error: Object of type date is not JSON serializable" when it
hashed the spec (docs/reliability.md, "Every YAML value is a JSON value")."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import REPO, example_gate, one_line

from abw.errors import AbwInputError
from abw.yamlreader import parse_yaml

EXAMPLE = REPO / "examples" / "refund-policy"
TRACES = EXAMPLE / "traces"
SPEC = EXAMPLE / "behavior.yaml"
CONTRACT = EXAMPLE / "contract.json"
ORDER = "order_id: A-1042"
DATE = 'a YAML date is no JSON value; quote it ("2026-01-01")'


def _with_order_id(text: str, value: str) -> tuple[str, int]:
    """``text`` with its one ``order_id: A-1042`` line's value replaced by ``value``, and the
    1-based number of that line."""
    lines = text.splitlines(keepends=True)
    (at,) = [n for n, line in enumerate(lines) if line.strip() == ORDER]
    lines[at] = lines[at].replace("A-1042", value)
    return "".join(lines), at + 1


def _spec(tmp_path, value: str) -> tuple[str, int]:
    """The example spec written with ``output.expected.order_id: value``; its path and line."""
    text, line = _with_order_id(SPEC.read_text(encoding="utf-8"), value)
    spec = tmp_path / "spec.yaml"
    spec.write_text(text, encoding="utf-8")
    return str(spec), line


def _contract(tmp_path, value: str) -> tuple[str, int, str]:
    """The example contract as YAML with its expected ``order_id: value``; its path, line and
    the field of that value."""
    document = json.loads(CONTRACT.read_text(encoding="utf-8"))
    hard = document["invariants"]["hard"]
    (at,) = [n for n, rule in enumerate(hard) if rule["rule"] == "expected_output"]
    assert hard[at]["params"]["values"]["order_id"] == "A-1042"
    dumped = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    text, line = _with_order_id(dumped, value)
    contract = tmp_path / "contract.yaml"
    contract.write_text(text, encoding="utf-8")
    return str(contract), line, f"invariants.hard.{at}.params.values.order_id"


def _gate_contract(contract: str) -> list[str]:
    baseline, candidate = TRACES / "baseline", TRACES / "good"
    return ["gate", "--baseline", baseline, "--candidate", candidate, "--contract", contract]


# ---------------------------------------------------------------- a spec


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2026-01-01", DATE),
        ("2026-02-30", 'a YAML date is no JSON value; quote it ("2026-02-30")'),
        ("2026-01-01T10:00:00Z",
         'a YAML timestamp is no JSON value; quote it ("2026-01-01T10:00:00Z")'),
        ("2001-12-14 21:59:43.10 -5",
         'a YAML timestamp is no JSON value; quote it ("2001-12-14 21:59:43.10 -5")'),
        ('!!timestamp "2026-01-01"', "a YAML date is no JSON value; drop the !!timestamp tag"),
        ("!!set {a, b}", "a YAML set (!!set) is no JSON value; write a list"),
        ("!!binary aGVsbG8=", "YAML binary data (!!binary) is no JSON value; write a string"),
        ("!!omap [{a: 1}]",
         "a YAML ordered map (!!omap) is no JSON value; write a mapping or a list"),
        ("!!pairs [{a: 1}]",
         "a YAML list of pairs (!!pairs) is no JSON value; write a mapping or a list"),
    ],
)  # fmt: skip
def test_validate_and_gate_refuse_a_non_json_value_in_a_spec(run_cli, tmp_path, value, message):
    spec, line = _spec(tmp_path, value)
    expected = f"{spec}:{line}: output.expected.order_id: {message}\n"
    code, out, err = run_cli("validate", spec)
    assert (code, out) == (2, "") and one_line(err) == expected
    code, _, err = run_cli(*example_gate("good")[:-1], spec, "-q")
    assert code == 2 and one_line(err) == f"abw: error: {expected}"


def test_the_repro_spec_names_line_31(run_cli, tmp_path):
    """The reported case: the example spec with line 31 ``order_id: 2026-01-01``."""
    spec, line = _spec(tmp_path, "2026-01-01")
    assert line == 31
    code, _, err = run_cli(*example_gate("regressed")[:-1], spec)
    assert code == 2
    assert one_line(err) == f"abw: error: {spec}:31: output.expected.order_id: {DATE}\n"


# ---------------------------------------------------------------- a contract


def test_validate_gate_and_compile_refuse_a_date_in_a_contract(run_cli, tmp_path):
    contract, line, field = _contract(tmp_path, "2026-01-01")
    expected = f"{contract}:{line}: {field}: {DATE}\n"
    code, out, err = run_cli("validate", contract)
    assert (code, out) == (2, "") and one_line(err) == expected
    code, _, err = run_cli(*_gate_contract(contract), "-q")
    assert code == 2 and one_line(err) == f"abw: error: {expected}"
    out_spec = tmp_path / "compiled.yaml"
    code, _, err = run_cli("contract", "compile", contract, "--out", out_spec)
    assert code == 2 and one_line(err) == f"abw: error: {expected}"
    assert not out_spec.exists()


# ---------------------------------------------------------------- what still works


def test_a_quoted_date_is_a_string_and_the_gate_runs(run_cli, tmp_path):
    spec, _ = _spec(tmp_path, '"2026-01-01"')
    assert run_cli("validate", spec) == (0, f"{spec}: ok\n", "")
    code, _, err = run_cli(*example_gate("good")[:-1], spec, "-q")
    assert code in (0, 1) and "error" not in err  # the output check fails: another order id
    contract, _, _ = _contract(tmp_path, "'2026-01-01'")
    assert run_cli("validate", contract) == (0, f"{contract}: ok\n", "")
    assert run_cli("contract", "compile", contract, "--out", tmp_path / "c.yaml")[0] == 0


def test_the_example_spec_and_contract_are_unchanged(run_cli, tmp_path):
    assert run_cli(*example_gate("good"), "-q")[0] == 0
    assert run_cli(*example_gate("regressed"), "-q")[0] == 1
    contract, _, _ = _contract(tmp_path, "A-1042")
    assert run_cli("validate", contract) == (0, f"{contract}: ok\n", "")
    assert run_cli(*_gate_contract(contract), "-q")[0] == 0


def test_quoted_and_tagged_strings_that_look_like_dates_are_strings():
    text = (
        'a: "2026-01-01"\n'
        "b: '2026-01-01T10:00:00Z'\n"
        "c: !!str 2026-01-01\n"
        '"2026-01-02": key\n'
        'd: ["2026-01-03", 20260101, 2026-01]\n'
    )
    assert parse_yaml(text, "f.yaml") == {
        "a": "2026-01-01",
        "b": "2026-01-01T10:00:00Z",
        "c": "2026-01-01",
        "2026-01-02": "key",
        "d": ["2026-01-03", 20260101, "2026-01"],
    }


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [
        ("a:\n  - 1\n  - 2026-01-01\n", 3, "a.1"),
        ("a:\n  b:\n    2026-01-01\n", 2, "a.b"),  # a member's line is its key's
        ("a:\n  2026-01-01: x\n", 2, "a"),  # a date as a key: its mapping's path
        ("x: 1\n2026-01-01: x\n", 2, None),
        ("a: [b, {c: [2026-01-01]}]\n", 1, "a.1.c.0"),
    ],
)
def test_the_line_and_field_of_a_date_anywhere(text, line, field):
    with pytest.raises(AbwInputError) as caught:
        parse_yaml(text, "f.yaml")
    error = caught.value
    assert (error.file, error.line, error.field, error.message) == ("f.yaml", line, field, DATE)


@pytest.mark.parametrize(
    ("written", "read"),
    [("NO", "false"), ("on", "true"), ("0755", "493"), ("12:30", "750"), ("0x1F", "31"),
     ("1_000", "1000"), ("1:30.5", "90.5")],
)  # fmt: skip
def test_a_yaml_11_value_json_reads_otherwise_is_refused(tmp_path, run_cli, written, read):
    """``output.expected: {country: NO, code: 0755, eta: 12:30}`` was read as false, 493 and
    750 (YAML 1.1), validate said ok and the gate FAILed runs that return exactly the text
    written. Such a plain value is refused, naming its line, its field and both fixes."""
    text = (REPO / "examples" / "refund-policy" / "behavior.yaml").read_text()
    spec = tmp_path / "spec.yaml"
    spec.write_text(text.replace("order_id: A-1042", f"order_id: A-1042\n    code: {written}"))
    line = text.split("order_id: A-1042")[0].count("\n") + 2
    for args in (("validate", spec), (*example_gate("good")[:-1], spec)):
        code, _, err = run_cli(*args)
        assert code == 2, err
        assert f"{spec}:{line}: output.expected.code: YAML 1.1 reads {written} as {read}" in err
        assert f'quote it ("{written}") for text' in err
