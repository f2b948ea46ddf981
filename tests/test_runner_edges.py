"""Edges of the runners around the gate: ``abw sample`` scenarios files and runs, the MCP
server's tools, and the pytest plugin, each driven as a user drives it."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from tests.conftest import CORPUS, REPO
from tests.test_mcp import drive, text

pytest_plugins = ("pytester",)

REFUND = REPO / "examples" / "refund-policy"
BASELINE, SPEC = REFUND / "traces" / "baseline", REFUND / "behavior.yaml"
SESSION = CORPUS / "claude-code" / "spotter__short.jsonl"
ROLLOUT = CORPUS / "codex" / "simonw-cct__sample_codex_session.jsonl"


def _sample(run_cli, scenarios: Path, out: Path) -> tuple[int, str, str]:
    return run_cli(
        "sample", "--scenarios", scenarios, "--baseline", BASELINE, "--spec", SPEC,
        "--out", out, "--max-runs", "1",
    )  # fmt: skip


def _scenario(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "scenarios.yaml"
    path.write_text("scenarios:\n  - id: a\n" + body, encoding="utf-8")
    return path


def test_help_in_import_args_is_refused_not_a_silent_exit_0(tmp_path, run_cli):
    copy = f"cp {shlex.quote(str(SESSION))} {{transcript}}"
    body = f"    run: {json.dumps(copy)}\n    importer: claude\n    import_args: [--help]\n"
    code, stdout, stderr = _sample(run_cli, _scenario(tmp_path, body), tmp_path / "out")
    assert code == 2, stdout + stderr
    assert "Usage:" not in stdout
    assert stderr.count("\n") == 1
    assert "scenarios.yaml:5: scenarios.0.import_args:" in stderr and "--help" in stderr
    assert not (tmp_path / "out").exists()


def test_a_missing_cwd_names_the_scenario_field_before_any_run(tmp_path, run_cli):
    marker = tmp_path / "ran"
    body = f"    run: touch {shlex.quote(str(marker))} {{transcript}}\n    importer: claude\n"
    scenarios = _scenario(tmp_path, body + "    cwd: agent/workdir\n")
    code, stdout, stderr = _sample(run_cli, scenarios, tmp_path / "out")
    assert code == 2, stdout + stderr
    assert stderr.count("\n") == 1 and "cannot write" not in stderr
    assert "scenarios.yaml:5: scenarios.0.cwd: no such folder" in stderr
    assert not marker.exists() and not (tmp_path / "out").exists()


def test_a_transcript_that_does_not_import_leaves_no_path_in_the_trace(tmp_path, run_cli):
    # the agent left a Codex rollout in its project folder, where a Claude session was expected
    project = tmp_path / "home" / ".claude" / "projects" / "-home-alice-acme-merger"
    project.mkdir(parents=True)
    copy = f"cp {shlex.quote(str(ROLLOUT))} {project}/$ABW_RUN.jsonl"
    body = f"    run: {json.dumps(copy)}\n    transcript: home/.claude/projects/*/*.jsonl\n"
    scenarios = _scenario(tmp_path, body + "    importer: claude\n")
    out = tmp_path / "out"
    code, stdout, stderr = _sample(run_cli, scenarios, out)
    assert code == 1, stdout + stderr
    (trace,) = out.rglob("*.json")
    problem = json.loads(trace.read_text())["run"]["execution_problem"]
    assert problem.startswith("the transcript did not import (1.jsonl:")
    assert "acme-merger" not in trace.read_text() and str(tmp_path) not in trace.read_text()


def test_mcp_render_with_an_unknown_format_is_one_clear_tool_error():
    async def steps(session):
        return await session.call_tool("abw_render", {"format": "pdf", "report": "x.json"})

    result = drive(steps)
    assert result.is_error
    assert "format: unknown report format 'pdf' (known: json, html" in text(result)


def test_mcp_explain_of_an_unknown_check_names_the_tool_argument(tmp_path):
    """The MCP tool said ``CHECK_ID: no check ...``: the CLI's argument, not the tool's."""
    candidate = str(REFUND / "traces" / "good")
    arguments = {"baseline": str(BASELINE), "candidate": candidate, "spec": str(SPEC)}

    async def steps(session):
        return await session.call_tool("abw_explain", {**arguments, "check_id": "nope"})

    result = drive(steps)
    assert result.is_error and "check_id: no check 'nope' in the report" in text(result)


def test_mcp_a_nul_in_a_path_is_one_clear_error_not_a_bare_failure():
    async def steps(session):
        return [
            await session.call_tool("abw_fingerprint", {"trace": "run\x00.json"}),
            await session.call_tool("abw_render", {"report": "gate\x00.json"}),
            await session.call_tool("abw_validate", {"paths": ["a\x00.json", "missing.json"]}),
        ]

    fingerprint, render, validate = drive(steps)
    assert fingerprint.is_error and "trace: a path cannot hold a NUL character" in text(fingerprint)
    assert render.is_error and "report: a path cannot hold a NUL character" in text(render)
    assert not validate.is_error  # one problem per file, the other files still checked
    files = json.loads(text(validate))["files"]
    assert [f["problems"] for f in files] == [
        ["paths: a path cannot hold a NUL character"],
        ["missing.json: no such file"],
    ]


def _plugin_test(pytester, body: str) -> None:
    pytester.makepyfile(
        test_agent=f"import pytest\nfrom pathlib import Path\nR = Path({str(REFUND)!r})\n{body}"
    )


def test_plugin_keeps_one_report_folder_per_parametrized_test(pytester, tmp_path):
    _plugin_test(
        pytester,
        """
@pytest.mark.abw(baseline=R / "traces" / "baseline", spec=R / "behavior.yaml")
@pytest.mark.parametrize("model", ["a/b", "a_b"])
def test_model(abw_gate, model):
    abw_gate.report(R / "traces" / ("good" if model == "a/b" else "regressed"))
""",
    )
    reports = tmp_path / "reports"
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", f"--abw-report-dir={reports}")
    result.assert_outcomes(passed=2)
    saved = sorted(json.loads(p.read_text())["verdict"] for p in reports.rglob("*.json"))
    assert saved == ["FAIL", "PASS"]


def test_plugin_bad_input_fails_the_test_with_one_line(pytester):
    _plugin_test(
        pytester,
        """
@pytest.mark.abw(baseline=R / "traces" / "baseline", spec=R / "behavior.yaml")
def test_missing(abw_gate):
    abw_gate(R / "traces" / "not-recorded-yet")
""",
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "abw_gate: " in output and "not-recorded-yet: no such folder" in output
    assert "traceio.py" not in output and "AbwInputError" not in output


def test_adapter_kit_runs_on_conversation_folder_samples():
    from abw.adapter_kit import run_adapter_kit

    folders = sorted(p for p in (CORPUS / "openhands-v1").iterdir() if p.is_dir())
    report = run_adapter_kit("openhands", folders)
    assert report.ok, report.problems
    assert (report.samples, report.traces) == (len(folders), len(folders))
