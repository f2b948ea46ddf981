"""Gemini CLI chat recordings (``~/.gemini/tmp/<project>/chats/session-*.json`` / ``.jsonl``).

Before 0.39 a session is one JSON document (``{sessionId, projectHash, ..., messages}``); from
0.39 on it is JSON Lines, records appended as the session goes (:func:`replayed`): a metadata
line ``{sessionId, projectHash, ...}``, message lines (a message written again under its ``id``
replaces the earlier copy, in place), ``{"$set": {...}}`` metadata updates (a ``messages`` list
in one is a checkpoint: the history as the chat holds it now, copies of recorded messages under
their ids, after a compression, an Esc or a ``/rewind``) and ``{"$rewindTo": id}`` (the
conversation cut back: Gemini CLI's loader drops that message and every later one). A behavior
gate sees every step the recording shows the agent took: a rewound message, or one a checkpoint
leaves out, ran and stays, in recording order (one warning per file); a checkpoint's copy of a
recorded message counts once (the recorded one), and a message only a checkpoint lists (a
compression's summary and its ``Got it.`` reply) is the CLI's, no step; so is a model turn the CLI
wrote again when it set the history (``/chat resume``, ``/restore``: :func:`_history_copy`).
The run's final status and output are those of the conversation at its end, replayed as
``loadConversationRecord`` does, except that what a compression summarized stays in it: it does
not undo the answer. A subagent's own recording (``kind: subagent``, under
``chats/<parent session id>/``) is not a session: it is skipped with a warning.

Each ``gemini`` message is an llm span (named by its model), followed by its ``toolCalls`` in
the order the model made them (:func:`_call_order`): status ``success``/``error``/``cancelled``
-> ok/error/rejected, a ``cancelled`` call that ran and was cut short (0.5x on: its error is
``[Operation Cancelled] User cancelled tool execution.`` or ``… Operation cancelled.``, no
``Reason:``; a subagent's call holding its progress, which only a started subagent reports)
-> interrupted.
``delegate_to_agent`` and ``invoke_agent`` (0.6x) are a handoff to ``args.agent_name`` (the
subagent's own steps are not in the file); so is a subagent called by its own name (0.3x-0.5x:
``resultDisplay`` is its progress, ``isSubagentProgress``, or the call holds ``agentId``), an
error when that progress ends in ``state: error`` or short of its goal (``terminateReason``
not ``GOAL``: a failed subagent's call is recorded ``success``). A ``gemini`` message with no
text, thoughts or tokens after a notice only holds calls (:func:`_calls_holder`): no llm span,
its calls the previous model message's. A call's start is
the epoch-ms Gemini CLI writes into the id it makes (:data:`_ID_TIME`), its end the call's
timestamp. ``logs.json`` (user prompts only) holds no
behavior and is refused.

A shell call the recording marks ``success`` only *ran*: the command's own exit code is the
``Exit Code: N`` line of its output, and a non-zero one makes the call an error (as the Codex
and OpenHands importers read theirs). ``source_ref.line`` is the raw line each message and
tool call starts on.

What ``gemini -p`` prints in headless mode is refused, naming the recording to import instead:
``--output-format json`` (``{session_id, response, stats, error}``: no steps at all) and
``--output-format stream-json`` (``init`` / ``message`` / ``tool_use`` / ``tool_result`` /
``result`` events: a cancelled call reads ``success``, and a shell call's output is its display
text, which holds no exit code when the failed command printed anything). Gemini CLI records
every headless session too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from abw.errors import AbwInputError
from abw.importers.base import Importer, ImportOptions
from abw.importers.rawio import as_dict, held_fields, jsonl_records, load_json, read_raw
from abw.importers.spans import (
    ABSENT,
    Draft,
    exit_outcome,
    finish,
    make_trace,
    ms_between,
    parse_time,
)
from abw.jsonlocate import value_lines
from abw.reader import MalformedJson
from abw.text import plural

if TYPE_CHECKING:
    from abw.models.trace import Trace

_STATUS = {"success": "ok", "error": "error", "cancelled": "rejected", "canceled": "rejected"}
#: The epoch-ms in a call id Gemini CLI made (``turn.ts``): ``<name>-<ms>-<hex>`` before 0.29,
#: ``<name>_<ms>_<n>`` from 0.29, and from 0.42 that prefixed ``<name>__`` (or
#: ``<name>__synth_<prompt id>_<ms>_<n>``). An id the model's API gave carries no time.
_ID_TIME = re.compile(r"[-_](\d{12,14})[-_][0-9a-f]+$")
#: What Gemini CLI (0.5x on, ``scheduler/tool-executor.ts`` ``createCancelledResult``) writes
#: as the ``error`` of a ``cancelled`` call that was running when the user cancelled it; a call
#: declined or still queued says ``[Operation Cancelled] Reason: …`` (``state-manager.ts``), as
#: every cancelled call of older versions does, and stays ``rejected``.
_CANCELLED_RUNNING = frozenset(
    {
        "[Operation Cancelled] User cancelled tool execution.",
        "[Operation Cancelled] Operation cancelled.",
    }
)
_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)\s*$", re.MULTILINE)
SHELL_TOOLS = {"run_shell_command", "shell"}
#: Typed like the Claude importer types its equivalents (Read/Grep/WebFetch, TodoWrite).
RETRIEVER_TOOLS = {
    "read_file",
    "read_many_files",
    "list_directory",
    "glob",
    "search_file_content",
    "grep",
    "web_fetch",
    "google_web_search",
}
MEMORY_TOOLS = {"write_todos", "save_memory"}
#: The content kinds a recording can hold (name -> where); ``removed_fields`` names those held.
REMOVED_FIELDS = {
    "messages.content": "messages.content",
    "messages.thoughts": "messages.thoughts",
    "toolCalls.args": "messages.toolCalls.args",
    "toolCalls.result": "messages.toolCalls.result",
    "toolCalls.resultDisplay": "messages.toolCalls.resultDisplay",
    "toolCalls.description": "messages.toolCalls.description",
    "projectHash": "projectHash",
}


def _prompt_log_file(path: Path) -> bool:
    if not path.name.endswith("logs.json"):
        return False
    try:
        return _is_prompt_log(load_json(read_raw(path), path))
    except AbwInputError:
        return False


def _is_prompt_log(document: Any) -> bool:
    return (
        isinstance(document, list)
        and bool(document)
        and all(isinstance(e, dict) and "messageId" in e and "message" in e for e in document)
    )


#: The info message Gemini CLI records when the user cancels the turn in flight (Esc).
_CANCELLED = "Request cancelled."
#: How the info message Gemini CLI records when a turn would pass ``model.maxSessionTurns`` opens
#: (``handleMaxSessionTurnsEvent``): the CLI stopped the run at its limit.
_MAX_TURNS = "The session has reached the maximum number of turns"
#: The messages Gemini CLI records of its own (notices, not the user's or the model's).
_NOTICE_TYPES = frozenset({"info", "warning", "error"})
#: The tools that call a subagent named in ``args.agent_name``: ``delegate_to_agent`` (0.2x),
#: ``invoke_agent`` (0.6x; 0.3x-0.5x called a subagent by its own name).
_DELEGATE_TOOLS = frozenset({"delegate_to_agent", "invoke_agent"})
#: The message types Gemini CLI records (a recording with none of them and no sessionId is not one).
_MESSAGE_TYPES = frozenset({"user", "gemini", "info", "warning", "error"})
#: The ``type`` of the events ``--output-format stream-json`` prints (``JsonStreamEventType``;
#: its ``error`` left out: a recording's error message has that type too).
_STREAM_EVENTS = frozenset({"init", "message", "tool_use", "tool_result", "result"})
#: The members of what ``--output-format json`` prints (``JsonOutput``).
_JSON_OUTPUT_KEYS = frozenset({"session_id", "response", "stats", "error", "warnings"})
_SESSION_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z_-]{0,99}")
_LEADING_SPACE = re.compile(rb"\s*")


class GeminiImporter(Importer):
    name: ClassVar[str] = "gemini"
    platform: ClassVar[str] = "gemini_cli"
    export_format: ClassVar[str] = "gemini-chat-json"
    help: ClassVar[str] = (
        "Gemini CLI chat recordings (~/.gemini/tmp/<project>/chats/session-*.json, and the "
        "JSON Lines session-*.jsonl of 0.39 on). logs.json holds only prompts and is refused. "
        "--argument-fields reads toolCalls' args."
    )
    suffixes: ClassVar[tuple[str, ...]] = (".json", ".jsonl")
    supports_argument_fields: ClassVar[bool] = True

    def discover(self, folder: Path) -> list[Path]:
        """Session files; a ``logs.json`` prompt log in the folder is not a unit of import."""
        return [p for p in super().discover(folder) if not _prompt_log_file(p)]

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        raw = read_raw(path)
        _refuse_stream_json(raw, path)
        records = _records(raw, path, options) if path.suffix == ".jsonl" else None
        line_of: Callable[[tuple[str | int, ...]], int | None]
        ended: list[int] | None = None  # the messages the conversation ends with (all)
        made: set[int] = set()  # messages Gemini CLI made for its history: no step
        if records is not None:
            document, message_lines, ended, made = replayed(records, path, options)
            if document.get("kind") == "subagent":
                options.warn(
                    f"{path.name}: a subagent's own recording (kind: subagent), not a session: "
                    "skipped (its session holds the call that started it)"
                )
                return []
            line_of = lambda location: message_lines.get(location[1])  # noqa: E731
        else:
            document = load_json(raw, path)
            line_of = value_lines(raw, 4).get
        if _is_prompt_log(document):
            raise AbwInputError(
                "this is a Gemini CLI logs.json (user prompts only, no model or tool steps); "
                "import the chat recording chats/session-*.json instead",
                file=path,
            )
        if isinstance(document, dict) and document and set(document) <= _JSON_OUTPUT_KEYS:
            raise AbwInputError(
                _headless_refusal("json", document.get("session_id")),
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
            isinstance(m, dict) and m.get("type") in _MESSAGE_TYPES for m in document["messages"]
        ):  # (another tool's messages[]: mini-swe-agent's, a chat API's)
            raise AbwInputError(
                "not a Gemini CLI chat recording: no sessionId and no user, gemini, info, "
                "warning or error message",
                file=path,
                field="messages",
            )
        drafts: list[Draft] = []
        messages = document["messages"]
        for index, message in enumerate(messages):
            if not isinstance(message, dict):
                raise AbwInputError(
                    "a message is not an object", file=path, field=f"messages.{index}"
                )
            if message.get("type") != "gemini" or index in made or _history_copy(message):
                continue
            if _calls_holder(messages, index) and drafts:
                parent = next((d.span_id for d in reversed(drafts) if d.type == "llm"), None)
                self._calls(message, index, parent, options, path, drafts, line_of)
                continue
            when = parse_time(message.get("timestamp"))
            llm = Draft(
                (index, 0),
                "llm",
                str(message.get("model") or "gemini"),
                "ok",
                output={"content": message.get("content"), "thoughts": message.get("thoughts")},
                span_id=_text(message.get("id")),
            )
            llm.started_at = when
            llm.line = line_of(("messages", index))
            tokens = as_dict(message.get("tokens"))
            for source, target in (("input", "input_tokens"), ("output", "output_tokens")):
                if isinstance(tokens.get(source), int):
                    llm.attributes[target] = tokens[source]
            drafts.append(llm)
            self._calls(message, index, llm.span_id, options, path, drafts, line_of)
        if ended is None:
            ended = list(range(len(messages)))
        final_status, final_text = _run_end([messages[index] for index in ended])
        return [
            make_trace(
                platform=self.platform,
                export_format=self.export_format if records is None else "gemini-chat-jsonl",
                raw=raw,
                trace_id=str(document.get("sessionId") or path.stem),
                spans=finish(drafts, path),
                options=options,
                final_status=final_status,
                final_output=final_text,
                final_text=final_text,
                removed_fields=held_fields(document, REMOVED_FIELDS),
            )
        ]

    def _calls(
        self,
        message: dict[str, Any],
        index: int,
        parent: str | None,
        options: ImportOptions,
        path: Path,
        drafts: list[Draft],
        line_of: Callable[[tuple[str | int, ...]], int | None],
    ) -> None:
        """Append the spans of a ``gemini`` message's ``toolCalls``, children of ``parent``."""
        calls = message.get("toolCalls")
        if calls is not None and not isinstance(calls, list):
            raise AbwInputError(
                "expected a list of tool calls",
                file=path,
                line=line_of(("messages", index)),
                field=f"messages.{index}.toolCalls",
            )
        calls = calls or []
        for offset, (position, call) in enumerate(zip(_call_order(calls), calls, strict=True)):
            if isinstance(call, dict):
                draft = self._call(call, index, position, parent, options, path)
                draft.line = line_of(("messages", index, "toolCalls", offset))
                drafts.append(draft)

    def _call(
        self,
        call: dict[str, Any],
        index: int,
        position: int,
        parent: str | None,
        options: ImportOptions,
        path: Path,
    ) -> Draft:
        name = str(call.get("name") or "tool")
        args = call.get("args", ABSENT)
        outcome = _STATUS.get(str(call.get("status")), "incomplete")
        if outcome == "rejected" and (
            _cancelled_running(call.get("result")) or _subagent_call(call)
        ):
            outcome = "interrupted"  # it ran and the user cut it short
        draft = Draft(
            (index, position),
            "tool",
            name,
            outcome,
            args,
            call.get("result", ABSENT),
            span_id=_text(call.get("id")),
            parent_span_id=parent,
        )
        if name in RETRIEVER_TOOLS:
            draft.type = "retriever"
        elif name in MEMORY_TOOLS:
            draft.type = "memory"
        if name in _DELEGATE_TOOLS or _subagent_call(call):
            draft.type = "handoff"  # (a subagent called by its own name is the tool)
            draft.attributes["tool"] = name
            agent = args.get("agent_name") if isinstance(args, dict) else None
            if name in _DELEGATE_TOOLS and isinstance(agent, str) and agent:
                draft.name = agent
            if outcome == "ok":  # its call "succeeded" in returning the failure
                draft.outcome = _subagent_outcome(call)
        if name in SHELL_TOOLS and isinstance(args, dict):
            draft.mark_shell(options.labels, args.get("command"))
        if name in SHELL_TOOLS and outcome == "ok":
            code = _exit_code(call.get("result"))
            if code is not None:
                draft.attributes["exit_code"] = code
                draft.outcome = exit_outcome(code)
        draft.keep_arguments(options.argument_fields, args, path)
        ended = parse_time(call.get("timestamp"))
        started = _id_time(call.get("id"))
        draft.started_at = started or ended
        if started is not None:
            draft.duration_ms = ms_between(started, ended)
            draft.attributes["duration_source"] = "id_epoch_ms"
        return draft


