"""What a call is: its span name (MCP tools named alike across versions), the tools that are
no plain ``tool`` span, and the command a shell-like call runs."""

from __future__ import annotations

import re
from typing import Any

from abw.importers.codex.values import nonempty_str
from abw.importers.spans import SHELL_TOOLS

HANDOFF_TOOLS = {"spawn_agent", "wait_agent"}
MEMORY_TOOLS = {"update_plan"}  # the agent's own plan, like Claude's TodoWrite
#: ``tool_search_call`` (0.140+): the model searching the deferred MCP/app tools for the ones to
#: load, answered by a ``tool_search_output`` listing them, like Claude's ToolSearch.
RETRIEVER_TOOLS = {"tool_search"}


def shell_command_text(name: str, args: Any) -> str | None:
    """The command a shell-like call runs (``bash -lc X`` -> ``X``), for semantic labels."""
    if not isinstance(args, dict):
        return args if isinstance(args, str) and name in SHELL_TOOLS else None
    command = args.get("cmd", args.get("command"))
    if isinstance(args.get("action"), dict):
        command = args["action"].get("command", command)
    if isinstance(command, list):
        parts = [str(p) for p in command]
        if len(parts) >= 3 and parts[1] in {"-lc", "-c"}:
            return parts[2]
        return " ".join(parts)
    return command if isinstance(command, str) else None


#: An MCP call as Codex wrote it before 0.80: ``<server>__<tool>``, both parts named.
_UNPREFIXED_MCP = re.compile(r"[^_].*?[^_]__[^_].*", re.DOTALL)


def tool_name(payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The call's span name and its ``namespace`` / ``mcp_server`` / ``mcp_tool`` attributes.

    An MCP tool is named ``mcp__<server>__<tool>`` whichever way the Codex version wrote it, so a
    baseline and a candidate recorded by different versions name the same tool alike:
    :func:`_mcp_flat_name` rejoins a ``namespace`` + ``name`` pair into the flat name versions
    from 0.80 wrote, and the ``<server>__<tool>`` name of versions before it (0.20, 0.47: no
    tool of Codex's own holds ``__``) takes the ``mcp__`` it lacked. ``<server>`` is the name
    before the next ``__`` (``codex_apps`` for a ChatGPT app connector, whose tool keeps the
    connector's name: ``github_fetch_pr``).
    """
    name = nonempty_str(payload.get("name")) or "local_shell"
    attributes: dict[str, Any] = {}
    namespace = nonempty_str(payload.get("namespace"))
    if namespace:
        attributes["namespace"] = namespace
        if namespace.startswith("mcp__"):
            name = _mcp_flat_name(namespace, name)
    elif _UNPREFIXED_MCP.fullmatch(name) and not name.startswith("mcp__"):
        name = "mcp__" + name
    if name.startswith("mcp__") and name.count("__") >= 2:
        _, server, tool = name.split("__", 2)
        attributes["mcp_server"], attributes["mcp_tool"] = server, tool
    return name, attributes


def _mcp_flat_name(namespace: str, name: str) -> str:
    """The flat ``mcp__<server>__<tool>`` name of a namespaced MCP call, as Codex wrote it before
    it split calls into ``namespace`` + ``name`` (Codex's ``ToolName`` display joins the two).

    The split has had three shapes: ``mcp__node_repl__`` + ``js`` (namespace keeping the
    delimiter), ``mcp__deepwiki`` + ``ask_question`` (0.142: the delimiter dropped), and an app
    connector's ``mcp__codex_apps__github`` + ``_fetch_pr`` (the tool ``github_fetch_pr`` with
    the connector's name cut off). A name that is already flat is kept.
    """
    if name.startswith("mcp__"):
        return name
    if namespace.endswith("_") or name.startswith("_"):
        return namespace + name
    return f"{namespace}__{name}"
