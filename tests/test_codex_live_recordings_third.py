"""A third set of rollouts written by the real Codex CLI 0.171.0 against a loopback fake of the
Responses API (tests/corpus/codex-live-third/generate/): web searches, ``-i`` images and
``view_image``, ``--output-schema`` (with and without ``--json``), a very long command output,
the read-only sandbox, a command the command policy refuses, and the TUI's ``/compact``,
backtrack (Esc Esc) and ``codex resume``, each checked against what the recording itself says."""

from __future__ import annotations

from pathlib import Path

import pytest

from abw.importers.base import ImportOptions
from abw.importers.codex import classify_output
from abw.importers.common import final_output_hash
from abw.models.trace import Trace
from tests.conftest import CORPUS
from tests.importkit import import_trace, import_traces, rollout, tool_spans

LIVE = CORPUS / "codex-live-third"
FILES = sorted(LIVE.glob("*__rollout-*.jsonl"))


def _import(scenario: str | Path, options: ImportOptions | None = None) -> Trace:
    return import_trace(
        "codex", scenario if isinstance(scenario, Path) else rollout(LIVE, scenario), options
    )


def test_an_rm_force_the_command_policy_refuses_is_denied():
    """Under approval "never" Codex refuses ``rm -f`` before it runs: the output is
    "exec_command failed: CreateProcess { message: "Rejected(… not permitted …)" }" (it was
    read ok, as if the command had run)."""
    trace = _import("rmforce")
    assert tool_spans(trace) == [
        ("exec_command", "ok", "call_ls"),
        ("exec_command", "denied", "call_rm"),
    ]
    assert trace.run.final_status == "success"


@pytest.mark.parametrize(
    ("output", "outcome"),
    [
        (  # (the form Codex writes when it names the command, seen in real CLI logs)
            "exec_command failed for `/bin/bash -lc 'rm -rf out'`: CreateProcess { message: "
            "\"Rejected(\\\"`/bin/bash -lc 'rm -rf out'` rejected: rm -f style commands are not "
            'permitted. Use a safer approach\\")" }',
            "denied",
        ),
        ('exec_command failed: CreateProcess { message: "No such file or directory" }', "error"),
        ("Tests failed: CreateProcess is a word here", "ok"),
    ],
)
def test_a_call_codex_could_not_start_is_read_by_its_reason(output, outcome):
    assert classify_output(output).outcome == outcome


def test_view_image_of_a_missing_file_is_an_error():
    """``view_image`` answers a file it cannot open "unable to locate image at `…`: No such
    file or directory" (it was read ok); the image it showed is ok."""
    trace = _import("image")
    assert tool_spans(trace) == [
        ("view_image", "ok", "call_img"),
        ("view_image", "error", "call_noimg"),
    ]


def test_web_searches_take_the_status_the_model_gave_them():
    """A ``web_search_call`` is the model's own (server-side) step: ``completed`` is ok,
    ``failed`` an error; Codex runs nothing for it."""
    trace = _import("websearch")
    assert tool_spans(trace) == [
        ("web_search", "ok", "ws_a"),
        ("web_search", "error", "ws_b"),
        ("exec_command", "ok", "call_w"),
    ]


def test_structured_output_is_the_final_answer_and_exec_json_output_is_refused(tmp_path, run_cli):
    """``--output-schema``: the JSON answer is the final output; the ``--json`` events the CLI
    printed for the same run are refused, naming the rollout to import."""
    for scenario in ("schema", "jsonexec"):
        trace = _import(scenario)
        assert trace.run.final_output_hash == final_output_hash(
            '{"files": ["cart.py"], "ok": true}'
        )
        assert tool_spans(trace) == [("exec_command", "ok", "call_s")]
    stdout = LIVE / "jsonexec__exec-json-stdout.jsonl"
    code, _, err = run_cli("import", "codex", "--input", stdout, "--out", tmp_path / "t.json")
    assert code == 2
    assert "import the session's rollout" in err


def test_long_output_read_by_its_exit_code_and_the_read_only_sandbox_an_error():
    """A truncated output ("Warning: truncated output …") keeps its exit code; a write the
    read-only sandbox refused exits 1 ("Read-only file system"), with no approval asked."""
    assert tool_spans(_import("longout")) == [("exec_command", "ok", "call_long")]
    assert tool_spans(_import("readonly")) == [
        ("exec_command", "error", "call_write"),
        ("exec_command", "ok", "call_read"),
    ]


def test_tui_compact_is_a_step_and_the_run_goes_on():
    trace = _import("tuicompact")
    assert [s.name for s in trace.spans if s.type != "llm"] == [
        "exec_command",
        "compaction",
        "exec_command",
    ]
    assert trace.run.final_output_hash == final_output_hash("Done with turn 2.")


def test_codex_resume_in_the_tui_goes_on_in_the_same_file_as_one_run():
    """``codex resume <id>`` (the TUI) of a ``codex exec`` session appends its turn to the
    session's file: one run of both turns, ending as the resumed turn ended."""
    trace = _import("tuiresume")
    assert tool_spans(trace) == [
        ("exec_command", "ok", "call_r0"),
        ("exec_command", "ok", "call_r1"),
    ]
    assert trace.run.final_output_hash == final_output_hash("Done with turn 1.")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name.split("__")[0])
def test_no_raw_text_reaches_the_trace(path):
    text = _import(path).model_dump_json()
    for raw in (
        "/home/dev",
        "please work",
        "secret-tail-marker",
        "59999",
        "shop secret pricing",
        "python sum of prices",
        "iVBORw0KGgo",
        "rm -f",
        "Read-only file system",
        "cart.py",
    ):
        assert raw not in text


