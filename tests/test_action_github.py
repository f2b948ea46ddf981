"""The entrypoint as a subprocess, publishing a gate report to a fake GitHub API over 127.0.0.1.

These runs use the ``report`` input (publish an existing gate-report.json), so they exercise the
GitHub side alone: check run, annotations in batches, sticky comment, forks, faults, truncation.
The gate itself runs in tests/test_action_entrypoint.py.
"""

from __future__ import annotations

import pytest
from action_env import HEAD_SHA, Runner, make_report, publish


@pytest.mark.parametrize(
    ("verdict", "conclusion", "code"),
    [
        ("PASS", "success", 0),
        ("WARN", "neutral", 0),
        ("FAIL", "failure", 1),
        ("INCONCLUSIVE", "action_required", 3),
    ],
)
def test_published_report_maps_verdict_to_conclusion_and_exit_code(
    fake, runner, verdict, conclusion, code
):
    result = publish(runner, make_report(verdict))
    assert result.code == code, result.stdout + result.stderr
    assert result.outputs["verdict"] == verdict
    assert result.outputs["conclusion"] == conclusion
    (run,) = fake.check_runs.values()
    assert run["conclusion"] == conclusion and run["status"] == "completed"
    assert run["head_sha"] == HEAD_SHA  # the PR head from the event, not GITHUB_SHA
    assert run["details_url"] == "https://github.example/octo/agents/actions/runs/4242"
    assert run["output"]["title"].startswith(verdict)
    # the token is masked before anything else is printed
    assert result.stdout.splitlines()[0] == "::add-mask::ghs_faketoken123"
    assert "ghs_faketoken123" not in result.stdout.replace("::add-mask::ghs_faketoken123", "")
    assert fake.calls("GET", r"/api/v3/repos/octo/agents$")  # base URL from GITHUB_API_URL


def test_custom_conclusion_mapping(fake, runner):
    result = publish(runner, make_report("WARN"), **{"conclusion-warn": "success"})
    assert result.code == 0
    assert next(iter(fake.check_runs.values()))["conclusion"] == "success"


def test_more_than_fifty_annotations_go_in_batches(fake, runner):
    result = publish(runner, make_report("FAIL", violations=120))
    assert result.code == 1
    (run,) = fake.check_runs.values()
    assert len(run["annotations"]) == 120
    posts = fake.calls("POST", r"/check-runs$")
    patches = fake.calls("PATCH", r"/check-runs/\d+$")
    assert len(posts) == 1 and len(patches) == 2
    sizes = [len(r.body["output"]["annotations"]) for r in posts + patches]
    assert sizes == [50, 50, 20]
    first = run["annotations"][0]
    assert first["path"] == "traces/candidate/run-0000.json"
    assert first["start_line"] == 9 and first["annotation_level"] == "failure"
    # only the top 10 errors become workflow-command annotations in the log
    assert result.stdout.count("::error file=") == 10


def test_second_run_edits_the_sticky_comment(fake, runner):
    fake.add_comment(7, "an unrelated human comment")
    first = publish(runner, make_report("FAIL"))
    assert first.code == 1
    ours = [c for c in fake.comments.values() if c["body"].startswith("<!-- abw/gate:report")]
    assert len(ours) == 1
    assert "comment created" in first.stdout

    again = publish(runner, make_report("FAIL"))  # same report: on-change skips the edit
    assert "comment unchanged" in again.stdout
    assert not fake.calls("PATCH", r"/issues/comments/")

    changed = publish(runner, make_report("PASS"))
    assert changed.code == 0
    ours = [c for c in fake.comments.values() if c["body"].startswith("<!-- abw/gate:report")]
    assert len(ours) == 1 and len(fake.calls("POST", r"/issues/7/comments$")) == 1
    assert len(fake.calls("PATCH", r"/issues/comments/\d+$")) == 1
    assert "comment updated" in changed.stdout

    always = publish(runner, make_report("PASS"), comment="always")
    assert "comment updated" in always.stdout
    assert len(fake.comments) == 2


def test_comment_off_and_other_check_names_keep_their_own_comment(fake, runner):
    publish(runner, make_report("FAIL"), comment="off")
    assert not fake.comments
    publish(runner, make_report("FAIL"))
    publish(runner, make_report("FAIL"), **{"check-name": "abw gate (nightly)"})
    assert len(fake.comments) == 2


def test_403_read_only_token_degrades_and_keeps_the_verdict(fake, runner):
    fake.fail("POST", r"/check-runs$", 403, "Resource not accessible by integration")
    fake.fail("GET", r"/issues/7$", 403, "Resource not accessible by integration")
    result = publish(runner, make_report("FAIL", violations=3))
    assert result.code == 1
    assert result.outputs["verdict"] == "FAIL"
    assert "::notice title=abw%3A read-only token::check run skipped: HTTP 403" in result.stdout
    assert "PR comment skipped: HTTP 403" in result.stdout
    assert "::error file=traces/candidate/run-0000.json,line=9" in result.stdout
    assert result.summary  # the step summary is still written
    assert (runner.workspace / "abw-report" / "report.sarif").is_file()
    assert len(fake.calls("POST", r"/check-runs$")) == 1  # a 403 is not retried


