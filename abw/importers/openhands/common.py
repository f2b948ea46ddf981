"""What both event forms make alike: an event's span id and a condensation's ``memory`` span."""

from __future__ import annotations

from typing import Any

from abw.importers.common import identifier
from abw.importers.rawio import as_dict
from abw.importers.spans import ABSENT, Draft

SHELL = {"run", "execute_bash", "run_ipython", "execute_ipython_cell"}


def compaction(index: int, event: dict[str, Any], when: Any, requested: bool) -> Draft:
    """A context condensation (V1 ``Condensation``, V0 ``condensation``) as the ``memory`` span
    ``compaction`` that a Claude Code or Codex compaction is: ``trigger`` ``auto`` (the
    condenser's own limit) or ``other`` (asked for: a context-window error, a user's request),
    ``forgotten_events`` (how many events left the model's view; the ids are not kept), its
    input the summary (hashed). The condenser's model call is part of it, not an llm span: an
    agent turn is a call whose answer the agent acts on (as Claude's summariser is left out)."""
    args = as_dict(event.get("args")) if "action" in event else event
    draft = Draft((index, 1), "memory", "compaction", "ok", args.get("summary", ABSENT))
    draft.span_id, draft.started_at = event_span_id(event), when
    draft.attributes["trigger"] = "other" if requested else "auto"
    forgotten = args.get("forgotten_event_ids")
    start, end = args.get("forgotten_events_start_id"), args.get("forgotten_events_end_id")
    if isinstance(forgotten, list) and forgotten:
        draft.attributes["forgotten_events"] = len(forgotten)
    elif _plain_int(start) and _plain_int(end) and end >= start:
        draft.attributes["forgotten_events"] = end - start + 1  # (V0: a range of event ids)
    return draft


def _plain_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def event_span_id(event: dict[str, Any]) -> str | None:
    value = event.get("id")
    if isinstance(value, str):
        value = identifier(value)
    return f"event-{value}" if isinstance(value, int | str) else None
