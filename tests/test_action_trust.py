"""The Action's trust boundary, end to end against the fake GitHub (real PyGithub, 127.0.0.1).

What it trusts: the runner's own event (``GITHUB_EVENT_PATH``) and the identity its token acts
as. What it never trusts: comments by anyone else, the event file and the report uploaded as
artifacts by a pull request's run.
"""

from __future__ import annotations

import json

import pytest
from action_env import HEAD_SHA, Runner, make_report, write_gate_workspace
from fake_github import FakeGitHub

from abw.github.comment import format_marker, report_digest
from abw.hashing import canonical_json

FORK = "someone/agents"


def publish(runner: Runner, report, **inputs: str):
    folder = runner.workspace / "reports"
    folder.mkdir(exist_ok=True)
    text = report if isinstance(report, str) else report.model_dump_json()
    (folder / "in.json").write_text(text)
    return runner.run({"report": "reports/in.json", **inputs})


def ours(fake: FakeGitHub, login: str = "github-actions[bot]") -> list[dict]:
    return [c for c in fake.comments.values() if c["user"]["login"] == login]


# --- 1. the sticky comment is only ever one the token's identity wrote -----------------------
@pytest.mark.parametrize("same_digest", [True, False])
def test_a_strangers_look_alike_comment_is_neither_trusted_nor_edited(fake, runner, same_digest):
    report = make_report("FAIL")
    digest = report_digest("abw gate", canonical_json(report.model_dump(mode="json")))
    forged = (
        format_marker({"key": "abw gate", "digest": digest if same_digest else "0" * 64})
        + "\n## ✅ abw gate: **PASS**\n"
    )
    stranger = fake.add_comment(7, forged, login="mallory")
    result = publish(runner, report)
    assert result.code == 1
    assert fake.comments[stranger]["body"] == forged  # never edited
    assert not fake.calls("PATCH", r"/issues/comments/")
    (mine,) = ours(fake)
    assert "**FAIL**" in mine["body"]
    assert "comment created" in result.stdout and "comment unchanged" not in result.stdout
    assert "1 comment(s) on PR #7 carry this gate's marker but were not written by" in (
        result.stdout
    )


def test_another_token_finds_only_its_own_identitys_comment(fake, runner):
    fake.tokens["ghp_usertoken"] = "octocat"
    publish(runner, make_report("FAIL"))  # the default token's comment
    first = publish(runner, make_report("FAIL"), **{"github-token": "ghp_usertoken"})
    assert "comment created" in first.stdout  # the bot's comment is not octocat's
    again = publish(runner, make_report("PASS"), **{"github-token": "ghp_usertoken"})
    assert "comment updated" in again.stdout
    (mine,) = ours(fake, "octocat")
    assert "**PASS**" in mine["body"]
    (bots,) = ours(fake)
    assert "**FAIL**" in bots["body"]
    viewer = fake.calls("POST", r"^/api/graphql$")
    assert viewer and all("viewer" in r.body["query"] for r in viewer)


# --- 2. exact key: prefix-related check names keep two comments ------------------------------
def test_prefix_related_check_names_keep_two_comments(fake, runner):
    publish(runner, make_report("FAIL"), **{"check-name": "abw gate (latent)"})
    publish(runner, make_report("PASS"), **{"check-name": "abw gate"})
    assert len(ours(fake)) == 2
    latent = next(c for c in ours(fake) if "key=abw%20gate%20%28latent%29 " in c["body"])
    assert "**FAIL**" in latent["body"]
    assert not fake.calls("PATCH", r"/issues/comments/")


# --- 3. published-report mode: the runner's workflow_run event decides where ------------------
def workflow_run_event(pull_requests: list[dict] | None = None, head_repo: str = FORK) -> dict:
    return {
        "action": "completed",
        "workflow_run": {
            "id": 555,
            "event": "pull_request",
            "head_sha": HEAD_SHA,
            "head_repository": {"full_name": head_repo},
            "pull_requests": pull_requests or [],
        },
    }


def trusted_runner(tmp_path, fake, **kw) -> Runner:
    return Runner(tmp_path, fake.url, event_name="workflow_run", payload=workflow_run_event(**kw))


def artifact_event(runner: Runner, number: int, sha: str) -> str:
    path = runner.workspace / "abw-fork" / "event.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    event = {"number": number, "pull_request": {"number": number, "head": {"sha": sha}}}
    path.write_text(json.dumps(event))
    return "abw-fork/event.json"


def test_a_forged_event_file_redirects_nothing(fake, tmp_path):
    fake.pulls = (7, 99)
    runner = trusted_runner(tmp_path, fake)
    event = artifact_event(runner, 99, "9" * 40)
    result = publish(runner, make_report("PASS"), **{"event-file": event})
    assert result.code == 0
    (run,) = fake.check_runs.values()
    assert run["head_sha"] == HEAD_SHA  # workflow_run.head_sha, not the artifact's 9999…
    assert not fake.comments
    assert "the event-file input is ignored: its head SHA 999999999999" in result.stdout


