"""What reading one Claude Code file keeps, and the agent, time and state a record reads under.

The line readers (:mod:`.assistant`, :mod:`.user`, :mod:`.system`, :mod:`.background`) extend
:class:`FileState`; :class:`.parser.FileParser` combines them.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from abw.importers.base import ImportOptions
from abw.importers.claude.drafts import FILE, MAIN, AgentState, Draft
from abw.importers.spans import parse_time


class FileState:
    """The spans and facts of one Claude Code JSONL file, as its lines are read."""

    def __init__(self, path: Path, options: ImportOptions, *, sidechain_file: bool = False):
        self.path = path
        self.name = path.name
        self.options = options
        self.sidechain_file = sidechain_file
        self.drafts: dict[str, list[Draft]] = {}
        self.agents: dict[str, AgentState] = {}
        self.tools: dict[str, Draft] = {}
        self.messages: dict[tuple[str, str], Draft] = {}
        self.requests: dict[tuple[str, str], Draft] = {}  # (agent, API requestId) -> llm span
        self.inline_root: dict[str, str] = {}  # sidechain line uuid -> agent key
        self.task_prompts: list[tuple[str, Draft]] = []  # unclaimed Task calls (inline linking)
        self.agent_links: dict[str, str] = {}  # subagent agentId -> Task tool_use_id
        self.background: dict[str, Draft] = {}  # background task id -> the call that launched it
        self.excluded_inline: set[str] = set()
        self.unlinked_inline: list[str] = []
        self.removed: set[str] = set()
        self.caveats: set[str] = set()  # uuids of local-command caveat lines
        self.session_id: str | None = None
        self.session_ids: dict[str, None] = {}  # every session id seen, in order
        self.agent_id: str | None = None
        self.agent_version: str | None = None  # Claude Code's "version"; the last one wins
        self.known_records = 0
        self.prompt_queued = False  # a queue-operation held a message (a prompt a hook may block)
        self.first_record_line: int | None = None
        self.cut_off = False  # its last line was cut off mid-write (JsonlReader.cut_off)
        #: the first readable ``timestamp`` of a known record: the session's start, the run's
        #: start time when no span has one (a prompt a hook blocked, a session cut at once)
        self.first_time: datetime | None = None
        self.sha256 = ""
        self._time_text: Any = None  # the last timestamp read, and what it read as
        self._time_value: datetime | None = None

    def holds_no_run(self) -> bool:
        """Whether the session never asked its agent anything: no step, and no prompt (only
        Claude Code's bookkeeping — titles, often of other sessions, file snapshots —, slash
        commands, shell-mode lines, attachments). A blocked or unanswered prompt is a run."""
        state = self.agents.get(MAIN)
        asked = self.prompt_queued or (state is not None and state.last_event is not None)
        return not asked and not any(self.drafts.values())

    def _agent_key(self, record: dict[str, Any]) -> str:
        if self.sidechain_file:
            return FILE
        if record.get("isSidechain") is not True:
            return MAIN
        uuid = record.get("uuid")
        parent = record.get("parentUuid")
        key = self.inline_root.get(parent) if isinstance(parent, str) else None
        if key is None:
            key = f"sidechain:{uuid if isinstance(uuid, str) else len(self.agents)}"
            self.agents.setdefault(key, AgentState())
        if isinstance(uuid, str):
            self.inline_root[uuid] = key
        return key

    def _time(self, record: dict[str, Any]) -> datetime | None:
        """The record's ``timestamp`` read by :func:`parse_time`, once for the lines in a row
        that share it (a message's blocks, a call and its result)."""
        text = record.get("timestamp")
        if type(text) is not str or text != self._time_text:
            self._time_text, self._time_value = text, parse_time(text)
        return self._time_value

    def _state(self, agent: str) -> AgentState:
        state = self.agents.get(agent)
        if state is None:
            state = self.agents[agent] = AgentState()
        return state
