"""Warnings for suspicious inputs, on real sessions: mixed CLI versions and platforms, files sharing
a trace id, one-sided scenarios and a baseline of unrelated tasks; shown in the terminal and in
every report format, never changing the verdict."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from conftest import CORPUS, REPO, export_again

from abw.render import FILE_NAMES

EXAMPLE = REPO / "examples" / "refund-policy"
SPEC = EXAMPLE / "behavior.yaml"
CODEX_040 = sorted((CORPUS / "codex").glob("agentcmd__rollout-*.jsonl"))  # Codex CLI 0.40.0
CODEX_0125 = next((CORPUS / "codex").glob("codemie__rollout-2026-05-11T*.jsonl"))  # 0.125.0
CLAUDE = CORPUS / "claude-code"


@pytest.fixture
def imported(tmp_path, run_cli):
    def run(source: str, inputs, out: str, scenario: str | None = "task") -> object:
        folder = tmp_path / "raw" / out
        folder.mkdir(parents=True)
        for path in inputs:
            shutil.copy(path, folder)
        args = ["import", source, "--input", folder, "--out", tmp_path / out, "-q"]
        code, _, err = run_cli(*args, *(["--scenario-id", scenario] if scenario else []))
        assert code == 0, err
        return tmp_path / out

    return run


def gate(run_cli, tmp_path, base, cand, spec=SPEC):
    out = tmp_path / "reports"
    code, stdout, err = run_cli(
        "gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--report-dir", out
    )
    assert code in (0, 1, 3), err
    report = json.loads((out / "gate-report.json").read_text())
    return report, stdout, out


def kinds(report) -> list[str]:
    return [w["kind"] for w in report["input_warnings"]]


def test_codex_cli_versions_differ_and_the_warning_names_both(tmp_path, run_cli, imported):
    base = imported("codex", CODEX_040, "base")
    cand = imported("codex", [CODEX_0125], "cand")
    spec = tmp_path / "spec.yaml"
    assert run_cli("spec", "init", "--baseline", base, "--out", spec)[0] == 0
    report, stdout, out = gate(run_cli, tmp_path, base, cand, spec)
    # the CLI changed its tools: the gate FAILs on required tools, and now says why to suspect it
    failing = [c["id"] for c in report["checks"] if c["verdict"] == "FAIL"]
    assert "behavior_contract.required_tools[0]" in failing
    (warning,) = [w for w in report["input_warnings"] if w["kind"] == "version_mix"]
    assert "codex_cli" in warning["message"]
    assert "0.40.0 (4 runs)" in warning["message"] and "0.125.0 (1 run)" in warning["message"]
    assert f"input warning: {warning['message']}" in stdout
    shown_everywhere(out, "0.125.0 (1 run)")


def shown_everywhere(out, text: str) -> None:
    """The warning's words are in the terminal text's report files, every format."""
    for fmt, name in FILE_NAMES.items():
        body = (out / name).read_text()
        if fmt == "markdown":
            body = body.replace("\\", "")
        assert text in body, fmt
    sarif = json.loads((out / "report.sarif").read_text())
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert any(text in n["message"]["text"] for n in notes)


def test_claude_versions_are_recorded_and_compared(tmp_path, run_cli, imported):
    base = imported("claude", [CLAUDE / "spotter__short.jsonl"], "base")  # 2.1.38
    cand = imported("claude", [CLAUDE / "codemie__session-196820da.jsonl"], "cand")  # 2.0.76
    trace = json.loads(next(base.glob("*.json")).read_text())
    assert trace["run"]["agent_version"] == "2.1.38"
    report, _, _ = gate(run_cli, tmp_path, base, cand)
    (warning,) = [w for w in report["input_warnings"] if w["kind"] == "version_mix"]
    assert "baseline 2.1.38 (1 run); candidate 2.0.76 (1 run)" in warning["message"]


def test_platforms_differ(tmp_path, run_cli, imported):
    base = imported("claude", [CLAUDE / "spotter__short.jsonl"], "base")
    cand = imported("codex", [CODEX_0125], "cand")
    report, _, out = gate(run_cli, tmp_path, base, cand)
    assert kinds(report)[0] == "platform_mix"
    message = report["input_warnings"][0]["message"]
    assert "baseline claude_code (1 run); candidate codex_cli (1 run)" in message
    shown_everywhere(out, "candidate codex_cli (1 run)")


def _other_recording(path, n: int) -> None:
    """``path`` as if read from another recording that reuses its trace id (an exporter that
    reuses ids): its ``source_hash`` is another."""
    text = path.read_text(encoding="utf-8")
    text, count = re.subn(r'"source_hash": "[0-9a-f]{64}"', f'"source_hash": "{n:064x}"', text)
    assert count == 1, path
    path.write_text(text, encoding="utf-8")


def test_files_sharing_a_trace_id_are_counted_and_named(tmp_path, run_cli):
    cand = tmp_path / "cand"
    cand.mkdir()
    good = sorted((EXAMPLE / "traces" / "good").glob("*.json"))
    for i in range(12):  # 12 files, 3 trace ids, each from 4 recordings (other source hashes)
        _other_recording(export_again(good[i % 3], cand / f"copy-{i:02d}.json", i), i)
    report, _, out = gate(run_cli, tmp_path, EXAMPLE / "traces" / "baseline", cand)
    (warning,) = [w for w in report["input_warnings"] if w["kind"] == "duplicate_trace_id"]
    assert warning["role"] == "candidate"
    assert warning["message"].startswith("12 candidate files share 3 trace ids")
    assert "counted as a separate run (12 candidate runs in all)" in warning["message"]
    assert len(warning["files"]) == 3
    # the decision: a file from another recording still counts as one run
    assert [s["n"] for s in report["statistics"]] == [12]
    shown_everywhere(out, "12 candidate files share 3 trace ids")


def test_a_recording_imported_again_counts_once(tmp_path, run_cli):
    """A session imported again (the same trace id and source hash; another ``exported_at``)
    counted again: 15 imports of one passing run PASSed at n = 15. It is one run, as a
    byte-for-byte copy is; every file is still listed and checked."""
    cand = tmp_path / "cand"
    cand.mkdir()
    good = sorted((EXAMPLE / "traces" / "good").glob("*.json"))
    for i in range(15):
        export_again(good[0], cand / f"again-{i:02d}.json", i)
    report, _, out = gate(run_cli, tmp_path, EXAMPLE / "traces" / "baseline", cand)
    assert report["verdict"] == "INCONCLUSIVE", report["summary"]
    assert [s["n"] for s in report["statistics"]] == [1]
    assert report["checks"][0]["runs_checked"] == 15
    (warning,) = [w for w in report["input_warnings"] if w["kind"] == "duplicate_trace_id"]
    said = "14 of them are copies of another file (byte for byte, or the same recording"
    assert said in warning["message"] and "(1 candidate run in all)" in warning["message"]
    shown_everywhere(out, "the same recording imported again")
    for i, path in enumerate(good):  # every run imported three times: the 20 runs PASS
        for k in range(3):
            export_again(path, cand / f"run-{i:02d}-{k}.json", 100 + 3 * i + k)
    report, _, _ = gate(run_cli, tmp_path, EXAMPLE / "traces" / "baseline", cand)
    assert report["verdict"] == "PASS" and [s["n"] for s in report["statistics"]] == [20]


def test_a_run_does_not_pass_while_one_import_of_it_fails(tmp_path, run_cli):
    """Two imports of one recording that the gate judges apart (another import's options can
    make one fail): the run counts once, and as failing."""
    cand = tmp_path / "cand"
    shutil.copytree(EXAMPLE / "traces" / "good", cand)
    first = sorted(cand.glob("*.json"))[0]
    again = export_again(first, cand / "zz-again.json", 7)
    trace = json.loads(again.read_text(encoding="utf-8"))
    trace["run"]["final_status"] = "error"
    again.write_text(json.dumps(trace, indent=2), encoding="utf-8")
    report, _, _ = gate(run_cli, tmp_path, EXAMPLE / "traces" / "baseline", cand)
    (stats,) = report["statistics"]
    assert (stats["n"], stats["k"]) == (20, 19), stats


def test_byte_for_byte_copies_of_a_run_count_once_in_the_statistics(tmp_path, run_cli):
    """60 copies of one passing run PASSed with only a warning: the statistics counted one
    run 60 times. A copy is the same run: counted once (1 run: INCONCLUSIVE), named in the
    warning; every file is still listed and checked."""
    cand = tmp_path / "cand"
    cand.mkdir()
    (one,) = sorted((EXAMPLE / "traces" / "good").glob("*.json"))[:1]
    for i in range(60):
        shutil.copy(one, cand / f"copy-{i:02d}.json")
    report, _, out = gate(run_cli, tmp_path, EXAMPLE / "traces" / "baseline", cand)
    assert report["verdict"] == "INCONCLUSIVE", report["summary"]
    assert [s["n"] for s in report["statistics"]] == [1]
    assert len(report["runs"]) == 24 + 60 and report["checks"][0]["runs_checked"] == 60
    (warning,) = [w for w in report["input_warnings"] if w["kind"] == "duplicate_trace_id"]
    said = "59 of them are copies of another file (byte for byte, or the same recording"
    assert said in warning["message"] and "(1 candidate run in all)" in warning["message"]
    shown_everywhere(out, "59 of them are copies of another file")
    whole = sorted((EXAMPLE / "traces" / "good").glob("*.json"))  # with the copies: as before
    for path in whole:
        shutil.copy(path, cand)
    report, _, _ = gate(run_cli, tmp_path, EXAMPLE / "traces" / "baseline", cand)
    assert report["verdict"] == "PASS" and [s["n"] for s in report["statistics"]] == [20]


def test_a_candidate_folder_inside_the_baseline_folder_is_named(tmp_path, run_cli):
    """``--baseline traces --candidate traces/candidate``: the baseline read the candidate runs
    too, and the FAIL said its three violating runs were "already in the baseline"."""
    base = tmp_path / "traces"
    shutil.copytree(EXAMPLE / "traces" / "baseline", base)
    shutil.copytree(EXAMPLE / "traces" / "regressed", base / "candidate")
    report, _, out = gate(run_cli, tmp_path, base, base / "candidate")
    (warning,) = [w for w in report["input_warnings"] if w["kind"] == "shared_runs"]
    assert warning["role"] == "candidate"
    assert warning["message"].startswith("20 candidate runs of 20 are baseline runs too")
    assert "is --candidate inside --baseline" in warning["message"]
    assert warning["files"] == sorted(str(p) for p in (base / "candidate").glob("*.json"))[:3]
    assert report["verdict"] == "FAIL"  # the verdict is what it was; the warning says why to doubt
    shown_everywhere(out, "is --candidate inside --baseline")


def test_a_copied_candidate_run_in_the_baseline_is_named(tmp_path, run_cli):
    base = tmp_path / "base"
    shutil.copytree(EXAMPLE / "traces" / "baseline", base)
    (one,) = sorted((EXAMPLE / "traces" / "good").glob("*.json"))[:1]
    shutil.copy(one, base / "copied.json")
    report, _, _ = gate(run_cli, tmp_path, base, EXAMPLE / "traces" / "good")
    (warning,) = [w for w in report["input_warnings"] if w["kind"] == "shared_runs"]
    assert warning["message"].startswith("1 candidate run of 20 is a baseline run too")
    assert warning["files"] == [str(EXAMPLE / "traces" / "good" / one.name)]


def test_a_baseline_session_imported_again_into_the_candidate_is_named(tmp_path, run_cli, imported):
    """``abw import claude --input ~/.claude/projects/<project>`` imports every session of the
    project, the baseline's too: same trace id, other bytes (its exported_at differs)."""
    old, new = CLAUDE / "spotter__short.jsonl", CLAUDE / "spotter__tool_heavy.jsonl"
    base = imported("claude", [old], "base")
    cand = imported("claude", [old, new], "cand")
    (first,) = [json.loads(p.read_text()) for p in base.glob("*.json")]
    (again,) = [
        trace
        for trace in (json.loads(p.read_text()) for p in cand.glob("*.json"))
        if trace["run"]["trace_id"] == first["run"]["trace_id"]
    ]
    assert again["source"]["exported_at"] != first["source"]["exported_at"]  # other bytes
    report, _, _ = gate(run_cli, tmp_path, base, cand)
    (warning,) = [w for w in report["input_warnings"] if w["kind"] == "shared_runs"]
    assert warning["message"].startswith("1 candidate run of 2 is a baseline run too")
    assert "imported again with the new ones?" in warning["message"]


