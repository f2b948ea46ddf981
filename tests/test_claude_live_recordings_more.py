"""``abw import claude`` on more transcripts the real Claude Code 2.1.332 wrote in this
repository against a loopback Messages API (tests/corpus/claude-code-live-more/generate/; see
tests/corpus/PROVENANCE.md): hooks, MCP tools, plan mode, task tools, ``--continue``,
``--fork-session`` and Esc while a reply streamed. ``shop`` is the CLI's project folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from abw.importers.common import final_output_hash
from abw.validate import validate_document
from tests.conftest import CORPUS
from tests.test_realfiles_claude_more import _tools, _trace

SHOP = CORPUS / "claude-code-live-more" / "shop"
#: ``-p`` with hooks in ~/.claude/settings.json: PreToolUse blocks ``rm`` (exit 2), denies by
#: JSON, fails (exit 1: the call runs); PostToolUse exit 2 (after the call ran) and extra
#: context; a Stop hook that makes the model answer once more.
HOOKS = SHOP / "094844e7-f4ad-4986-bdea-bc161f8068c8.jsonl"
#: ``-p``: a PreToolUse hook answers ``ask`` (no one to ask: refused), then ``continue: false``
#: (the call still runs; the run halts: ``hook_stopped_continuation``).
HOOK_HALT = SHOP / "796ef583-a815-4aa0-9474-e9d5c014e45b.jsonl"
#: ``-p``: a Stop hook answers ``continue: false`` after the answer.
STOP_HALT = SHOP / "731710d4-4540-4f05-8533-d8f5dcf30a7d.jsonl"
#: ``-p``: a UserPromptSubmit hook blocks the prompt (exit 2): one ``system`` line.
PROMPT_BLOCKED = SHOP / "84ee75da-9e72-419c-b69f-84c038bd5787.jsonl"
#: ``-p``, ``MCP_TOOL_TIMEOUT=3000``: an image result, a call that timed out, a call that
#: crashed the server (read as timed out), then a call to the dead server.
MCP_MORE = SHOP / "24920eaf-9775-448b-8068-e4131c418205.jsonl"
#: ``-p --mcp-config``: a stdio server's tool answers, its other tool returns ``isError``, and
#: a tool of a server that crashed at start.
MCP = SHOP / "38243331-34dc-4359-af97-721e4596b34f.jsonl"
#: ``-p``: TodoWrite, TaskCreate, TaskUpdate: not available in 2.1.332's print mode.
TODO = SHOP / "b02dfe9a-906e-46bc-a842-2ea5adae824b.jsonl"
#: ``-p --permission-mode plan``: ExitPlanMode not available, the Edit refused by the mode.
PLAN_PRINT = SHOP / "33aa68cc-dd6e-4353-b261-7dc774a00165.jsonl"
#: Interactive ``--permission-mode plan``: ExitPlanMode accepted (Enter), then the Edit.
PLAN_YES = SHOP / "96076968-afbd-4ec7-994a-8db6ff46a493.jsonl"
#: Interactive ``--permission-mode plan``: Esc at ExitPlanMode's dialog.
PLAN_NO = SHOP / "062bdb2b-a885-4991-85bb-3a0168a20bd0.jsonl"
#: ``-p`` (Read, answer), then ``-p --continue`` (Bash, answer) in the same file.
CONTINUED = SHOP / "1b40efb0-26e9-4b63-ad73-ea707cc1390d.jsonl"
#: ``-p --resume <CONTINUED> --fork-session``: a new file holding the copied conversation.
FORKED = SHOP / "91256254-f67c-4176-9a96-c792cf475a9b.jsonl"
#: Interactive: Esc 4 s into a slowly streamed text reply; the session then ends.
ESC_STREAM_END = SHOP / "229104c9-1c7a-4126-abd3-7cf48a081a14.jsonl"
#: Interactive: text, a Bash call (ran), then Esc while the same reply's text streamed on.
ESC_STREAM_TOOL = SHOP / "ed291833-4176-412a-929c-263e54b8e28d.jsonl"
#: Interactive: Esc while the reply streamed, then a new prompt answered after a Bash call.
ESC_STREAM_NEXT = SHOP / "f6374b9a-5dde-4312-b21f-2a9471fd5667.jsonl"
#: Interactive: an Agent (2.1.332 runs it in the background) whose Bash was still running
#: when the session was closed.
AGENT = SHOP / "a8f2e4fa-fd77-4c1d-a8af-88856bab32bd.jsonl"


def _llm(path: Path) -> list[tuple[int, str]]:
    return [(s.source_ref.line, s.outcome) for s in _trace(path).spans if s.type == "llm"]


def test_esc_while_the_reply_streamed_is_an_interrupted_call_and_no_answer():
    """2.1.332 writes the text streamed so far with ``isAbortedMidStream: true`` (no
    ``stop_reason``) and an interrupt line naming the message. It read as a successful model
    call whose fragment was the run's final answer."""
    trace = _trace(ESC_STREAM_END)
    assert _llm(ESC_STREAM_END) == [(24, "interrupted")]
    assert trace.spans[0].status == "cancelled"
    assert trace.run.final_status == "cancelled"
    assert trace.run.final_output_hash is None


def test_esc_mid_stream_drops_the_whole_reply_not_only_its_last_line():
    """The reply's first text line and its Bash call were written before the cut (without the
    flag): the call ran and is ``ok``, but no part of the cut reply is the answer."""
    trace = _trace(ESC_STREAM_TOOL)
    assert _llm(ESC_STREAM_TOOL) == [(25, "interrupted")]
    assert _tools(ESC_STREAM_TOOL) == [("Bash", 26, "success", "ok")]
    assert (trace.run.final_status, trace.run.final_output_hash) == ("cancelled", None)


