"""The Action's trust boundary, end to end against the fake GitHub (real PyGithub, 127.0.0.1).

What it trusts: the runner's own event (``GITHUB_EVENT_PATH``) and the identity its token acts
as. What it never trusts: comments by anyone else, the event file and the report uploaded as
artifacts by a pull request's run.
"""

from __future__ import annotations

import json

import pytest
from action_env import GOOD_PATH, HEAD_SHA, Runner, make_report, write_gate_workspace, write_run
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


def test_a_report_whose_digest_hides_a_file_is_refused(fake, runner):
    """An uploaded report whose listed hashes no longer give its inputs digest was edited (a
    trace swapped out, the digest kept): the check run's external_id and the comment's
    digest would vouch for inputs the report no longer lists."""
    report = json.loads(make_report("PASS").model_dump_json())
    report["inputs"]["traces"][0]["sha256"] = "0" * 64
    result = publish(runner, json.dumps(report))
    assert result.code == 2
    assert "reports/in.json: inputs.digest: refused: the report contradicts itself" in result.stderr
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


# --- 14. another workflow's comment as the same bot: the chain can only make the gate stricter --
BOT = "github-actions[bot]"


def chain_token(candidate: str, rows: list[list]) -> str:
    """A marker's ``chain`` as anyone can write it offline (abw.gating.sequence.encode_marker)."""
    import base64

    text = json.dumps({"c": candidate, "s": rows}, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def sequence_state(runner: Runner, result, scenario: str = "refund") -> dict:
    report = json.loads((runner.workspace / result.outputs["report-json"]).read_text())
    (stats,) = [s for s in report["statistics"] if s["scenario_id"] == scenario]
    return stats["sequence"]


def restart_the_sequence(runner: Runner, inputs: dict[str, str]) -> None:
    """Look 1 PASSes on 7 runs; one is removed, so look 2 restarts the sequence (restart 1:
    alpha/4, where 6 runs are INCONCLUSIVE)."""
    assert runner.run(inputs).code == 0
    (runner.workspace / "traces" / "candidate" / "c000.json").unlink()  # a run removed
    assert runner.run(inputs).code == 3


def append_a_run(runner: Runner) -> None:
    """One more passing run, appended to the sequence: 8 runs, which PASS at alpha/2 but not
    at alpha/4."""
    write_run(runner.workspace / "traces" / "candidate" / "c008.json", "cand-008", GOOD_PATH)


def test_a_forged_chain_cannot_give_back_the_level_a_restart_spent(fake, runner):
    """Another workflow of the repository comments as the same bot with text a PR controls:
    its first line copies abw's marker with the run chain of the current runs and no restart.
    Taken as the sticky comment, it made 8 runs PASS at the fresh level alpha/2 although the
    sequence had already restarted (alpha/4, INCONCLUSIVE); the restart count now is the
    largest any marker claims, so a forged one can only make the test stricter."""
    from abw.gating.sequence import decode_marker
    from abw.github.comment import parse_marker

    inputs = write_gate_workspace(runner.workspace, "PASS")
    assert runner.run(inputs).code == 0
    (runner.workspace / "traces" / "candidate" / "c000.json").unlink()  # a run removed
    restarted = runner.run(inputs)
    assert restarted.code == 3 and sequence_state(runner, restarted)["restarts"] == 1
    (genuine,) = ours(fake)
    fields = parse_marker(genuine["body"])
    previous = decode_marker(fields["chain"]).sequences["refund"]
    token = chain_token(HEAD_SHA, [["refund", previous.n, previous.chain, 0]])
    forged = format_marker({**fields, "chain": token}) + "\n## ✅ abw gate: **PASS**\n"
    fake.add_comment(7, forged, login=BOT)
    append_a_run(runner)
    result = runner.run(inputs)
    state = sequence_state(runner, result)
    assert state["restarts"] == 1 and state["continuity"] == "extends", state
    assert result.code == 3, result.stdout  # 8 runs cannot PASS at alpha / 4
    assert "2 comments by github-actions[bot] carry this gate's marker" in result.stdout


def test_a_chain_nested_too_deep_to_read_leaves_the_genuine_chain_in_force(fake, runner):
    """A same-bot comment whose chain token is JSON nested thousands deep raised
    RecursionError out of the marker's decoder: reading the earlier comments failed as a
    whole, the genuine chain with it, and the restarted sequence was judged afresh at alpha/2
    (8 runs PASSed). Such a token is now one unreadable marker, passed over."""
    import base64

    inputs = write_gate_workspace(runner.workspace, "PASS")
    restart_the_sequence(runner, inputs)
    (genuine,) = ours(fake)
    from abw.github.comment import parse_marker

    deep = base64.urlsafe_b64encode(b"[" * 3000 + b"]" * 3000).decode().rstrip("=")
    fields = {**parse_marker(genuine["body"]), "chain": deep}
    fake.add_comment(7, format_marker(fields) + "\nhello", login=BOT)
    append_a_run(runner)
    result = runner.run(inputs)
    assert "failed" not in result.stdout, result.stdout
    state = sequence_state(runner, result)
    assert state["restarts"] == 1 and state["continuity"] == "extends", state
    assert result.code == 3, result.stdout  # 8 runs cannot PASS at alpha / 4


def test_earlier_comments_that_cannot_be_read_are_not_called_harmless(fake, runner):
    """When the PR's comments cannot be read, the gate cannot know this commit's earlier
    looks: the warning said "The verdict and reports are unaffected", which is exactly what is
    not known. It says what the gate does instead (a first look; the comment is kept)."""
    inputs = write_gate_workspace(runner.workspace, "PASS")
    fake.fail("GET", r"/issues/7/comments", 500, "Server Error", times=50)
    result = runner.run(inputs)
    assert result.code == 0, result.stdout  # the API failing never changes a verdict
    (line,) = [t for t in result.stdout.splitlines() if "reading the earlier PR comment" in t]
    assert "unaffected" not in line
    assert "earlier looks are unknown to this gate" in line and "re-run once" in line
    assert "judged as if this were the first look" in line and "left as it is" in line


def test_a_failed_read_of_the_earlier_comments_never_rewrites_the_chain(fake, runner):
    """A look whose read of the PR's comments failed is judged as the first (the API failing
    never changes a verdict), and its sticky comment then wrote a chain of no restart over
    the genuine one: every later look extended it, and the restarted sequence had its fresh
    level back for good (8 runs PASSed, exit 0, with the comments readable again). Such a look
    now leaves the comment as it is, so the next look is judged with the genuine chain."""
    inputs = write_gate_workspace(runner.workspace, "PASS")
    restart_the_sequence(runner, inputs)
    (genuine,) = ours(fake)
    before = genuine["body"]
    append_a_run(runner)
    fake.fail("GET", r"/issues/7/comments", 500, "Server Error", times=5)  # one read's tries
    unread = runner.run(inputs)
    assert sequence_state(runner, unread)["continuity"] == "new"  # as a first look
    assert fake.comments[genuine["id"]]["body"] == before  # the genuine chain is kept
    assert "PR comment skipped" in unread.stdout
    later = runner.run(inputs)  # the comments can be read again: the genuine chain decides
    state = sequence_state(runner, later)
    assert state["restarts"] == 1 and state["continuity"] == "extends", state
    assert later.code == 3, later.stdout  # 8 runs cannot PASS at alpha / 4


def test_a_pr_lookup_that_fails_never_rewrites_the_chain(fake, tmp_path):
    """A fork's run names its PR in the event file, which GitHub must confirm. When that
    lookup failed, the comment looked the PR up again and wrote a chain of no restart over the
    genuine one. The PR is looked up once; a look that could not confirm it writes nothing."""
    fake.pull_heads = {7: (HEAD_SHA, FORK)}
    runner = trusted_runner(tmp_path, fake)
    inputs = {**write_gate_workspace(runner.workspace, "PASS")}
    inputs["event-file"] = artifact_event(runner, 7, HEAD_SHA)
    restart_the_sequence(runner, inputs)
    (genuine,) = ours(fake)
    before = genuine["body"]
    append_a_run(runner)
    fake.fail("GET", r"/pulls/7$", 500, "Server Error", times=5)  # one lookup's tries
    runner.run(inputs)
    assert fake.comments[genuine["id"]]["body"] == before and len(fake.comments) == 1
    later = runner.run(inputs)
    state = sequence_state(runner, later)
    assert state["restarts"] == 1 and state["continuity"] == "extends", state
    assert later.code == 3, later.stdout


def test_a_read_past_the_publish_deadline_writes_nothing(fake, runner):
    """The read of the earlier comments is cut by the publish deadline (a PR flooded with
    comments takes many pages): judged as a first look, and nothing is written."""
    inputs = write_gate_workspace(runner.workspace, "PASS")
    for index in range(150):  # two pages: the deadline is checked as they come
        fake.add_comment(7, f"comment {index}", login="someone")
    result = runner.run({**inputs, "publish-timeout": "0.001"})
    assert result.code == 0, result.stdout
    assert "reading the earlier PR comment skipped" in result.stdout
    assert len(fake.comments) == 150  # nothing written


def test_a_token_refused_the_comments_keeps_no_chain_and_is_judged_as_a_first_look(fake, runner):
    """A token that may not read the PR's comments can write no run chain either: like
    ``comment: off``, every look is judged alone (a notice says so)."""
    inputs = write_gate_workspace(runner.workspace, "PASS")
    fake.fail("GET", r"/issues/7/comments", 403, "Resource not accessible by integration")
    result = runner.run(inputs)
    assert result.code == 0, result.stdout
    (line,) = [t for t in result.stdout.splitlines() if "reading the earlier PR comment" in t]
    assert "title=abw%3A read-only token" in line and "skipped: HTTP 403" in line, line
    assert "earlier looks are unknown" not in result.stdout  # a refusal, not a failed read
    assert sequence_state(runner, result)["continuity"] == "new"
    assert not fake.comments


def test_a_marker_keeps_the_count_an_earlier_one_left_unlisted(fake, runner):
    """What a marker leaves unlisted stays unknown in every later marker of the commit, even
    one with room for all its chains: a scenario crowded out once and gated again later
    restarts; it is never read as new."""
    from abw.gating.sequence import decode_marker
    from abw.github.comment import parse_marker

    inputs = write_gate_workspace(runner.workspace, "PASS")
    candidate = runner.workspace / "traces" / "candidate"
    crowd = [candidate / f"z{i:02d}.json" for i in range(80)]  # sort after refund
    for i, path in enumerate(crowd):
        write_run(path, f"crowd-{i}", GOOD_PATH, scenario=f"z{i:02d}")
    runner.run(inputs)
    marker = decode_marker(parse_marker(ours(fake)[0]["body"])["chain"])
    listed = [sid for sid in marker.sequences if sid != "refund"]
    assert "refund" in marker.sequences and marker.unlisted == 0 and len(listed) < 80
    unlisted = next(p for p in crowd if p.stem not in listed)
    for path in crowd:
        path.unlink()
    runner.run(inputs)  # the listed crowd is carried; the unlisted is gone
    marker = decode_marker(parse_marker(ours(fake)[0]["body"])["chain"])
    assert unlisted.stem not in marker.sequences and marker.unlisted == 0
    write_run(unlisted, "crowd-again", GOOD_PATH, scenario=unlisted.stem)
    result = runner.run(inputs)
    state = sequence_state(runner, result, unlisted.stem)
    assert state["continuity"] == "restarted" and state["restarts"] == 1, state


def test_a_marker_with_no_room_for_the_chains_never_gives_back_a_spent_level(fake, runner):
    """A marker over 8,192 characters dropped its run chains, and the next look started new
    sequences at the fresh level. The candidate runs a PR adds name their scenarios, so one
    run with a scenario id of 9,000 characters, added for one look and removed again, gave a
    restarted sequence its level back: 8 runs PASSed (exit 0) where the genuine chain keeps
    them INCONCLUSIVE at alpha/4."""
    inputs = write_gate_workspace(runner.workspace, "PASS")
    candidate = runner.workspace / "traces" / "candidate"
    restart_the_sequence(runner, inputs)
    long = candidate / "zz-long.json"
    write_run(long, "cand-long", GOOD_PATH, scenario="s" * 9000)
    runner.run(inputs)  # this look's marker has no room for every chain
    long.unlink()
    append_a_run(runner)
    result = runner.run(inputs)
    state = sequence_state(runner, result)
    assert state["continuity"] == "extends" and state["restarts"] == 1, state
    assert result.code == 3, result.stdout  # 8 runs cannot PASS at alpha / 4


def test_a_chain_the_marker_had_no_room_for_restarts_past_the_count_it_may_have_spent(fake, runner):
    """Scenarios that sort first crowd the restarted one's chain out of the marker (8,192
    characters; it dropped every chain, and the next look started new sequences): it lists
    the chains that fit and the largest count of those left out, so the next look restarts
    the unlisted sequence past it, and the next marker keeps the count it spent."""
    from abw.gating.sequence import decode_marker
    from abw.github.comment import parse_marker

    inputs = write_gate_workspace(runner.workspace, "PASS")
    candidate = runner.workspace / "traces" / "candidate"
    restart_the_sequence(runner, inputs)
    crowd = [candidate / f"a{i:02d}.json" for i in range(80)]  # more than the marker holds
    for i, path in enumerate(crowd):  # each chain shorter than refund's: none fits after
        write_run(path, f"crowd-{i}", GOOD_PATH, scenario=f"a{i:02d}")
    runner.run(inputs)
    (genuine,) = ours(fake)
    marker = decode_marker(parse_marker(genuine["body"])["chain"])
    assert "refund" not in marker.sequences and marker.unlisted == 1, marker.unlisted
    for path in crowd:
        path.unlink()
    append_a_run(runner)
    result = runner.run(inputs)
    state = sequence_state(runner, result)
    assert state["continuity"] == "restarted" and state["restarts"] == 2, state
    assert "had no room for this scenario's run chain" in state["continuity_message"]
    assert result.code == 3, result.stdout
    (genuine,) = ours(fake)
    marker = decode_marker(parse_marker(genuine["body"])["chain"])
    assert "refund" not in marker.sequences and marker.unlisted == 2  # (the crowd, carried)


def test_a_forged_chain_that_disagrees_restarts_the_sequence(fake, runner):
    """A forged chain with the genuine restart count but other runs: the sequence restarts one
    count higher (stricter), it is not taken as the whole truth."""
    inputs = write_gate_workspace(runner.workspace, "PASS", extra_runs=4)
    assert runner.run(inputs).code == 0
    (genuine,) = ours(fake)
    from abw.github.comment import parse_marker

    fields = parse_marker(genuine["body"])
    token = chain_token(HEAD_SHA, [["refund", 3, "f" * 64, 0]])
    fake.add_comment(7, format_marker({**fields, "chain": token}) + "\nhello", login=BOT)
    result = runner.run(inputs)
    state = sequence_state(runner, result)
    assert state["continuity"] == "restarted" and state["restarts"] == 1, state
    assert "earlier gates disagree" in state["continuity_message"]


@pytest.mark.parametrize("restarts, code", [(-1, 0), (5000, 3), ("1", 0)])
def test_a_forged_restart_count_never_crashes_the_gate(fake, runner, restarts, code):
    """A count below zero failed the gate's own report model and one of 5000 overflowed the
    level's float: the step ended as an internal error (exit 2, no outputs) on a comment
    anyone's text can reach. A count that is no count is ignored; a huge one is capped."""
    inputs = write_gate_workspace(runner.workspace, "PASS")
    token = chain_token(HEAD_SHA, [["refund", 0, "0" * 64, restarts]])
    marker = format_marker({"key": "abw gate", "digest": "0" * 64, "chain": token})
    fake.add_comment(7, marker + "\nhello", login=BOT)
    result = runner.run(inputs)
    assert "internal error" not in result.stdout + result.stderr
    assert result.code == code and result.outputs["exit-code"] == str(code), result.stderr
    if code == 3:
        assert sequence_state(runner, result)["restarts"] == 30


def test_on_change_never_leaves_a_look_alike_body_under_a_copied_marker(fake, runner):
    """on-change compared only the marker's digest, which anyone can copy above any text: a
    bot comment saying PASS under the FAIL report's marker stayed as the sticky comment. It is
    now edited unless it shows this very body; a rerun of the same report (another run's link)
    is still unchanged."""
    report = make_report("FAIL")
    first = publish(runner, report)
    assert "comment created" in first.stdout
    (genuine,) = ours(fake)
    marker = genuine["body"].split("\n", 1)[0]
    forged = fake.add_comment(7, marker + "\n## ✅ abw gate: **PASS**\n", login=BOT)
    again = publish(runner, report)
    assert "comment updated" in again.stdout, again.stdout
    assert fake.comments[forged]["body"] == genuine["body"]  # shows the real verdict now
    rerun = publish(runner, report, GITHUB_RUN_ID="4243")  # type: ignore[arg-type]
    assert "comment unchanged" in rerun.stdout, rerun.stdout


def test_a_spec_edited_between_looks_on_one_commit_restarts_the_sequence(fake, runner):
    """The marker carried the run chain only: a re-run of the same commit under an edited spec
    (tau lowered after an INCONCLUSIVE look, say) extended the earlier sequence as if it were
    the same test. The marker now carries the spec's SHA-256, so the sequence restarts."""
    inputs = write_gate_workspace(runner.workspace, "PASS")
    assert runner.run(inputs).code == 0
    spec = runner.workspace / "behavior.yaml"
    spec.write_text(spec.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    result = runner.run(inputs)
    state = sequence_state(runner, result)
    assert state["continuity"] == "restarted" and state["restarts"] == 1, state
    assert "the spec changed since the earlier gate" in state["continuity_message"]


def test_a_marker_without_a_spec_hash_still_reads_as_the_earlier_gate():
    """Markers written before the spec hash (and forged ones with a bad hash, refused whole)."""
    from abw.gating.sequence import Marker, decode_marker

    old = chain_token(HEAD_SHA, [["refund", 3, "a" * 64, 1]])
    marker = decode_marker(old)
    assert marker.candidate == HEAD_SHA and marker.sequences["refund"].restarts == 1
    assert marker.sequences["refund"].spec_sha256 is None and marker.unlisted is None
    bad = json.dumps({"c": HEAD_SHA, "s": [["refund", 3, "a" * 64, 1]], "h": "nope"})
    import base64

    assert decode_marker(base64.urlsafe_b64encode(bad.encode()).decode()) == Marker()


def _restarts_in_the_comment(fake) -> list[int]:
    """The restart count of each scenario the sticky comment's run chain lists."""
    import base64

    from abw.github.comment import parse_marker

    (comment,) = fake.comments.values()
    token = parse_marker(comment["body"])["chain"]
    chain = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    return [row[3] for row in chain["s"]]


def test_a_published_report_whose_gate_missed_the_earlier_looks_leaves_the_chain(fake, tmp_path):
    """The two-workflow pattern: workflow A gates, workflow B publishes A's report. When A
    could not read the earlier comments (an API error) it judged a first look and rightly
    wrote no comment; B then wrote A's chain over the PR's, and the next look restarted at the
    level an earlier look had already spent."""
    import shutil

    gate = Runner(tmp_path / "a", fake.url)
    publish_runner = Runner(
        tmp_path / "b",
        fake.url,
        event_name="workflow_run",
        payload={
            "workflow_run": {
                "head_sha": HEAD_SHA,
                "event": "pull_request",
                "head_repository": {"full_name": "octo/agents"},
                "pull_requests": [{"number": 7, "head": {"sha": HEAD_SHA}}],
            }
        },
    )
    inputs = write_gate_workspace(gate.workspace, "INCONCLUSIVE")
    run = gate.workspace / "traces" / "candidate" / "c000.json"

    def look() -> None:
        gate.run(inputs)
        (publish_runner.workspace / "report").mkdir(exist_ok=True)
        shutil.copy(
            gate.workspace / "abw-report" / "gate-report.json",
            publish_runner.workspace / "report" / "gate-report.json",
        )
        publish_runner.run({"report": "report/gate-report.json"})

    look()
    write_run(run, "replaced-1", GOOD_PATH)  # a run replaced: the sequence restarts
    look()
    assert _restarts_in_the_comment(fake) == [1]
    fake.fail("GET", r"/issues/7/comments$", 502, "Bad Gateway", times=9)
    look()  # A judges a first look (restart 0), B must not write that over the PR's chain
    assert _restarts_in_the_comment(fake) == [1]
    write_run(run, "replaced-2", GOOD_PATH)
    gate.run(inputs)
    report = json.loads((gate.workspace / "abw-report" / "gate-report.json").read_text())
    assert [s["sequence"]["restarts"] for s in report["statistics"] if s.get("sequence")] == [2]
