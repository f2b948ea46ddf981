"""The Action end to end: entrypoint.py as a subprocess runs the real gate in a simulated runner
(INPUT_* variables, event file, output and summary files, a workspace) and publishes to a fake
GitHub REST API on 127.0.0.1 through the real PyGithub client."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from action_env import HEAD_SHA, REPO, write_gate_workspace

EXPECTED = {
    "PASS": ("success", 0),
    "WARN": ("neutral", 0),
    "FAIL": ("failure", 1),
    "INCONCLUSIVE": ("action_required", 3),
}


@pytest.mark.parametrize("verdict", list(EXPECTED))
def test_gate_verdict_gives_mapped_conclusion_and_exit_code(fake, runner, verdict):
    inputs = write_gate_workspace(runner.workspace, verdict)
    result = runner.run(inputs)
    conclusion, code = EXPECTED[verdict]
    assert result.code == code, result.stdout + result.stderr
    assert result.stderr == ""
    out = result.outputs
    assert out["verdict"] == verdict and out["conclusion"] == conclusion
    assert out["exit-code"] == str(code)
    assert out["report-json"] == "abw-report/gate-report.json"
    for name in ("report-json", "sarif", "junit", "html", "markdown"):
        assert (runner.workspace / out[name]).is_file(), name
    report = json.loads((runner.workspace / out["report-json"]).read_text())
    assert report["verdict"] == verdict
    assert report["inputs"]["spec_file"] == "behavior.yaml"  # workspace-relative, no runner paths
    sarif = (runner.workspace / out["sarif"]).read_text()
    assert str(runner.workspace) not in sarif
    (run,) = fake.check_runs.values()
    assert run["conclusion"] == conclusion and run["head_sha"] == HEAD_SHA
    assert run["name"] == "abw gate"
    assert f"**{verdict}**" in run["output"]["summary"]
    assert f"**{verdict}**" in result.summary
    (comment,) = fake.comments.values()
    assert f"**{verdict}**" in comment["body"]


def test_fail_annotations_point_at_trace_lines_in_batches(fake, runner):
    inputs = write_gate_workspace(runner.workspace, "FAIL", extra_runs=55)  # 60 violating runs
    result = runner.run(inputs)
    assert result.code == 1
    (run,) = fake.check_runs.values()
    order = [a for a in run["annotations"] if "required_order" in a["title"]]
    assert len(order) == 60
    assert len(run["annotations"]) > 50
    sizes = [
        len(r.body["output"]["annotations"])
        for r in fake.calls("POST", "check-runs$") + fake.calls("PATCH", r"check-runs/\d+$")
    ]
    assert (
        sizes[0] == 50 and all(0 < s <= 50 for s in sizes) and sum(sizes) == len(run["annotations"])
    )
    first = order[0]
    assert first["path"] == "traces/candidate/c000.json"
    assert first["annotation_level"] == "failure"
    # the annotation's line is the line of the violating span in the trace file
    lines = (runner.workspace / first["path"]).read_text().splitlines()
    assert '"name": "refund_commit"' in lines[first["start_line"] - 1]
    assert "::error file=traces/candidate/c000.json,line=" in result.stdout


def test_second_run_edits_the_comment_instead_of_adding_one(fake, runner):
    inputs = write_gate_workspace(runner.workspace, "FAIL")
    assert runner.run(inputs).code == 1
    (first_id,) = fake.comments
    # the candidate is fixed: same PR, new commit, new verdict
    for path in (runner.workspace / "traces" / "candidate").glob("*.json"):
        path.unlink()
    write_gate_workspace(runner.workspace, "PASS")
    runner.head_sha = "e" * 40  # a new commit: its runs start a new sequence
    second = runner.run(inputs)
    assert second.code == 0
    assert list(fake.comments) == [first_id]
    assert "**PASS**" in fake.comments[first_id]["body"]
    assert len(fake.calls("POST", r"/issues/7/comments$")) == 1
    assert len(fake.calls("PATCH", rf"/issues/comments/{first_id}$")) == 1
    assert len(fake.check_runs) == 2  # one check run per gate run


def test_403_degrades_to_annotations_summary_and_files(fake, runner):
    for method, path in (("POST", "check-runs$"), ("GET", r"/issues/7$")):
        fake.fail(method, path, 403, "Resource not accessible by integration")
    inputs = write_gate_workspace(runner.workspace, "FAIL")
    result = runner.run(inputs)
    assert result.code == 1
    assert result.stdout.count("::notice title=abw%3A read-only token::") == 2
    assert "::error file=traces/candidate/" in result.stdout
    assert "**FAIL**" in result.summary
    assert result.outputs["verdict"] == "FAIL"
    assert not fake.check_runs and not fake.comments


def test_500_is_retried_and_the_run_completes(fake, runner):
    fake.fail("POST", "check-runs$", 500, "Internal Server Error", times=2)
    fake.fail("POST", r"/issues/7/comments$", 503, "Service Unavailable")
    inputs = write_gate_workspace(runner.workspace, "PASS")
    result = runner.run(inputs)
    assert result.code == 0
    assert len(fake.calls("POST", "check-runs$")) == 3
    assert len(fake.calls("POST", r"/issues/7/comments$")) == 2
    assert len(fake.check_runs) == 1 and len(fake.comments) == 1


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("baseline", "../outside"),
        ("candidate", "traces/../../outside"),
        ("spec", "/etc/passwd"),
        ("output-dir", "../../reports"),
    ],
)
def test_path_escaping_the_workspace_is_refused(fake, runner, tmp_path, name, value):
    (tmp_path / "outside").mkdir(exist_ok=True)
    inputs = write_gate_workspace(runner.workspace, "PASS")
    inputs[name] = value
    result = runner.run(inputs)
    assert result.code == 2
    assert "outside the workspace" in result.stderr and name in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert "::error title=abw%3A invalid input::" in result.stdout
    assert not fake.requests  # nothing published for invalid input
    assert not (tmp_path / "reports").exists()


def test_symlink_out_of_the_workspace_is_refused(fake, runner, tmp_path):
    inputs = write_gate_workspace(runner.workspace, "PASS")
    outside = tmp_path / "elsewhere"
    (runner.workspace / "traces" / "candidate").rename(outside)
    (runner.workspace / "traces" / "candidate").symlink_to(outside)
    result = runner.run(inputs)
    assert result.code == 2 and "outside the workspace" in result.stderr


def test_bad_spec_is_one_line_exit_2(fake, runner):
    inputs = write_gate_workspace(runner.workspace, "PASS")
    spec = runner.workspace / "behavior.yaml"
    spec.write_text(spec.read_text() + "surprise: 1\n")
    result = runner.run(inputs)
    assert result.code == 2
    assert "behavior.yaml" in result.stderr and "Traceback" not in result.stderr
    assert not fake.requests


@pytest.mark.parametrize(("fail_on", "code"), [("fail", 0), ("warn", 3), ("never", 0)])
def test_fail_on_controls_the_exit_code_only(fake, runner, fail_on, code):
    inputs = write_gate_workspace(runner.workspace, "INCONCLUSIVE")
    result = runner.run({**inputs, "fail-on": fail_on})
    assert result.code == code
    assert next(iter(fake.check_runs.values()))["conclusion"] == "action_required"


def test_warn_fails_the_step_with_fail_on_warn(fake, runner):
    inputs = write_gate_workspace(runner.workspace, "WARN")
    assert runner.run({**inputs, "fail-on": "warn"}).code == 1


def test_no_token_still_gates(fake, runner):
    inputs = write_gate_workspace(runner.workspace, "FAIL")
    result = runner.run(inputs, **{"INPUT_GITHUB-TOKEN": ""})
    assert result.code == 1
    assert "check run skipped: no github-token" in result.stdout
    assert not fake.requests


def test_output_dir_is_configurable_and_reports_are_deterministic(fake, runner):
    inputs = write_gate_workspace(runner.workspace, "FAIL")
    runner.run({**inputs, "output-dir": "out/a", "comment": "off", "check-run": "false"})
    runner.run({**inputs, "output-dir": "out/b", "comment": "off", "check-run": "false"})
    a, b = (runner.workspace / "out" / "a"), (runner.workspace / "out" / "b")
    for name in ("gate-report.json", "report.sarif", "report.md"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert not fake.requests


def test_published_report_mode_uses_the_runners_workflow_run_event(fake, runner):
    """Workflow B of the two-workflow pattern: publish a report and event from artifacts; the
    commit comes from the runner's workflow_run event, the artifact only names the PR."""
    inputs = write_gate_workspace(runner.workspace, "FAIL")
    runner.run({**inputs, "comment": "off", "check-run": "false"})
    artifacts = runner.workspace / "artifacts"
    artifacts.mkdir()
    (runner.workspace / "abw-report" / "gate-report.json").rename(artifacts / "gate-report.json")
    event = {"pull_request": {"number": 7, "head": {"sha": "9" * 40}}, "number": 7}
    (artifacts / "event.json").write_text(json.dumps(event))
    fake.pull_heads = {7: ("9" * 40, "someone/agents")}
    runner.event_name = "workflow_run"
    runner.payload = {
        "workflow_run": {
            "head_sha": "9" * 40,
            "head_repository": {"full_name": "someone/agents"},
            "pull_requests": [],
        }
    }
    result = runner.run(
        {
            "report": "artifacts/gate-report.json",
            "event-file": "artifacts/event.json",
            "fail-on": "never",
        }
    )
    assert result.code == 0 and result.outputs["verdict"] == "FAIL"
    (run,) = fake.check_runs.values()
    assert run["head_sha"] == "9" * 40 and run["conclusion"] == "failure"
    assert len(fake.comments) == 1