def test_esc_mid_stream_then_a_new_prompt_answers_with_the_new_reply():
    trace = _trace(ESC_STREAM_NEXT)
    assert _llm(ESC_STREAM_NEXT) == [(24, "interrupted"), (31, "ok"), (35, "ok")]
    assert trace.run.final_status == "success"
    assert trace.run.final_output_hash == final_output_hash("Two Python files are in the shop.")


def test_hooks_block_deny_fail_and_continue():
    """PreToolUse exit 2 and a JSON deny are ``denied``; a hook that exits 1 does not block (the
    call ran); a PostToolUse exit 2 comes after the call ran (``ok``); the Stop hook's extra
    turn gives the answer."""
    assert _tools(HOOKS) == [
        ("Bash", 19, "error", "denied"),
        ("Bash", 25, "error", "denied"),
        ("Bash", 28, "success", "ok"),
        ("Bash", 37, "success", "ok"),
        ("Read", 43, "success", "ok"),
    ]
    trace = _trace(HOOKS)
    assert trace.run.final_status == "success"
    assert trace.run.final_output_hash == final_output_hash("Answer after the stop hook.")


def test_a_hook_that_halts_the_run_mid_turn_ends_it_as_an_error():
    """``continue: false`` from a PreToolUse hook stops the run after the call (Claude Code
    writes ``hook_stopped_continuation`` and no reply): it read ``unknown``, as a run cut off
    unfinished. A policy stopped it, as ``--max-turns`` does: ``error``. After a Stop hook
    the answer was given: ``success``."""
    assert _tools(HOOK_HALT) == [("Bash", 19, "error", "denied"), ("Bash", 26, "success", "ok")]
    assert _trace(HOOK_HALT).run.final_status == "error"
    stopped = _trace(STOP_HALT)
    assert stopped.run.final_status == "success"
    assert stopped.run.final_output_hash == final_output_hash("The cart sums prices.")
    # a prompt a UserPromptSubmit hook blocked read unknown, where Codex's reads error (as
    # docs/importers.md says both do): the policy stopped the run before any step
    blocked = _trace(PROMPT_BLOCKED)
    assert (blocked.spans, blocked.run.final_status) == ([], "error")


def test_mcp_tools_success_is_error_and_a_server_that_never_started():
    trace = _trace(MCP)
    calls = [s for s in trace.spans if s.type != "llm"]
    assert [(s.name, s.outcome) for s in calls] == [
        ("mcp__shopdb__lookup", "ok"),
        ("mcp__shopdb__explode", "error"),  # isError
        ("mcp__broken__ping", "error"),  # No such tool available
    ]
    assert [(s.attributes["mcp_server"], s.attributes["mcp_tool"]) for s in calls] == [
        ("shopdb", "lookup"),
        ("shopdb", "explode"),
        ("broken", "ping"),
    ]
    # Claude Code's "MCP server … tool … timed out after 3s" is a timeout (it read error, where
    # every other importer reads a call it stopped waiting for so)
    assert [(t[0], t[3]) for t in _tools(MCP_MORE)] == [
        ("mcp__shopdb__image", "ok"),
        ("mcp__shopdb__slow", "timeout"),
        ("mcp__shopdb__crash", "timeout"),
        ("mcp__shopdb__lookup", "timeout"),  # (the dead server's: Claude Code waited its 3 s)
    ]


def test_plan_mode_task_tools_continue_and_fork():
    assert _tools(PLAN_PRINT) == [
        ("Read", 22, "success", "ok"),
        ("ExitPlanMode", 26, "error", "error"),
        ("Edit", 32, "error", "denied"),  # refused by the mode (source config)
    ]
    assert [t[3] for t in _tools(PLAN_YES)] == ["ok", "ok", "ok"]
    assert _tools(PLAN_NO)[-1] == ("ExitPlanMode", 30, "cancelled", "rejected")
    assert _trace(PLAN_NO).run.final_status == "cancelled"
    assert [(s.name, s.type, s.outcome) for s in _trace(TODO).spans if s.type != "llm"] == [
        ("TodoWrite", "memory", "error"),
        ("TaskCreate", "memory", "error"),
        ("TaskUpdate", "memory", "error"),
    ]
    assert [t[0] for t in _tools(CONTINUED)] == ["Read", "Bash"]
    assert [t[0] for t in _tools(FORKED)] == ["Read", "Bash", "Bash"]
    agent = [(s.name, s.attributes["agent"], s.outcome) for s in _trace(AGENT).spans]
    assert ("Bash", "subagent", "incomplete") in agent


def test_the_folder_imports_validates_and_leaks_nothing(run_cli, tmp_path):
    out = tmp_path / "out"
    code, _, err = run_cli("import", "claude", "--input", SHOP, "--out", out, "-q")
    assert code == 0, err
    written = sorted(out.iterdir())
    # 16 sessions; CONTINUED is read once, as the run of FORKED, which copied its lines whole
    assert len(written) == 15 and not (out / f"{CONTINUED.stem}.json").exists()
    assert (out / f"{FORKED.stem}.json").exists()
    raws = ("/home/dev", "cart.py", "fridays", "price of", "shopdb is down", "Let me think")
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert validate_document(json.loads(text), path.name) == []
        assert not [
            raw
            for raw in (*raws, "hook.py", "Run the tests", "claude-0", "halted", "for the day")
            if raw in text
        ]
