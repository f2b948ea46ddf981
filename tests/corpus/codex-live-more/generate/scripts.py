"""What the fake model answers: per script keyword, per user turn and step."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def msg(text: str) -> dict[str, Any]:
    """An assistant message item."""
    return {
        "type": "message",
        "role": "assistant",
        "id": "msg_x",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def reasoning(text: str) -> dict[str, Any]:
    """A reasoning item with a summary."""
    return {
        "type": "reasoning",
        "id": "rs_x",
        "summary": [{"type": "summary_text", "text": text}],
    }


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A function call item."""
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": json.dumps(arguments),
    }


def custom(call_id: str, name: str, text: str) -> dict[str, Any]:
    """A freeform (custom) tool call item."""
    return {
        "type": "custom_tool_call",
        "id": f"ctc_{call_id}",
        "call_id": call_id,
        "name": name,
        "input": text,
    }


def ex(call_id: str, cmd: str, **extra: Any) -> dict[str, Any]:
    """An exec_command call."""
    return call(call_id, "exec_command", {"cmd": cmd, "workdir": "/home/dev/shop", **extra})


PATCH = """*** Begin Patch
*** Update File: shop/cart.py
@@
-    return sum(items)
+    return sum(item.price for item in items)
*** End Patch"""

BAD_PATCH = """*** Begin Patch
*** Update File: shop/cart.py
@@
-this line is not in the file
+nor is this one
*** End Patch"""


def tools(turn: int, step: int) -> dict[str, Any]:
    """Success, a failing command, parallel calls, apply_patch (good and bad), a plan."""
    steps: list[list[dict[str, Any]]] = [
        [reasoning("Look around first."), ex("call_ls", "ls -la")],
        [ex("call_cat", "cat missing.txt")],
        [ex("call_p1", "git status --short"), ex("call_p2", "python3 -c 'print(6*7)'")],
        [],  # (never asked: the parallel calls answer twice)
        [
            call(
                "call_plan",
                "update_plan",
                {"plan": [{"step": "fix cart", "status": "in_progress"}]},
            )
        ],
        [custom("call_patch", "apply_patch", PATCH)],
        [custom("call_badpatch", "apply_patch", BAD_PATCH)],
        [ex("call_test", "python3 -m pytest -q tests 2>&1 | tail -3; exit 3")],
        [msg("Fixed the cart total; one test still fails.")],
    ]
    return {"items": steps[min(step, len(steps) - 1)]}


def fail(turn: int, step: int) -> dict[str, Any]:
    """A command, then the API fails for good."""
    if step == 0:
        return {"items": [ex("call_ok", "echo hello")]}
    return {"http_status": 500, "message": "fake upstream exploded"}


def streamfail(turn: int, step: int) -> dict[str, Any]:
    """A command, then a response.failed event."""
    if step == 0:
        return {"items": [ex("call_ok", "echo hello")]}
    return {"fail": "fake model overloaded"}


def escalate(turn: int, step: int) -> dict[str, Any]:
    """A command asking to leave the sandbox (denied under approval never)."""
    if step == 0:
        return {
            "items": [
                ex(
                    "call_esc",
                    "touch /etc/shop.conf",
                    sandbox_permissions="require_escalated",
                    justification="write config",
                )
            ]
        }
    return {"items": [msg("Could not write the config.")]}


def resume(turn: int, step: int) -> dict[str, Any]:
    """Turn 0: one command and an answer; turn 1 (resumed): another command and an answer."""
    if step == 0:
        return {"items": [ex(f"call_r{turn}", f"echo turn{turn}")]}
    return {"items": [msg(f"Done with turn {turn}.")]}


def sleepy(turn: int, step: int) -> dict[str, Any]:
    """A long command, to interrupt."""
    if step == 0:
        return {"items": [ex("call_sleep", "sleep 60", yield_time_ms=30000)]}
    return {"items": [msg("Slept.")]}


def poll(turn: int, step: int) -> dict[str, Any]:
    """A command still running after its first yield, polled with write_stdin."""
    if step == 0:
        return {"items": [ex("call_slow", "sleep 2; echo ready", yield_time_ms=300)]}
    if step == 1:
        args = {"session_id": int(SESSION[0] or 0), "chars": "", "yield_time_ms": 5000}
        return {"items": [call("call_poll", "write_stdin", args)]}
    return {"items": [msg("The slow command finished.")]}


SESSION: list[str | None] = [None]


def search(call_id: str, query: str) -> dict[str, Any]:
    """A client-side tool_search call (MCP tools are deferred behind it)."""
    return {
        "type": "tool_search_call",
        "id": f"ts_{call_id}",
        "call_id": call_id,
        "status": "completed",
        "execution": "client",
        "arguments": {"query": query, "limit": 8},
    }


