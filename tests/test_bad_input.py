"""Bad input read by the one reader (abw.reader): duplicate keys, exact integers, non-finite
numbers, span limits, one set of loader rules for every entry point, JSON Pointer indexes,
fingerprints of equal values, spec init's quoting, broken importer plugins.

Each case ends in a verdict that is right or in one clear line with exit code 2, never an
"internal error". Inputs are the refund-policy example's real traces and spec, edited.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from abw.errors import AbwInputError

EXAMPLE = REPO / "examples" / "refund-policy"
TRACES = EXAMPLE / "traces"
SPEC = EXAMPLE / "behavior.yaml"
ABW = str(Path(sys.executable).with_name("abw"))


def parse_json(*args, **kwargs):
    from abw.reader import parse_json

    return parse_json(*args, **kwargs)


def parse_yaml(*args, **kwargs):
    from abw.yamlreader import parse_yaml

    return parse_yaml(*args, **kwargs)


def _copy_runs(folder: Path, source: str = "good", count: int = 20) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for path in sorted((TRACES / source).glob("*.json"))[:count]:
        paths.append(folder / path.name)
        paths[-1].write_bytes(path.read_bytes())
    return paths


def _one_error(err: str) -> str:
    assert err.count("\n") == 1, err
    assert "internal error" not in err and "Traceback" not in err, err
    return err


def _refused_everywhere(run_cli, cand: Path, path: Path) -> list[str]:
    """The one-line errors of the gate (over the folder ``cand``), ``abw validate`` and
    ``abw fingerprint`` (of the trace ``path``), each asserted to exit with code 2."""
    errors = []
    for args in (
        ("gate", "--baseline", TRACES / "baseline", "--candidate", cand, "--spec", SPEC),
        ("validate", path),
        ("fingerprint", path),
    ):
        code, _, err = run_cli(*args)
        assert code == 2, (args, err)
        errors.append(_one_error(err))
    return errors


# ---------------------------------------------------------------- 3. duplicate keys


def test_spec_with_two_invariants_blocks_is_refused_naming_both_lines(tmp_path, run_cli):
    """The second block used to replace the first: its forbidden refund_commit was dropped and
    a regressed run PASSed."""
    spec = tmp_path / "behavior.yaml"
    spec.write_text(
        SPEC.read_text(encoding="utf-8")
        + "\ninvariants:\n  forbidden_tools: [refund_commit]\n  max_path_length: 9\n",
        encoding="utf-8",
    )
    first = next(
        n for n, line in enumerate(spec.read_text().splitlines(), 1) if line == "invariants:"
    )
    last = len(spec.read_text().splitlines()) - 2
    code, _, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / "good", "--spec", spec
    )
    assert code == 2
    assert f"duplicate key 'invariants' (lines {first} and {last})" in _one_error(err)
    assert f"behavior.yaml:{last}" in err


def test_trace_with_a_duplicate_key_is_refused_in_gate_validate_and_fingerprint(tmp_path, run_cli):
    cand = tmp_path / "cand"
    path = _copy_runs(cand, count=3)[0]
    lines = path.read_text(encoding="utf-8").splitlines()
    run_line = next(i for i, line in enumerate(lines) if line.startswith('"run":'))
    lines.insert(run_line + 1, '"run": {"trace_id": "other", "final_status": "success"},')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = f'duplicate key "run" (lines {run_line + 1} and {run_line + 2})'
    for err in _refused_everywhere(run_cli, cand, path):
        assert expected in err


def test_duplicate_key_in_nested_json_names_the_field_and_both_lines():
    text = '{\n "a": {\n  "b": 1,\n  "c": 2,\n  "b": 3\n }\n}\n'
    with pytest.raises(AbwInputError) as caught:
        parse_json(text, "x.json")
    assert caught.value.one_line() == 'x.json:5: a.b: duplicate key "b" (lines 3 and 5)'
    # equal keys written differently are one key after decoding
    with pytest.raises(AbwInputError, match="duplicate key"):
        parse_json('{"k": 1, "\\u006b": 2}', "x.json")
    assert parse_json('{"a": {"k": 1}, "b": {"k": 2}}', "x.json") == {
        "a": {"k": 1},
        "b": {"k": 2},
    }


def test_duplicate_yaml_keys_anywhere_are_refused():
    with pytest.raises(AbwInputError) as caught:
        parse_yaml("a:\n  x: 1\n  y: 2\n  x: 3\n", "s.yaml")
    assert "duplicate key 'x' (lines 2 and 4)" in caught.value.one_line()
    assert caught.value.line == 4
    assert parse_yaml("a: {x: 1}\nb: {x: 1}\n", "s.yaml") == {"a": {"x": 1}, "b": {"x": 1}}


def _edited_report(tmp_path: Path, run_cli, old: str, new: str) -> str:
    """``abw report``'s stderr on the example's gate report with ``old`` replaced by ``new``
    once (exit code 2 asserted)."""
    out = tmp_path / "gate-report.json"
    run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / "good", "--spec", SPEC,
        "--out", out,
    )  # fmt: skip
    text = out.read_text(encoding="utf-8")
    out.write_text(text.replace(old, new, 1))
    code, _, err = run_cli("report", "--input", out, "--out", tmp_path / "r.md")
    assert code == 2
    return _one_error(err)


def test_duplicate_key_in_a_report_is_refused_by_abw_report(tmp_path, run_cli):
    err = _edited_report(tmp_path, run_cli, '"verdict":', '"verdict": "FAIL", "verdict":')
    assert 'duplicate key "verdict"' in err


# ---------------------------------------------------------------- lone surrogates


def test_trace_with_a_lone_surrogate_is_one_line_in_gate_validate_and_fingerprint(
    tmp_path, run_cli
):
    """A span name written as ``"classify\ud800"`` (legal JSON escapes, no Unicode text) made
    the gate's report unwritable: "internal error" after the verdict was reached."""
    cand = tmp_path / "cand"
    path = _copy_runs(cand, count=3)[0]
    text = path.read_text(encoding="utf-8")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if '"name": "classify"' in t)
    path.write_text(text.replace('"name": "classify"', '"name": "classify\\ud800"', 1))
    for err in _refused_everywhere(run_cli, cand, path):
        assert f"{path.name}:{line}:" in err and "lone surrogate" in err


