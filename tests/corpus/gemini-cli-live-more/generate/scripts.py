"""The scripted answers of the fake Gemini API, one list of main-chat turns per session.

Each turn is ``{"parts": [...]}`` (Gemini ``Part`` objects) or ``{"error": HTTP status}``; a
turn with ``"repeat": True`` answers every later request. ``SETTINGS`` is
``~/.gemini/settings.json``; ``EXTRA`` adds settings for one session."""

from __future__ import annotations

from typing import Any

MCP = {"command": "python3", "args": ["/home/dev/mcp_shop.py"]}
SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {
        "checkpointing": {"enabled": False},
        "enableAutoUpdate": False,
        "enableAutoUpdateNotification": False,
    },
    "ui": {"hideTips": True},
    "mcpServers": {"shopdb": {**MCP, "trust": True}},
}
EXTRA: dict[str, dict[str, Any]] = {
    "22_mcp_untrusted": {"mcpServers": {"shopdb": {**MCP, "trust": False}}},
    "23_max_turns": {"model": {"maxSessionTurns": 2}},
    "33_interactive_max_turns": {"model": {"maxSessionTurns": 2}},
    "28_restore": {
        "general": {**SETTINGS["general"], "checkpointing": {"enabled": True}},
    },
}


def call(name: str, **args: Any) -> dict[str, Any]:
    """A ``functionCall`` part."""
    return {"functionCall": {"name": name, "args": args}}


def text(words: str) -> dict[str, Any]:
    """A model turn answering ``words``."""
    return {"parts": [{"text": words}]}


SHELL = call("run_shell_command", command="echo checked", description="check")
SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "21_mcp": [
        {"parts": [{"text": "Looking it up."}, call("mcp_shopdb_lookup", item="pear")]},
        {"parts": [call("mcp_shopdb_fail", item="plum")]},
        {"parts": [call("mcp_shopdb_crash", item="fig")]},
        {"parts": [call("mcp_shopdb_lookup", item="apple")]},
        text("Pears: 3 in stock; plums unknown."),
    ],
    "22_mcp_untrusted": [
        {"parts": [call("mcp_shopdb_lookup", item="pear")]},
        text("I could not look it up."),
    ],
    "23_max_turns": [
        {"parts": [SHELL]},
        {"parts": [SHELL]},
        {"parts": [SHELL]},
        text("All checked."),
    ],
    "24_quota": [
        {"parts": [{"text": "Reading."}, call("read_file", file_path="README.md")]},
        {"error": 429, "repeat": True},
    ],
    "25_loop": [
        {"parts": [call("read_file", file_path="README.md")], "repeat": True},
    ],
    "27_chat_save_resume": [
        {"parts": [call("read_file", file_path="README.md")]},
        text("The README names the shop."),
        {
            "parts": [
                call("run_shell_command", command="grep -c pear inventory.py", description="n")
            ]
        },
        text("pear appears once."),
        text("We are back at the README."),
    ],
    "28_restore": [
        {
            "parts": [
                call(
                    "replace",
                    file_path="/home/dev/shop/inventory.py",
                    instruction="pear in stock",
                    old_string='"pear": 0',
                    new_string='"pear": 5',
                )
            ]
        },
        text("Pears restocked."),
        text("Restored."),
    ],
    "29_crash_resume": [
        {
            "parts": [
                {"text": "Running the slow check."},
                call("run_shell_command", command="sleep 30; echo done", description="slow"),
            ]
        },
        text("The check was cut short; it did not finish."),
    ],
    "30_parallel_shells_esc": [
        {
            "parts": [
                {"text": "Two checks."},
                call("run_shell_command", command="sleep 20; echo a", description="a"),
                call("run_shell_command", command="sleep 21; echo b", description="b"),
                call("read_file", file_path="README.md"),
            ]
        },
        text("Stopped."),
    ],
    "31_subagent": [
        {"parts": [call("invoke_agent", agent_name="generalist", prompt="Count the lines")]},
        {"parts": [call("run_shell_command", command="wc -l inventory.py", description="wc")]},
        {"parts": [call("complete_task", result={"response": "1 line"})]},
        text("inventory.py has 1 line."),
    ],
    "33_interactive_max_turns": [
        {"parts": [SHELL]},
        {"parts": [SHELL]},
        {"parts": [SHELL]},
        text("All checked."),
    ],
    "34_subagent_esc": [
        {"parts": [call("invoke_agent", agent_name="generalist", prompt="Run the slow check")]},
        {"parts": [call("run_shell_command", command="sleep 20; echo ok", description="slow")]},
        text("Stopped."),
    ],
}
