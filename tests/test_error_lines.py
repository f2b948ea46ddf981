"""A refused document names the line of the value that is wrong, in every layout and from every
entry point: a trace's span fields had no line at all (``spans.2.status`` in a file of
hundreds of lines), and a spec field was pointed at the first line holding its key anywhere in
the file (the first ``after:``, not the one in the item that was wrong)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import CORPUS, REPO
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bad_input import _refused_everywhere

EXAMPLE = REPO / "examples" / "refund-policy"
TRACES = EXAMPLE / "traces"
SPEC = EXAMPLE / "behavior.yaml"
RUN = TRACES / "good" / "good-02-57ad781d.json"


def _one_error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0].removeprefix("abw: error: ")


def _line_holding(text: str, needle: str) -> int:
    """The one line (JSON's and YAML's: counted by line feeds, not by every Unicode line
    break splitlines knows) that holds ``needle``."""
    (line,) = [n for n, row in enumerate(text.split("\n"), 1) if needle in row]
    return line


def _errors(run_cli, path: Path, folder: Path) -> list[str]:
    """The gate's (over ``folder``), ``abw validate``'s and ``abw fingerprint``'s one-line
    errors (of ``path``), each with exit code 2, without the CLI's prefix."""
    found = _refused_everywhere(run_cli, folder, path)
    return [error.strip().removeprefix("abw: error: ") for error in found]


def test_a_wrong_span_field_is_named_with_the_line_of_its_span(tmp_path, run_cli):
    folder = tmp_path / "candidate"
    folder.mkdir()
    path = folder / RUN.name
    text = RUN.read_text(encoding="utf-8")
    assert '"span_id": "span-0004"' in text
    start = text.index('"span_id": "span-0004"')
    end = text.index("\n", start)
    span_line = text[start:end]
    assert '"status": "success"' in span_line
    path.write_text(
        text[:start] + span_line.replace('"status": "success"', '"status": "sucess"') + text[end:],
        encoding="utf-8",
    )
    line = _line_holding(text, '"span_id": "span-0004"')
    for error in _errors(run_cli, path, folder):
        assert error.startswith(f"{path}:{line}: "), error
        assert "spans.4.status" in error or "$.spans[4].status" in error, error


@pytest.mark.parametrize(
    ("importer", "session"),
    [
        ("claude", "claude-code/agentcmd__full-session-five.jsonl"),
        (
            "codex",
            "codex/agentcmd__rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl",
        ),
    ],
)
def test_a_real_imported_trace_names_the_line_of_its_wrong_span(
    tmp_path, run_cli, importer, session
):
    """A trace abw imported from a real session of the corpus, one of its spans made wrong."""
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copy(CORPUS / session, raw)
    folder = tmp_path / "candidate"
    code, _, err = run_cli("import", importer, "--input", raw, "--out", folder, "-q")
    assert code == 0, err
    (path,) = sorted(folder.glob("*.json"))
    rows = path.read_text(encoding="utf-8").split("\n")
    spans = [n for n, row in enumerate(rows) if row.startswith('{"span_id": ')]
    assert len(spans) > 4, session
    middle = spans[len(spans) // 2]
    wrong = re.sub(r'"status": "[a-z]+"', '"status": "sucess"', rows[middle], count=1)
    assert wrong != rows[middle]
    rows[middle] = wrong
    path.write_text("\n".join(rows), encoding="utf-8")
    index = spans.index(middle)
    for error in _errors(run_cli, path, folder):
        assert error.startswith(f"{path}:{middle + 1}: "), error
        assert f"spans.{index}.status" in error or f"$.spans[{index}].status" in error, error


def test_a_pretty_printed_trace_names_the_line_of_the_field_itself(tmp_path, run_cli):
    """Another writer's layout (indented by two spaces): the line of the member, not of its span."""
    folder = tmp_path / "candidate"
    folder.mkdir()
    path = folder / RUN.name
    document = json.loads(RUN.read_text(encoding="utf-8"))
    document["spans"][3]["duration_ms"] = "slow"
    text = json.dumps(document, indent=2)
    path.write_text(text, encoding="utf-8")
    line = _line_holding(text, '"duration_ms": "slow"')
    for error in _errors(run_cli, path, folder):
        assert error.startswith(f"{path}:{line}: "), error


def test_a_repeated_ordinal_is_named_at_the_span_that_repeats_it(tmp_path, run_cli):
    folder = tmp_path / "candidate"
    folder.mkdir()
    path = folder / RUN.name
    document = json.loads(RUN.read_text(encoding="utf-8"))
    document["spans"][6]["ordinal"] = 2
    document["spans"][6]["marker"] = "the repeat"
    text = json.dumps(document, indent=2)
    path.write_text(text, encoding="utf-8")
    code, _, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", folder, "--spec", SPEC
    )
    error = _one_error(err)
    first_of_span = _line_holding(text, '"marker": "the repeat"')
    ordinal_line = max(
        n
        for n, row in enumerate(text.split("\n"), 1)
        if row.strip() == '"ordinal": 2,' and n < first_of_span
    )
    assert code == 2 and error.startswith(f"{path}:{ordinal_line}: spans.6.ordinal: "), error
    assert "ordinal 2 again" in error


