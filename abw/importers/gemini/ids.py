"""What the id Gemini CLI gives a call tells: when the call started, and its place in the
model's answer."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

#: The epoch-ms in a call id Gemini CLI made (``turn.ts``): ``<name>-<ms>-<hex>`` before 0.29,
#: ``<name>_<ms>_<n>`` from 0.29, and from 0.42 that prefixed ``<name>__`` (or
#: ``<name>__synth_<prompt id>_<ms>_<n>``). An id the model's API gave carries no time.
ID_TIME = re.compile(r"[-_](\d{12,14})[-_][0-9a-f]+$")
#: A call id of 0.29 on ends ``_<epoch ms>_<n>``: ``n`` is the call's place in the model's answer.
ID_ORDER = re.compile(r"_(\d{12,14})_(\d+)$")


def call_order(calls: list[Any]) -> list[int]:
    """The place (from 1) of each of a message's calls in the order the model made them, by
    the ``_<ms>_<n>`` of their ids: Gemini CLI records calls as they finish, and after an Esc
    the cancelled ones come first (a parallel read that ran first was listed last). Recorded
    order when an id lacks that ending."""
    keys = []
    for position, call in enumerate(calls):
        call_id = call.get("id") if isinstance(call, dict) else None
        match = ID_ORDER.search(call_id) if isinstance(call_id, str) else None
        if match is None:
            return list(range(1, len(calls) + 1))
        keys.append((int(match.group(1)), int(match.group(2)), position))
    ranks = [0] * len(calls)
    for rank, (_, _, position) in enumerate(sorted(keys), 1):
        ranks[position] = rank
    return ranks


def id_time(call_id: Any) -> datetime | None:
    """When a call started: the epoch-ms in the id Gemini CLI made (:data:`ID_TIME`), else None."""
    match = ID_TIME.search(call_id) if isinstance(call_id, str) else None
    if not match:
        return None
    try:
        return datetime.fromtimestamp(int(match.group(1)) / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None