def test_a_report_holding_a_lone_surrogate_is_one_line(tmp_path, run_cli):
    err = _edited_report(tmp_path, run_cli, '"verdict": "PASS"', '"verdict": "PASS\\udc00"')
    assert "lone surrogate" in err


def _claude_with(tmp_path: Path, marker: str, replace: str) -> Path:
    """The example's first Claude Code transcript with ``marker`` replaced in its first record
    that holds it (JSON escapes written as they are)."""
    lines = _claude_export().read_text(encoding="utf-8").splitlines()
    index = next(i for i, line in enumerate(lines) if marker in line)
    lines[index] = lines[index].replace(marker, replace, 1)
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_raw_export_keeps_a_tool_output_cut_inside_a_surrogate_pair(tmp_path, run_cli):
    """Agents cut long tool outputs by UTF-16 units, so a raw export may hold half an emoji:
    it is only hashed (docs/hashing.md), and the import goes on."""
    session = _claude_with(tmp_path, '"content":"', '"content":"\\ud83d cut ')
    code, _, err = run_cli("import", "claude", "--input", session, "--out", tmp_path / "t.json")
    assert code == 0, err
    code, _, err = run_cli("validate", tmp_path / "t.json")
    assert code == 0, err


def test_raw_export_with_a_lone_surrogate_in_a_tool_name_is_one_line(tmp_path, run_cli):
    """A name reaches the trace as text: no trace file can hold it, so the import names the raw
    file, the record's line and the field instead of failing to write."""
    session = _claude_with(tmp_path, '"name":"', '"name":"x\\udc00')
    out = tmp_path / "t.json"
    code, _, err = run_cli("import", "claude", "--input", session, "--out", out)
    assert code == 2 and "lone surrogate" in _one_error(err) and "session.jsonl:" in err
    assert not out.exists()


# ---------------------------------------------------------------- 4. exact integers


BIG = 1180591620717411303425  # 2**70 + 1: a double cannot hold it


def _big_amount_workspace(tmp_path: Path, expected: int) -> tuple[Path, Path]:
    cand = tmp_path / "cand"
    for path in _copy_runs(cand):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace('"refund_amount": 1200', f'"refund_amount": {BIG}'))
    spec = tmp_path / "behavior.yaml"
    spec.write_text(
        SPEC.read_text(encoding="utf-8").replace(
            "refund_amount: 1200", f"refund_amount: {expected}"
        )
    )
    return cand, spec


