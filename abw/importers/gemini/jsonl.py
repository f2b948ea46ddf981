"""The JSON Lines form (0.39 on): a file's records, and their replay (message lines,
``$set`` updates and checkpoints, ``$rewindTo``) into the document the earlier form holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.base import ImportOptions
from abw.importers.gemini.messages import history_copy
from abw.importers.rawio import jsonl_records
from abw.reader import MalformedJson
from abw.text import plural


def recording_records(
    raw: bytes, path: Path, options: ImportOptions
) -> list[tuple[int, Any]] | None:
    """The JSON Lines records of a ``.jsonl`` recording; None when its first line is no JSON
    text of its own (one document laid out over many lines: the format before 0.39)."""
    try:
        return list(jsonl_records(raw, path, options.warnings))
    except MalformedJson as exc:
        lines = raw.split(b"\n")
        first = next((number for number, line in enumerate(lines, 1) if line.strip()), None)
        if exc.line == first:
            return None
        raise


def replayed(
    records: list[tuple[int, Any]], path: Path, options: ImportOptions
) -> tuple[dict[str, Any], dict[int, int], list[int], set[int]]:
    """The session a 0.39+ recording's ``(line, record)`` pairs add up to, as the document the
    earlier format holds: ``messages`` every message recorded, in the order first recorded, each
    as last written under its id (a rewound one, one a checkpoint leaves out: they ran; a
    checkpoint's copy of a recorded one is no new message); the line each was last written on
    (by index); and the indexes of the messages the conversation ends with, in its order
    (Gemini CLI's own ``loadConversationRecord``: rewinds and checkpoints applied)."""
    replay = _Replay()
    for line, record in records:
        replay.read(line, record)
    if replay.ignored:
        options.warn(f"{path.name}: skipped {replay.ignored} lines that are no recording record")
    if not isinstance(replay.metadata.get("sessionId"), str):
        raise AbwInputError(
            "not a Gemini CLI chat recording: no session line {sessionId, projectHash, ...}",
            file=path,
        )
    if replay.metadata.get("kind") != "subagent":
        replay.warn_dropped(path, options)
    index = {message_id: n for n, message_id in enumerate(replay.recorded)}
    document = {**replay.metadata, "messages": [m for _, m in replay.recorded.values()]}
    lines = {n: line for n, (line, _) in enumerate(replay.recorded.values())}
    ended = [index[message_id] for message_id in replay.ending()]
    return document, lines, ended, {index[message_id] for message_id in replay.made}


class _Replay:
    """A 0.39+ recording read record by record: every message recorded (``recorded``), and the
    conversation as Gemini CLI's loader holds it (``live``: ids in its order)."""

    def __init__(self) -> None:
        self.metadata: dict[str, Any] = {}
        self.recorded: dict[str, tuple[int, dict[str, Any]]] = {}  # id -> (line, message)
        self.live: dict[str, None] = {}
        self.dropped: dict[str, str] = {}  # id -> "rewind" / "checkpoint", while out of live
        self.made: set[str] = set()  # ids only a checkpoint lists: turns the CLI made itself
        self.ignored = 0

    def read(self, line: int, record: Any) -> None:
        if not isinstance(record, dict):
            self.ignored += 1
        elif isinstance(record.get("$rewindTo"), str):
            ids = list(self.live)
            target = record["$rewindTo"]
            self._drop(ids[ids.index(target) if target in self.live else 0 :], "rewind")
        elif isinstance(record.get("id"), str):
            self._write(line, record)
        elif isinstance(record.get("$set"), dict):
            update = record["$set"]
            if isinstance(update.get("messages"), list):
                self._checkpoint(line, update["messages"])
            self.metadata.update(update)
        elif isinstance(record.get("sessionId"), str) and isinstance(
            record.get("projectHash"), str
        ):
            self.metadata.update(record)
            for message in _with_ids(record.get("messages")):
                self._write(line, message)
        else:
            self.ignored += 1

    def _write(self, line: int, message: dict[str, Any]) -> None:
        """A message (re)written under its id: it replaces the earlier copy, in place."""
        self.recorded[message["id"]] = (line, message)
        self.live[message["id"]] = None
        self.dropped.pop(message["id"], None)
        self.made.discard(message["id"])

    def _checkpoint(self, line: int, messages: Any) -> None:
        """A checkpoint: the conversation is its messages. One not recorded is the CLI's own (a
        compression's summary and its ``Got it.`` reply): what such a checkpoint leaves out is
        summarized, not undone, and stays in the conversation the run ends with, before it;
        a checkpoint of recorded messages only (a rollback) cuts what it leaves out."""
        listed = _with_ids(messages)
        kept = {message["id"] for message in listed}
        left_out = [i for i in self.live if i not in kept]
        summarized = any(message["id"] not in self.recorded for message in listed)
        self._drop(left_out, "checkpoint")
        for message_id in left_out if summarized else []:
            self.live[message_id] = None  # (still counted in the warning: out of the history)
        for message in listed:
            if message["id"] not in self.recorded:
                self.recorded[message["id"]] = (line, message)
                self.made.add(message["id"])
            self.live.pop(message["id"], None)
            self.live[message["id"]] = None
            self.dropped.pop(message["id"], None)

    def _drop(self, ids: list[str], why: str) -> None:
        for message_id in ids:
            del self.live[message_id]
            self.dropped[message_id] = why

    def ending(self) -> list[str]:
        """The conversation the run ends with, in order, without the messages the CLI made."""
        return [message_id for message_id in self.live if message_id not in self.made]

    def warn_dropped(self, path: Path, options: ImportOptions) -> None:
        """One warning when steps the conversation no longer holds are kept."""
        counts = {"rewind": 0, "checkpoint": 0}
        for message_id, why in self.dropped.items():
            if message_id not in self.made:
                counts[why] += _steps(self.recorded[message_id][1])
        parts = []
        if counts["rewind"]:
            parts.append(f"{plural(counts['rewind'], 'step')} the session later rewound")
        if counts["checkpoint"]:
            parts.append(
                f"{plural(counts['checkpoint'], 'step')} a later checkpoint left out "
                "(compressed or rolled back)"
            )
        if parts:
            options.warn(f"{path.name}: {' and '.join(parts)} are kept: they ran")


def _with_ids(messages: Any) -> list[dict[str, Any]]:
    """The messages of a list that have a string id (what Gemini CLI's loader reads)."""
    listed = messages if isinstance(messages, list) else []
    return [m for m in listed if isinstance(m, dict) and isinstance(m.get("id"), str)]


def _steps(message: dict[str, Any]) -> int:
    """The spans a message makes: a ``gemini`` message and its tool calls."""
    if message.get("type") != "gemini" or history_copy(message):
        return 0
    calls = message.get("toolCalls")
    return 1 + sum(isinstance(c, dict) for c in calls) if isinstance(calls, list) else 1
