"""What a rollout's first line (its own ``session_meta``) says of its thread: a run, or a
sub-agent and the thread that spawned it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.codex.values import nonempty_str
from abw.limits import MAX_LINE_BYTES

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}")


@dataclass(frozen=True)
class Thread:
    """What a rollout's first line (its own ``session_meta``) says of its thread."""

    thread_id: str | None = None
    kind: str | None = None  # a sub-agent's kind (``thread_spawn``, ``review``, …); None: a run
    parent: str | None = None  # the spawning thread, for a ``thread_spawn`` child
    path: str | None = None  # its agent path (``/root/task_name``, multi-agent v2)
    role: str | None = None
    history_start: int | None = None  # ``subagent_history_start_ordinal``
    forked_from: str | None = None  # ``forked_from_id``: the thread a user fork copied

    def describe(self) -> str:
        """How a warning names it (plain identifiers only; ``?`` for anything else)."""
        me, parent = plain_id(self.thread_id) or "?", plain_id(self.parent) or "?"
        if self.kind == "thread_spawn":
            return f"sub-agent thread (agent {me} of thread {parent})"
        return f"Codex {self.kind} sub-agent thread ({me})"


def peek_thread(path: Path) -> Thread:
    """The first line of ``path`` read as a ``session_meta`` (bounded; anything else, or a line
    in error, which the import itself reports, says nothing)."""
    from abw.reader import parse_json

    try:
        with open(path, "rb") as handle:
            first = b""
            while not first.strip():
                first = handle.readline(MAX_LINE_BYTES + 1)
                if not first or len(first) > MAX_LINE_BYTES:
                    return Thread()
        record = parse_json(first, path)
    except (OSError, AbwInputError):
        return Thread()
    payload = record.get("payload") if isinstance(record, dict) else None
    if not isinstance(record, dict) or record.get("type") != "session_meta":
        return Thread()
    return _thread(payload) if isinstance(payload, dict) else Thread()


def _thread(meta: dict[str, Any]) -> Thread:
    """A ``session_meta`` payload's thread: ``source`` is ``{"subagent": "review"}`` (or
    ``compact``, ``memory_consolidation``), ``{"subagent": {"other": …}}`` or
    ``{"subagent": {"thread_spawn": {"parent_thread_id", "depth", "agent_path",
    "agent_nickname", "agent_role"}}}`` for a sub-agent, a plain string for a run; newer
    versions repeat ``parent_thread_id``, ``agent_path``, ``agent_role`` at the top level and
    say ``thread_source: "subagent"``."""
    thread_id = nonempty_str(meta.get("id"))
    source = meta.get("source")
    sub = source.get("subagent") if isinstance(source, dict) else None
    top_parent = nonempty_str(meta.get("parent_thread_id"))
    start = meta.get("subagent_history_start_ordinal")
    start = start if isinstance(start, int) and not isinstance(start, bool) else None
    if isinstance(sub, str):
        return Thread(thread_id, plain_id(sub) or "unknown")
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    if isinstance(sub, dict) and not isinstance(spawn, dict):
        return Thread(thread_id, plain_id(next(iter(sub), None)) or "unknown")
    if spawn is None and not (meta.get("thread_source") == "subagent" and top_parent):
        return Thread(thread_id, forked_from=plain_id(meta.get("forked_from_id")))
    spawn = spawn or {}
    return Thread(
        thread_id,
        "thread_spawn",
        nonempty_str(spawn.get("parent_thread_id")) or top_parent,
        nonempty_str(spawn.get("agent_path")) or nonempty_str(meta.get("agent_path")),
        nonempty_str(spawn.get("agent_role")) or nonempty_str(meta.get("agent_role")),
        start,
    )


def plain_id(value: Any) -> str | None:
    """``value`` when it is a plain identifier (kept in a trace or a message), else None."""
    return value if isinstance(value, str) and _SAFE_ID.fullmatch(value) else None