def test_tampered_report_artifact_is_refused(fake, runner):
    (runner.workspace / "r.json").write_text(json.dumps({"verdict": "PASS", "evil": 1}))
    result = runner.run({"report": "r.json"})
    assert (
        result.code == 2 and "expected schema_version gate-report/v0, found None" in result.stderr
    )
    assert not fake.requests


def test_a_report_artifact_with_a_wrong_field_is_refused_naming_its_line(fake, runner):
    from abw.gating import report_json, run_gate

    example = REPO / "examples" / "refund-policy"
    report = run_gate(
        example / "traces" / "baseline", example / "traces" / "good", example / "behavior.yaml"
    )
    text = report_json(report).removesuffix('"PASS"\n}\n') + '"MAYBE"\n}\n'
    (runner.workspace / "r.json").write_text(text)
    line = text.count("\n") - 1  # the report's own verdict, its last member
    result = runner.run({"report": "r.json"})
    assert result.code == 2 and f"r.json:{line}: verdict: not a gate-report/v0" in result.stderr
    assert not fake.requests


def test_an_input_error_is_annotated_on_its_file_and_line(fake, runner):
    """The spec's wrong value is shown on its line of the pull request, not only in the log."""
    inputs = write_gate_workspace(runner.workspace, "PASS")
    spec = runner.workspace / "behavior.yaml"
    text = spec.read_text(encoding="utf-8").replace(
        "  max_path_length: 8\n", "  max_path_length: many\n"
    )
    spec.write_text(text, encoding="utf-8")
    line = text.splitlines().index("  max_path_length: many") + 1
    result = runner.run(inputs)
    assert result.code == 2
    assert f"::error file=behavior.yaml,line={line},title=abw%3A invalid input::" in result.stdout
    outside = runner.run({**inputs, "spec": "../elsewhere.yaml"})  # never a path outside
    assert outside.code == 2 and "::error title=" in outside.stdout, outside.stdout