def test_a_claimed_pr_whose_head_is_another_commit_is_refused(fake, tmp_path):
    fake.pulls = (7, 8)
    fake.pull_heads = {7: (HEAD_SHA, FORK), 8: ("c" * 40, "victim/agents")}
    runner = trusted_runner(tmp_path, fake)
    result = publish(
        runner, make_report("PASS"), **{"event-file": artifact_event(runner, 8, HEAD_SHA)}
    )
    assert not fake.comments
    assert "pull request #8's head is cccccccccccc" in result.stdout


def test_the_event_file_narrows_a_fork_run_to_its_verified_pr(fake, tmp_path):
    fake.pull_heads = {7: (HEAD_SHA, FORK)}
    runner = trusted_runner(tmp_path, fake)
    result = publish(
        runner, make_report("FAIL"), **{"event-file": artifact_event(runner, 7, HEAD_SHA)}
    )
    assert result.code == 1
    (comment,) = fake.comments.values()
    assert comment["number"] == 7 and "**FAIL**" in comment["body"]
    assert fake.calls("GET", r"/pulls/7$")  # the claim was checked with GitHub


def test_workflow_run_pull_requests_need_no_event_file(fake, tmp_path):
    pulls = [{"number": 7, "head": {"sha": HEAD_SHA}}, {"number": 99, "head": {"sha": "9" * 40}}]
    fake.pulls = (7, 99)
    runner = trusted_runner(tmp_path, fake, pull_requests=pulls, head_repo="octo/agents")
    result = publish(runner, make_report("WARN"))
    assert result.code == 0
    (comment,) = fake.comments.values()
    assert comment["number"] == 7
    assert not fake.calls("GET", r"/pulls/")


def forged_verdict() -> str:
    report = json.loads(make_report("FAIL").model_dump_json())
    report["verdict"] = "PASS"
    return json.dumps(report)


def test_a_forged_verdict_is_refused_naming_the_field(fake, runner):
    result = publish(runner, forged_verdict())
    assert result.code == 2
    assert "reports/in.json: verdict: refused: the report contradicts itself" in result.stderr
    assert "the report says PASS but its checks give FAIL" in result.stderr
    assert not fake.check_runs and not fake.comments


def test_a_forged_summary_or_check_verdict_is_refused(fake, runner):
    report = json.loads(make_report("FAIL").model_dump_json())
    report["summary"] = "PASS: all checks passed."
    result = publish(runner, json.dumps(report))
    assert result.code == 2 and "summary: refused" in result.stderr
    for check in report["checks"]:
        check["verdict"] = "PASS"
    report["verdict"] = "PASS"
    result = publish(runner, json.dumps(report))
    assert result.code == 2 and "checks[0].verdict: refused" in result.stderr
    assert "says PASS but lists 1 violating run" in result.stderr


# --- 10. on-change: the same report from the gate and reloaded from JSON is unchanged ---------
def test_on_change_sees_a_reloaded_report_as_unchanged(fake, runner):
    inputs = write_gate_workspace(runner.workspace, "FAIL")
    first = runner.run(inputs)
    assert "comment created" in first.stdout
    again = runner.run({"report": "abw-report/gate-report.json"})
    assert again.code == 1
    assert "comment unchanged" in again.stdout, again.stdout
    assert not fake.calls("PATCH", r"/issues/comments/")


# --- 13. a malformed event never changes the exit code ----------------------------------------
def test_malformed_event_and_403_keep_exit_code_and_output(fake, tmp_path):
    event = {"number": 7, "pull_request": {"number": 7, "head": "not-an-object"}}
    runner = Runner(tmp_path, fake.url, payload=event)
    fake.fail("POST", r"/check-runs$", 403, "Resource not accessible by integration")
    result = publish(runner, make_report("FAIL"))
    assert result.code == 1 and result.outputs["exit-code"] == "1"
    assert "internal error" not in result.stdout + result.stderr
    (comment,) = fake.comments.values()
    assert "**FAIL**" in comment["body"]


def test_the_sticky_comment_is_found_on_a_later_page(fake, runner):
    for i in range(130):  # a long discussion first: ours lands on the second page of 100
        fake.add_comment(7, f"comment {i}")
    publish(runner, make_report("FAIL"))
    fake.add_comment(7, format_marker({"key": "abw gate", "digest": "0" * 64}), login="mallory")
    result = publish(runner, make_report("PASS"))
    assert "comment updated" in result.stdout
    (mine,) = ours(fake)
    assert "**PASS**" in mine["body"]
    pages = [r.query for r in fake.calls("GET", r"/issues/7/comments$")]
    assert any("page=2" in q for q in pages)  # the list was read to its end
