"""What the id Gemini CLI gives a call tells: when the call started, its place in the model's
answer, and which model turn of a message made it."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from abw.importers.spans import parse_time

#: The epoch-ms in a call id Gemini CLI made (``turn.ts``): ``<name>-<ms>-<hex>`` before 0.29,
#: ``<name>_<ms>_<n>`` from 0.29, and from 0.42 that prefixed ``<name>__`` (or
#: ``<name>__synth_<prompt id>_<ms>_<n>``). An id the model's API gave carries no time.
ID_TIME = re.compile(r"[-_](\d{12,14})[-_][0-9a-f]+$")
#: A call id of 0.29 on ends ``_<epoch ms>_<n>``: ``n`` is the call's place in the model's answer.
ID_ORDER = re.compile(r"_(\d{12,14})_(\d+)$")


def call_order(calls: list[Any]) -> list[int]:
    """The place (from 1) of each of a message's calls in the order the model made them, by
    the ``_<ms>_<n>`` of their ids: Gemini CLI records calls as they finish, and after an Esc
    the cancelled ones come first (a parallel read that ran first was listed last). Ids made
    before 0.29 (``<name>-<ms>-<hex>``) give only the time the CLI read each call of the answer:
    by that time, and in recorded order within one millisecond (0.18 listed a shell call
    cancelled by Esc after a later write). Recorded order when an id holds no time."""
    keys = []
    for position, call in enumerate(calls):
        call_id = call.get("id") if isinstance(call, dict) else None
        timed = ID_TIME.search(call_id) if isinstance(call_id, str) else None
        if timed is None:
            return list(range(1, len(calls) + 1))
        numbered = ID_ORDER.search(call_id)
        made = int(numbered.group(2)) if numbered else position
        keys.append((int(timed.group(1)), made, position))
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


def later_turns(calls: list[Any], order: list[int]) -> set[int]:
    """The places (:func:`call_order`) of the calls that open a later model turn of one recorded
    message. Older versions (seen in 0.10-0.2x) append the calls of a model turn with no text and
    no thoughts to the model message before it, so one message holds the calls of several turns;
    a call made (its id's time) after every call listed before it had finished (its
    ``timestamp``) was made by a later turn: the CLI asks the model again only once the calls it
    made have finished, and a turn makes all its calls before the first runs. None when a call
    lacks either time."""
    opened: set[int] = set()
    done: datetime | None = None
    for position in sorted(range(len(calls)), key=order.__getitem__):
        call = calls[position]
        made = id_time(call.get("id")) if isinstance(call, dict) else None
        ended = parse_time(call.get("timestamp")) if isinstance(call, dict) else None
        if made is None or ended is None:
            return set()
        if done is not None and made > done:
            opened.add(order[position])
        done = ended if done is None else max(done, ended)
    return opened
