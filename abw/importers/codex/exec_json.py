"""``codex exec --json`` output (what the CLI printed, not a rollout): recognised, and refused
naming the rollout of its thread to import instead."""

from __future__ import annotations

import re
from typing import Any

from abw.importers.codex.state import RolloutState
from abw.importers.codex.values import nonempty_str

#: The ``type`` of each line newer ``codex exec --json`` prints (its ``ThreadEvent``s).
_EXEC_EVENTS = {
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
}
_THREAD_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z_.-]{0,99}")


def note_exec_output(state: RolloutState, line: int, record: dict[str, Any]) -> None:
    """Note a line of ``codex exec --json`` output, and the thread it names: a ``ThreadEvent``
    (newer versions; ``thread.started`` names it) or an ``{"id", "msg"}`` event envelope
    (older ones; ``session_configured`` names it)."""
    msg = record.get("msg")
    if nonempty_str(record.get("type")) in _EXEC_EVENTS:
        key, thread = "type", record.get("thread_id")
    elif "id" in record and isinstance(msg, dict) and isinstance(msg.get("type"), str):
        key, thread = "msg", msg.get("session_id")
    else:
        return
    if state.exec_output is None:
        state.exec_output = (line, key)
    if state.exec_thread is None and isinstance(thread, str) and _THREAD_ID.fullmatch(thread):
        state.exec_thread = thread


def exec_refusal(thread: str | None) -> str:
    """Why ``codex exec --json`` output is refused, and the rollout of its thread to import."""
    rollout = f"rollout-*-{thread}.jsonl" if thread else "rollout-*.jsonl"
    return (
        "not a Codex rollout: this is `codex exec --json` output (the events the CLI printed); "
        f"import the session's rollout ~/.codex/sessions/YYYY/MM/DD/{rollout} instead "
        "(`codex exec --ephemeral` writes none)"
    )
