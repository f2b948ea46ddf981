"""The scripted answers of the fake Gemini API, one list of main-chat turns per session (those of
``gemini-cli-live/generate/scripts.py``, run here on older versions).

Each turn is ``{"parts": [...]}`` (Gemini ``Part`` objects) or ``{"error": HTTP status}``;
a subagent's requests take their turns from the same list. ``SETTINGS`` is
``~/.gemini/settings.json``."""

from __future__ import annotations

from typing import Any

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
}

SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "01_shell": [
        {
            "parts": [
                {"text": "I'll look at the project."},
                {
                    "functionCall": {
                        "name": "run_shell_command",
                        "args": {"command": "ls && cat README.md", "description": "list files"},
                    }
                },
            ]
        },
        {"parts": [{"text": "The shop project has a README."}]},
    ],
    "02_parallel_fail_edit": [
        {
            "parts": [
                {"text": "Let me check the inventory and run the tests."},
                {"functionCall": {"name": "read_file", "args": {"file_path": "inventory.py"}}},
                {
                    "functionCall": {
                        "name": "run_shell_command",
                        "args": {
                            "command": "python3 -c 'import sys; print(\"2 failed\"); sys.exit(3)'",
                            "description": "run the tests",
                        },
                    }
                },
                {"functionCall": {"name": "read_file", "args": {"file_path": "missing_module.py"}}},
            ]
        },
        {
            "parts": [
                {
                    "functionCall": {
                        "name": "replace",
                        "args": {
                            "file_path": "/home/dev/shop/inventory.py",
                            "instruction": "pear in stock",
                            "old_string": '"pear": 0',
                            "new_string": '"pear": 5',
                        },
                    }
                }
            ]
        },
        {
            "parts": [
                {
                    "functionCall": {
                        "name": "replace",
                        "args": {
                            "file_path": "/home/dev/shop/inventory.py",
                            "instruction": "nothing",
                            "old_string": "no such text",
                            "new_string": "x",
                        },
                    }
                }
            ]
        },
        {
            "parts": [
                {
                    "functionCall": {
                        "name": "write_file",
                        "args": {
                            "file_path": "/home/dev/shop/NOTES.md",
                            "content": "pear restocked\n",
                        },
                    }
                }
            ]
        },
        {"parts": [{"text": "Pears are now in stock; the test command exits 3."}]},
    ],
    "03_no_yolo_shell": [
        {
            "parts": [
                {
                    "functionCall": {
                        "name": "run_shell_command",
                        "args": {
                            "command": "rm -rf build && touch build.log",
                            "description": "clean",
                        },
                    }
                }
            ]
        },
        {"parts": [{"text": "I could not run the cleanup."}]},
    ],
    "04_api_error": [
        {"parts": [{"functionCall": {"name": "glob", "args": {"pattern": "*.py"}}}]},
        {"error": 400},
    ],
    "05_subagent_no_complete": [
        {
            "parts": [
                {
                    "functionCall": {
                        "name": "invoke_agent",
                        "args": {
                            "agent_name": "generalist",
                            "prompt": "Count the lines of inventory.py",
                        },
                    }
                }
            ]
        },
        {
            "parts": [
                {
                    "functionCall": {
                        "name": "run_shell_command",
                        "args": {"command": "wc -l inventory.py", "description": "count lines"},
                    }
                }
            ]
        },
        {
            "parts": [
                {
                    "functionCall": {
                        "name": "complete_task",
                        "args": {"result": {"lines": 7, "file": "inventory.py"}},
                    }
                }
            ]
        },
        {"parts": [{"text": "inventory.py has 7 lines."}]},
    ],
    "06_resume": [
        {"parts": [{"text": "A small shop: README.md and inventory.py."}]},
        {
            "parts": [
                {
                    "functionCall": {
                        "name": "run_shell_command",
                        "args": {
                            "command": "grep -c pear inventory.py",
                            "description": "count pears",
                        },
                    }
                }
            ]
        },
        {"parts": [{"text": "pear appears once."}]},
    ],
    "07_subagent_goal": [
        {
            "parts": [
                {
                    "functionCall": {
                        "name": "invoke_agent",
                        "args": {
                            "agent_name": "generalist",
                            "prompt": "Count the lines of inventory.py",
                        },
                    }
                }
            ]
        },
        {
            "parts": [
                {
                    "functionCall": {
                        "name": "run_shell_command",
                        "args": {"command": "wc -l inventory.py", "description": "count lines"},
                    }
                }
            ]
        },
        {
            "parts": [
                {
                    "functionCall": {
                        "name": "complete_task",
                        "args": {"result": {"response": "inventory.py has 7 lines"}},
                    }
                }
            ]
        },
        {"parts": [{"text": "inventory.py has 7 lines."}]},
    ],
    "08_interactive_esc": [
        {
            "parts": [
                {"text": "Running the slow check."},
                {
                    "functionCall": {
                        "name": "run_shell_command",
                        "args": {"command": "sleep 30; echo done", "description": "slow check"},
                    }
                },
            ]
        },
        {"parts": [{"text": "Stopped."}]},
    ],
    "09_interactive_approval_cancel": [
        {
            "parts": [
                {"text": "I will delete the build folder."},
                {
                    "functionCall": {
                        "name": "run_shell_command",
                        "args": {"command": "rm -rf dist", "description": "remove dist"},
                    }
                },
            ]
        },
        {"parts": [{"text": "Understood, I left dist alone."}]},
    ],
    "10_interactive_api_error": [
        {
            "parts": [
                {"text": "Checking."},
                {"functionCall": {"name": "read_file", "args": {"file_path": "README.md"}}},
            ]
        },
        {"error": 400},
        {"error": 400},
        {"error": 400},
        {"error": 400},
        {"error": 400},
        {"error": 400},
    ],
    "11_interactive_parallel_esc": [
        {
            "parts": [
                {"text": "Three steps."},
                {"functionCall": {"name": "read_file", "args": {"file_path": "README.md"}}},
                {
                    "functionCall": {
                        "name": "run_shell_command",
                        "args": {"command": "sleep 25; echo ok", "description": "slow"},
                    }
                },
                {
                    "functionCall": {
                        "name": "write_file",
                        "args": {"file_path": "/home/dev/shop/OUT.md", "content": "x\n"},
                    }
                },
            ]
        },
        {"parts": [{"text": "Stopped."}]},
    ],
    "12_interactive_compress": [
        {"parts": [{"functionCall": {"name": "read_file", "args": {"file_path": "inventory.py"}}}]},
        {"parts": [{"text": "inventory.py tracks stock."}]},
        {"parts": [{"text": "<state_snapshot>read inventory.py</state_snapshot>"}]},
        {"parts": [{"text": "<state_snapshot>read inventory.py</state_snapshot>"}]},
    ],
}
#: The subagent of 07 started a minute after the session: before 0.3x its chat records itself
#: under the session's id, in a file named by the minute it started.
SCRIPTS["13_subagent_late_minute"] = SCRIPTS["07_subagent_goal"]
