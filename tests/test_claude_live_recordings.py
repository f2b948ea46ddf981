"""``abw import claude`` on transcripts the real Claude Code 2.1.332 wrote in this repository,
driven against a loopback Messages API (tests/corpus/claude-code-live/generate/; see
tests/corpus/PROVENANCE.md). The folder ``shop`` is the CLI's project folder as written.
"""

from __future__ import annotations

import json

from abw.traceio import render_trace
from abw.validate import validate_document
from tests.conftest import CORPUS
from tests.test_realfiles_claude_more import _tools, _trace

SHOP = CORPUS / "claude-code-live" / "shop"
#: ``-p`` run, ``--permission-mode acceptEdits --allowedTools Bash``: Read + Bash in one message,
#: Bash ok, Bash exit 3, Read of a missing file, Edit, answer; then ``--resume`` with a second
#: prompt (Bash, answer) and ``-p /compact --resume``.
BASIC = SHOP / "887d3ce8-1df4-4dfe-9334-df0a2d5fd05e.jsonl"
#: ``-p`` run, ``--permission-mode default``: Bash ``rm -rf build`` and a Write, both refused by
#: configuration (no rule allows them, no one to ask), then a Read and the answer.
DENIED = SHOP / "25027e19-aff6-4822-a874-f8220ee1f05c.jsonl"
#: ``-p`` with deny rules in ~/.claude/settings.json: ``Bash(rm -rf build)`` and
#: ``Read(//home/dev/shop/cart.py)`` refused (the Write rule did not match: it ran).
RULES = SHOP / "757a58ce-60aa-4905-ac3b-e25e572e8694.jsonl"
#: Interactive, ``--dangerously-skip-permissions``: Esc pressed while ``Bash`` ran (5 s into a
#: 30 s command), then a second prompt answered after a Bash call.
ESC_RUNNING = SHOP / "d233db21-18e4-4ef6-8119-500a9632d51e.jsonl"
#: Interactive, ``--permission-mode default``: Esc at the permission prompt of a Bash call.
ESC_PROMPT = SHOP / "2e3f66eb-c1cf-4e61-b21a-c57378e354e3.jsonl"
#: ``-p``: an ``Agent`` launched in the background; its transcript under ``subagents/``.
AGENT = SHOP / "fb017813-f7b8-4b1d-98be-2dda41a37ae8.jsonl"
#: ``-p``: Bash ok, then the API answers 400 and the run ends on the error.
API_ERROR = SHOP / "eff61a5f-1144-4539-8153-0f7b1a6c83b3.jsonl"
#: ``-p``: a background Bash that exits 4 beside a foreground one in the same message.
BACKGROUND = SHOP / "dae9fbdc-8ba1-45d2-99e6-fe969cf5abed.jsonl"
#: ``-p``: ended (SIGTERM) 5 s into a 30 s Bash call, then ``-p --resume`` with a new prompt.
KILLED = SHOP / "58db8314-d796-4e55-bcd2-f9c32efe8b53.jsonl"
#: ``-p --max-turns 2``: the run stops after two API replies (a ``max_turns_reached``
#: attachment; the CLI's result says ``error_max_turns``).
MAX_TURNS = SHOP / "d05bf530-b9bf-4499-a0b4-a78762baa779.jsonl"
#: Interactive: Esc while the first of two Bash calls of one message ran.
ESC_PARALLEL = SHOP / "cb516474-1dd3-42ce-86cb-0c9d9099b2b3.jsonl"


def test_a_call_refused_by_configuration_in_print_mode_is_denied():
    """2.1.332 writes ``toolDenialKind: user-rejected`` on a call that ``-p`` refused because
    no rule allowed it (``permissionDecision`` ``{decision: reject, source: config}``): no one
    rejected it. It read ``rejected`` (cancelled); a policy refusal is ``denied`` (error)."""
    assert _tools(DENIED) == [
        ("Bash", 19, "error", "denied"),
        ("Write", 26, "error", "denied"),
        ("Read", 30, "success", "ok"),
    ]
    assert _trace(DENIED).run.final_status == "success"


def test_a_call_a_users_deny_rule_refused_is_denied_not_rejected():
    """A deny rule of the user's settings is written ``permissionDecision.source: user_reject``
    (``reasonType: rule``); no one was asked. The Bash call also names ``toolDenialKind:
    permission-rule``; the Read names no kind at all."""
    assert _tools(RULES) == [
        ("Bash", 19, "error", "denied"),
        ("Write", 26, "success", "ok"),
        ("Read", 30, "error", "denied"),
    ]