def test_integers_beyond_64_bits_stay_exact(tmp_path, run_cli):
    """orjson read 2**70 + 1 as a float, equal to an expected 2**70: that passed."""
    cand, spec = _big_amount_workspace(tmp_path, BIG - 1)
    args = ("gate", "--baseline", TRACES / "baseline", "--candidate", cand, "--spec", spec)
    code, out, _ = run_cli(*args, "--out", tmp_path / "r.json")
    assert code == 1 and "output_eval.expected: 20 of 20" in out, out
    assert str(BIG) in (tmp_path / "r.json").read_text()  # the report shows the exact value
    cand, spec = _big_amount_workspace(tmp_path / "exact", BIG)
    code, out, _ = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", cand, "--spec", spec
    )
    assert code == 0, out


def test_reader_keeps_integers_exact_and_refuses_non_finite_numbers():
    assert parse_json(f'{{"n": {BIG}, "m": -{BIG}}}', "x.json") == {"n": BIG, "m": -BIG}
    assert type(parse_json(f"[{BIG}]", "x.json")[0]) is int
    for text, needle in (
        ('{"x": NaN}', "NaN is not a JSON number"),
        ('{"x": -Infinity}', "-Infinity is not a JSON number"),
        ('{"x": 1e400}', "beyond a double's range"),
        ('{"x": ' + "9" * 5000 + "}", "5000 digits is too long"),
    ):
        with pytest.raises(AbwInputError) as caught:
            parse_json(text, "x.json")
        assert needle in caught.value.one_line() and caught.value.line == 1


# ---------------------------------------------------------------- unclear errors: NaN, .inf


def test_report_holding_nan_is_one_line(tmp_path, run_cli):
    out = tmp_path / "gate-report.json"
    run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / "good", "--spec", SPEC,
        "--out", out,
    )  # fmt: skip
    report = json.loads(out.read_text())
    report["statistics"] = report.get("statistics") or {}
    out.write_text(json.dumps(report).replace('"verdict": "PASS"', '"verdict": NaN', 1))
    code, _, err = run_cli("report", "--input", out, "--out", tmp_path / "r.html")
    assert code == 2 and "NaN is not a JSON number" in _one_error(err)


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", ".NaN"])
def test_spec_with_non_finite_wilson_z_is_one_line(tmp_path, run_cli, value):
    spec = tmp_path / "behavior.yaml"
    spec.write_text(SPEC.read_text().replace("wilson_z: 1.96", f"wilson_z: {value}"))
    line = next(n for n, t in enumerate(spec.read_text().splitlines(), 1) if "wilson_z" in t)
    code, _, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / "good", "--spec", spec
    )
    assert code == 2 and f"behavior.yaml:{line}" in _one_error(err)
    assert "non-finite number" in err


@pytest.mark.parametrize("field", ["alpha", "beta"])
def test_sprt_error_rate_of_1e_320_is_one_line(tmp_path, run_cli, field):
    spec = tmp_path / "behavior.yaml"
    text = SPEC.read_text().replace("enabled: false", "enabled: true")
    old = "    alpha: 0.05" if field == "alpha" else "    beta: 0.2"  # (the sprt block's)
    spec.write_text(text.replace(old, f"    {field}: 1e-320"))
    code, _, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / "good", "--spec", spec
    )
    assert code == 2 and f"thresholds.sprt.{field}" in _one_error(err)


# ---------------------------------------------------------------- 7 + 12. one loader, limits


def test_validate_applies_the_loader_rules_of_the_gate(tmp_path, run_cli):
    """Repeated span ordinals: the gate and fingerprint refused the trace, validate said ok."""
    path = _copy_runs(tmp_path / "cand", count=1)[0]
    document = json.loads(path.read_text())
    document["spans"][1]["ordinal"] = document["spans"][0]["ordinal"]
    path.write_text(json.dumps(document))
    for args in (("validate", path), ("fingerprint", path)):
        code, _, err = run_cli(*args)
        assert code == 2 and "span ordinals repeat" in _one_error(err), args
    from abw.mcp_server import validate_paths

    checked = validate_paths([str(path)])
    assert "span ordinals repeat" in json.dumps(checked)