def _refuse_stream_json(raw: bytes, path: Path) -> None:
    """Refuse ``--output-format stream-json`` output: its first record is one of the stream's
    events (``init`` names the session), whatever the file is called. Only a line opening as
    the CLI writes them (``{"type":"``) is parsed: a recording's first line never does."""
    leading = _LEADING_SPACE.match(raw)
    start = leading.end() if leading else 0
    if not raw.startswith(b'{"type":"', start):
        return
    end = raw.find(b"\n", start)
    try:
        record = json.loads(raw[start : end if end >= 0 else len(raw)])
    except ValueError:
        return
    if (
        isinstance(record, dict)
        and _text(record.get("type")) in _STREAM_EVENTS
        and "timestamp" in record
        and "id" not in record
    ):
        raise AbwInputError(
            _headless_refusal("stream-json", record.get("session_id")),
            file=path,
            line=raw.count(b"\n", 0, start) + 1,
            field="type",
        )


def _headless_refusal(output_format: str, session_id: Any) -> str:
    """Why ``gemini --output-format <output_format>`` output is refused, and the recording of its
    session to import (named ``session-<time>-<the session id's first 8 characters>``)."""
    known = isinstance(session_id, str) and _SESSION_ID.fullmatch(session_id)
    name = f"session-*-{session_id[:8]}" if known else "session-*"
    return (
        f"not a Gemini CLI chat recording: this is `gemini --output-format {output_format}` "
        "output (what the CLI printed); import the session's recording "
        f"~/.gemini/tmp/<project>/chats/{name}.json (.jsonl from 0.39) instead"
    )