def test_a_spec_field_is_named_at_its_own_item_not_the_first_key_of_that_name(tmp_path, run_cli):
    spec = tmp_path / "behavior.yaml"
    spec.write_text(
        "schema_version: behavior-spec/v0\n"
        "id: two-orders\n"
        "invariants:\n"
        "  required_order:\n"
        "    - before: lookup_order\n"
        "      after: policy_check\n"  # line 6: the first after:
        "    - before: policy_check\n"
        "      after: 7\n"  # line 8: the wrong one
        "thresholds:\n"
        "  min_runs: 1\n",
        encoding="utf-8",
    )
    code, _, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / "good", "--spec", spec
    )
    assert code == 2
    assert _one_error(err).startswith(f"{spec}:8: invariants.required_order.1.after: "), err
    code, _, err = run_cli("validate", spec)
    assert code == 2 and _one_error(err).startswith(f"{spec}:8: "), err


def test_a_field_missing_from_a_bind_is_named_in_the_bind(tmp_path, run_cli):
    """``bind: {before: id}`` lacks its ``after``: the error named the rule's own ``after``
    (which is there) because the rule holds that key too."""
    spec = tmp_path / "behavior.yaml"
    spec.write_text(
        "schema_version: behavior-spec/v0\nid: x\nrules:\n"
        "  - kind: precedence\n    before: a\n    after: b\n"
        "    bind: {before: id}\n",  # line 7
        encoding="utf-8",
    )
    code, _, err = run_cli("validate", spec)
    assert code == 2 and f"{spec}:7: $.rules[0].bind.after: Field required" in err, err


def test_a_contract_field_and_its_schema_version_are_named_with_their_lines(tmp_path, run_cli):
    contract = tmp_path / "contract.json"
    document = json.loads((EXAMPLE / "contract.json").read_text(encoding="utf-8"))
    document["thresholds"]["min_runs"] = "many"
    text = json.dumps(document, indent=2)
    contract.write_text(text, encoding="utf-8")
    out = tmp_path / "spec.yaml"
    code, _, err = run_cli("contract", "compile", contract, "--out", out)
    assert code == 2, err
    line = _line_holding(text, '"min_runs": "many"')
    assert _one_error(err).startswith(f"{contract}:{line}: thresholds.min_runs: "), err
    contract.write_text(text.replace("agent-behavior-contract/v0", "behavior-spec/v0"))
    code, _, err = run_cli("contract", "compile", contract, "--out", out)
    assert code == 2 and _one_error(err).startswith(f"{contract}:2: schema_version: "), err
    assert not out.exists()


# ---------------------------------------------------------------- the locators, as defined

JSON_VALUES = st.recursive(  # keys and strings with quotes, escapes and non-ASCII text too
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)
MARK = "\x00the value\x00"


def _locations(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _locations(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _locations(item, (*prefix, index))


def _replaced(value, location):
    if not location:
        return MARK
    head, *rest = location
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replaced(value[head], rest)
    return copy


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, st.sampled_from([None, 0, 1, 2, 4]), st.booleans())
def test_json_value_line_is_where_the_value_begins(value, indent, ascii_only):
    """The oracle: the same layout with the value replaced by a marker; the marker's line is the
    line the value begins on (what comes before it is written the same either way)."""
    from abw.jsonlocate import value_line

    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    for location in _locations(value):
        marked = json.dumps(_replaced(value, location), indent=indent, ensure_ascii=ascii_only)
        expected = _line_holding(marked, json.dumps(MARK))
        assert value_line(text, location) == expected, (location, text)
    assert value_line(text, ("no such member", 7)) is not None  # the deepest value held


def test_yaml_value_line_is_the_line_of_the_member_or_item():
    from abw.yamllocate import value_line as yaml_value_line

    text = "a:\n  - x: 1\n    y: 2\n  - x: 3\n    y:\n      - 4\nb: {c: 5}\n"
    assert yaml_value_line(text, ("a",)) == 1
    assert yaml_value_line(text, ("a", 1)) == 4
    assert yaml_value_line(text, ("a", 1, "y")) == 5
    assert yaml_value_line(text, ("a", 1, "y", 0)) == 6
    assert yaml_value_line(text, ("b", "c")) == 7
    assert yaml_value_line(text, ("a", 1, "missing")) == 4  # the deepest node held
    assert yaml_value_line("a: [", ("a",)) is None


def _report_text(tmp_path: Path) -> str:
    from abw.gating import report_json, run_gate

    report = run_gate(TRACES / "baseline", TRACES / "good", SPEC)
    text = report_json(report)
    assert text.endswith('\n  "verdict": "PASS"\n}\n')  # the report's own, its last member
    return text.removesuffix('"PASS"\n}\n') + '"MAYBE"\n}\n'


def test_a_report_read_back_names_the_line_of_its_wrong_field(tmp_path, run_cli):
    text = _report_text(tmp_path)
    path = tmp_path / "gate-report.json"
    path.write_text(text, encoding="utf-8")
    code, _, err = run_cli("report", "-i", path, "-o", tmp_path / "report.html")
    line = _line_holding(text, '"verdict": "MAYBE"')
    assert code == 2 and _one_error(err).startswith(f"{path}:{line}: verdict: not a gate-report"), (
        err
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"a": "x\x01y"}\n', "invalid JSON: Invalid control character at column 9"),
        ('{"a": 1,\n "b": "xy', "invalid JSON: Unterminated string starting at column 7"),
    ],
)
def test_a_json_complaint_that_ends_in_at_says_the_column(run_cli, tmp_path, text, problem):
    """The decoder's "Invalid control character at" and "Unterminated string starting at" were
    printed cut off, at what; they say the column of the line."""
    path = tmp_path / "trace.json"
    path.write_text(text)
    code, _, err = run_cli("validate", path)
    assert code == 2
    line = 2 if "\n " in text else 1
    assert _one_error(err) == f"{path}:{line}: {problem}"