def test_a_trace_over_the_span_limit_is_refused_in_one_line(tmp_path, run_cli, monkeypatch):
    from abw import limits, traceio

    monkeypatch.setattr(traceio, "MAX_TRACE_SPANS", 5)
    path = _copy_runs(tmp_path / "cand", count=1)[0]
    spans = len(json.loads(path.read_text())["spans"])
    assert spans > 5
    code, _, err = run_cli("fingerprint", path)
    assert code == 2 and f"{spans} spans, over abw's limit of 5 spans" in _one_error(err)
    assert limits.MAX_TRACE_SPANS == 100_000


@pytest.mark.parametrize(
    "text",
    ['{"x": 1e999.95}', '{"x": 1e999, "y": 1NaN158}', '{"a": 1e999, "\u0001": 2}', "[1e999"],
)
def test_a_refused_number_before_other_garbage_is_still_one_line(text):
    """Found by the fuzzer: the line finder choked on what followed the refused number."""
    with pytest.raises(AbwInputError) as caught:
        parse_json(text, "x.json")
    assert "\n" not in caught.value.one_line()


def test_fuzz_findings_are_one_line_errors():
    from fuzzkit import FOUND, check_contract, targets

    trace = next(t for t in targets() if t.name == "trace")
    for path in sorted(FOUND.glob("trace-*.json")):
        assert check_contract(trace, path.read_bytes()) in ("ok", "error"), path.name


@pytest.mark.parametrize("value", ["[]", "{}", "[1, 2]"])
def test_validate_with_a_schema_version_that_is_not_a_string(tmp_path, run_cli, value):
    """Found by make fuzz (validate target): a list as schema_version was unhashable."""
    path = tmp_path / "odd.json"
    path.write_text(f'{{"schema_version": {value}}}')
    code, _, err = run_cli("validate", path)
    assert code == 2 and "$.schema_version: unknown schema" in _one_error(err)


def test_object_count_limit_refuses_while_parsing():
    with pytest.raises(AbwInputError, match="more than 3 JSON objects"):
        parse_json("[{}, {}, {}, {}, {}]", "t.json", max_objects=3, what="the trace")
    assert parse_json("[{}, {}, {}]", "t.json", max_objects=3) == [{}, {}, {}]


# ---------------------------------------------------------------- exact types, as the schemas


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('"ordinal": 1,', '"ordinal": "1",', "spans.1.ordinal"),
        ('"ordinal": 1,', '"ordinal": true,', "spans.1.ordinal"),
        ('"applied": true', '"applied": "yes"', "redaction.applied"),
    ],
)
def test_a_trace_value_of_the_wrong_type_is_refused_by_every_entry_point(
    tmp_path, run_cli, old, new, field
):
    """The JSON Schema (abw validate) refused ``"ordinal": "1"`` while the gate coerced it and
    PASSed: the models are strict, as the schemas they generate."""
    cand = tmp_path / "cand"
    path = _copy_runs(cand, count=3)[0]
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    for err in _refused_everywhere(run_cli, cand, path):
        assert field in err.replace("$.", "").replace("[", ".").replace("]", "")


def test_a_spec_number_written_as_a_string_is_refused_and_1e_3_is_a_number(tmp_path, run_cli):
    spec = tmp_path / "behavior.yaml"
    text = SPEC.read_text()
    spec.write_text(text.replace("  min_runs: 1\n", '  min_runs: "1"\n', 1))
    for args in (
        ("gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / "good", "--spec", spec),
        ("validate", spec),
    ):
        code, _, err = run_cli(*args)
        assert code == 2 and "min_runs" in _one_error(err), args
    # YAML 1.1 reads 1e-3 (no dot) as a string; abw reads it as the number it is
    spec.write_text(text.replace("  alpha: 0.05\n", "  alpha: 5e-2\n", 1))
    code, _, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / "good", "--spec", spec
    )
    assert code == 0, err


# ---------------------------------------------------------------- 6. JSON Pointers


def _assertion_spec(tmp_path: Path, selector: str) -> Path:
    spec = tmp_path / "behavior.yaml"
    spec.write_text(
        SPEC.read_text()
        + "\nassertions:\n  - id: list-item\n    statement: The item stays.\n"
        + f"    selector: {json.dumps(selector)}\n    matcher: {{op: same}}\n",
        encoding="utf-8",
    )
    return spec