def _records(raw: bytes, path: Path, options: ImportOptions) -> list[tuple[int, Any]] | None:
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
    if message.get("type") != "gemini" or _history_copy(message):
        return 0
    calls = message.get("toolCalls")
    return 1 + sum(isinstance(c, dict) for c in calls) if isinstance(calls, list) else 1


def _run_end(messages: list[Any]) -> tuple[str, str | None]:
    """The run's final status and answer, from the messages the conversation ends with: error
    after an ``error`` message or the max-session-turns notice, cancelled after ``Request
    cancelled.`` or a model message one of whose calls was cancelled (the CLI returns no
    cancelled call to the model: the user stopped the turn, and 0.6x records no notice when
    another call of it had finished), success after a model message calling no tool, else
    unknown; the answer is the last model text."""
    final_status, final_text = "unknown", None
    for index, message in enumerate(messages):
        kind = message.get("type")
        if (kind == "user" and _tool_results(message)) or _calls_holder(messages, index):
            continue  # what the turn's calls returned, after it ended: not a new turn
        if kind == "user":
            final_status = "unknown"
        elif kind == "error":
            final_status = "error"
        elif kind == "info" and message.get("content") == _CANCELLED:
            final_status = "cancelled"  # the user pressed Esc: the turn was cancelled
        elif kind == "info" and str(message.get("content")).startswith(_MAX_TURNS):
            final_status = "error"  # (as a Claude Code ``--max-turns`` stop)
        elif kind == "gemini":
            content, calls = message.get("content"), bool(message.get("toolCalls"))
            if _history_copy(message):
                content, calls = _parts_text(content), _parts_call(content)
            if isinstance(content, str) and content.strip():
                final_text = content
            final_status = "unknown" if calls else "success"
            if _any_cancelled(message):
                final_status = "cancelled"
    return final_status, final_text


