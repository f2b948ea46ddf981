"""Read one Claude Code file (a session or a subagent transcript) into span drafts.

:class:`FileParser` reads the file's records in order and hands each to its reader
(:mod:`.assistant`, :mod:`.user`, :mod:`.system`); what they keep is :mod:`.filestate`'s.
Spans are kept per *agent* (:mod:`.drafts`). Linking agents to the ``Task`` calls that
spawned them, ordering and numbering happen in :mod:`.assemble`.
Nothing raw is kept: content is reduced to hashes as soon as it is read.
"""

from __future__ import annotations

import re
from typing import Any

from abw.errors import AbwInputError
from abw.importers.claude.assistant import SYNTHETIC, AssistantLines
from abw.importers.claude.drafts import FILE, MAIN, AgentState, Draft, ms_between
from abw.importers.claude.reader import PROMPT_LOG, JsonlReader
from abw.importers.claude.requests import fallback_attributes, record_retries
from abw.importers.claude.system import HOOK_HALT, MAX_TURNS, SystemLines
from abw.importers.claude.user import UserLines

__all__ = [
    "FILE",
    "HOOK_HALT",
    "KNOWN_TYPES",
    "MAIN",
    "MAX_TURNS",
    "SYNTHETIC",
    "AgentState",
    "Draft",
    "FileParser",
    "fallback_attributes",
    "is_stream_json",
    "ms_between",
]

#: Claude Code's title records, which it writes into the file of whatever session is open,
#: often for another session: their ``sessionId`` names no session of this file.
_TITLE_RECORDS = frozenset({"summary", "custom-title", "ai-title"})

#: Claude Code's ``version`` (``2.1.39``, ``1.0.98-beta.1``) is kept raw as ``run.agent_version``,
#: so it is kept only when it is a version number and nothing else.
_VERSION_RE = re.compile(r"[0-9]{1,6}(\.[0-9]{1,6}){1,3}([-+][0-9A-Za-z.-]{1,40})?")

#: Record types Claude Code writes; anything else is skipped (newer versions add types).
KNOWN_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "progress",
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "last-prompt",
        "custom-title",
        "ai-title",
        "attachment",
    }
)


def is_stream_json(record: dict[str, Any]) -> bool:
    """A record of ``claude -p --output-format stream-json`` output (what the CLI printed, not
    the session transcript it keeps): ``session_id`` in place of ``sessionId``, on the
    ``system``/``init`` record or on a message (which carries ``parent_tool_use_id``)."""
    return (
        "sessionId" not in record
        and "session_id" in record
        and (record.get("subtype") == "init" or "parent_tool_use_id" in record)
    )


class FileParser(AssistantLines, UserLines, SystemLines):
    """Spans and facts of one Claude Code JSONL file."""

    # ---------------------------------------------------------------- reading
    def parse(self) -> FileParser:
        reader = JsonlReader(self.path, self.options.warn)
        for line, record in reader:
            if self.first_record_line is None:
                self.first_record_line = line
            kind = record.get("type")
            if not isinstance(kind, str) or kind not in KNOWN_TYPES:
                continue
            self.known_records += 1
            if self.first_time is None:
                self.first_time = self._time(record)
            self._record(line, kind, record)
        self.sha256 = reader.sha256
        self.cut_off = reader.cut_off
        for agent, state in self.agents.items():  # retries with no outcome: cut off mid-retry
            if state.retries:
                draft = Draft(self.name, state.retries[0][0], 0, agent, "llm", "api_error")
                draft.outcome = "incomplete"
                draft.agent_id = self.agent_id if agent == FILE else None
                record_retries(draft, state)
                self.drafts.setdefault(agent, []).append(draft)
        if reader.records == 0:
            raise AbwInputError("empty file: not a Claude Code transcript", file=self.path)
        if self.known_records == 0 and self.path.name == PROMPT_LOG:
            raise AbwInputError(
                "this is Claude Code's prompt log (~/.claude/history.jsonl: the prompts typed, "
                "no model or tool steps); import the session transcripts under "
                "~/.claude/projects/ instead",
                file=self.path,
            )
        if self.known_records == 0:
            raise AbwInputError(
                "not a Claude Code transcript: no user, assistant or other Claude Code record",
                file=self.path,
                line=self.first_record_line,
                field="type",
            )
        return self

    def _record(self, line: int, kind: str, record: dict[str, Any]) -> None:
        session_id = record.get("sessionId")
        if session_id is None and is_stream_json(record):
            # its subagents' messages are inline and its outcome is in a `result` record:
            # read as a transcript, it would give a wrong trace
            raise AbwInputError(
                "not a Claude Code session transcript: this is the output of "
                "`claude -p --output-format stream-json`; import the session's transcript "
                "(~/.claude/projects/<project>/<session id>.jsonl) instead",
                file=self.path,
                line=line,
                field="session_id",
            )
        if (
            isinstance(session_id, str)
            and session_id != self.session_id
            and kind not in _TITLE_RECORDS  # (a title may name another session: docs/traces.md)
        ):
            self.session_id = session_id  # the last one wins: a resumed session copies old lines
            self.session_ids[session_id] = None
        version = record.get("version")
        if (
            isinstance(version, str)
            and version != self.agent_version  # the same text is matched once
            and _VERSION_RE.fullmatch(version)  # kept raw: only a version
        ):
            self.agent_version = version
        if self.agent_id is None and isinstance(record.get("agentId"), str):
            self.agent_id = record["agentId"]
        if record.get("cwd"):
            self.removed.add("cwd")
        if record.get("gitBranch"):
            self.removed.add("git_branch")
        if kind == "assistant":
            self._assistant(line, record, self._agent_key(record))
        elif kind == "user":
            self._user(line, record, self._agent_key(record))
        elif kind == "system":
            self._system(line, record, self._agent_key(record))
        elif kind == "progress":
            self._agent_key(record)  # keeps inline sidechain chains unbroken
            self._progress(record)
        elif kind == "summary" or kind.endswith("-title"):
            self.removed.add("session_summary")
        elif kind == "file-history-snapshot":
            self.removed.add("file_history")
        elif kind == "attachment":  # context Claude Code attached (hook output, goal status...)
            agent = self._agent_key(record)  # keeps inline sidechain chains unbroken
            attachment = record.get("attachment")
            if attachment:
                self.removed.add("attachment")
            if isinstance(attachment, dict):
                self._attachment(attachment, agent)
        elif kind in ("queue-operation", "last-prompt") and (
            "content" in record or "lastPrompt" in record
        ):
            self.removed.add("user_prompt")
            if kind == "queue-operation" and isinstance(record.get("content"), str):
                self._queued_notification(record["content"])
                self.prompt_queued = True
