"""``abw gate`` and ``abw explain`` from the command line: exit codes, reports, bad input."""

from __future__ import annotations

import json

import pytest
from test_gate_factory import REFUND, REGRESSED, runs, write_runs

SPEC = """schema_version: behavior-spec/v0
id: refund
invariants:
  required_tools: [classify, policy_check, refund_commit]
  required_order: [{before: policy_check, after: refund_commit}]
thresholds:
  path_edit_distance_warn: {warn}
  path_edit_distance_fail: 0.9
"""


@pytest.fixture
def folders(tmp_path):
    base = write_runs(tmp_path / "base", runs("b", [REFUND] * 20))
    good = write_runs(tmp_path / "good", runs("c", [REFUND] * 20))
    bad = write_runs(tmp_path / "bad", runs("c", [REFUND] * 18 + [REGRESSED] * 2))
    small = write_runs(tmp_path / "small", runs("c", [REFUND] * 3))
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.replace("{warn}", "0.12"))
    warn_spec = tmp_path / "warn.yaml"
    warn_spec.write_text(SPEC.replace("{warn}", "0.0"))
    return tmp_path, base, good, bad, small, spec, warn_spec


def gate_args(base, cand, spec, *extra):
    return ("gate", "--baseline", base, "--candidate", cand, "--spec", spec, *extra)


def test_exit_codes(folders, run_cli):
    tmp, base, good, bad, small, spec, warn_spec = folders
    assert run_cli(*gate_args(base, good, spec))[0] == 0
    assert run_cli(*gate_args(base, bad, spec))[0] == 1
    assert run_cli(*gate_args(base, small, spec))[0] == 3
    assert run_cli(*gate_args(base, small, spec, "--allow-inconclusive"))[0] == 0
    warn_bad = write_runs(
        tmp / "warn", runs("c", [REFUND] * 20 + [["classify", "policy_check", "refund_commit"]] * 2)
    )
    code, out, _ = run_cli(*gate_args(base, warn_bad, warn_spec))
    assert code == 0 and out.startswith("WARN")
    assert run_cli(*gate_args(base, warn_bad, warn_spec, "--fail-on", "warn"))[0] == 1
    assert run_cli(*gate_args(base, warn_bad, warn_spec, "--fail-on-warn"))[0] == 1


def test_report_file_is_byte_identical_and_explainable(folders, run_cli):
    tmp, base, _, bad, _, spec, _ = folders
    first, second = tmp / "r1.json", tmp / "r2.json"
    code, out, _ = run_cli(*gate_args(base, bad, spec, "--out", first))
    assert code == 1 and "behavior_contract.required_order[0]" in out
    run_cli(*gate_args(base, bad, spec, "--out", second))
    assert first.read_bytes() == second.read_bytes()
    stamped = tmp / "r3.json"
    run_cli(*gate_args(base, bad, spec, "--out", stamped, "--timestamp"))
    assert json.loads(stamped.read_text())["generated_at"].endswith("Z")

    code, out, _ = run_cli("explain", "behavior_contract.required_order[0]", "--report", first)
    assert code == 0
    assert "behavior_contract.required_order[0]: FAIL" in out
    assert "c-18.json:10 (ordinal 3)" in out and "why" in out
    code, out, _ = run_cli(
        "explain",
        "sample_sufficiency.confidence_sequence@refund",
        "--report",
        first,
        "--format",
        "json",
    )
    assert code == 0 and json.loads(out)["rule"] == "confidence_sequence"
    code, _, err = run_cli("explain", "behavior_contract.required_ordr", "--report", first)
    assert code == 2 and "did you mean behavior_contract.required_order[0]" in err
    (tmp / "junk.json").write_text("{}")
    code, _, err = run_cli("explain", "x", "--report", tmp / "junk.json")
    assert code == 2 and err.count("\n") == 1


@pytest.mark.parametrize(
    ("spec_text", "needle"),
    [
        (
            "schema_version: behavior-spec/v0\nid: x\ninvariants:\n  requird_tools: [a]\n",
            "unknown key",
        ),
        (
            "schema_version: behavior-spec/v0\nid: x\ninvariants:\n  max_errors: many\n",
            "max_errors",
        ),
        ("schema_version: behavior-spec/v9\nid: x\n", "schema_version"),
    ],
)
def test_bad_specs_are_one_line_errors(folders, run_cli, spec_text, needle):
    tmp, base, good, *_ = folders
    spec = tmp / "bad.yaml"
    spec.write_text(spec_text)
    code, _, err = run_cli(*gate_args(base, good, spec))
    assert code == 2 and needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_trace_folders_are_one_line_errors(folders, run_cli):
    tmp, base, good, _, _, spec, _ = folders
    empty = tmp / "empty"
    empty.mkdir()
    code, _, err = run_cli(*gate_args(base, empty, spec))
    assert code == 2 and "no trace files" in err
    other = tmp / "other"
    other.mkdir()
    document = json.loads((good / "c-00.json").read_text())
    document["schema_version"] = "agent-behavior-trace/v1"
    (other / "x.json").write_text(json.dumps(document))
    code, _, err = run_cli(*gate_args(base, other, spec))
    assert code == 2 and "agent-behavior-trace/v1" in err and err.count("\n") == 1


def test_latent_folder_without_support_is_bad_input_or_advisory(folders, run_cli):
    import importlib.util

    tmp, base, good, _, _, spec, _ = folders
    code, _, err = run_cli(*gate_args(base, good, spec, "--latent", tmp / "no-such-latent"))
    if importlib.util.find_spec("abw.latent_summary") is None:
        assert code == 2 and "latent" in err
    else:
        assert code == 2 and "no-such-latent" in err and err.count("\n") == 1


def test_report_dir_writes_every_format(folders, run_cli):
    import importlib.util

    tmp, base, _, bad, _, spec, _ = folders
    code, out, err = run_cli(*gate_args(base, bad, spec, "--report-dir", tmp / "reports"))
    if importlib.util.find_spec("abw.render") is None:
        assert code == 2 and "rendering" in err
        return
    assert code == 1
    names = sorted(p.name for p in (tmp / "reports").iterdir())
    assert names == [
        "gate-report.json",
        "report.html",
        "report.junit.xml",
        "report.md",
        "report.sarif",
    ]
    assert json.loads((tmp / "reports" / "gate-report.json").read_text())["verdict"] == "FAIL"
    assert "report.sarif" in out


def test_strict_fails_on_an_info_assertion(folders, run_cli):
    tmp, base, _, _, _, _, _ = folders
    spec = tmp / "info.yaml"
    spec.write_text(
        SPEC.replace("{warn}", "0.9")
        + "assertions:\n"
        + "  - {id: short, statement: Paths stay short., severity: info, selector: /path_length,\n"
        + "     matcher: {op: equals, value: 1}}\n"
    )
    good = tmp / "good"
    assert run_cli(*gate_args(base, good, spec))[0] == 0
    code, out, _ = run_cli(*gate_args(base, good, spec, "--strict"))
    assert code == 1 and "output_eval.assertions.short" in out
