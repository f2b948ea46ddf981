"""The raw fields a rollout holds that its trace leaves out (``REMOVED_FIELDS``), and each
record's payload filed under the name they are read by."""

from __future__ import annotations

from typing import Any

from abw.importers.codex.values import nonempty_str

REMOVED_FIELDS = (
    "session_meta.cwd",
    "session_meta.git",
    "session_meta.instructions",
    "session_meta.base_instructions",
    "session_meta.runtime_workspace_roots",
    "turn_context.cwd",
    "turn_context.workspace_roots",
    "turn_context.user_instructions",
    "turn_context.developer_instructions",
    "turn_context.collaboration_mode.settings.developer_instructions",
    "turn_context.sandbox_policy.writable_roots",
    "turn_context.permission_profile.file_system.entries.path.path",
    "world_state.state",
    "compacted.message",
    "compacted.replacement_history",
    "compacted.retained_context",
    "ghost_snapshot.ghost_commit",
    "message.content",
    "agent_message.content",
    "reasoning.summary",
    "reasoning.encrypted_content",
    "function_call.arguments",
    "function_call_output.output",
    "custom_tool_call.input",
    "custom_tool_call_output.output",
    "web_search_call.action",
    "tool_search_call.arguments",
    "tool_search_output.tools",
    "event_msg",
)


def note_held(held: dict[str, list[Any]], record: dict[str, Any]) -> None:
    """File the record's payload under the name ``REMOVED_FIELDS`` reads it by: the record
    type for ``session_meta`` / ``turn_context`` / ``event_msg``, the item type for a
    ``response_item`` (``message``, ``function_call``, ...)."""
    kind, payload = nonempty_str(record.get("type")), record.get("payload")
    if not isinstance(payload, dict):
        return
    if kind == "response_item":
        kind = nonempty_str(payload.get("type"))
    if kind:
        held.setdefault(kind, []).append(payload)