def mcp_call(call_id: str, tool: str) -> dict[str, Any]:
    """A namespaced call of one shopdb MCP tool."""
    item = call(call_id, tool, {"sku": "A-1"})
    return {**item, "namespace": "mcp__shopdb"}


def mcp(turn: int, step: int) -> dict[str, Any]:
    """Find the shopdb tools, then: a lookup that answers, one that fails, one that crashes."""
    steps: list[list[dict[str, Any]]] = [
        [search("call_search", "shop product lookup")],
        [mcp_call("call_lookup", "lookup")],
        [mcp_call("call_broken", "broken")],
        [mcp_call("call_crash", "crash")],
        [mcp_call("call_again", "lookup")],
        [msg("The shop database is gone.")],
    ]
    return {"items": steps[min(step, len(steps) - 1)]}


def approve(turn: int, step: int) -> dict[str, Any]:
    """A command asking to leave the sandbox, which the person approves, then one that fails."""
    if step == 0:
        args = {"sandbox_permissions": "require_escalated", "justification": "stamp the build"}
        return {"items": [ex("call_stamp", "date > stamp.txt", **args)]}
    if step == 1:
        return {"items": [ex("call_nope", "ls no-such-dir", **args_escalated())]}
    return {"items": [msg("Stamped.")]}


def args_escalated() -> dict[str, Any]:
    """The arguments of a command asking to run outside the sandbox."""
    return {"sandbox_permissions": "require_escalated", "justification": "look around"}


def ghost(turn: int, step: int) -> dict[str, Any]:
    """A call of a tool Codex does not have, then an answer."""
    if step == 0:
        return {"items": [call("call_ghost", "run_tests", {"path": "tests"})]}
    return {"items": [msg("No such tool.")]}


def mcpslow(turn: int, step: int) -> dict[str, Any]:
    """Find the shopdb tools, then a call that hangs (the person presses Esc)."""
    if step == 0:
        return {"items": [search("call_search", "shop slow")]}
    if step == 1:
        return {"items": [mcp_call("call_slow", "slow")]}
    return {"items": [msg("Done waiting.")]}


def patch(turn: int, step: int) -> dict[str, Any]:
    """apply_patch adding a file, one that does not apply, then a command that fails."""
    add = "*** Begin Patch\n*** Add File: NOTES.md\n+# Notes\n*** End Patch"
    steps: list[list[dict[str, Any]]] = [
        [custom("call_add", "apply_patch", add)],
        [custom("call_bad", "apply_patch", BAD_PATCH)],
        [custom("call_fix", "apply_patch", PATCH)],
        [ex("call_false", "false")],
        [msg("Patched.")],
    ]
    return {"items": steps[min(step, len(steps) - 1)]}


def spawn(turn: int, step: int) -> dict[str, Any]:
    """A parent spawning a helper (multi-agent v2) and waiting for it."""
    if step == 0:
        args = {
            "message": "[child] count the test files",
            "task_name": "counter",
            "fork_turns": "none",
        }
        return {
            "items": [{**call("call_spawn", "spawn_agent", args), "namespace": "collaboration"}]
        }
    if step == 1:
        wait = call("call_wait", "wait_agent", {"timeout_ms": 20000})
        return {"items": [{**wait, "namespace": "collaboration"}]}
    return {"items": [msg("The helper is done.")]}


def child(turn: int, step: int) -> dict[str, Any]:
    """The spawned helper: one command, then its answer."""
    if step == 0:
        return {"items": [ex("call_child_ls", "ls tests")]}
    return {"items": [msg("One test file.")]}


def compact(turn: int, step: int) -> dict[str, Any]:
    """A request reporting a context over the auto-compaction limit, then an answer."""
    big = {"input_tokens": 250000, "output_tokens": 50}
    if step == 0 and turn == 0:
        return {"items": [ex("call_big", "wc -l shop/cart.py")], "usage": big}
    if step == 0:
        return {"items": [ex("call_after", "head -1 shop/cart.py")]}
    return {"items": [msg("Counted the lines.")]}


def plain(turn: int, step: int) -> dict[str, Any]:
    """Any other prompt: a plain answer."""
    return {"items": [msg("Hello from the fake model.")]}


def compact_summary(turn: int, step: int) -> dict[str, Any]:
    """The summary a compaction asks for."""
    return {"items": [msg("Summary: the user asked for work on the shop.")]}


SCRIPTS: dict[str, Callable[[int, int], dict[str, Any]]] = {
    "tools": tools,
    "fail": fail,
    "streamfail": streamfail,
    "escalate": escalate,
    "resume": resume,
    "sleepy": sleepy,
    "poll": poll,
    "compact": compact,
    "plain": plain,
    "compact-summary": compact_summary,
    "mcp": mcp,
    "patch": patch,
    "spawn": spawn,
    "child": child,
    "ghost": ghost,
    "approve": approve,
    "mcpslow": mcpslow,
    "mcpdeny": mcpslow,
}