def test_a_running_call_the_user_stopped_with_esc_is_interrupted():
    """2.1.332 answers a call stopped while it ran with ``User rejected tool use`` too; the
    interrupt line after it names the call's message (``interruptedMessageId``). It read
    ``rejected``; a refusal at the prompt (no message named) stays ``rejected``."""
    assert _tools(ESC_RUNNING) == [
        ("Bash", 21, "cancelled", "interrupted"),
        ("Bash", 38, "success", "ok"),
    ]
    assert _trace(ESC_RUNNING).run.final_status == "success"  # the next prompt was answered
    assert _tools(ESC_PARALLEL) == [  # the second call never started
        ("Bash", 18, "cancelled", "interrupted"),
        ("Bash", 19, "cancelled", "interrupted"),
    ]
    assert _tools(ESC_PROMPT) == [("Bash", 20, "cancelled", "rejected")]
    assert _trace(ESC_PROMPT).run.final_status == "cancelled"


def test_a_call_the_session_ended_under_is_interrupted_once_resumed():
    """On ``--resume`` 2.1.332 answers a call left open by the session's end with ``[Tool call
    interrupted: …]`` and ``toolDenialKind: interrupted``: any kind but ``user-rejected`` read as
    a policy's refusal, ``denied`` (error)."""
    assert _tools(KILLED) == [
        ("Bash", 19, "cancelled", "interrupted"),
        ("Bash", 29, "success", "ok"),
    ]
    assert _trace(KILLED).run.final_status == "success"


def test_a_run_stopped_at_max_turns_failed():
    """It ended on a tool result with nothing after it but the ``max_turns_reached``
    attachment: read ``unknown``. A run stopped by its turn limit failed, as other importers
    read an iteration or step limit."""
    trace = _trace(MAX_TURNS)
    assert trace.run.final_status == "error"
    assert [s.outcome for s in trace.spans if s.type != "llm"] == ["ok", "ok", "ok"]


def test_print_mode_session_resumed_and_compacted_reads_call_by_call():
    trace = _trace(BASIC)
    assert _tools(BASIC) == [
        ("Read", 21, "success", "ok"),
        ("Bash", 22, "success", "ok"),  # same API message as the Read
        ("Bash", 29, "success", "ok"),
        ("Bash", 34, "error", "error"),  # exit 3
        ("Read", 37, "error", "error"),  # no such file
        ("Edit", 41, "success", "ok"),
        ("Bash", 51, "success", "ok"),  # after --resume
        ("compaction", 62, "success", "ok"),
    ]
    assert [s.type for s in trace.spans].count("llm") == 8  # six API replies, two after --resume
    assert trace.run.final_status == "success"
    assert trace.run.agent_version == "2.1.332"


def test_agent_background_and_api_error_sessions():
    agent = _trace(AGENT)
    assert [
        (s.name, s.attributes.get("agent"), s.outcome) for s in agent.spans if s.type != "llm"
    ] == [
        ("Agent", "main", "ok"),
        ("Bash", "subagent", "ok"),
        ("Bash", "subagent", "error"),  # cat of a missing file
    ]
    assert _tools(BACKGROUND)[:2] == [("Bash", 19, "error", "error"), ("Bash", 20, "success", "ok")]
    errored = _trace(API_ERROR)
    assert (errored.spans[-1].name, errored.spans[-1].status) == ("api_error", "error")
    assert errored.run.final_status == "error"


def test_the_project_folder_imports_validates_and_leaks_nothing(run_cli, tmp_path):
    out = tmp_path / "out"
    code, _, err = run_cli("import", "claude", "--input", SHOP, "--out", out, "-q")
    assert code == 0, err
    written = sorted(out.iterdir())
    assert len(written) == 11
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert validate_document(json.loads(text), path.name) == []
        for raw in ("/home/dev", "cart.py", "S-basic", "pytest", "nowhere.txt", "claude-0"):
            assert raw not in text
    first = render_trace(_trace(BASIC))
    assert first == render_trace(_trace(BASIC))


def test_a_title_record_for_another_session_changes_nothing_of_this_one(tmp_path):
    """Claude Code writes title records (``custom-title``, ``ai-title``, ``summary``) into the
    file of whatever session is open, often for another session. One naming the session beside
    it gave this session that session's id and pulled in its subagent (and its failed Bash)."""
    import shutil

    folder = tmp_path / "shop"
    shutil.copytree(SHOP, folder)
    session = folder / "d05bf530-b9bf-4499-a0b4-a78762baa779.jsonl"
    other = "fb017813-f7b8-4b1d-98be-2dda41a37ae8"
    alone = _trace(session)
    lines = session.read_text().splitlines(keepends=True)
    title = json.dumps({"type": "custom-title", "customTitle": "Cart helper", "sessionId": other})
    for at in (1, len(lines)):  # early in the file, and last
        session.write_text("".join([*lines[:at], title + "\n", *lines[at:]]))
        trace = _trace(session)
        assert trace.run.trace_id == alone.run.trace_id == session.stem
        assert [s.name for s in trace.spans] == [s.name for s in alone.spans]
        assert "subagent_files" not in (trace.source.model_extra or {})