def test_the_baseline_against_itself_is_named_as_such(tmp_path, run_cli):
    base = EXAMPLE / "traces" / "baseline"
    report, stdout, _ = gate(run_cli, tmp_path, base, base)
    (warning,) = [w for w in report["input_warnings"] if w["kind"] == "shared_runs"]
    assert warning["message"].startswith("The candidate is the baseline itself (24 runs")
    assert "never as a gate" in stdout


def test_a_scenario_on_one_side_only_is_named(tmp_path, run_cli, imported):
    base = imported("claude", [CLAUDE / "spotter__short.jsonl"], "base", scenario="fix-Bug")
    cand = imported("claude", [CLAUDE / "spotter__tool_heavy.jsonl"], "cand", scenario="fix-Bgu")
    report, _, out = gate(run_cli, tmp_path, base, cand)
    one_sided = [w for w in report["input_warnings"] if w["kind"] == "one_sided_scenario"]
    assert [(w["scenario_id"], w["role"]) for w in one_sided] == [
        ("fix-Bug", "baseline"),
        ("fix-Bgu", "candidate"),
    ]
    assert "Scenario fix-Bug has 1 baseline run and no candidate run" in one_sided[0]["message"]
    shown_everywhere(out, "no candidate run: nothing of it was gated")


def test_a_baseline_of_unrelated_sessions_is_named(tmp_path, run_cli, imported):
    sessions = [CLAUDE / f"{n}.jsonl" for n in ("spotter__short", "agentcmd__full-session-four")]
    sessions.append(CLAUDE / "codemie__session-196820da.jsonl")
    base = imported("claude", sessions, "base", scenario="my-agent")
    report, _, out = gate(run_cli, tmp_path, base, base)
    (warning,) = [w for w in report["input_warnings"] if w["kind"] == "baseline_spread"]
    assert warning["scenario_id"] == "my-agent"
    assert "past the fail threshold 0.25" in warning["message"]
    shown_everywhere(out, "not repeated runs of one")


