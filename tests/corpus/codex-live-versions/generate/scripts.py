"""What the fake model answers: per script keyword, per user turn and step.

Older Codex versions offer other tools for the same job (``shell`` with an argv, then
``shell_command`` with a string, then ``exec_command``; ``apply_patch`` as a tool or through the
shell), so each answer is written with the tools the request itself offers (``Offer``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

SHOP = "/home/dev/shop"


class Offer:
    """The tools one request offers: name -> the tool's JSON."""

    def __init__(self, tools: list[dict[str, Any]]) -> None:
        self.tools: dict[str, dict[str, Any]] = {}
        for tool in tools:
            name = tool.get("name") or tool.get("type")
            self.tools[str(name)] = tool
            for inner in tool.get("tools") or []:  # (a namespace's own tools)
                self.tools[f"{name}/{inner.get('name')}"] = inner

    def has(self, name: str) -> bool:
        """Whether a tool of that name is offered."""
        return name in self.tools

    def params(self, name: str) -> set[str]:
        """The argument names a function tool takes."""
        return set((self.tools.get(name, {}).get("parameters") or {}).get("properties") or {})

    def shell(self) -> str:
        """The shell tool this version offers."""
        for name in ("exec_command", "shell_command", "shell"):
            if self.has(name):
                return name
        return "shell"

    def mcp(self, tool: str) -> str | None:
        """The offered name of one shopdb MCP tool (None while it is deferred)."""
        for name in self.tools:
            if "shopdb" in name and name.endswith(tool):
                return name
        return None


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
    return {"type": "reasoning", "id": "rs_x", "summary": [{"type": "summary_text", "text": text}]}


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


def escalated(offer: Offer) -> dict[str, Any] | None:
    """The arguments asking to run outside the sandbox, as this version spells them."""
    params = offer.params(offer.shell())
    if "sandbox_permissions" in params:
        return {"sandbox_permissions": "require_escalated", "justification": "write config"}
    if "with_escalated_permissions" in params:
        return {"with_escalated_permissions": True, "justification": "write config"}
    return None


def sh(offer: Offer, call_id: str, cmd: str, **extra: Any) -> dict[str, Any]:
    """One command through the shell tool this version offers."""
    tool = offer.shell()
    if tool == "exec_command":
        return call(call_id, tool, {"cmd": cmd, "workdir": SHOP, **extra})
    extra.pop("yield_time_ms", None)
    if tool == "shell_command":
        return call(call_id, tool, {"command": cmd, "workdir": SHOP, **extra})
    return call(call_id, tool, {"command": ["bash", "-lc", cmd], "workdir": SHOP, **extra})


def patch(offer: Offer, call_id: str, text: str) -> dict[str, Any]:
    """One patch: the apply_patch tool where offered, else apply_patch through the shell."""
    tool = offer.tools.get("apply_patch")
    if tool and tool.get("type") == "custom":
        return custom(call_id, "apply_patch", text)
    if tool:
        return call(call_id, "apply_patch", {"input": text})
    if offer.shell() == "shell":
        return call(call_id, "shell", {"command": ["apply_patch", text], "workdir": SHOP})
    return sh(offer, call_id, f"apply_patch <<'EOF'\n{text}\nEOF")


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

Script = Callable[[int, int, Offer], dict[str, Any]]


def tools(turn: int, step: int, offer: Offer) -> dict[str, Any]:
    """Success, a failing command, parallel calls, a plan, apply_patch (good and bad), exit 3."""
    steps: list[list[dict[str, Any]]] = [
        [reasoning("Look around first."), sh(offer, "call_ls", "ls -la")],
        [sh(offer, "call_cat", "cat missing.txt")],
        [sh(offer, "call_p1", "git status --short"), sh(offer, "call_p2", "echo $((6*7))")],
        [],  # (never asked: the parallel calls answer twice)
        [call("call_plan", "update_plan", {"plan": [{"step": "fix", "status": "in_progress"}]})],
        [patch(offer, "call_patch", PATCH)],
        [patch(offer, "call_badpatch", BAD_PATCH)],
        [sh(offer, "call_test", "grep -c price shop/cart.py; exit 3")],
        [msg("Fixed the cart total; the check still fails.")],
    ]
    if not offer.has("update_plan"):
        steps[4] = [sh(offer, "call_plan", "true")]
    return {"items": steps[min(step, len(steps) - 1)]}