def test_fork_pull_request_degrades_the_same_way(fake, tmp_path):
    fork = Runner(tmp_path, fake.url, head_repo="someone/agents")
    fake.fail("POST", r"/check-runs$", 403, "Resource not accessible by integration")
    fake.fail("POST", r"/issues/7/comments$", 403, "Resource not accessible by integration")
    result = publish(fork, make_report("PASS"))
    assert result.code == 0
    assert result.stdout.count("::notice title=abw%3A read-only token::") == 2
    assert "this pull request comes from a fork" in result.stdout


def test_500_is_retried(fake, runner):
    fake.fail("POST", r"/check-runs$", 500, "Server Error", times=2)
    fake.fail("PATCH", r"/check-runs/\d+$", 502, "Bad Gateway")
    fake.fail("GET", r"/issues/7/comments$", 503, "Unavailable")
    result = publish(runner, make_report("FAIL", violations=60))
    assert result.code == 1
    assert len(fake.calls("POST", r"/check-runs$")) == 3
    assert len(fake.calls("PATCH", r"/check-runs/\d+$")) == 2
    (run,) = fake.check_runs.values()
    assert len(run["annotations"]) == 60
    assert len(fake.comments) == 1
    assert "GitHub API" not in result.stdout


def test_rate_limit_is_retried(fake, runner):
    fake.rate_limit("POST", r"/check-runs$")
    fake.fail("POST", r"/issues/7/comments$", 429, "slow down", headers={"Retry-After": "0"})
    result = publish(runner, make_report("PASS"))
    assert result.code == 0
    assert len(fake.check_runs) == 1 and len(fake.comments) == 1


def test_persistent_500_gives_up_after_bounded_retries(fake, runner):
    fake.fail("POST", r"/check-runs$", 500, "Server Error", times=100)
    result = publish(runner, make_report("FAIL"), **{})
    assert result.code == 1  # the network never changes the verdict
    assert 2 <= len(fake.calls("POST", r"/check-runs$")) <= 11
    assert "::warning title=abw%3A GitHub API::check run failed" in result.stdout


def test_api_unreachable_keeps_reports_and_verdict(tmp_path):
    runner = Runner(tmp_path, "http://127.0.0.1:9/api/v3")  # nothing listens on port 9
    result = publish(runner, make_report("INCONCLUSIVE"), **{})
    assert result.code == 3
    assert result.outputs["verdict"] == "INCONCLUSIVE"
    assert (runner.workspace / "abw-report" / "gate-report.json").is_file()
    assert "check run failed" in result.stdout


def test_push_event_has_no_pr_comment(fake, tmp_path):
    runner = Runner(tmp_path, fake.url, event_name="push", pr_number=None)
    result = publish(runner, make_report("PASS"))
    assert result.code == 0
    assert "PR comment skipped: this run has no pull request" in result.stdout
    (run,) = fake.check_runs.values()
    assert run["head_sha"] == "b" * 40  # GITHUB_SHA on push


def test_70000_character_report_is_truncated(fake, runner):
    from abw.render.markdown import render_markdown

    report = make_report("FAIL", violations=3, message_chars=200, extra_checks=100)
    assert len(render_markdown(report, max_chars=10**7)) > 70_000  # the premise
    result = publish(runner, report)
    assert result.code == 1
    run_url = "https://github.example/octo/agents/actions/runs/4242"
    (comment,) = fake.comments.values()
    assert 60_000 < len(comment["body"]) <= 65_536
    assert comment["body"].startswith("<!-- abw/gate:report v1 key=abw%20gate digest=")
    assert run_url in comment["body"][-2000:]  # the cut says where the full report is
    (run,) = fake.check_runs.values()
    assert 60_000 < len(run["output"]["summary"]) <= 65_535
    assert len(run["output"]["title"]) <= 255
    assert len(run["annotations"]) == 103
    assert [len(r.body["output"]["annotations"]) for r in fake.calls("POST", "check-runs$")] == [50]
    assert len(result.summary) > 70_000  # the step summary has room for all of it
    assert len(result.summary.encode()) <= 1024 * 1024


def test_a_check_run_left_with_part_of_its_annotations_says_so(fake, tmp_path):
    """180 findings: the check run is created with the first 50 annotations, then an append
    fails. The log said the check run "failed" and never that a check run with its conclusion
    and 50 of 180 annotations stands on the commit."""
    from action_env import write_gate_workspace, write_run

    runner = Runner(tmp_path, fake.url)
    inputs = write_gate_workspace(runner.workspace, "FAIL")
    candidate = runner.workspace / "traces" / "candidate"
    for i in range(5, 60):
        path = ["lookup_order", "refund_commit", "policy_check"]
        write_run(candidate / f"c{i:03d}.json", f"cand-{i:03d}", path)
    fake.fail("PATCH", r"/check-runs/\d+$", 502, "Bad Gateway", times=9)
    result = runner.run(inputs)
    assert result.code == 1
    (run,) = fake.check_runs.values()
    assert run["conclusion"] == "failure" and len(run["annotations"]) == 50
    assert f"check run {run['id']} holds its conclusion but only 50 of" in result.stdout
    assert "check run failed" not in result.stdout
