"""The Claude Agent SDK (Python) sessions, run inside the private /home/dev mount by
``drive.py``: ``query()`` with in-process tools, ``ClaudeSDKClient`` with a ``can_use_tool``
callback, a PreToolUse hook, ``max_turns``, ``interrupt()``, ``resume``/``fork_session``,
custom ``agents`` and ``setting_sources``. Usage: ``python sessions.py CLAUDE_BIN``.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from claude_agent_sdk import (
    AgentDefinition,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    create_sdk_mcp_server,
    query,
    tool,
)

CLI = sys.argv[1] if len(sys.argv) > 1 else "claude"


@tool("price", "The price of a SKU", {"sku": str})
async def price(args: dict[str, Any]) -> dict[str, Any]:
    """A price."""
    return {"content": [{"type": "text", "text": f"{args['sku']} costs 4.20"}]}


@tool("boom", "A tool that raises", {"sku": str})
async def boom(args: dict[str, Any]) -> dict[str, Any]:
    """Raises."""
    raise RuntimeError(f"database unreachable for {args['sku']}")


@tool("stock", "Stock of a SKU", {"sku": str})
async def stock(args: dict[str, Any]) -> dict[str, Any]:
    """An is_error result."""
    return {"content": [{"type": "text", "text": "unknown SKU"}], "is_error": True}


SHOP = create_sdk_mcp_server("shop", "1.0.0", [price, boom, stock])


def options(**kw: Any) -> ClaudeAgentOptions:
    """Options every session shares."""
    return ClaudeAgentOptions(cli_path=CLI, cwd="/home/dev/shop", **kw)


async def run_query(prompt: str, **kw: Any) -> str | None:
    """One ``query()``; its session id."""
    session = None
    try:
        async for msg in query(prompt=prompt, options=options(**kw)):
            if isinstance(msg, ResultMessage):
                session = msg.session_id
                print(prompt[:20], msg.subtype, msg.is_error, msg.result)
    except Exception as exc:  # the SDK raises on a failed run: record it
        print(prompt[:20], "raised", type(exc).__name__, str(exc)[:200])
    return session


async def decide(name: str, data: dict[str, Any], _ctx: Any) -> Any:
    """Deny rm, rewrite touch, allow the rest."""
    command = data.get("command", "")
    if "rm -rf dist" in command:
        return PermissionResultDeny(message="Never clean dist.", interrupt=True)
    if "rm -rf" in command:
        return PermissionResultDeny(message="Cleaning is not allowed.")
    if command.startswith("touch"):
        return PermissionResultAllow(updated_input=dict(data, command="touch rewritten.txt"))
    return PermissionResultAllow()


async def client_session(prompts: list[str], stop_after: float | None = None, **kw: Any) -> None:
    """A ``ClaudeSDKClient`` session; with ``stop_after``, interrupt the first turn then."""
    async with ClaudeSDKClient(options=options(**kw)) as client:
        for n, prompt in enumerate(prompts):
            await client.query(prompt)
            if stop_after is not None and n == 0:
                await asyncio.sleep(stop_after)
                await client.interrupt()
            async for msg in client.receive_response():
                if isinstance(msg, ResultMessage):
                    print(prompt[:20], msg.subtype, msg.is_error, msg.result)


async def deny_push(data: dict[str, Any], _id: str | None, _ctx: Any) -> dict[str, Any]:
    """A PreToolUse hook that denies ``git push``."""
    if "git push" in data.get("tool_input", {}).get("command", ""):
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "Pushing is blocked by policy.",
            }
        }
    return {}


REVIEWER = AgentDefinition(
    description="Reviews Python code", prompt="You review code.", tools=["Read", "Bash"]
)


async def main() -> None:
    """Every session in turn."""
    shop_tools = ["mcp__shop__price", "mcp__shop__boom", "mcp__shop__stock"]
    first = await run_query(
        "[S-custom] Price the SKUs.", mcp_servers={"shop": SHOP}, allowed_tools=shop_tools
    )
    await run_query(
        "[S-resume] And list the files.",
        resume=first,
        allowed_tools=["Bash"],
        mcp_servers={"shop": SHOP},
    )
    await run_query(
        "[S-resume] Fork and list.",
        resume=first,
        fork_session=True,
        allowed_tools=["Bash"],
        mcp_servers={"shop": SHOP},
    )
    await client_session(["[S-perm] Clean and echo."], can_use_tool=decide)
    await client_session(["[S-permstop] Clean dist."], can_use_tool=decide)
    hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[deny_push])]}
    await run_query("[S-hook] Push it.", hooks=hooks, allowed_tools=["Bash", "Read"])
    await run_query("[S-maxturns] Echo twice.", max_turns=1, allowed_tools=["Bash"])
    await client_session(
        ["[S-interrupt] Wait.", "[S-after] What happened?"],
        stop_after=4.0,
        allowed_tools=["Bash"],
    )
    await run_query(
        "[S-agents] Get a review.",
        agents={"reviewer": REVIEWER},
        allowed_tools=["Agent", "Read", "Bash"],
    )
    await run_query("[S-settings] Fetch and fail.", setting_sources=["project"])
    await run_query("[S-apierr] Anything.")


if __name__ == "__main__":
    asyncio.run(main())