def _history_copy(message: dict[str, Any]) -> bool:
    """Whether a ``gemini`` message is a model turn Gemini CLI copied into the recording when it
    set the chat's history (``setHistory``: ``/chat resume`` writes the saved turns again, under
    new ids): its ``Part`` list as content, no ``model``, ``tokens`` null. No model call (every
    answer the model gave is recorded with its model); the turn it copies stays the answer."""
    return (
        message.get("model") is None
        and "tokens" in message
        and message["tokens"] is None
        and isinstance(message.get("content"), list)
        and bool(message["content"])  # (an empty answer the model gave: no parts, no copy)
        and not message.get("toolCalls")
    )


def _parts_text(parts: list[Any]) -> str:
    """The answer text of a ``Part`` list (its thoughts left out)."""
    return "".join(
        p["text"]
        for p in parts
        if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
    )


def _parts_call(parts: list[Any]) -> bool:
    """Whether a ``Part`` list calls a tool."""
    return any(isinstance(p, dict) and "functionCall" in p for p in parts)


def _any_cancelled(message: dict[str, Any]) -> bool:
    """Whether one of a ``gemini`` message's recorded calls is ``cancelled``."""
    calls = message.get("toolCalls")
    return isinstance(calls, list) and any(
        isinstance(call, dict) and _STATUS.get(str(call.get("status"))) == "rejected"
        for call in calls
    )