def test_ordinary_inputs_give_no_warning_and_the_verdict_is_unchanged(tmp_path, run_cli):
    report, stdout, _ = gate(
        run_cli, tmp_path, EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / "good"
    )
    assert report["input_warnings"] == [] and report["verdict"] == "PASS"
    assert "input warning" not in stdout


def test_a_version_warning_names_no_other_platforms_renamed_tools(tmp_path, run_cli, imported):
    """One scenario with Codex and Claude Code runs on both sides, both upgraded: the Claude
    Code warning named Codex's renamed tools (new exec_command, missing shell), which Claude's
    runs never call; in a scenario that mixes platforms they are no one platform's."""
    versions = CORPUS / "codex-live-versions"
    claude = CORPUS / "claude-code-live-versions"
    base = imported("codex", sorted(versions.glob("tools-0.47.0__*.jsonl")), "base")
    imported("claude", sorted((claude / "2.0.76").glob("*.jsonl"))[:1], "base-claude")
    cand = imported("codex", sorted(versions.glob("tools-0.142.4__*.jsonl")), "cand")
    imported("claude", sorted((claude / "2.1.100").glob("*.jsonl"))[:1], "cand-claude")
    for side, extra in ((base, "base-claude"), (cand, "cand-claude")):
        for path in (tmp_path / extra).glob("*.json"):
            shutil.move(path, side / f"claude-{path.name}")
    spec = tmp_path / "spec.yaml"
    assert run_cli("spec", "init", "--baseline", base, "--out", spec)[0] == 0
    report, _, _ = gate(run_cli, tmp_path, base, cand, spec)
    warnings = [w["message"] for w in report["input_warnings"] if w["kind"] == "version_mix"]
    assert len(warnings) == 2
    for message in warnings:
        assert "exec_command, update_plan" not in message and "missing shell" not in message


