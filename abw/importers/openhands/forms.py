"""The input forms of a trajectory: a V0 event array (or OpenDevin's ``[action, observation]``
pairs), a document holding one, and the V1 events ``openhands --headless --json`` prints one a
line."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.openhands.folders import BASE_STATE
from abw.limits import MAX_LINE_BYTES, check_line
from abw.reader import MalformedJson, parse_json

#: V1 event kinds that do not end in ``Event``.
_V1_KINDS = {"UserRejectObservation", "Condensation", "CondensationRequest"}


#: The key of a document that holds its events.
_HISTORY_KEYS = ("events", "history", "trajectory")


#: A line that opens a JSON object (``openhands --headless --json`` prints an event a line).
_OBJECT_LINE = re.compile(rb"^[ \t]*\{", re.MULTILINE)


def is_v0(event: dict[str, Any]) -> bool:
    """A V0 event: ``action`` or ``observation`` a string, with its ``source`` and ``id``."""
    kind = event.get("action", event.get("observation"))
    return isinstance(kind, str) and "source" in event and "id" in event


def is_v1(event: dict[str, Any]) -> bool:
    """A V1 event: its ``kind`` names an event class."""
    kind = event.get("kind")
    return isinstance(kind, str) and (kind.endswith("Event") or kind in _V1_KINDS)


#: One event given alone: (which events, of what, whose files, the field named).
_ONE_EVENT = (
    (is_v1, "conversation", "event-*.json files", "kind"),
    (is_v0, "V0 session", "events/<n>.json files", None),
)


def _pairs(document: Any) -> bool:
    """OpenDevin's history (0.x of mid-2024): ``[action, observation]`` pairs, not events."""
    return (
        isinstance(document, list)
        and bool(document)
        and all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(e, dict) for e in p)
            for p in document
        )
    )


def _failed_instance(document: dict[str, Any]) -> bool:
    """An evaluation's record of an instance that ended with no history (``history: null``):
    it timed out or ran out of retries (``EvalOutput(instance_id, test_result={}, error=…)``
    in ``evaluation/utils/shared.py``); its ``error`` says why."""
    error = document.get("error")
    return (
        "instance_id" in document
        and document.get("history") is None
        and isinstance(error, str)
        and bool(error.strip())
    )


def trajectory_events(
    document: Any, path: Path, line_of: Callable[[tuple[str | int, ...]], int | None]
) -> tuple[list[dict[str, Any]], tuple[str, ...], bool, bool]:
    """The events, the key of the document they are under (``()`` for a bare array), whether
    they are V1 events, and whether they came in ``[action, observation]`` pairs (event ``i``
    is then in pair ``i // 2``); a trajectory in which no event is OpenHands' is refused."""
    prefix: tuple[str, ...] = ()
    if isinstance(document, dict):
        if path.name == BASE_STATE and not any(k in document for k in _HISTORY_KEYS):
            raise AbwInputError(
                "an OpenHands conversation's state, not its events: import the conversation's "
                "folder (its events/event-*.json)",
                file=path,
                line=line_of(()),
            )
        for is_event, what, held, field in _ONE_EVENT:
            if is_event(document):
                raise AbwInputError(
                    f"one event of an OpenHands {what}: import the folder that holds its {held}",
                    file=path,
                    line=line_of(()),
                    field=field,
                )
        if _failed_instance(document):  # no step recorded: a run that failed before any
            return [], ("history",), False, False
        for key in _HISTORY_KEYS:
            if isinstance(document.get(key), list):
                document, prefix = document[key], (key,)
                break
    paired = _pairs(document)
    if paired:
        document = [event for pair in document for event in pair]
    if not isinstance(document, list) or not all(isinstance(e, dict) for e in document):
        raise AbwInputError(
            "not an OpenHands trajectory: expected a JSON array of events",
            file=path,
            line=line_of(prefix),
        )
    v1 = any(is_v1(e) for e in document)
    if document and not v1 and not any(is_v0(e) for e in document):
        raise AbwInputError(
            "not an OpenHands trajectory: no OpenHands event (V0: action or observation with "
            "source and id; V1: a kind ending in Event)",
            file=path,
            line=line_of(prefix),
            field=".".join(prefix) or None,
        )
    return document, prefix, v1, paired


def event_stream(
    raw: bytes, path: Path, warnings: list[str]
) -> tuple[list[dict[str, Any]], list[int], bool] | None:
    """The V1 events ``openhands --headless --json`` printed one a line (its ``json_callback``:
    each event's ``model_dump()``), the line of each, and whether its last event line was cut
    off mid-write (skipped, with a warning); or None when the first line that opens a JSON
    object is no V1 event. The lines that open none are the CLI's console output."""
    found = _OBJECT_LINE.search(raw)
    if found is None:
        return None
    start = found.start()
    end = raw.find(b"\n", start)
    first_line = raw[start : end if end >= 0 else len(raw)]
    number = raw.count(b"\n", 0, start) + 1
    if len(first_line) > MAX_LINE_BYTES:
        return None  # (a document on one line, not an event a line)
    try:
        first = parse_json(first_line, path, first_line=number)
    except AbwInputError:
        return None
    lines = raw.split(b"\n")
    written = [n for n, line in enumerate(lines) if line.strip()]
    if not isinstance(first, dict) or not is_v1(first) or len(written) < 2:
        return None  # (one event alone, on one line: one file of a conversation's folder)
    events, numbers, cut = [], [], False
    for n in written:
        if not lines[n].lstrip().startswith(b"{"):
            continue  # the CLI's console output
        check_line(lines[n], path, n + 1)
        try:
            event = parse_json(lines[n], path, first_line=n + 1)
        except MalformedJson:
            if n != written[-1]:
                raise
            warnings.append(f"{path.name}:{n + 1}: skipped a cut-off last line")
            cut = True
            continue
        if not isinstance(event, dict) or not is_v1(event):
            raise AbwInputError(
                "not an OpenHands event among the events `openhands --headless --json` printed "
                "one a line: expected an object whose kind ends in Event",
                file=path,
                line=n + 1,
                field="kind",
            )
        events.append(event)
        numbers.append(n + 1)
    return events, numbers, cut
