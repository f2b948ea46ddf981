"""An import given an agent's own folder (``~/.codex``, ``~/.claude``, ``~/.openhands``;
``~/.gemini`` in test_gemini_live_recordings.py) reads the folders that hold its sessions,
nothing else there."""

from __future__ import annotations

import json
import shutil

from tests.conftest import CORPUS
from tests.importkit import cli_import, rollout

CODEX_LIVE = CORPUS / "codex-live"
CLAUDE_SHOP = CORPUS / "claude-code-live" / "shop"


def _session_ids(traces: list[dict]) -> list[str]:
    return sorted(t["run"]["trace_id"] for t in traces)


def test_codex_home_reads_sessions_and_archived_sessions(run_cli, tmp_path):
    """``$CODEX_HOME`` holds ``auth.json``, ``config.toml``, ``version.json``, its prompt log,
    its logs and caches beside ``sessions/YYYY/MM/DD/`` and ``archived_sessions/``. The
    import failed on ``auth.json`` ("not a Codex rollout", exit 2); it reads both session
    folders now, and nothing of the credentials reaches its output."""
    home = tmp_path / ".codex"
    day = home / "sessions" / "2026" / "12" / "03"
    day.mkdir(parents=True)
    (home / "archived_sessions").mkdir()
    kept = rollout(CODEX_LIVE, "fail")
    archived = rollout(CODEX_LIVE, "escalate")
    shutil.copy(kept, day / kept.name.split("__", 1)[1])
    shutil.copy(archived, home / "archived_sessions" / archived.name.split("__", 1)[1])
    (home / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": "CANARY-KEY", "tokens": {}}))
    (home / "config.toml").write_text('model = "gpt-5-codex"\n')
    (home / "version.json").write_text(json.dumps({"latest_version": "0.63.0"}))
    (home / "internal_storage.json").write_text(json.dumps({"gpt_5_codex_model_prompt_seen": 1}))
    (home / "history.jsonl").write_text(
        json.dumps({"session_id": "x", "ts": 1764804490, "text": "CANARY-PROMPT"}) + "\n"
    )
    (home / "log").mkdir()
    (home / "log" / "codex-tui.log").write_text("CANARY-LOG\n")
    traces, err = cli_import(run_cli, "codex", home, tmp_path / "out")
    alone = [cli_import(run_cli, "codex", p, tmp_path / p.stem)[0][0] for p in (kept, archived)]
    assert _session_ids(traces) == _session_ids(alone)
    assert "CANARY" not in err + json.dumps(traces)


def test_claude_home_reads_its_projects(run_cli, tmp_path):
    """``~/.claude``: settings, credentials and the prompt log beside ``projects/``."""
    home = tmp_path / ".claude"
    shutil.copytree(CLAUDE_SHOP, home / "projects" / "-home-dev-shop")
    (home / "settings.json").write_text(json.dumps({"permissions": {"allow": []}}))
    (home / "history.jsonl").write_text(json.dumps({"display": "CANARY-PROMPT"}) + "\n")
    (home / "todos").mkdir()
    (home / "todos" / "x-agent-x.json").write_text("[]")
    traces, err = cli_import(run_cli, "claude", home, tmp_path / "out")
    projects, _ = cli_import(run_cli, "claude", home / "projects", tmp_path / "projects-out")
    assert _session_ids(traces) == _session_ids(projects) and len(traces) == 11
    assert "CANARY" not in err


def test_a_folder_that_only_looks_like_a_home_is_read_whole(run_cli, tmp_path):
    """A folder of exports with a ``sessions/`` folder but none of the agent's own files is
    read whole, as before: rollouts beside ``sessions/`` count too."""
    folder = tmp_path / "exports"
    (folder / "sessions").mkdir(parents=True)
    for scenario, where in (("fail", folder), ("escalate", folder / "sessions")):
        source = rollout(CODEX_LIVE, scenario)
        shutil.copy(source, where / source.name)
    traces, _ = cli_import(run_cli, "codex", folder, tmp_path / "out")
    assert len(traces) == 2


def test_openhands_cli_home_reads_its_conversations(run_cli, tmp_path):
    """OpenHands CLI's ``~/.openhands``: ``agent_settings.json`` (the LLM and its key) and
    ``mcp.json`` beside ``conversations/<id>/``. The import failed on the settings ("not an
    OpenHands trajectory", exit 2); it reads the conversations now."""
    home = tmp_path / ".openhands"
    conversation = CORPUS / "openhands-v1" / "gen__openhands-sdk-1-58-2__stuck-loop"
    shutil.copytree(conversation, home / "conversations" / "8f2c6a0e")
    (home / "agent_settings.json").write_text(json.dumps({"llm": {"api_key": "CANARY-KEY"}}))
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {}}))
    traces, err = cli_import(run_cli, "openhands", home, tmp_path / "out")
    alone, _ = cli_import(run_cli, "openhands", home / "conversations", tmp_path / "alone")
    assert _session_ids(traces) == _session_ids(alone) and len(traces) == 1
    assert "CANARY" not in err + json.dumps(traces)