@pytest.mark.parametrize("index", ["\u00b2", "\u0661", "01", "+1"])
def test_json_pointer_array_index_is_ascii_digits_without_leading_zero(index):
    from abw.rules.jsonvalue import MISSING, resolve

    assert resolve({"list": ["a", "b"]}, f"/list/{index}") is MISSING
    assert resolve({"list": ["a", "b"]}, "/list/1") == "b"
    assert resolve({"list": {index: "key"}}, f"/list/{index}") == "key"


def test_gate_with_superscript_pointer_index_is_not_an_internal_error(tmp_path, run_cli):
    """``/output/list/²`` passed ``isdigit()`` and crashed ``int()`` in the gate."""
    sets = {}
    for role, source in (("base", "baseline"), ("cand", "good")):
        for path in _copy_runs(tmp_path / role, source=source):
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace('"currency": "USD"', '"list": ["a", "b", "c"]'))
        sets[role] = tmp_path / role
    for index in ("\u00b2", "\u0661"):
        spec = _assertion_spec(tmp_path, f"/output/list/{index}")
        code, _, err = run_cli("validate", spec)
        assert code == 0, err
        code, out, err = run_cli(
            "gate", "--baseline", sets["base"], "--candidate", sets["cand"], "--spec", spec
        )
        assert code == 3 and "internal error" not in err, (out, err)  # resolves to nothing
        assert "list-item" in out
    spec = _assertion_spec(tmp_path, "/output/list/1")
    code, out, _ = run_cli(
        "gate", "--baseline", sets["base"], "--candidate", sets["cand"], "--spec", spec
    )
    assert code == 0, out


# ---------------------------------------------------------------- 8. fingerprints of equal values


def test_fingerprint_of_1_and_1_0_is_the_same(tmp_path, run_cli):
    path = _copy_runs(tmp_path / "a", count=1)[0]
    other = tmp_path / "b.json"
    other.write_text(path.read_text().replace('"refund_amount": 1200', '"refund_amount": 1200.0'))
    assert '"refund_amount": 1200.0' in other.read_text()
    code, out, _ = run_cli("fingerprint", path, other)
    assert code == 0
    first, second = (line.split()[0] for line in out.splitlines())
    assert first == second


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (1, 1.0),
        ({"x": [1, 2.0]}, {"x": [1.0, 2]}),
        (1e20, 100000000000000000000),
        (-0.0, 0),
        (2**70, float(2**70)),
    ],
)
def test_numbers_by_value_equal_values_equal_text(left, right):
    from abw.hashing import canonical_json, numbers_by_value
    from abw.rules.jsonvalue import json_equal, json_key

    assert json_equal(left, right)
    assert canonical_json(numbers_by_value(left)) == canonical_json(numbers_by_value(right))
    assert json_key(left) == json_key(right)


@pytest.mark.parametrize(
    ("left", "right"), [(True, 1), (1, 1.5), ("1.0", 1), (2**70 + 1, float(2**70))]
)
def test_numbers_by_value_unequal_values_unequal_text(left, right):
    from abw.hashing import canonical_json, numbers_by_value
    from abw.rules.jsonvalue import json_equal

    assert not json_equal(left, right)
    assert canonical_json(numbers_by_value(left)) != canonical_json(numbers_by_value(right))


# ---------------------------------------------------------------- 13. spec init quoting


@pytest.mark.parametrize("odd", ["\u2028", "\u2029", "\x85", "\x9b", "\x7f", "\ufeff"])
def test_spec_init_writes_a_loadable_spec_for_any_tool_name(tmp_path, run_cli, odd):
    from abw.specio import load_spec

    base = tmp_path / "base"
    name = f"refund{odd}commit"
    for path in _copy_runs(base, source="baseline", count=3):
        document = json.loads(path.read_text())
        for span in document["spans"]:
            if span["name"] == "refund_commit":
                span["name"] = name
        path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "behavior.yaml"
    code, _, err = run_cli("spec", "init", "--baseline", base, "--out", out)
    assert code == 0, err
    spec, _ = load_spec(out)
    assert name in spec.invariants.required_tools


# ---------------------------------------------------------------- spec init --force


