"""A call of a subagent: the tools that delegate to one by name, a subagent called by its own
name, and the outcome its progress reports."""

from __future__ import annotations

from typing import Any

from abw.importers.gemini.messages import text
from abw.importers.rawio import as_dict

#: The tools that call a subagent named in ``args.agent_name``: ``delegate_to_agent`` (0.2x),
#: ``invoke_agent`` (0.6x; 0.3x-0.5x called a subagent by its own name).
DELEGATE_TOOLS = frozenset({"delegate_to_agent", "invoke_agent"})


def subagent_call(call: dict[str, Any]) -> bool:
    """A call of a subagent by its own name (from 0.3x: ``generalist``, ``cli_help``,
    ``codebase_investigator``, a user's agents): its ``resultDisplay`` is the subagent's progress
    (``isSubagentProgress``), or the call names the run it started (``agentId``)."""
    display = as_dict(call.get("resultDisplay"))
    return display.get("isSubagentProgress") is True or text(call.get("agentId")) is not None


def subagent_outcome(call: dict[str, Any]) -> str:
    """The outcome of a subagent's ``success`` call from its progress: error when it ends in
    ``state: error``, or ``completed`` short of its goal (``terminateReason`` ``ERROR``,
    ``MAX_TURNS``, ``ERROR_NO_COMPLETE_TASK_CALL``; ``TIMEOUT`` a timeout), else ok."""
    display = as_dict(call.get("resultDisplay"))
    reason = display.get("terminateReason")
    if display.get("state") == "error":
        return "error"
    if isinstance(reason, str) and reason != "GOAL":
        return "timeout" if reason == "TIMEOUT" else "error"
    return "ok"