def _subagent_call(call: dict[str, Any]) -> bool:
    """A call of a subagent by its own name (from 0.3x: ``generalist``, ``cli_help``,
    ``codebase_investigator``, a user's agents): its ``resultDisplay`` is the subagent's progress
    (``isSubagentProgress``), or the call names the run it started (``agentId``)."""
    display = as_dict(call.get("resultDisplay"))
    return display.get("isSubagentProgress") is True or _text(call.get("agentId")) is not None


def _subagent_outcome(call: dict[str, Any]) -> str:
    """The outcome of a subagent's ``success`` call from its progress: error when it ends in
    ``state: error``, or ``completed`` short of its goal (``terminateReason`` ``ERROR``,
    ``MAX_TURNS``, ``ERROR_NO_COMPLETE_TASK_CALL``; ``TIMEOUT`` a timeout), else ok."""
    display = as_dict(call.get("resultDisplay"))
    reason = display.get("terminateReason")
    if display.get("state") == "error":
        return "error"
    if isinstance(reason, str) and reason != "GOAL":
        return "timeout" if reason == "TIMEOUT" else "error"
    return "ok"


def _calls_holder(messages: list[Any], index: int) -> bool:
    """Whether ``messages[index]`` only holds tool calls, no model call: the ``gemini`` message
    Gemini CLI's ``recordToolCalls`` makes when the last message is not the model's (cancelled
    calls recorded after the ``Request cancelled.`` info message): no text, thoughts or tokens."""
    message = messages[index]
    before = messages[index - 1] if index else None
    return (
        isinstance(before, dict)
        and before.get("type") in _NOTICE_TYPES
        and bool(message.get("toolCalls"))
        and not message.get("content")
        and not message.get("thoughts")
        and "tokens" not in message
    )