def test_paths_are_taken_from_github_workspace_not_the_current_folder(fake, runner, tmp_path):
    inputs = write_gate_workspace(runner.workspace, "PASS")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = runner.run(inputs, cwd=elsewhere)
    assert result.code == 0, result.stderr
    assert (runner.workspace / "abw-report" / "gate-report.json").is_file()
    assert not any(elsewhere.iterdir())


EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "refund-policy"


@pytest.mark.parametrize(
    ("candidate", "verdict"),
    [("good", "PASS"), ("good", "WARN"), ("regressed", "FAIL"), ("small", "INCONCLUSIVE")],
)
def test_refund_policy_example_through_the_action(fake, runner, candidate, verdict):
    """The repository's example, copied into the workspace as a user would commit it."""
    for role in ("baseline", candidate):
        shutil.copytree(EXAMPLE / "traces" / role, runner.workspace / "traces" / role)
    spec = (EXAMPLE / "behavior.yaml").read_text(encoding="utf-8")
    if verdict == "WARN":  # the good candidate's fingerprint distance (~0.14) past a tight warn
        spec = spec.replace("fingerprint_distance_warn: 1.0", "fingerprint_distance_warn: 0.1")
        assert "fingerprint_distance_warn: 0.1" in spec
    (runner.workspace / "behavior.yaml").write_text(spec, encoding="utf-8")
    result = runner.run(
        {"baseline": "traces/baseline", "candidate": f"traces/{candidate}", "spec": "behavior.yaml"}
    )
    conclusion, code = EXPECTED[verdict]
    assert result.code == code, result.stdout + result.stderr
    assert result.outputs["verdict"] == verdict
    (run,) = fake.check_runs.values()
    assert run["conclusion"] == conclusion and run["head_sha"] == HEAD_SHA
    if verdict == "FAIL":
        order = [a for a in run["annotations"] if "required_order" in a["title"]]
        assert order and all(a["path"].startswith("traces/regressed/") for a in order)
        assert all(a["start_line"] > 1 for a in order)
    (comment,) = fake.comments.values()
    assert f"**{verdict}**" in comment["body"]


