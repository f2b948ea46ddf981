"""``abw import claude`` on transcripts the real Claude Code 2.1.332 wrote when driven through
the Claude Agent SDK for Python 0.2.189 (entrypoint ``sdk-py``) against a loopback Messages API
(tests/corpus/claude-agent-sdk-live/generate/). ``shop`` is the CLI's project folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from abw.validate import validate_document
from tests.conftest import CORPUS
from tests.test_realfiles_claude_more import _trace

SHOP = CORPUS / "claude-agent-sdk-live" / "shop"
#: ``query()`` with in-process tools (``mcp__shop__*``): one answers, one raises, one returns
#: ``is_error``; then resumed (``resume``) with a Bash call.
CUSTOM = SHOP / "cb79b6f3-4046-40a4-9e90-6a47b5f87da8.jsonl"
#: The same session forked (``resume`` + ``fork_session``): the copy and one more Bash call.
FORK = SHOP / "ba1bc8f9-b911-42c2-97df-7ce20610fc63.jsonl"
#: ``ClaudeSDKClient`` with ``can_use_tool``: a Bash call denied, one allowed with a new input.
PERM = SHOP / "3eae17c3-b347-4acb-9ea6-d9bce42b1097.jsonl"
#: ``can_use_tool`` denies with ``interrupt=True``.
PERMSTOP = SHOP / "7901bc35-3260-4f82-858b-59ec36a0f6e6.jsonl"
#: ``ClaudeSDKClient.interrupt()`` while a Bash call sleeps; then a second prompt.
INTERRUPT = SHOP / "8839461d-c5c8-4914-a2d7-774842551d7f.jsonl"
#: A PreToolUse hook (an SDK callback) denies a Bash call; a Read beside it runs.
HOOK = SHOP / "93e33cc2-d9c7-49e7-bec1-056dcfbd19d0.jsonl"
#: ``max_turns=1`` stops after the first call.
MAXTURNS = SHOP / "5c71239a-9d79-4a53-a449-b79d3e7d4111.jsonl"
#: A custom agent from ``agents`` (launched async: Read, a failing Bash).
AGENTS = SHOP / "8e03db35-48aa-486c-bd60-b099adecec9a.jsonl"
#: ``setting_sources=["project"]``: a deny rule refuses curl, an allow rule lets ``exit 3`` run.
SETTINGS = SHOP / "cc2909c9-e321-4e4b-b77d-96b54d9d73ce.jsonl"
#: The only request fails with 529.
APIERR = SHOP / "f3dd838a-e8f8-4122-99b1-d76ea334f390.jsonl"


def _tools(path: Path) -> list[tuple[str, str, str]]:
    return [(s.name, s.status, s.outcome) for s in _trace(path).spans if s.type != "llm"]


def test_a_call_the_sdk_interrupted_while_it_ran_is_interrupted():
    """``interrupt()`` writes the running call as ``User rejected tool use`` with a sentence
    saying it was stopped while it ran, and no ``interruptedMessageId``: it read as a person's
    rejection."""
    assert _tools(INTERRUPT) == [("Bash", "cancelled", "interrupted")]
    assert _trace(INTERRUPT).run.final_status == "success"


def test_a_permission_callbacks_denial_and_its_interrupting_denial():
    assert _tools(PERM) == [("Bash", "error", "denied"), ("Bash", "success", "ok")]
    assert _tools(PERMSTOP) == [("Bash", "cancelled", "rejected")]
    assert _trace(PERMSTOP).run.final_status == "cancelled"


def test_in_process_tools_resume_and_fork():
    custom = [
        ("mcp__shop__price", "success", "ok"),
        ("mcp__shop__boom", "error", "error"),
        ("mcp__shop__stock", "error", "error"),
        ("Bash", "success", "ok"),
    ]
    assert _tools(CUSTOM) == custom
    assert _tools(FORK) == [*custom, ("Bash", "success", "ok")]


def test_hooks_settings_max_turns_agents_and_api_error():
    assert _tools(HOOK) == [("Bash", "error", "denied"), ("Read", "success", "ok")]
    assert _tools(SETTINGS) == [("Bash", "error", "denied"), ("Bash", "error", "error")]
    assert _trace(MAXTURNS).run.final_status == "error"
    agents = _trace(AGENTS)
    assert [(s.name, s.attributes["agent"]) for s in agents.spans if s.type != "llm"] == [
        ("Agent", "main"),
        ("Read", "subagent"),
        ("Bash", "subagent"),
    ]
    assert _trace(APIERR).run.final_status == "error"


def test_the_project_folder_imports_validates_and_leaks_nothing(run_cli, tmp_path):
    out = tmp_path / "out"
    code, _, err = run_cli("import", "claude", "--input", SHOP, "--out", out, "-q")
    assert code == 0, err
    written = sorted(out.iterdir())
    # 10 sessions; CUSTOM is read once, as the run of FORK, which copied its lines whole
    assert len(written) == 9 and not (out / f"{CUSTOM.stem}.json").exists()
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert validate_document(json.loads(text), path.name) == []
        for raw in ("/home/dev", "rm -rf", "4.20", "unknown SKU", "Pushing is", "S-custom"):
            assert raw not in text