def test_spec_init_refuses_to_overwrite_a_spec_without_force(tmp_path, run_cli):
    out = tmp_path / "behavior.yaml"
    out.write_bytes(SPEC.read_bytes())
    code, _, err = run_cli("spec", "init", "--baseline", TRACES / "baseline", "--out", out)
    assert code == 2 and "pass --force" in _one_error(err)
    assert out.read_bytes() == SPEC.read_bytes()
    code, _, _ = run_cli("spec", "init", "--baseline", TRACES / "baseline", "--out", out, "--force")
    assert code == 0 and out.read_bytes() != SPEC.read_bytes()


# ---------------------------------------------------------------- import --out over other files


def _claude_export() -> Path:
    return sorted((EXAMPLE / "transcripts").rglob("*.jsonl"))[0]


@pytest.mark.parametrize("name", ["behavior.yaml", "gate-report.json"])
def test_import_refuses_to_overwrite_a_non_trace_file(tmp_path, run_cli, name):
    out = tmp_path / name
    out.write_text("schema_version: behavior-spec/v0\n" if name.endswith("yaml") else "{}")
    before = out.read_bytes()
    code, _, err = run_cli("import", "claude", "--input", _claude_export(), "--out", out)
    assert code == 2 and "--out" in _one_error(err)
    assert out.read_bytes() == before


def test_import_overwrites_an_existing_trace(tmp_path, run_cli):
    out = tmp_path / "run.json"
    args = ("import", "claude", "--input", _claude_export(), "--out", out, "-q")
    assert run_cli(*args)[0] == 0
    assert run_cli(*args)[0] == 0


# ---------------------------------------------------------------- 14. broken plugins


def _plugin_path(tmp_path: Path, name: str = "broken") -> Path:
    dist = tmp_path / "plugins" / "broken_abw_plugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-abw-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        f"[abw.importers]\n{name} = no_such_module_for_abw:Importer\n"
    )
    return tmp_path / "plugins"


