"""Unit tests of abw.github: inputs, paths, outputs, workflow commands, findings, truncation."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from action_env import make_report, parse_outputs

from abw.errors import AbwInputError
from abw.github import commands
from abw.github.checks import batches, clip_markdown
from abw.github.comment import (
    COMMENT_LIMIT,
    build_body,
    digest_of,
    format_marker,
    parse_marker,
)
from abw.github.context import RunContext
from abw.github.findings import findings, repo_path, top_for_commands
from abw.github.inputs import ActionInputs, env_name, get_input
from abw.github.main import action_exit_code
from abw.github.outputs import fit_summary, format_output, write_outputs, write_summary
from abw.github.paths import resolve_in_workspace


# --- inputs ----------------------------------------------------------------------------------
def test_input_names_keep_hyphens_like_the_runner():
    assert env_name("fail-on") == "INPUT_FAIL-ON"
    assert env_name("github-token") == "INPUT_GITHUB-TOKEN"
    assert env_name("my input") == "INPUT_MY_INPUT"
    assert get_input({"INPUT_FAIL-ON": "  warn \n"}, "fail-on") == "warn"
    assert get_input({"INPUT_FAIL_ON": "warn"}, "fail-on", "x") == "x"


def test_inputs_defaults_and_conclusion_mapping():
    env = {"INPUT_BASELINE": "b", "INPUT_CANDIDATE": "c", "INPUT_SPEC": "s.yaml"}
    inputs = ActionInputs.from_env(env)
    assert inputs.fail_on == "inconclusive"
    assert inputs.comment == "on-change"
    assert inputs.check_run is True
    assert inputs.conclusions == {
        "PASS": "success",
        "WARN": "neutral",
        "FAIL": "failure",
        "INCONCLUSIVE": "action_required",
    }
    env["INPUT_CONCLUSION-WARN"] = "success"
    env["INPUT_CHECK-RUN"] = "false"
    inputs = ActionInputs.from_env(env)
    assert inputs.conclusions["WARN"] == "success"
    assert inputs.check_run is False


@pytest.mark.parametrize(
    ("name", "value", "field"),
    [
        ("INPUT_FAIL-ON", "sometimes", "fail-on"),
        ("INPUT_COMMENT", "loud", "comment"),
        ("INPUT_CHECK-RUN", "maybe", "check-run"),
        ("INPUT_CONCLUSION-FAIL", "stale", "conclusion-fail"),
        ("INPUT_MAX-ANNOTATIONS", "-3", "max-annotations"),
        ("INPUT_CHECK-NAME", "x -->", "check-name"),
    ],
)
def test_bad_inputs_name_the_input(name, value, field):
    env = {"INPUT_BASELINE": "b", "INPUT_CANDIDATE": "c", "INPUT_SPEC": "s", name: value}
    with pytest.raises(AbwInputError) as info:
        ActionInputs.from_env(env)
    assert info.value.field == field


def test_gate_inputs_are_required_unless_a_report_is_published():
    with pytest.raises(AbwInputError, match="required") as info:
        ActionInputs.from_env({"INPUT_CANDIDATE": "c", "INPUT_SPEC": "s"})
    assert info.value.field == "baseline"
    assert ActionInputs.from_env({"INPUT_REPORT": "r.json"}).report == "r.json"


@pytest.mark.parametrize(
    ("verdict", "fail_on", "code"),
    [
        ("PASS", "inconclusive", 0),
        ("WARN", "inconclusive", 0),
        ("FAIL", "inconclusive", 1),
        ("INCONCLUSIVE", "inconclusive", 3),
        ("WARN", "warn", 1),
        ("INCONCLUSIVE", "warn", 3),
        ("INCONCLUSIVE", "fail", 0),
        ("FAIL", "fail", 1),
        ("FAIL", "never", 0),
        ("INCONCLUSIVE", "never", 0),
    ],
)
def test_exit_code_follows_verdict_and_fail_on(verdict, fail_on, code):
    assert action_exit_code(verdict, fail_on) == code


# --- paths -----------------------------------------------------------------------------------
def test_paths_resolve_inside_the_workspace(tmp_path):
    ws = tmp_path / "ws"
    (ws / "traces").mkdir(parents=True)
    assert resolve_in_workspace("traces", ws, name="baseline") == ws / "traces"
    assert resolve_in_workspace(str(ws / "traces"), ws, name="baseline") == ws / "traces"
    assert resolve_in_workspace("./traces/../traces", ws, name="baseline") == ws / "traces"
    assert resolve_in_workspace("new/out", ws, name="output-dir", must_exist=False) == (
        ws / "new" / "out"
    )


@pytest.mark.parametrize("value", ["../outside", "traces/../../outside", "/etc", "/"])
def test_paths_escaping_the_workspace_are_refused(tmp_path, value):
    ws = tmp_path / "ws"
    (ws / "traces").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    with pytest.raises(AbwInputError, match="outside the workspace") as info:
        resolve_in_workspace(value, ws, name="baseline")
    assert info.value.field == "baseline"


def test_symlinks_out_of_the_workspace_are_refused(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    secret = tmp_path / "secret"
    secret.mkdir()
    os.symlink(secret, ws / "link")
    with pytest.raises(AbwInputError, match="outside the workspace"):
        resolve_in_workspace("link", ws, name="candidate")
    (ws / "inside").mkdir()
    os.symlink(ws / "inside", ws / "ok-link")
    assert resolve_in_workspace("ok-link", ws, name="candidate") == ws / "inside"


def test_missing_path_is_a_clear_error(tmp_path):
    with pytest.raises(AbwInputError, match="does not exist") as info:
        resolve_in_workspace("nope", tmp_path, name="spec")
    assert info.value.field == "spec"


# --- outputs and summary -------------------------------------------------------------------
def test_outputs_use_heredoc_with_random_delimiter(tmp_path):
    target = tmp_path / "out"
    write_outputs(target, {"verdict": "FAIL", "multi": "a\nb\n\nc"})
    text = target.read_text()
    delimiters = re.findall(r"<<(ghadelimiter_[0-9a-f-]{36})", text)
    assert len(set(delimiters)) == 2
    assert parse_outputs(text) == {"verdict": "FAIL", "multi": "a\nb\n\nc"}
    with pytest.raises(ValueError, match="delimiter"):
        format_output("x", "evil\nghadelimiter_1\n", delimiter="ghadelimiter_1")
    assert write_outputs(None, {"a": "b"}) is False


def test_summary_is_capped_at_one_mebibyte(tmp_path):
    big = ("| row | é |\n" * 200_000)[:1_500_000]
    fitted = fit_summary(big, link="https://github.example/run")
    assert len(fitted.encode("utf-8")) <= 1024 * 1024
    assert "Truncated" in fitted and "https://github.example/run" in fitted
    target = tmp_path / "summary.md"
    target.write_text("x" * 1000)
    write_summary(target, big)
    assert target.stat().st_size <= 1024 * 1024
    assert fit_summary("small") == "small"


# --- workflow commands -----------------------------------------------------------------------
def test_workflow_command_escaping():
    assert commands.escape_data("50%\r\ndone") == "50%25%0D%0Adone"
    assert commands.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    line = commands.annotation(
        "error", "line1\nline2 100%", file="traces/a,b.json", line=3, title="FAIL: x:y"
    )
    assert line == (
        "::error file=traces/a%2Cb.json,line=3,title=FAIL%3A x%3Ay::line1%0Aline2 100%25"
    )
    assert commands.add_mask("s3cr%t") == "::add-mask::s3cr%25t"
    with pytest.raises(ValueError):
        commands.annotation("fatal", "x")


# --- findings, batches, truncation -----------------------------------------------------------
def test_findings_are_located_and_ordered():
    report = make_report("FAIL", violations=3)
    items = findings(report)
    assert [i.path for i in items] == [f"traces/candidate/run-{i:04d}.json" for i in range(3)]
    assert items[0].line == 9 and items[0].check_level == "failure"
    assert items[0].command_level == "error"
    assert "run-0000" in items[0].message and "3, 5" in items[0].message
    assert findings(make_report("PASS")) == []
    inconclusive = findings(make_report("INCONCLUSIVE", violations=0))
    assert inconclusive[0].path == "behavior.yaml" and inconclusive[0].line == 1
    assert len(top_for_commands(findings(make_report("FAIL", violations=30)), 10)) == 10


def test_repo_paths(tmp_path):
    assert repo_path("./traces/a.json") == "traces/a.json"
    assert repo_path(str(tmp_path / "t" / "a.json"), tmp_path) == "t/a.json"


def test_batches_of_fifty():
    assert [len(b) for b in batches(list(range(120)))] == [50, 50, 20]
    assert batches([]) == [[]]


def test_clip_markdown_closes_blocks_and_links_the_run():
    text = "<details>\n<summary>x</summary>\n\n```\n" + "line\n" * 20_000
    clipped = clip_markdown(text, 65_535, "https://github.example/run/1")
    assert len(clipped) <= 65_535
    assert clipped.count("```") % 2 == 0
    assert clipped.count("<details") == clipped.count("</details>")
    assert "https://github.example/run/1" in clipped


def test_comment_body_within_limit_with_marker_and_digest():
    body = build_body("abw gate", "x" * 70_000, "1" * 64, "https://github.example/r")
    assert len(body) <= COMMENT_LIMIT
    assert body.startswith("<!-- abw/gate:report v1 key=abw%20gate digest=" + "1" * 64 + " -->\n")
    assert digest_of(body) == "1" * 64
    same = build_body("abw gate", "different run link", "1" * 64, None)
    assert digest_of(same) == digest_of(body)
    assert digest_of(build_body("abw gate", "", "2" * 64, None)) != digest_of(body)


@pytest.mark.parametrize(
    "name", ["abw gate", "abw gate (latent)", "a=b c", "x%20y", "tab\there", "ünïcode ✓", "-- >"]
)
def test_marker_round_trips_any_check_name_as_one_exact_key(name):
    fields = {"key": name, "digest": "d" * 64, "chain": "c" * 64, "restarts": "2"}
    line = format_marker(fields)
    assert "-->" not in line[:-3] and "\n" not in line
    assert parse_marker(line + "\nbody") == fields


def test_marker_of_a_prefix_related_name_is_another_key():
    # "abw gate" is a prefix of "abw gate (latent)": the keys must still differ exactly
    latent = parse_marker(format_marker({"key": "abw gate (latent)", "digest": "0" * 64}))
    assert latent["key"] != "abw gate"
    assert parse_marker("<!-- abw/gate:report v1 key=abw%20gate -->trailing") is None
    assert parse_marker(" <!-- abw/gate:report v1 key=abw%20gate -->") is None
    assert parse_marker("text\n<!-- abw/gate:report v1 key=abw%20gate -->") is None


# --- run context -----------------------------------------------------------------------------
def test_context_uses_pr_head_sha_not_merge_sha():
    event = {
        "number": 7,
        "pull_request": {"number": 7, "head": {"sha": "h" * 40, "repo": {"full_name": "f/r"}}},
    }
    ctx = RunContext(repository="o/r", sha="m" * 40, event=event, run_id="9")
    assert ctx.head_sha == "h" * 40
    assert ctx.pr_numbers == [7]
    assert ctx.is_fork is True
    assert ctx.run_url == "https://github.com/o/r/actions/runs/9"
    push = RunContext(repository="o/r", sha="m" * 40, event={"ref": "refs/heads/main"})
    assert push.head_sha == "m" * 40 and push.pr_numbers == [] and not push.is_fork


def test_event_file_must_be_json(tmp_path):
    bad = tmp_path / "event.json"
    bad.write_text("{nope")
    with pytest.raises(AbwInputError, match="invalid JSON"):
        RunContext.from_env({"GITHUB_EVENT_PATH": str(bad)})
    assert RunContext.from_env({"GITHUB_EVENT_PATH": str(tmp_path / "missing")}).event == {}
    bad.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(AbwInputError, match="not valid UTF-8"):
        RunContext.from_env({"GITHUB_EVENT_PATH": str(bad)})


def test_event_file_over_the_limit_is_refused(tmp_path, monkeypatch):
    from abw.github import context

    big = tmp_path / "event.json"
    big.write_text('{"pad": "' + "x" * 2000 + '"}')
    monkeypatch.setattr(context, "MAX_EVENT_BYTES", 1000)
    with pytest.raises(AbwInputError, match="over abw's limit") as info:
        RunContext.from_env({"GITHUB_EVENT_PATH": str(big)})
    assert info.value.file == str(big)


def test_entrypoint_is_thin():
    text = (Path(__file__).resolve().parents[1] / "entrypoint.py").read_text()
    assert "from abw.github.main import main" in text
    assert len(text.splitlines()) < 15


def test_annotation_messages_fit_64_kb_in_bytes():
    """GitHub caps an annotation message at 64 KB: 40,000 three-byte characters are 120 KB."""
    from abw.github.findings import MESSAGE_LIMIT_BYTES

    report = make_report("FAIL", violations=1)
    report.checks[0].message = "\u20ac" * 40_000
    report.checks[0].violations[0].message = "\U0001f600" * 10
    (item,) = findings(report)
    size = len(item.message.encode("utf-8"))
    assert size <= MESSAGE_LIMIT_BYTES == 65_535
    assert size > 65_000 and item.message.endswith("\u2026")
    item.message.encode("utf-8").decode("utf-8")  # never half a character


def test_workflow_run_reports_on_the_triggering_head_never_the_default_branch():
    run = {"workflow_run": {"head_sha": "h" * 40, "pull_requests": []}}
    ctx = RunContext(repository="o/r", sha="m" * 40, event_name="workflow_run", event=run)
    assert ctx.head_sha == "h" * 40
    broken = RunContext(repository="o/r", sha="m" * 40, event_name="workflow_run", event={})
    assert broken.head_sha == ""  # not GITHUB_SHA, the default branch's commit
    odd = {"pull_request": {"number": 7, "head": "not-an-object"}}
    assert RunContext(sha="m" * 40, event=odd).head_sha == "m" * 40


def test_the_publish_timeout_counts_api_time_only():
    """``publish-timeout`` is the seconds all GitHub API calls together may take; the clock
    started when publishing was set up, so the gate and the rendering between calls spent it
    (a large report: check run and comment skipped with no API call made)."""
    import time

    from abw.github.client import ApiClock, DeadlineExceeded, check_deadline

    clock = ApiClock(30.0)
    time.sleep(0.1)  # local work between calls: none of the budget spent
    assert clock.remaining() == 30.0
    with clock.running():  # an API call
        time.sleep(0.05)
        running = clock.remaining()
    assert running < 30.0 - 0.04 and clock.remaining() <= running
    spent = clock.remaining()
    time.sleep(0.1)  # local work again
    assert clock.remaining() == spent
    short = ApiClock(0.01)
    check_deadline(short)
    with short.running():
        time.sleep(0.02)
    with pytest.raises(DeadlineExceeded):
        check_deadline(short)
