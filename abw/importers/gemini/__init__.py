"""Gemini CLI chat recordings (``~/.gemini/tmp/<project>/chats/session-*.json`` / ``.jsonl``).

Before 0.39 a session is one JSON document (``{sessionId, projectHash, ..., messages}``); from
0.39 on it is JSON Lines, records appended as the session goes (:func:`.jsonl.replayed`): a metadata
line ``{sessionId, projectHash, ...}``, message lines (a message written again under its ``id``
replaces the earlier copy, in place), ``{"$set": {...}}`` metadata updates (a ``messages`` list
in one is a checkpoint: the history as the chat holds it now, copies of recorded messages under
their ids, after a compression, an Esc or a ``/rewind``) and ``{"$rewindTo": id}`` (the
conversation cut back: Gemini CLI's loader drops that message and every later one). A behavior
gate sees every step the recording shows the agent took: a rewound message, or one a checkpoint
leaves out, ran and stays, in recording order (one warning per file); a checkpoint's copy of a
recorded message counts once (the recorded one), and a message only a checkpoint lists (a
compression's summary and its ``Got it.`` reply) is the CLI's, no step; so is a model turn the CLI
wrote again when it set the history (``/chat resume``, ``/restore``:
:func:`.messages.history_copy`).
The run's final status and output are those of the conversation at its end, replayed as
``loadConversationRecord`` does, except that what a compression summarized stays in it: it does
not undo the answer. A subagent's own recording (``kind: subagent``, under
``chats/<parent session id>/``) is not a session: it is skipped with a warning.

Each ``gemini`` message is an llm span (named by its model), followed by its ``toolCalls`` in
the order the model made them (:func:`.ids.call_order`): status ``success``/``error``/``cancelled``
-> ok/error/rejected, a ``cancelled`` call that ran and was cut short (0.5x on: its error is
``[Operation Cancelled] User cancelled tool execution.`` or ``… Operation cancelled.``, no
``Reason:``; a subagent's call holding its progress, which only a started subagent reports)
-> interrupted.
``delegate_to_agent`` and ``invoke_agent`` (0.6x) are a handoff to ``args.agent_name`` (the
subagent's own steps are not in the file); so is a subagent called by its own name (0.3x-0.5x:
``resultDisplay`` is its progress, ``isSubagentProgress``, or the call holds ``agentId``), an
error when that progress ends in ``state: error`` or short of its goal (``terminateReason``
not ``GOAL``: a failed subagent's call is recorded ``success``). A ``gemini`` message with no
text, thoughts or tokens after a notice only holds calls (:func:`.messages.calls_holder`): no
llm span, its calls the previous model message's. A call's start is
the epoch-ms Gemini CLI writes into the id it makes (:data:`.ids.ID_TIME`), its end the call's
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

The package, lowest module first: ``messages`` (what a recorded message is), ``outcomes`` (what
a call's status and result say), ``ids`` (a call's time, order and model turn from its id),
``subagents`` (a call of a subagent, and what a subagent of 0.1x-0.2x recorded under the
session's id: into its file, or a file of its own beside it), ``removed`` (the raw fields left
out), ``refused`` (what is no recording), ``jsonl`` (the JSON Lines form and its replay),
``ending`` (the run's final status and answer), ``calls`` (a message's calls into spans) and
``drafts`` (messages into spans); this module holds the importer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from abw.importers.base import Importer, ImportOptions
from abw.importers.gemini.calls import MEMORY_TOOLS, RETRIEVER_TOOLS, SHELL_TOOLS
from abw.importers.gemini.drafts import message_drafts
from abw.importers.gemini.ending import run_end
from abw.importers.gemini.jsonl import recording_records, replayed
from abw.importers.gemini.refused import (
    own_file,
    refuse_document,
    refuse_malformed_messages,
    refuse_stream_json,
)
from abw.importers.gemini.removed import REMOVED_FIELDS
from abw.importers.gemini.subagents import (
    session_messages,
    subagent_messages,
    subagent_recording,
)
from abw.importers.rawio import cut_off, held_fields, load_json, read_raw, scalar_text
from abw.importers.spans import finish, make_trace, parse_time
from abw.jsonlocate import value_lines

if TYPE_CHECKING:
    from abw.models.trace import Trace

__all__ = [
    "MEMORY_TOOLS",
    "REMOVED_FIELDS",
    "RETRIEVER_TOOLS",
    "SHELL_TOOLS",
    "GeminiImporter",
    "replayed",
]


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
    #: ``~/.gemini`` (Storage in its config/storage.ts): settings, credentials and ids beside
    #: ``tmp/<project hash>/chats``; also ``extensions/``, ``commands/`` and ``history/``, the
    #: shadow git repositories of its checkpoints (copies of the project's files).
    home_files: ClassVar[tuple[str, ...]] = (
        "settings.json",
        "installation_id",
        "user_id",
        "google_accounts.json",
        "oauth_creds.json",
        "mcp-oauth-tokens.json",
    )
    home_sessions: ClassVar[tuple[str, ...]] = ("tmp",)

    def discover(self, folder: Path) -> list[Path]:
        """Session files; Gemini CLI's own files beside them (its ``logs.json`` prompt log, saved
        chats, checkpoints) are no unit of import, nor is a ``.json`` session resumed into the
        ``.jsonl`` beside it (:func:`_migrated_to`): that file holds its run and more."""
        found = [p for p in super().discover(folder) if not own_file(p)]
        kept = set(found)
        return [p for p in found if _migrated_to(p) not in kept]

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        successor = _migrated_to(path)
        if successor is not None and successor.is_file():
            options.warn(
                f"{path.name}: Gemini CLI resumed this session into {successor.name} (the same "
                "run, with every message of this file and what came after); import that file"
            )
        raw = read_raw(path)
        refuse_stream_json(raw, path)
        records = recording_records(raw, path, options) if path.suffix == ".jsonl" else None
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
            if subagent_recording(document, path):
                options.warn(
                    f"{path.name}: a subagent's own recording (its task recorded while the "
                    "session's call of it ran), not a session: skipped (its session holds the call)"
                )
                return []
        refuse_document(document, path)
        messages = document["messages"]
        refuse_malformed_messages(messages, path, line_of)
        if not _conversed(messages, made):
            return options.no_run(
                path,
                "no conversation (no prompt, no model message): a session opened and left "
                "before any prompt",
            )
        owned = subagent_messages(messages) if records is None else set()
        drafts = message_drafts(messages, made, owned, options, path, line_of)
        if ended is None:
            ended = list(range(len(messages)))
        final_status, final_text = run_end(session_messages(messages, ended, owned))
        return [
            make_trace(
                platform=self.platform,
                export_format=self.export_format if records is None else "gemini-chat-jsonl",
                raw=raw,
                trace_id=scalar_text(document.get("sessionId"), path.stem),
                spans=finish(drafts, path),
                options=options,
                final_status=final_status,
                final_output=final_text,
                final_text=final_text,
                removed_fields=held_fields(document, REMOVED_FIELDS),
                recording_start=parse_time(document.get("startTime")),
                cut_off=records is not None and cut_off(raw),
            )
        ]


def _migrated_to(path: Path) -> Path | None:
    """The ``.jsonl`` a ``.json`` session (before 0.39) is resumed into: Gemini CLI 0.39 on
    copies the old session's metadata and messages into ``<name>.jsonl`` and goes on there,
    leaving the ``.json`` as it was (``ChatRecordingService.initialize``)."""
    return path.with_name(path.name + "l") if path.suffix == ".json" else None


def _conversed(messages: list[Any], made: set[int]) -> bool:
    """Whether a session holds a prompt or a model message of its own (not one Gemini CLI made
    for its history): Gemini CLI records a session that was opened and left (or only ran
    commands such as ``/clear``) as its header, perhaps with ``info`` messages."""
    return any(
        isinstance(message, dict) and message.get("type") in ("user", "gemini") and i not in made
        for i, message in enumerate(messages)
    )
