"""Gating a CLI upgrade: real Codex rollouts of the same scenarios written by several releases
(tests/corpus/codex-live-versions), baseline one release, candidate another. The gate must name
the version change where it explains a failure: in the input warning (by scenario, with the
tools a rename would explain, versions in version order) and in ``abw explain``."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import CORPUS
from importkit import RunCli, cli_written

from abw.render import FILE_NAMES

VERSIONS = CORPUS / "codex-live-versions"


def recorded(run_cli: RunCli, out: Path, *runs: tuple[str, str]) -> Path:
    """``(scenario, release)`` runs imported into ``out`` under their scenario's id."""
    for scenario, release in runs:
        (source,) = VERSIONS.glob(f"{scenario}-{release}__rollout-*.jsonl")
        cli_written(run_cli, "codex", source, out, "--scenario-id", scenario, "-q")
    return out


def gated(run_cli: RunCli, tmp_path: Path, base: Path, cand: Path) -> tuple[dict, str, Path]:
    """``spec init`` on the baseline, then ``abw gate`` with every report: (report, stdout, dir)."""
    spec, out = tmp_path / "spec.yaml", tmp_path / "reports"
    assert run_cli("spec", "init", "--baseline", base, "--out", spec)[0] == 0
    code, stdout, err = run_cli(
        "gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--report-dir", out
    )
    assert code in (0, 1, 3), err
    return json.loads((out / "gate-report.json").read_text()), stdout, out


def version_warning(report: dict) -> str:
    (message,) = [w["message"] for w in report["input_warnings"] if w["kind"] == "version_mix"]
    return message


def test_scenarios_recorded_with_swapped_releases_are_named(tmp_path, run_cli):
    # each side holds 0.80.0 and 0.142.4, but every scenario compares one with the other: the
    # sets as a whole agree, and the warning used to stay silent over two renamed-tool FAILs
    base = recorded(run_cli, tmp_path / "base", ("tools", "0.80.0"), ("resume", "0.142.4"))
    cand = recorded(run_cli, tmp_path / "cand", ("tools", "0.142.4"), ("resume", "0.80.0"))
    report, stdout, out = gated(run_cli, tmp_path, base, cand)
    assert report["verdict"] == "FAIL"
    message = version_warning(report)
    assert "never used in scenario resume, scenario tools:" in message
    assert "baseline 0.80.0 (1 run), 0.142.4 (1 run)" in message
    assert f"input warning: {message}" in stdout
    for name in FILE_NAMES.values():
        assert "scenario resume, scenario tools" in (out / name).read_text().replace("\\", "")


def test_a_scenario_of_the_same_release_on_both_sides_raises_no_warning(tmp_path, run_cli):
    base = recorded(run_cli, tmp_path / "base", ("tools", "0.80.0"), ("resume", "0.142.4"))
    cand = recorded(run_cli, tmp_path / "cand", ("tools", "0.80.0"), ("resume", "0.142.4"))
    report, _, _ = gated(run_cli, tmp_path, base, cand)
    assert "version_mix" not in [w["kind"] for w in report["input_warnings"]]


def test_the_warning_names_the_tools_a_rename_explains(tmp_path, run_cli):
    # Codex 0.80 runs shell_command, 0.142 exec_command: the FAILs' tools, named with the version
    base = recorded(run_cli, tmp_path / "base", ("tools", "0.80.0"), ("sleepy", "0.80.0"))
    cand = recorded(run_cli, tmp_path / "cand", ("tools", "0.142.4"), ("sleepy", "0.142.4"))
    report, _, _ = gated(run_cli, tmp_path, base, cand)
    failing = {c["id"] for c in report["checks"] if c["verdict"] == "FAIL"}
    assert "diff_shape.tool_jaccard@tools" in failing
    message = version_warning(report)
    assert "baseline 0.80.0 (2 runs); candidate 0.142.4 (2 runs)" in message
    assert "new exec_command, missing shell_command in scenario sleepy, scenario tools" in message


def test_versions_are_listed_in_version_order(tmp_path, run_cli):
    base = recorded(run_cli, tmp_path / "base", ("tools", "0.80.0"), ("tools", "0.142.4"))
    cand = recorded(run_cli, tmp_path / "cand", ("tools", "0.160.1"))
    report, _, _ = gated(run_cli, tmp_path, base, cand)
    # text order put 0.142.4 before 0.80.0
    assert "baseline 0.80.0 (1 run), 0.142.4 (1 run); candidate 0.160.1" in version_warning(report)


def test_explain_shows_the_version_change_beside_the_failure(tmp_path, run_cli):
    base = recorded(run_cli, tmp_path / "base", ("tools", "0.80.0"))
    cand = recorded(run_cli, tmp_path / "cand", ("tools", "0.142.4"))
    report, _, out = gated(run_cli, tmp_path, base, cand)
    code, text, err = run_cli(
        "explain", "diff_shape.tool_jaccard@tools", "--report", out / "gate-report.json"
    )
    assert code == 0, err
    assert f"  version_mix: {version_warning(report)}" in text.splitlines()
    assert text.index("version_mix") < text.index("\nwhy\n")


def test_a_baseline_of_a_release_that_records_no_version_is_named(tmp_path, run_cli):
    # Codex 0.20 writes no cli_version: its shell against 0.80's shell_command FAILed unexplained
    base = recorded(run_cli, tmp_path / "base", ("tools", "0.20.0"), ("resume", "0.20.0"))
    cand = recorded(run_cli, tmp_path / "cand", ("tools", "0.80.0"), ("resume", "0.80.0"))
    report, _, _ = gated(run_cli, tmp_path, base, cand)
    assert report["verdict"] == "FAIL"
    message = version_warning(report)
    assert "baseline version unrecorded (2 runs); candidate 0.80.0 (2 runs)" in message
    # 0.20 patched and planned through its shell: in tools, more is new than the rename
    assert "new shell_command, missing shell in scenario resume;" in message
    assert "new apply_patch, shell_command, update_plan, missing shell in scenario tools" in message