def test_a_tui_backtrack_goes_on_in_a_later_file_of_the_same_run(tmp_path, run_cli):
    """Esc Esc then Enter in the 0.171 TUI rewinds to before the second prompt and starts a new
    file of the same thread (``…-<thread id>_<segment id>.jsonl``, same ``session_meta`` id,
    holding only the turn after the rewind). The folder is one run: the rewound turn's calls
    stay (they ran), then the new turn's, and it ends as the new turn ended (it was two runs
    with one trace id, the first ending on the abandoned answer)."""
    first, later = rollout(LIVE, "undo"), rollout(LIVE, "undone")
    for path in (first, later):
        (tmp_path / "in").mkdir(exist_ok=True)
        (tmp_path / "in" / path.name).write_bytes(path.read_bytes())
    code, _, err = run_cli("import", "codex", "--input", tmp_path / "in", "--out", tmp_path / "out")
    assert (code, err.strip()) == (0, "abw: wrote 1 trace to " + str(tmp_path / "out"))
    trace = import_trace("codex", tmp_path / "in" / first.name)
    assert [(s.name, s.source_ref.file) for s in trace.spans if s.type != "llm"] == [
        ("exec_command", first.name),
        ("exec_command", first.name),
        ("exec_command", later.name),
    ]
    assert trace.run.final_output_hash == final_output_hash("Done with turn 1.")
    options = ImportOptions()
    import_traces("codex", tmp_path / "in" / later.name, options)
    assert any("a later file of thread" in w for w in options.warnings)


def test_a_later_file_cut_off_in_its_turn_leaves_the_run_unknown(tmp_path):
    """The later file of a backtrack whose turn never ended (the process died in it) left the
    run as the earlier file had ended it: ``success``, the abandoned answer its output."""
    first, later = rollout(LIVE, "undo"), rollout(LIVE, "undone")
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / first.name).write_bytes(first.read_bytes())
    lines = later.read_bytes().splitlines(keepends=True)
    ends = [n for n, line in enumerate(lines) if b'"task_complete"' in line]
    assert ends
    (folder / later.name).write_bytes(b"".join(lines[: ends[-1]]))  # cut before its end
    trace = import_trace("codex", folder / first.name)
    assert trace.run.final_status == "unknown"
    assert [s.source_ref.file for s in trace.spans if s.type != "llm"][-1] == later.name


@pytest.mark.parametrize(
    "output",
    [
        # a PreToolUse hook (codex-rs hook_runtime.rs): a command, and any other tool
        "Command blocked by PreToolUse hook: reading outside src is not allowed. Command: cat x",
        "Tool call blocked by PreToolUse hook: plans are disabled. Tool: update_plan",
        # the automatic approval reviewer (guardian): its rejection, and its timeout
        "This action was rejected due to unacceptable risk.\nReason: it would upload the "
        "workspace to an untrusted destination.",
        "The automatic permission approval review did not finish before its deadline. Do not "
        "assume the action is unsafe based on the timeout alone. You may retry once, or ask the "
        "user for guidance or explicit approval.",
        # the sandbox's network proxy, as the output and inside a call that failed to run
        'Network access to "pypi.org" was blocked: domain is not on the allowlist for the '
        "current sandbox mode.",
        'exec_command failed: ProcessFailed { message: "Network access to \\"registry.npmjs.org'
        '\\" was blocked: domain is not on the allowlist for the current sandbox mode." }',
        'exec_command failed: CreateProcess { message: "Rejected(\\"The automatic permission '
        'approval review did not finish before its deadline.\\")" }',
    ],
)
def test_a_call_a_hook_reviewer_or_network_policy_refused_is_denied(output):
    """Codex answers a call a policy refused before it ran with its own fixed texts; they read
    ok (a blocked ``cat`` counted as a command that ran, a ``max_errors`` budget kept)."""
    assert classify_output(output).outcome == "denied"


@pytest.mark.parametrize(
    "output",
    [
        'exec_command failed: ProcessFailed { message: "Killed: out of memory" }',
        "The command printed: Command blocked by PreToolUse hook: no",  # (text, not Codex's)
    ],
)
def test_texts_like_a_refusal_elsewhere_are_read_as_before(output):
    assert classify_output(output).outcome in ("error", "ok")
    assert classify_output(output).outcome != "denied"


def test_a_prompt_a_user_prompt_submit_hook_blocked_is_no_successful_run(tmp_path):
    """A UserPromptSubmit hook that blocks the prompt: Codex returns before recording it, the
    model is never asked, and the turn completes with no answer; only the persisted
    ``hook_completed`` (status ``blocked``) says why. The run read ``success``, with no step."""
    import json

    source = next((CORPUS / "codex-live").glob("tools__*.jsonl"))
    records = [json.loads(line) for line in source.read_text().splitlines()]
    turn = records[1]["payload"]["turn_id"]
    hook = {"id": "h1", "event_name": "user_prompt_submit", "status": "blocked", "entries": []}
    kept = [
        *records[:7],
        {
            "timestamp": records[6]["timestamp"],
            "type": "event_msg",
            "payload": {"type": "hook_completed", "turn_id": turn, "run": hook},
        },
        {**records[-1], "payload": {**records[-1]["payload"], "last_agent_message": None}},
    ]
    path = tmp_path / source.name.split("__", 1)[1]
    path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    trace = _import(path)
    assert trace.spans == [] and trace.run.final_status == "error"
    kept[7]["payload"]["run"]["event_name"] = "stop"  # a Stop hook's block only goes on
    path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    assert _import(path).run.final_status == "success"
