"""``item_completed`` events (0.171+, which writes no ``mcp_tool_call_end``): an MCP call's
status and duration. A command's item is left alone: its output already says its exit code,
its ``failed`` status would hide a ^C interrupt, and its ``duration`` is no better than the
output's ``Wall time`` (microseconds for a command that ends within its first yield)."""

from __future__ import annotations

from typing import Any

from abw.importers.codex.state import RolloutState
from abw.importers.codex.values import duration_ms

#: An ``McpToolCall`` item's status -> outcome (a result with ``isError``, or a server that
#: died mid-call, is ``failed``; the call's output text says neither). A call the person
#: declined at the TUI's approval prompt is ``failed`` with "user cancelled MCP tool call".
_MCP_STATUS = {"completed": "ok", "failed": "error"}


def note_item_completed(state: RolloutState, payload: dict[str, Any]) -> None:
    """Refine the MCP call an ``McpToolCall`` item names (its ``id`` is the call id)."""
    item = payload.get("item")
    if not isinstance(item, dict) or item.get("type") != "McpToolCall":
        return
    call = state.calls.get(str(item.get("id")))
    if call is None:
        return
    outcome = _MCP_STATUS.get(str(item.get("status")))
    if outcome == "error" and _cancelled(item.get("error")):
        outcome = "rejected"
    if outcome is not None:
        call.draft.outcome = outcome
        call.ended = True
    milliseconds = duration_ms(item.get("duration"))
    if milliseconds is not None:
        call.explicit_ms, call.duration_source = milliseconds, "item_completed"


def _cancelled(error: Any) -> bool:
    """Whether a failed MCP call's ``error`` says the person cancelled it."""
    message = error.get("message") if isinstance(error, dict) else None
    return isinstance(message, str) and message.lower().startswith("user cancelled")
