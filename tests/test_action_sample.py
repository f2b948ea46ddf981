"""The Action's sampling mode end to end: entrypoint.py in a simulated runner runs the stand-in
agent through `abw sample`, then gates and publishes the recorded runs to a fake GitHub API."""

from __future__ import annotations

import json
import shlex
import shutil
import sys

from action_env import REPO, Runner

EXAMPLE = REPO / "examples" / "refund-policy"
AGENT = REPO / "examples" / "sample" / "claude_agent.py"
LABELS = "classify,lookup_order,policy_check:guardrail,refund_commit"
FIELDS = "decision,order_id,refund_amount,currency,fraud_check_passed"


def workspace(runner: Runner, agent_args: str) -> dict[str, str]:
    shutil.copytree(EXAMPLE / "traces" / "baseline", runner.workspace / "traces" / "baseline")
    shutil.copy(EXAMPLE / "behavior.yaml", runner.workspace / "behavior.yaml")
    run = f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))} {agent_args}"
    (runner.workspace / "scenarios.yaml").write_text(
        "scenarios:\n"
        "  - id: refund-policy\n"
        f"    run: {json.dumps(run + ' --transcript {transcript}')}\n"
        "    importer: claude\n"
        f'    import_args: [--bash-tool-labels, "{LABELS}", --output-fields, "{FIELDS}"]\n',
        encoding="utf-8",
    )
    return {
        "scenarios": "scenarios.yaml",
        "baseline": "traces/baseline",
        "candidate": "traces/candidate",
        "spec": "behavior.yaml",
    }


def test_sampling_mode_records_runs_then_gates_and_publishes(fake, tmp_path):
    import os

    runner = Runner(tmp_path, fake.url)
    inputs = workspace(runner, "--seed 4")
    root = os.geteuid() == 0
    if root:  # the container runs as root: what it records is the workspace owner's
        os.chown(runner.workspace, 1001, 1001)
    result = runner.run(inputs)
    assert result.code == 0, result.stdout + result.stderr
    candidate = runner.workspace / "traces" / "candidate"
    owners = {(p.stat().st_uid, p.stat().st_gid) for p in [candidate, *candidate.rglob("*")]}
    assert owners == {(1001, 1001)} or not root
    assert result.outputs["verdict"] == "PASS"
    recorded = sorted((runner.workspace / "traces" / "candidate" / "refund-policy").iterdir())
    assert len(recorded) >= 2
    assert f"refund-policy #{len(recorded)}: passed" in result.stdout
    assert "abw sample: " in result.stdout and "refund-policy: PASS (decided)" in result.stdout
    report = json.loads((runner.workspace / result.outputs["report-json"]).read_text())
    files = [t["file"] for t in report["inputs"]["traces"] if t["role"] == "candidate"]
    assert files == [f"traces/candidate/refund-policy/{p.name}" for p in recorded]
    (run,) = fake.check_runs.values()
    assert run["conclusion"] == "success"


def test_sampling_mode_budget_and_an_agent_writing_workflow_commands(fake, tmp_path):
    runner = Runner(tmp_path, fake.url)
    inputs = workspace(runner, "--crash 1; echo '::error::pwned' >&2; exit 1 #")
    result = runner.run({**inputs, "budget-runs": "1"})
    assert result.code == 1, result.stdout + result.stderr
    assert "did not complete: the command exited with code 1 (stderr: " in result.stdout
    assert "pwned" in result.stdout and "::error::pwned" not in result.stdout


def test_sampling_inputs_are_checked(fake, tmp_path):
    runner = Runner(tmp_path, fake.url)
    inputs = workspace(runner, "")
    result = runner.run({**inputs, "max-runs": "many"})
    assert result.code == 2
    assert "max-runs" in result.stdout and "not a whole number" in result.stdout
    assert not (runner.workspace / "traces" / "candidate").exists()