def test_a_plugin_name_is_never_a_workflow_command_in_the_warning(tmp_path):
    import os

    plugins = _plugin_path(tmp_path, "x##[error]pwned")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([os.environ.get("PYTHONPATH", ""), str(plugins)]),
    }
    result = subprocess.run(
        [ABW, "import", "--help"], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0 and "no_such_module_for_abw" in result.stderr
    assert "##[" not in result.stderr


def test_a_broken_importer_plugin_is_one_warning_and_skipped(tmp_path):
    import os

    paths = [os.environ.get("PYTHONPATH", ""), str(_plugin_path(tmp_path))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    result = subprocess.run(
        [ABW, "import", "--help"], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "claude" in result.stdout and "broken" not in result.stdout
    assert result.stderr.count("\n") == 1 and "no_such_module_for_abw" in result.stderr
    assert "internal error" not in result.stderr
    used = subprocess.run(
        [ABW, "import", "broken", "--input", "x", "--out", "y"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert used.returncode == 2 and "cannot be loaded" in _one_error(used.stderr)
    fine = subprocess.run(
        [ABW, "import", "claude", "--help"], capture_output=True, text=True, env=env, timeout=120
    )
    assert fine.returncode == 0 and "--output-fields" in fine.stdout


# ---------------------------------------------------------------- 8. the property behind it


def _json_values():
    from hypothesis import strategies as st

    numbers = st.integers(-(2**80), 2**80) | st.floats(allow_nan=False, allow_infinity=False)
    scalars = st.none() | st.booleans() | numbers | st.text(max_size=8)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
        max_leaves=12,
    )


def _retyped(value):
    """The same JSON value with every exactly-integral number written the other way."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return float(value) if float(value) == value else value
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, list):
        return [_retyped(v) for v in value]
    return {k: _retyped(v) for k, v in value.items()}


def test_value_text_is_equal_exactly_when_values_are_equal():
    """What fingerprints hash: canonical JSON of the numbers by value. (Content hashes keep the
    value as written, so no hash abw ever wrote changes: docs/hashing.md.)"""
    from hypothesis import given, settings

    from abw.hashing import canonical_json, numbers_by_value
    from abw.rules.jsonvalue import json_equal

    def text(value):
        return canonical_json(numbers_by_value(value))

    @settings(max_examples=300, derandomize=True, deadline=None)
    @given(_json_values(), _json_values())
    def check(left, right):
        assert text(left) == text(_retyped(left))
        assert json_equal(left, right) == (text(left) == text(right))

    check()


EXAMPLE = REPO / "examples" / "refund-policy"


def test_an_abw_document_in_another_ones_place_says_what_it_is_and_where_it_goes(tmp_path, run_cli):
    """A contract given as --spec, and a gate report written into the candidate folder by the
    previous gate (``--out traces/candidate/gate-report.json``), were refused by their
    schema_version alone; the line now says what the file is and where it goes."""
    base, spec = EXAMPLE / "traces" / "baseline", EXAMPLE / "behavior.yaml"
    cand = tmp_path / "candidate"
    shutil.copytree(EXAMPLE / "traces" / "good", cand)
    args = ["gate", "--baseline", base, "--candidate", cand]
    code, _, err = run_cli(*args, "--spec", EXAMPLE / "contract.json")
    assert code == 2 and err.count("\n") == 1, err
    assert err.endswith(
        "found 'agent-behavior-contract/v0' (a contract: give it as --contract, or compile it "
        "with abw contract compile)\n"
    ), err
    assert run_cli(*args, "--spec", spec, "--out", tmp_path / "r.json")[0] == 0
    shutil.copy(tmp_path / "r.json", cand / "gate-report.json")  # as a careless CI step would
    code, _, err = run_cli(*args, "--spec", spec)  # CI's second run reads the report as a trace
    assert code == 2 and err.count("\n") == 1, err
    assert re.search(r"gate-report\.json:\d+: schema_version:", err), err  # its own line
    assert err.endswith(
        "found 'gate-report/v0' (a gate report: keep reports out of the folders of traces)\n"
    ), err


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["statistics"][0]["sequence"].update(n="many"), "statistics.0.sequence.n"),
        (lambda d: d["statistics"][0]["sequence"].update(n=[1]), "statistics.0.sequence.n"),
        (lambda d: d["statistics"][0]["sequence"].update(n=-5), "statistics.0.sequence.n"),
        (
            lambda d: d["statistics"][0]["sequence"].update(restarts=-1),
            "statistics.0.sequence.restarts",
        ),
        (lambda d: d.update(statistics=5), "statistics"),
        (lambda d: d["inputs"]["traces"][0].update(sha256=7), "inputs.traces.0.sha256"),
    ],
)
def test_a_wrong_earlier_report_is_one_line_naming_its_field_and_line(
    tmp_path, run_cli, change, field
):
    """``gate --previous`` read an earlier report's sequences with int() and .get(): a wrong
    value was an internal error, and a negative count was taken as it was; ``verify-report``
    said such a report "judges exactly these inputs" (exit 0), or failed internally."""
    inputs = [
        "--baseline",
        EXAMPLE / "traces" / "baseline",
        "--candidate",
        EXAMPLE / "traces" / "good",
    ]
    spec = ["--spec", EXAMPLE / "behavior.yaml"]
    earlier = tmp_path / "earlier.json"
    assert run_cli("gate", *inputs, *spec, "--out", earlier)[0] == 0
    document = json.loads(earlier.read_text(encoding="utf-8"))
    change(document)
    earlier.write_text(json.dumps(document, indent=2), encoding="utf-8")
    for args in (
        ("gate", *inputs, *spec, "--previous", earlier),
        ("verify-report", earlier, *inputs, *spec),
    ):
        code, _, err = run_cli(*args)
        error = _one_error(err)
        assert code == 2 and re.search(rf"earlier\.json:\d+: {re.escape(field)}: ", error), error
        assert "not a gate-report/v0" in error


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('{"spans": [{"a": 1, "b": {"c": 2}}, {"name": "x\\ud800"}]}', "spans.1.name"),
        ('{"spans": [{"s": 1}, {"s": 1, "s": 2}]}', "spans.1.s"),
        ('{"a": [[1, NaN]]}', "a.0.1"),
        ('{"a": [1, 2, 1e999]}', "a.2"),
        ('["ok", "x\\ud800"]', "1"),
        ('"\\ud800"', None),  # one bare string: was an internal error
    ],
)
def test_a_refused_value_is_named_by_its_path_and_index(text, field):
    """The field of a refused value is its path with array indexes (``spans.1.name``), never
    the last key of the object before it (``spans.line.name``)."""
    from abw.reader import parse_json

    with pytest.raises(AbwInputError) as refused:
        parse_json(text, "t.json", unicode_text=True)
    assert refused.value.field == field and refused.value.line == 1
