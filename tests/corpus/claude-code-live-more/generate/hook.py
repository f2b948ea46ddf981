"""The hooks the recordings configure: ``python3 hook.py pre|post|stop`` reads the hook's JSON
on stdin and blocks (exit 2), denies (JSON), fails (exit 1) or lets go, by the command."""

from __future__ import annotations

import json
import sys
from pathlib import Path

STOPPED = Path("/home/dev/.stopped-once")


def pre(event: dict) -> int:
    """PreToolUse on Bash: block ``rm``, deny ``deny-me`` by JSON, fail on ``hook-fails``."""
    command = event.get("tool_input", {}).get("command", "")
    if command.startswith("rm "):
        print("rm is not allowed here", file=sys.stderr)
        return 2
    if "deny-me" in command:
        decision = {"permissionDecision": "deny", "permissionDecisionReason": "not on fridays"}
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **decision}}))
        return 0
    if "ask-me" in command:
        decision = {"permissionDecision": "ask", "permissionDecisionReason": "check this one"}
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **decision}}))
        return 0
    if "halt" in command:
        print(json.dumps({"continue": False, "stopReason": "halted by the hook"}))
        return 0
    if "hook-fails" in command:
        print("the hook itself crashed", file=sys.stderr)
        return 1
    return 0


def post(event: dict) -> int:
    """PostToolUse: exit 2 after ``post-flag``; extra context after a Read."""
    if "post-flag" in json.dumps(event.get("tool_input", {})):
        print("post hook flagged the output", file=sys.stderr)
        return 2
    context = {"hookEventName": "PostToolUse", "additionalContext": "post hook note"}
    print(json.dumps({"hookSpecificOutput": context}))
    return 0


def stop(event: dict) -> int:
    """Stop: make the model continue once; end the session (``continue: false``) in
    ``stop-halt`` mode."""
    if sys.argv[2:] == ["halt"]:
        print(json.dumps({"continue": False, "stopReason": "stopped for the day"}))
        return 0
    if STOPPED.exists():
        return 0
    STOPPED.write_text("1")
    print(json.dumps({"decision": "block", "reason": "Run the tests first."}))
    return 0


def prompt(event: dict) -> int:
    """UserPromptSubmit: block a prompt tagged ``[S-blocked]`` (exit 2)."""
    if "[S-blocked]" in event.get("prompt", ""):
        print("prompt blocked by policy", file=sys.stderr)
        return 2
    return 0


def main() -> None:
    """Dispatch on argv[1]."""
    event = json.loads(sys.stdin.read() or "{}")
    sys.exit({"pre": pre, "post": post, "stop": stop, "prompt": prompt}[sys.argv[1]](event))


if __name__ == "__main__":
    main()