def test_a_subagent_started_by_a_subagent_follows_its_handoff(tmp_path):
    """A subagent that runs ``Agent`` itself (2.1.332 offers subagents the tool) started a
    transcript that was "not linked to any Task call": its spans came after the session's
    final answer, with no parent, instead of right after the handoff that started it."""
    import shutil

    from abw.importers.base import ImportOptions
    from tests.importkit import import_traces

    session = "fb017813-f7b8-4b1d-98be-2dda41a37ae8"
    folder = tmp_path / "shop"
    folder.mkdir()
    shutil.copy(SHOP / f"{session}.jsonl", folder)
    shutil.copytree(SHOP / session, folder / session)
    subagents = folder / session / "subagents"
    first = subagents / "agent-a5a146da06eeb103c.jsonl"
    text = first.read_text()
    (subagents / "agent-anested01.jsonl").write_text(
        text.replace('"agentId":"a5a146da06eeb103c"', '"agentId":"anested01"')
    )
    records = [json.loads(line) for line in text.splitlines()]
    call = "toolu_01469bf6c4b2b3570215f0a8"  # the subagent's second Bash, made an Agent call
    for record in records:
        content = record.get("message", {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and block.get("id") == call:
                block["name"] = "Agent"
                block["input"] = {"description": "nested", "prompt": "Count words"}
            if block.get("type") == "tool_result" and block.get("tool_use_id") == call:
                block.update(is_error=False, content=[{"type": "text", "text": "3 words"}])
                record["toolUseResult"] = {"status": "completed", "agentId": "anested01"}
    first.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    options = ImportOptions(exported_at="2026-01-01T00:00:00Z")
    (trace,) = import_traces("claude", folder / f"{session}.jsonl", options)
    assert not [w for w in options.warnings if "not linked" in w], options.warnings
    nested = [s for s in trace.spans if s.attributes.get("agent_id") == "anested01"]
    (handoff,) = [
        s
        for s in trace.spans
        if s.name == "Agent" and s.attributes.get("agent_id") == "a5a146da06eeb103c"
    ]
    assert nested and {s.parent_span_id for s in nested} == {handoff.span_id}
    assert nested[0].ordinal == handoff.ordinal + 1


def test_a_denial_of_a_long_command_is_denied(tmp_path):
    """ "Permission to use Bash with command <command> has been denied." was read as a plain
    error once the command pushed "denied" past the first 200 characters."""
    from tests.importkit import import_trace

    source = CORPUS / "claude-code-live-versions" / "2.1.100"
    path = source / "bf2d74b2-037b-45a7-a04e-728c5771f395.jsonl"
    long = "rm -rf build " + " ".join(f"dir{i}" for i in range(40))
    copy = tmp_path / path.name
    copy.write_text(path.read_text().replace("rm -rf build", long))
    for file in (path, copy):
        (span,) = [s for s in import_trace("claude", file).spans if s.name == "Bash"]
        assert (span.status, span.outcome) == ("error", "denied")


def test_background_shells_before_2_1_end_as_their_poll_and_kill_say(tmp_path):
    """1.0.x–2.0.x polled a background shell with BashOutput ({shellId, status}) and stopped it
    with KillBash / KillShell: a poll reporting "failed" made the poll an error while the shell's
    Bash stayed ok, and a kill was not read at all (TaskStop and TaskOutput were)."""
    from tests.importkit import import_trace

    path = CORPUS / "claude-code" / "ccviewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    lines = path.read_text().splitlines(keepends=True)

    def spans(text: str) -> dict[int, tuple[str, str, str]]:
        file = tmp_path / path.name
        file.write_text(text)
        return {
            s.source_ref.line: (s.name, s.status, s.outcome)
            for s in import_trace("claude", file).spans
            if s.type != "llm"
        }

    killed = spans("".join(lines))
    assert killed[116] == ("Bash", "cancelled", "interrupted")  # KillBash at line 121
    failed = json.loads(lines[118])
    failed["toolUseResult"].update(status="failed", exitCode=1)
    poll_failed = "".join([*lines[:118], json.dumps(failed) + "\n", *lines[119:120]])
    seen = spans(poll_failed)
    assert seen[116] == ("Bash", "error", "error")
    assert seen[118] == ("BashOutput", "success", "ok")
