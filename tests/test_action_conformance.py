"""GitHub interfaces exactly right: headers, titles, sizes, deadlines and the runner's files."""

from __future__ import annotations

import uuid

import pytest
from action_env import Runner, make_report, publish, write_gate_workspace

from abw import __version__


def test_every_request_names_abw_and_the_api_version(fake, runner):
    publish(runner, make_report("FAIL", violations=60))
    assert len(fake.requests) >= 6
    for request in fake.requests:
        headers = {k.lower(): v for k, v in request.headers.items()}
        assert headers["x-github-api-version"] == "2022-11-28", request.path
        assert headers["accept"] == "application/vnd.github+json", request.path
        assert headers["user-agent"].startswith(f"abw/{__version__} "), request.path


def test_check_run_title_says_the_verdict_once(fake, runner):
    publish(runner, make_report("FAIL"))
    (run,) = fake.check_runs.values()
    title = run["output"]["title"]
    assert title.startswith("FAIL: ") and not title.startswith("FAIL: FAIL")
    assert title == "FAIL: 1 check decided the verdict."


def test_publishing_has_one_deadline(fake, runner):
    # a secondary rate limit that asks for 30 s before every retry, forever
    for pattern in (r"/check-runs$", r"^/api/graphql$"):
        fake.fail(
            "POST",
            pattern,
            403,
            "You have exceeded a secondary rate limit. Please wait a few minutes.",
            times=100,
            headers={"Retry-After": "30"},
        )
    result = publish(runner, make_report("FAIL"), **{"publish-timeout": "5"})
    assert result.code == 1 and result.outputs["exit-code"] == "1"
    assert "::notice title=abw%3A publish deadline::check run skipped" in result.stdout
    assert "PR comment skipped" in result.stdout
    assert len(fake.calls("POST", r"/check-runs$")) == 1  # no 30 s wait was started
    assert not fake.comments


_SECONDARY = "You have exceeded a secondary rate limit. Please wait a few minutes."


@pytest.mark.parametrize(
    ("message", "remaining"),
    [
        ("API rate limit exceeded for installation ID 1.", "0"),
        (_SECONDARY, "0"),
        (_SECONDARY, "4990"),  # GitHub may send a secondary limit with no telling header
    ],
)
def test_a_rate_limit_whose_retries_run_out_is_no_read_only_token(fake, runner, message, remaining):
    """When PyGithub's retries run out it raises a bare 403 with no message: it was reported
    as a read-only token (a notice about forks), and for the earlier comments' read the
    warning that this look is judged as the first was lost; so it was for a secondary limit
    whose headers say nothing of a limit."""
    import time

    limited = {"X-RateLimit-Remaining": remaining, "X-RateLimit-Reset": str(int(time.time()))}
    fake.fail("POST", r"/check-runs$", 403, message, times=100, headers=limited)
    (runner.workspace / "reports").mkdir()
    (runner.workspace / "reports" / "in.json").write_text(make_report("FAIL").model_dump_json())
    result = runner.run({"report": "reports/in.json"}, ABW_GITHUB_SECONDARY_WAIT="0")
    assert result.code == 1
    assert "::warning title=abw%3A GitHub API::check run failed: HTTP 403" in result.stdout
    assert "read-only token" not in result.stdout


def test_rate_limited_earlier_comments_warn_that_the_look_is_judged_as_the_first(fake, tmp_path):
    import time

    runner = Runner(tmp_path, fake.url)
    inputs = write_gate_workspace(runner.workspace, "INCONCLUSIVE")
    limited = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()))}
    fake.fail(
        "GET",
        r"/issues/7/comments$",
        403,
        "API rate limit exceeded for installation ID 1.",
        times=100,
        headers=limited,
    )
    result = runner.run(inputs)
    assert result.code == 3
    assert "earlier looks are unknown" in result.stdout and "read-only token" not in result.stdout


def test_publish_timeout_must_be_a_sensible_number(runner):
    result = publish(runner, make_report("PASS"), **{"publish-timeout": "soon"})
    assert result.code == 2 and "publish-timeout" in result.stderr


def _earlier_output(size: int) -> str:
    delimiter = f"ghadelimiter_{uuid.uuid4()}"
    return f"earlier<<{delimiter}\n{'x' * size}\n{delimiter}\n"


def test_a_full_disk_never_leaves_half_an_output_block(fake, tmp_path):
    prefix = _earlier_output(2_000_000)
    runner = Runner(
        tmp_path, fake.url, output_prefix=prefix, file_size_limit=len(prefix.encode()) + 60
    )
    result = publish(runner, make_report("FAIL"))
    assert result.code == 1, result.stdout + result.stderr  # not 2
    assert "could not write $GITHUB_OUTPUT" in result.stdout
    text = (runner.files / "output.txt").read_text()
    assert text == prefix  # all or nothing, never `conclusion<<ghadelimiter…` alone
    assert fake.check_runs  # publishing went on


def test_summary_never_grows_past_one_mib(fake, tmp_path):
    limit = 1024 * 1024
    earlier = "# earlier step\n" + "y" * (limit - 15 - 20)  # 20 bytes left: less than the note
    runner = Runner(tmp_path, fake.url, summary_prefix=earlier)
    result = publish(runner, make_report("FAIL", violations=3))
    assert result.code == 1
    assert (runner.files / "summary.md").stat().st_size <= limit
    assert (runner.files / "summary.md").read_text() == earlier  # nothing fits: nothing added


def test_the_log_says_what_the_check_run_holds_past_its_annotation_limit(fake, runner):
    """1,200 findings: the log said "the check run and report files hold them all", and the
    check run holds 1,000."""
    result = publish(runner, make_report("FAIL", violations=1200))
    assert result.code == 1
    (run,) = fake.check_runs.values()
    assert len(run["annotations"]) == 1000
    (line,) = [t for t in result.stdout.splitlines() if "findings in all" in t]
    assert line == (
        "abw: 1200 findings in all; the check run holds the first 1000 (its limit), the report "
        "files hold them all"
    )


def test_a_nearly_full_summary_gets_the_verdict_and_says_it_was_cut(fake, tmp_path):
    """400 bytes left in the step summary: "could not render the Markdown report" (a false
    warning), then a verdict line that did not say the report was left out."""
    limit = 1024 * 1024
    earlier = "# earlier step\n" + "y" * (limit - 15 - 400)
    runner = Runner(tmp_path, fake.url, summary_prefix=earlier)
    result = publish(runner, make_report("FAIL", violations=3))
    assert result.code == 1
    added = (runner.files / "summary.md").read_text()[len(earlier) :]
    assert (runner.files / "summary.md").stat().st_size <= limit
    assert "could not render" not in result.stdout
    assert added.startswith("## abw gate: FAIL") and "**Truncated**" in added