def test_a_wrong_rule_field_is_named_by_its_path_in_the_spec(run_cli, tmp_path):
    """pydantic's labels for a union's member (the rule's kind tag, ``constrained-str``) were
    printed as if they were keys of the spec: ``rules.0.count.tool.constrained-str``."""
    spec = tmp_path / "behavior.yaml"
    spec.write_text(
        SPEC.read_text() + "rules:\n  - {kind: count, tool: classify, max: 1}\n"
        "  - kind: count\n    max: 1\n    tool: 5\n"
    )
    code, _, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / "good",
        "--spec", spec, "--out", tmp_path / "r.json",
    )  # fmt: skip
    assert code == 2
    line = len(SPEC.read_text().split("\n")) + 4
    assert _one_error(err).startswith(
        f"{spec}:{line}: rules.1.tool: Input should be a valid string"
    )


def test_a_document_broken_as_a_whole_names_the_line_too(tmp_path, run_cli):
    """Bytes that are no UTF-8, nesting past what the decoder takes, a character YAML does not
    allow, a spec nested too deep: the refusal named the file only ("at byte 1358", "position
    233"), not the line the input contract promises."""
    trace = json.loads(
        next((REPO / "examples" / "refund-policy" / "traces" / "good").glob("*.json")).read_text()
    )
    text = json.dumps(trace, indent=1)
    lines = text.splitlines()
    cases = {}
    broken = tmp_path / "utf8.json"
    broken.write_bytes(
        "\n".join(lines[:7]).encode() + b'\n"x\xff": 1,\n' + "\n".join(lines[7:]).encode()
    )
    cases[broken] = (8, "not valid UTF-8 (byte 3 of the line)")
    deep = tmp_path / "deep.json"
    deep.write_text('{\n"a": 1,\n"b":\n' + "[" * 600 + "\n" + "[" * 3000 + "]" * 3600 + "\n}\n")
    cases[deep] = (4, "invalid JSON: nested too deeply")
    spec_text = (REPO / "examples" / "refund-policy" / "behavior.yaml").read_text()
    control = tmp_path / "control.yaml"
    control.write_text(spec_text + "# a bell \x07 here\n")
    cases[control] = (spec_text.count("\n") + 1, "invalid YAML: unacceptable character #x0007")
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(spec_text.encode() + b"# caf\xe9\n")
    cases[latin] = (spec_text.count("\n") + 1, "not valid UTF-8 (byte 6 of the line)")
    nested = tmp_path / "nested.yaml"
    nested.write_text(spec_text + "extra:\n" + "".join("  " * i + "- \n" for i in range(1, 70)))
    cases[nested] = (spec_text.count("\n") + 1 + 64, "invalid YAML: nested deeper than 64 levels")
    for path, (line, message) in cases.items():
        code, _, err = run_cli("validate", path)
        assert code == 2, err
        assert f"{path}:{line}: {message}" in _one_error(err), err


def test_a_steps_file_that_is_no_utf8_names_its_line(tmp_path):
    """``abw latent --steps-file`` is read through the same refusal as every document
    (``abw.errors.not_utf8``): it said "at byte 18", naming neither line nor option."""
    from abw.cli.latent_cmd import read_steps_file
    from abw.errors import AbwInputError

    steps = tmp_path / "steps.txt"
    steps.write_bytes(b"step one\nstep caf\xe9\n")
    with pytest.raises(AbwInputError) as refused:
        read_steps_file(steps)
    assert refused.value.one_line() == (
        f"{steps}:2: --steps-file: not valid UTF-8 (byte 9 of the line)"
    )
