"""What is refused: a ``logs.json`` prompt log, a saved chat (``/chat save``) or a checkpoint
taken before a tool ran (``checkpoints/``), what ``gemini -p`` prints (``--output-format json`` /
``stream-json``), and a document that is no chat recording. The first three are Gemini CLI's own
files beside its sessions: a folder import passes them over (:func:`own_file`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.gemini.messages import MESSAGE_TYPES, text
from abw.importers.rawio import load_json, read_raw
from abw.reader import parse_json

#: The ``type`` of the events ``--output-format stream-json`` prints (``JsonStreamEventType``;
#: its ``error`` left out: a recording's error message has that type too).
STREAM_EVENTS = frozenset({"init", "message", "tool_use", "tool_result", "result"})
#: The members of what ``--output-format json`` prints (``JsonOutput``).
JSON_OUTPUT_KEYS = frozenset({"session_id", "response", "stats", "error", "warnings"})
SESSION_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z_-]{0,99}")
LEADING_SPACE = re.compile(rb"\s*")


def prompt_log_file(path: Path) -> bool:
    """Whether a ``*logs.json`` file is a prompt log (not a unit of import)."""
    if not path.name.endswith("logs.json"):
        return False
    try:
        return _prompt_log(load_json(read_raw(path), path), path)
    except AbwInputError:
        return False


def _prompt_log(document: Any, path: Path) -> bool:
    """Whether a document is a ``logs.json`` prompt log: its prompts, or (a file so named) the
    ``[]`` Gemini CLI writes when it first starts in a project."""
    return is_prompt_log(document) or (document == [] and path.name.endswith("logs.json"))


def own_file(path: Path) -> bool:
    """Whether a file of a folder import is one of Gemini CLI's own files beside its sessions,
    not a session: its ``logs.json`` prompt log, a ``checkpoint-<tag>.json`` saved chat or a
    file of its ``checkpoints/`` folder (only files so named are read here)."""
    if prompt_log_file(path):
        return True
    if not (path.name.startswith("checkpoint-") or path.parent.name == "checkpoints"):
        return False
    try:
        return _checkpoint_kind(load_json(read_raw(path), path)) is not None
    except AbwInputError:
        return False


def _contents(value: Any) -> bool:
    """Whether a value is a model history: a list of ``{role, parts}`` contents."""
    return isinstance(value, list) and all(
        isinstance(c, dict) and isinstance(c.get("parts"), list) and "role" in c for c in value
    )


def _checkpoint_kind(document: Any) -> str | None:
    """What kind of Gemini CLI checkpoint a document is: a saved chat (``/chat save <tag>``:
    the model history, or ``{history, ...}``), a checkpoint taken before a tool changed files
    (``{history, clientHistory, toolCall, commitHash, ...}``, for ``/restore``); else None."""
    if _contents(document) and document:
        return "saved chat"
    if not isinstance(document, dict) or "messages" in document:
        return None
    if isinstance(document.get("toolCall"), dict) and any(
        key in document for key in ("commitHash", "clientHistory", "history")
    ):
        return "tool checkpoint"
    return "saved chat" if _contents(document.get("history")) and document["history"] else None


def is_prompt_log(document: Any) -> bool:
    """Whether a document is ``logs.json``: a list of ``{messageId, message, ...}`` prompts."""
    return (
        isinstance(document, list)
        and bool(document)
        and all(isinstance(e, dict) and "messageId" in e and "message" in e for e in document)
    )


def refuse_stream_json(raw: bytes, path: Path) -> None:
    """Refuse ``--output-format stream-json`` output: its first record is one of the stream's
    events (``init`` names the session), whatever the file is called. Only a line opening as
    the CLI writes them (``{"type":"``) is parsed: a recording's first line never does."""
    leading = LEADING_SPACE.match(raw)
    start = leading.end() if leading else 0
    if not raw.startswith(b'{"type":"', start):
        return
    end = raw.find(b"\n", start)
    try:
        record = parse_json(raw[start : end if end >= 0 else len(raw)], path)
    except AbwInputError:  # not JSON (or refused): no such output
        return
    if (
        isinstance(record, dict)
        and text(record.get("type")) in STREAM_EVENTS
        and "timestamp" in record
        and "id" not in record
    ):
        raise AbwInputError(
            headless_refusal("stream-json", record.get("session_id")),
            file=path,
            line=raw.count(b"\n", 0, start) + 1,
            field="type",
        )


def headless_refusal(output_format: str, session_id: Any) -> str:
    """Why ``gemini --output-format <output_format>`` output is refused, and the recording of its
    session to import (named ``session-<time>-<the session id's first 8 characters>``)."""
    known = isinstance(session_id, str) and SESSION_ID.fullmatch(session_id)
    name = f"session-*-{session_id[:8]}" if known else "session-*"
    return (
        f"not a Gemini CLI chat recording: this is `gemini --output-format {output_format}` "
        "output (what the CLI printed); import the session's recording "
        f"~/.gemini/tmp/<project>/chats/{name}.json (.jsonl from 0.39) instead"
    )


def refuse_malformed_messages(
    messages: list[Any], path: Path, line_of: Callable[[tuple[str | int, ...]], int | None]
) -> None:
    """Refuse a recording a message of which is no object, or has a ``type`` that is no text
    (Gemini CLI writes every message as an object with a string ``type``; an unknown string,
    a later version's kind of message, is passed over where it is read)."""
    for index, message in enumerate(messages):
        location: tuple[str | int, ...]
        if not isinstance(message, dict):
            problem, location = "a message is not an object", ("messages", index)
        elif "type" in message and not isinstance(message["type"], str):
            problem, location = "a message's type is not a string", ("messages", index, "type")
        else:
            continue
        field = ".".join(str(part) for part in location)
        raise AbwInputError(problem, file=path, line=line_of(location), field=field)


def refuse_document(document: Any, path: Path) -> None:
    """Refuse a document that is no chat recording: a prompt log, ``--output-format json``
    output, no ``messages[]``, or another tool's ``messages[]``."""
    if _prompt_log(document, path):
        raise AbwInputError(
            "this is a Gemini CLI logs.json (user prompts only, no model or tool steps); "
            "import the chat recording chats/session-*.json instead",
            file=path,
        )
    kind = _checkpoint_kind(document)
    if kind is not None:
        what = (
            "a copy of a conversation's history `/chat save` wrote"
            if kind == "saved chat"
            else "the history kept before a tool changed files, for `/restore`"
        )
        raise AbwInputError(
            f"this is a Gemini CLI {kind} ({what}), not a session; import the session's "
            "recording chats/session-*.json (.jsonl from 0.39) instead",
            file=path,
        )
    if isinstance(document, dict) and document and set(document) <= JSON_OUTPUT_KEYS:
        raise AbwInputError(
            headless_refusal("json", document.get("session_id")),
            file=path,
            field=min(document),
        )
    if not isinstance(document, dict) or not isinstance(document.get("messages"), list):
        raise AbwInputError(
            "not a Gemini CLI chat recording: expected an object with messages[]",
            file=path,
            field="messages",
        )
    if "sessionId" not in document and not any(
        isinstance(m, dict) and text(m.get("type")) in MESSAGE_TYPES for m in document["messages"]
    ):  # (another tool's messages[]: mini-swe-agent's, a chat API's)
        raise AbwInputError(
            "not a Gemini CLI chat recording: no sessionId and no user, gemini, info, "
            "warning or error message",
            file=path,
            field="messages",
        )