def _tool_results(message: dict[str, Any]) -> bool:
    """Whether a ``user`` message only returns tool results (``functionResponse`` parts, which
    0.6x records as a message of its own), no prompt of the user's."""
    content = message.get("content")
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(p, dict) and set(p) == {"functionResponse"} for p in content)
    )


def _exit_code(result: Any) -> int | None:
    """The last ``Exit Code: N`` of a shell call's output (the ``functionResponse`` parts, or a
    plain string); ``None`` when there is none (``Exit Code: (none)``, a killed command)."""
    parts = result if isinstance(result, list) else [result]
    outputs = []
    for part in parts:
        if isinstance(part, str):
            outputs.append(part)
        response = as_dict(as_dict(as_dict(part).get("functionResponse")).get("response"))
        for key in ("output", "error"):
            if isinstance(response.get(key), str):
                outputs.append(response[key])
    codes = [m.group(1) for text in outputs for m in _EXIT_CODE.finditer(text)]
    return int(codes[-1]) if codes else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


#: A call id of 0.29 on ends ``_<epoch ms>_<n>``: ``n`` is the call's place in the model's answer.
_ID_ORDER = re.compile(r"_(\d{12,14})_(\d+)$")


def _call_order(calls: list[Any]) -> list[int]:
    """The place (from 1) of each of a message's calls in the order the model made them, by
    the ``_<ms>_<n>`` of their ids: Gemini CLI records calls as they finish, and after an Esc
    the cancelled ones come first (a parallel read that ran first was listed last). Recorded
    order when an id lacks that ending."""
    keys = []
    for position, call in enumerate(calls):
        call_id = call.get("id") if isinstance(call, dict) else None
        match = _ID_ORDER.search(call_id) if isinstance(call_id, str) else None
        if match is None:
            return list(range(1, len(calls) + 1))
        keys.append((int(match.group(1)), int(match.group(2)), position))
    ranks = [0] * len(calls)
    for rank, (_, _, position) in enumerate(sorted(keys), 1):
        ranks[position] = rank
    return ranks


def _id_time(call_id: Any) -> datetime | None:
    match = _ID_TIME.search(call_id) if isinstance(call_id, str) else None
    if not match:
        return None
    try:
        return datetime.fromtimestamp(int(match.group(1)) / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _cancelled_running(result: Any) -> bool:
    """Whether a ``cancelled`` call's result (its ``functionResponse`` parts) is the one Gemini
    CLI writes for a call cancelled while it ran (:data:`_CANCELLED_RUNNING`), its only part's
    ``response.error`` exactly that text."""
    parts = result if isinstance(result, list) else [result]
    errors = [
        part["functionResponse"]["response"].get("error")
        for part in parts
        if isinstance(part, dict)
        and isinstance(part.get("functionResponse"), dict)
        and isinstance(part["functionResponse"].get("response"), dict)
    ]
    return len(errors) == 1 and isinstance(errors[0], str) and errors[0] in _CANCELLED_RUNNING