def fail(turn: int, step: int, offer: Offer) -> dict[str, Any]:
    """A command, then the API fails for good."""
    if step == 0:
        return {"items": [sh(offer, "call_ok", "echo hello")]}
    return {"http_status": 500, "message": "fake upstream exploded"}


def streamfail(turn: int, step: int, offer: Offer) -> dict[str, Any]:
    """A command, then a response.failed event."""
    if step == 0:
        return {"items": [sh(offer, "call_ok", "echo hello")]}
    return {"fail": "fake model overloaded"}


def escalate(turn: int, step: int, offer: Offer) -> dict[str, Any]:
    """A command asking to leave the sandbox (refused under approval never)."""
    args = escalated(offer)
    if step == 0 and args is not None:
        return {"items": [sh(offer, "call_esc", "touch /etc/shop.conf", **args)]}
    return {"items": [msg("Could not write the config.")]}


def ghost(turn: int, step: int, offer: Offer) -> dict[str, Any]:
    """A call of a tool Codex does not have, then an answer."""
    if step == 0:
        return {"items": [call("call_ghost", "run_tests", {"path": "tests"})]}
    return {"items": [msg("No such tool.")]}


def mcp(turn: int, step: int, offer: Offer) -> dict[str, Any]:
    """A shopdb lookup that answers, one that fails, one that crashes the server, one after."""
    searched = offer.has("tool_search")  # (newer versions defer MCP tools behind a search)
    if searched and step == 0:
        return {"items": [search("call_search", "shop product lookup")]}
    plan = [("call_lookup", "lookup"), ("call_broken", "broken"), ("call_crash", "crash")]
    plan.append(("call_again", "lookup"))
    index = step - 1 if searched else step
    if index < len(plan):
        return {"items": [mcp_call(offer, *plan[index])]}
    return {"items": [msg("The shop database is gone.")]}


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


def mcp_call(offer: Offer, call_id: str, tool: str) -> dict[str, Any]:
    """A call of one shopdb MCP tool, by the name this version offers it under."""
    name = offer.mcp(tool) or f"mcp__shopdb/{tool}"
    namespace, _, inner = name.rpartition("/")
    if namespace:
        return {**call(call_id, inner, {"sku": "A-1"}), "namespace": namespace}
    return call(call_id, name, {"sku": "A-1"})


def resume(turn: int, step: int, offer: Offer) -> dict[str, Any]:
    """Turn 0: one command and an answer; turn 1 (resumed): another command and an answer."""
    if step == 0:
        return {"items": [sh(offer, f"call_r{turn}", f"echo turn{turn}")]}
    return {"items": [msg(f"Done with turn {turn}.")]}


def sleepy(turn: int, step: int, offer: Offer) -> dict[str, Any]:
    """A long command, to interrupt."""
    if step == 0:
        return {"items": [sh(offer, "call_sleep", "sleep 60", yield_time_ms=30000)]}
    return {"items": [msg("Slept.")]}


def plain(turn: int, step: int, offer: Offer) -> dict[str, Any]:
    """Any other prompt: a plain answer."""
    return {"items": [msg("Hello from the fake model.")]}


def compact_summary(turn: int, step: int, offer: Offer) -> dict[str, Any]:
    """The summary a compaction asks for."""
    return {"items": [msg("Summary: the user asked for work on the shop.")]}


SCRIPTS: dict[str, Script] = {
    "tools": tools,
    "fail": fail,
    "streamfail": streamfail,
    "escalate": escalate,
    "ghost": ghost,
    "mcp": mcp,
    "resume": resume,
    "sleepy": sleepy,
    "plain": plain,
    "compact-summary": compact_summary,
}