def test_platforms_swapped_between_scenarios_are_named(tmp_path, run_cli, imported):
    """Both sides hold Claude Code and Codex runs, but scenario a's baseline is Claude Code's
    and its candidate Codex's (and b the other way): no platform warning was given, since the
    sides as wholes hold the same platforms."""
    claude = [CLAUDE / "spotter__short.jsonl"]
    base_a = imported("claude", claude, "base-a", scenario="a")
    base_b = imported("codex", [CODEX_0125], "base-b", scenario="b")
    cand_a = imported("codex", [CODEX_0125], "cand-a", scenario="a")
    cand_b = imported("claude", claude, "cand-b", scenario="b")
    base, cand = tmp_path / "base", tmp_path / "cand"
    for side, parts in ((base, (base_a, base_b)), (cand, (cand_a, cand_b))):
        side.mkdir()
        for part in parts:
            for path in part.glob("*.json"):
                shutil.move(path, side / f"{part.name}-{path.name}")
    report, _, _ = gate(run_cli, tmp_path, base, cand)
    (warning,) = [w for w in report["input_warnings"] if w["kind"] == "platform_mix"]
    assert "scenario a: baseline claude_code, candidate codex_cli (1 run)" in warning["message"]
    assert "scenario b: baseline codex_cli, candidate claude_code (1 run)" in warning["message"]