def test_the_action_never_imports_torch(fake, runner, tmp_path):
    inputs = write_gate_workspace(runner.workspace, "FAIL")
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import runpy, sys\n"
        f"sys.argv = [{str(REPO / 'entrypoint.py')!r}]\n"
        "try:\n"
        f"    runpy.run_path({str(REPO / 'entrypoint.py')!r}, run_name='__main__')\n"
        "except SystemExit as exit:\n"
        "    heavy = {'torch', 'transformers'} & set(sys.modules)\n"
        "    print('HEAVY', sorted(heavy))\n"
        "    raise\n"
    )
    result = runner.run(inputs, script=probe)
    assert result.code == 1
    assert "HEAVY []" in result.stdout


def test_output_dir_that_is_a_file_is_refused(fake, runner):
    inputs = write_gate_workspace(runner.workspace, "PASS")
    (runner.workspace / "taken").write_text("x")
    result = runner.run({**inputs, "output-dir": "taken"})
    assert result.code == 2 and "output-dir" in result.stderr and "Traceback" not in result.stderr
    assert not fake.requests


def test_folders_the_action_creates_belong_to_the_workspace_owner(fake, runner):
    """The container runs as root: the report files were handed to the workspace's owner, but
    a folder created above ``output-dir`` (``reports/`` of ``reports/abw``) stayed root's, and
    the owner could not remove what the Action wrote (a self-hosted runner's next checkout)."""
    import os

    if os.geteuid() != 0:
        pytest.skip("only root can give files to another owner")
    inputs = write_gate_workspace(runner.workspace, "FAIL")
    os.chown(runner.workspace, 1001, 1001)
    runner.run({**inputs, "output-dir": "reports/abw", "comment": "off", "check-run": "false"})
    made = [runner.workspace / "reports", *(runner.workspace / "reports").rglob("*")]
    assert len(made) > 2
    assert {(p.stat().st_uid, p.stat().st_gid) for p in made} == {(1001, 1001)}
