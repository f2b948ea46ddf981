"""docs/guide.md, followed as written: its walk-through runs on the real Claude Code sessions of
tests/corpus and gives a report that explains itself, not a wall of FAILs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

GUIDE = REPO / "docs" / "guide.md"
MARKER = "<!-- guide-walkthrough:"


def walkthrough() -> str:
    """The shell block that follows the walk-through marker in the guide."""
    text = GUIDE.read_text()
    after = text[text.index(MARKER) :]
    match = re.search(r"```sh\n(.*?)```", after, re.S)
    assert match, "no sh block after the walk-through marker"
    return match.group(1)


@pytest.fixture(scope="module")
def followed(tmp_path_factory) -> Path:
    """Run the block from a folder that sees the repository's tests/ like its root does."""
    root = tmp_path_factory.mktemp("newcomer")
    (root / "tests").symlink_to(REPO / "tests")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env["ABW_NO_PROGRESS"] = "1"
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", walkthrough()],
        cwd=root, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (root / "stdout.txt").write_text(done.stdout)
    return root / "first-hour"


def test_the_readme_links_the_guide_first():
    readme = REPO / "README.md"
    links = re.findall(r"\]\((docs/[^)]+)\)", readme.read_text())
    assert links[0] == "docs/guide.md"


def test_the_walkthrough_gives_a_meaningful_report(followed):
    report = json.loads((followed / "gate-report.json").read_text())
    verdicts = {c["id"]: c["verdict"] for c in report["checks"]}
    # not a wall of FAILs: every hard and shape check passes; only the sample size is missing
    assert report["verdict"] == "INCONCLUSIVE"
    assert "FAIL" not in verdicts.values()
    scenarios = sorted({r["scenario_id"] for r in report["runs"]})
    assert len(scenarios) == 6
    for sid in scenarios:
        assert verdicts[f"sample_sufficiency.confidence_sequence@{sid}"] == "INCONCLUSIVE"
        assert verdicts[f"diff_shape.path_edit_distance@{sid}"] == "PASS"
    rate = [
        c for c in report["checks"] if c["id"].startswith("sample_sufficiency.confidence_sequence@")
    ]
    assert all("Run about 14 more passing runs." in c["message"] for c in rate)
    # the baseline against itself, as the guide does it on purpose, and says so
    (warning,) = report["input_warnings"]
    assert warning["kind"] == "shared_runs"
    assert warning["message"].startswith("The candidate is the baseline itself (6 runs")
    stdout = (followed.parent / "stdout.txt").read_text()
    assert "from 6 baseline runs" in stdout.splitlines()[0]  # abw spec init
    assert stdout.splitlines()[1].startswith("INCONCLUSIVE: not enough evidence")
    assert (followed / "reports" / "report.html").is_file()


def test_what_the_guide_says_of_the_walkthrough_is_what_it_prints():
    text = GUIDE.read_text()
    assert '"Run about 14 more passing runs"' in text


def test_one_scenario_for_unrelated_sessions_is_explained(followed, run_cli):
    """The mistake the guide warns about: the same sessions under one --scenario-id."""
    base = followed / "traces" / "one-scenario"
    for raw in sorted((followed / "traces" / "baseline").glob("*.json")):
        trace = json.loads(raw.read_text())
        trace["run"]["scenario_id"] = "my-agent"
        base.mkdir(parents=True, exist_ok=True)
        (base / raw.name).write_text(json.dumps(trace))
    code, out, _ = run_cli(
        "gate", "--baseline", base, "--candidate", base, "--spec", followed / "behavior.yaml"
    )
    assert code == 3, out
    assert any(
        line.startswith(
            "  input warning: The baseline runs of scenario my-agent differ from each other by 0.79"
        )
        for line in out.splitlines()
    ), out


def test_the_runs_per_scenario_the_guide_quotes_follow_from_the_default_rule():
    from abw.gating.sample_sufficiency import mixture_plan
    from abw.models.spec import Thresholds
    from abw.stats import mixture_runs_needed

    text = " ".join(GUIDE.read_text().split())
    quoted = re.search(
        r"\*\*(\d+) runs at τ = 0\.7, (\d+) at τ = 0\.8 and (\d+) at τ = 0\.9\*\*", text
    )
    assert quoted, "the guide's table of runs is gone"
    needed = [
        mixture_runs_needed(mixture_plan(Thresholds(min_wilson_pass_rate=t)), 0, 0)
        for t in (0.7, 0.8, 0.9)
    ]
    assert [int(n) for n in quoted.groups()] == needed
    assert Thresholds().min_wilson_pass_rate == 0.7  # "0.7 by default"
