"""Read one Claude Code file (a session or a subagent transcript) into span drafts.

Spans are kept per *agent*: ``main`` for the session's own lines, the root ``uuid`` of each
inline sidechain (1.0.x layout), or ``file`` for every line of a subagent file. Linking agents to
the ``Task`` calls that spawned them, ordering and numbering happen in :mod:`.assemble`.
Nothing raw is kept: content is reduced to hashes as soon as it is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.hashing import content_hash
from abw.importers.base import ImportOptions
from abw.importers.claude.outcomes import (
    BACKGROUND_OUTCOMES,
    INTERRUPT_MARKER,
    LAUNCHED_STATUSES,
    MONITOR_TOOL,
    SHELL_TOOLS,
    STOP_TOOL,
    TASK_NOTIFICATION,
    canonical_tool,
    classify_result,
    mcp_parts,
    notified_task,
    reported_duration_ms,
    result_text,
    span_type,
)
from abw.importers.claude.persisted import output_hash
from abw.importers.claude.reader import PROMPT_LOG, JsonlReader, is_warmup_prompt
from abw.importers.common import extract_arguments, identifier, match_label
from abw.importers.spans import parse_time

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
_PATH_KEYS = ("file_path", "path", "notebook_path", "filePath")
#: User lines of slash commands and of bash mode (``!cmd``): the user's own, not a prompt.
_COMMAND_PREFIXES = (
    "<command-name>",
    "<command-message>",
    "<local-command-",
    "Caveat: ",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
)
_CAVEAT = "<local-command-caveat>"
_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)
MAIN = "main"
FILE = "file"
#: The ``attachment`` type Claude Code writes when a run hits ``--max-turns`` (2.1.3xx) and stops.
MAX_TURNS = "max_turns_reached"
#: The ``attachment`` type of a hook that answered ``continue: false``: mid-turn (PreToolUse,
#: PostToolUse...) it halts the run; after a ``Stop`` hook the answer was already given.
HOOK_HALT = "hook_stopped_continuation"
_AFTER_ANSWER_HOOKS = {"Stop", "SubagentStop"}
#: ``system`` subtypes that compact the agent's context: (span name, metadata key).
_COMPACTIONS = {
    "compact_boundary": ("compaction", "compactMetadata"),
    "microcompact_boundary": ("microcompaction", "microcompactMetadata"),
}


def ms_between(start: datetime | None, end: datetime | None) -> float | None:
    """Milliseconds from start to end, never negative (clock skew reads as 0)."""
    if start is None or end is None:
        return None
    return max(0.0, round((end - start).total_seconds() * 1000, 3))


@dataclass(eq=False, slots=True)
class Draft:
    """A span before its ordinal is known."""

    file: str
    line: int
    block: int
    agent: str
    type: str
    name: str
    outcome: str | None = "ok"
    input_hash: str | None = None
    output_hash: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    started: datetime | None = None
    duration_ms: float | None = None
    block_hashes: list[str] = field(default_factory=list)
    children: list[tuple[Any, str]] = field(default_factory=list)  # (FileParser, agent key)
    agent_id: str | None = None
    span_id: str = ""
    message_id: str | None = None  # a tool call's API message (``message.id``)


@dataclass
class AgentState:
    """What is known about one agent while its lines are read."""

    pending: dict[str, Draft] = field(default_factory=dict)  # tool_use_id -> open call
    last_event: str | None = None
    last_text_message: str | None = None
    final_text: str | None = None
    #: ``final_text`` before ``last_text_message`` began (restored if that reply is cut off)
    text_before: str | None = None
    first_user_text: str | None = None
    root_line: int | None = None
    #: ``system``/``api_error`` retry records not yet followed by the request's outcome:
    #: (line, attempt, max retries, HTTP status)
    retries: list[tuple[int, Any, Any, Any]] = field(default_factory=list)
    #: a ``model_refusal_fallback`` whose request has no llm span yet: its attributes
    fallback: dict[str, str] = field(default_factory=dict)
    #: calls a person refused since the last interrupt (2.1.3xx writes a running call the
    #: user stopped so too; the interrupt line's ``interruptedMessageId`` then names its message)
    rejected: list[Draft] = field(default_factory=list)


#: The model name Claude Code gives the assistant messages it writes itself.
SYNTHETIC = "<synthetic>"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _record_retries(llm: Draft, state: AgentState) -> None:
    """Put the API retries that preceded this request on its llm span: ``api_retries`` (how
    many retry records), ``api_retry_max`` (the retry budget), ``api_error_statuses`` (the
    HTTP statuses, in order). The request that finally answered (or failed) is one span; the
    attempts are attributes, so provider flakiness does not count as the agent's errors."""
    if not state.retries:
        return
    llm.attributes["api_retries"] = len(state.retries)
    budgets = [_int(m) for _, _, m, _ in state.retries if _int(m) is not None]
    if budgets:
        llm.attributes["api_retry_max"] = budgets[-1]
    statuses = [_int(c) for _, _, _, c in state.retries if _int(c) is not None]
    if statuses:
        llm.attributes["api_error_statuses"] = statuses
    state.retries.clear()


def fallback_attributes(refused_model: Any, reason: Any = None) -> dict[str, str]:
    """The attributes of a model call whose first model refused (its safeguards) and that
    another model answered: ``model_fallback_from`` (the model that refused) and
    ``model_fallback_reason`` (``refusal``), each kept only when it is a plain identifier."""
    found = {
        "model_fallback_from": identifier(refused_model),
        "model_fallback_reason": identifier(reason),
    }
    return {key: value for key, value in found.items() if value is not None}


def is_stream_json(record: dict[str, Any]) -> bool:
    """A record of ``claude -p --output-format stream-json`` output (what the CLI printed, not
    the session transcript it keeps): ``session_id`` in place of ``sessionId``, on the
    ``system``/``init`` record or on a message (which carries ``parent_tool_use_id``)."""
    return (
        "sessionId" not in record
        and "session_id" in record
        and (record.get("subtype") == "init" or "parent_tool_use_id" in record)
    )


def _launched(status: Any) -> bool:
    """Whether a tool result's ``status`` says it launched a background task."""
    return isinstance(status, str) and status in LAUNCHED_STATUSES


def _text_of(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return result_text(content)
    return None


class FileParser:
    """Spans and facts of one Claude Code JSONL file."""

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
        self.first_record_line: int | None = None
        self.sha256 = ""
        self._time_text: Any = None  # the last timestamp read, and what it read as
        self._time_value: datetime | None = None

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
            self._record(line, kind, record)
        self.sha256 = reader.sha256
        for agent, state in self.agents.items():  # retries with no outcome: cut off mid-retry
            if state.retries:
                draft = Draft(self.name, state.retries[0][0], 0, agent, "llm", "api_error")
                draft.outcome = "incomplete"
                draft.agent_id = self.agent_id if agent == FILE else None
                _record_retries(draft, state)
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
        if isinstance(session_id, str) and session_id != self.session_id:
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

    def _attachment(self, attachment: dict[str, Any], agent: str) -> None:
        """The attachments that say how the run went on: a queued prompt, ``--max-turns``
        reached, a hook's ``continue: false`` that halted the run mid-turn."""
        kind = attachment.get("type")
        if kind == "queued_command":
            self._queued_command(attachment)
        elif kind == MAX_TURNS:
            self._state(agent).last_event = "max_turns"  # the run stopped at --max-turns
        elif kind == HOOK_HALT and attachment.get("hookEvent") not in _AFTER_ANSWER_HOOKS:
            self._state(agent).last_event = "hook_halt"  # a hook stopped the run

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

    # ---------------------------------------------------------------- assistant
    def _assistant(self, line: int, record: dict[str, Any], agent: str) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            raise AbwInputError("expected an object", file=self.path, line=line, field="message")
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            raise AbwInputError(
                "expected a list of blocks", file=self.path, line=line, field="message.content"
            )
        state = self._state(agent)
        if message.get("model") == SYNTHETIC and record.get("isApiErrorMessage") is not True:
            # written by Claude Code itself ("No response requested.", ...): no model call,
            # no answer; its text is hashed away like any assistant text
            self.removed.add("assistant_text")
            return
        message_id = message.get("id")
        if not isinstance(message_id, str) or not message_id:
            message_id = record.get("uuid") if isinstance(record.get("uuid"), str) else str(line)
        llm = self.messages.get((agent, message_id))
        if llm is None:
            model = message.get("model")
            if model == SYNTHETIC:  # an API error Claude Code wrote: the request that failed
                model = "api_error"
            llm = Draft(
                self.name,
                line,
                0,
                agent,
                "llm",
                model if isinstance(model, str) and model else "unknown",
                started=self._time(record),
            )
            llm.agent_id = self.agent_id if agent == FILE else None
            self.messages[(agent, message_id)] = llm
            self.drafts.setdefault(agent, []).append(llm)
            _record_retries(llm, state)
            llm.attributes.update(state.fallback)
            state.fallback.clear()
        request_id = record.get("requestId")
        if isinstance(request_id, str) and request_id:
            self.requests.setdefault((agent, request_id), llm)
        usage = message.get("usage")
        if isinstance(usage, dict):
            for key in _USAGE_KEYS:
                value = usage.get(key)
                if isinstance(value, int) and not isinstance(value, bool):
                    llm.attributes[key] = max(value, llm.attributes.get(key, 0))
        if record.get("isApiErrorMessage") is True:
            llm.outcome = "error"
            state.last_event = "api_error"
        aborted = record.get("isAbortedMidStream") is True  # Esc while it streamed (2.1.3xx)
        if aborted:
            llm.outcome = "interrupted"
        texts: list[str] = []
        for index, block in enumerate(content):
            if not isinstance(block, dict) or not isinstance(block.get("type"), str):
                raise AbwInputError(
                    "expected a content block object with a type",
                    file=self.path,
                    line=line,
                    field=f"message.content[{index}]",
                )
            block_type = block["type"]
            if block_type == "tool_use":  # hashed by name and input, not by its random id
                input_hash = self._tool_use(line, index, block, record, agent, state)
                llm.block_hashes.append(content_hash(["tool_use", block["name"], input_hash]))
                continue
            llm.block_hashes.append(content_hash(block))
            if block_type == "text":
                self.removed.add("assistant_text")
                if isinstance(block.get("text"), str):
                    texts.append(block["text"])
            elif block_type in ("thinking", "redacted_thinking"):
                self.removed.add("thinking")
            elif block_type == "fallback":  # the model switched mid-request: {from, to}
                refused = block.get("from")
                refused = refused.get("model") if isinstance(refused, dict) else None
                llm.attributes.update(fallback_attributes(refused))
            else:
                self.removed.add("assistant_content")
        if aborted and state.last_text_message == message_id:
            state.final_text, state.last_text_message = state.text_before, None
        if texts and record.get("isApiErrorMessage") is not True and not aborted:
            # neither an API error nor a reply the user cut off mid-stream is an answer
            if state.last_text_message == message_id and state.final_text is not None:
                state.final_text = "\n".join([state.final_text, *texts])
            else:
                state.text_before = state.final_text
                state.final_text = "\n".join(texts)
            state.last_text_message = message_id
            state.last_event = "text"

    def _tool_use(
        self,
        line: int,
        index: int,
        block: dict[str, Any],
        record: dict[str, Any],
        agent: str,
        state: AgentState,
    ) -> str:
        """Open a tool span for a ``tool_use`` block; returns the hash of its input."""
        tool_id, tool = block.get("id"), block.get("name")
        where = f"message.content[{index}]"
        if not isinstance(tool_id, str) or not tool_id:
            raise AbwInputError("tool_use without an id", file=self.path, line=line, field=where)
        if not isinstance(tool, str) or not tool:
            raise AbwInputError("tool_use without a name", file=self.path, line=line, field=where)
        state.last_event = "tool_use"
        tool_input = block.get("input")
        input_hash = content_hash(tool_input)
        self.removed.add("tool_input")
        if tool_id in self.tools:  # the same call logged again (resumed or forked session)
            return input_hash
        draft = Draft(
            self.name,
            line,
            index,
            agent,
            span_type(tool),
            canonical_tool(tool),
            outcome="incomplete",
            input_hash=input_hash,
            attributes={"tool": tool},
            started=self._time(record),
        )
        if isinstance(tool_input, dict):
            if any(key in tool_input for key in _PATH_KEYS):
                self.removed.add("file_path")
            command = tool_input.get("command")
            if tool in SHELL_TOOLS and isinstance(command, str):
                self.removed.add("shell_command")
                draft.attributes["command_hash"] = content_hash(command)
                label = match_label(self.options.labels, command)
                if label is not None:
                    draft.name, draft.type = label.name, label.span_type
                    draft.attributes["label"] = label.name
            if draft.type == "handoff" and "prompt" in tool_input:
                self.removed.add("subagent_prompt")
                self.task_prompts.append((content_hash(_text_of(tool_input["prompt"])), draft))
        arguments = extract_arguments(
            self.options.argument_fields, draft.name, tool_input, file=self.path, line=line
        )
        if arguments is not None:  # only fields named with --argument-fields, after labels
            draft.attributes["arguments"] = arguments
        draft.agent_id = self.agent_id if agent == FILE else None
        message_id = record["message"].get("id")
        draft.message_id = message_id if isinstance(message_id, str) else None
        mcp = mcp_parts(tool)
        if mcp is not None:
            draft.attributes["mcp_server"], draft.attributes["mcp_tool"] = mcp
        self.tools[tool_id] = draft
        state.pending[tool_id] = draft
        self.drafts.setdefault(agent, []).append(draft)
        return input_hash

    # ---------------------------------------------------------------- user
    def _user(self, line: int, record: dict[str, Any], agent: str) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            raise AbwInputError("expected an object", file=self.path, line=line, field="message")
        content = message.get("content")
        state = self._state(agent)
        if state.first_user_text is None and state.root_line is None:
            state.root_line = line
            state.first_user_text = _text_of(content) or ""
            if agent not in (MAIN, FILE):
                self._new_inline_root(agent, state.first_user_text)
        if "toolUseResult" in record:
            self.removed.add("tool_output")
        if isinstance(content, str):
            self._user_text(content, record, state)
            return
        if not isinstance(content, list):
            raise AbwInputError(
                "expected a string or a list of blocks",
                file=self.path,
                line=line,
                field="message.content",
            )
        for index, block in enumerate(content):
            if not isinstance(block, dict):
                raise AbwInputError(
                    "expected a content block object",
                    file=self.path,
                    line=line,
                    field=f"message.content[{index}]",
                )
            block_type = block.get("type")
            if block_type == "tool_result":
                self._tool_result(line, index, block, record)
            elif block_type == "text" and isinstance(block.get("text"), str):
                self._user_text(block["text"], record, state)
            elif block_type == "image":
                self.removed.add("image")
            else:
                self.removed.add("user_content")

    def _user_text(self, text: str, record: dict[str, Any], state: AgentState) -> None:
        if text.lstrip().startswith(TASK_NOTIFICATION):
            notified = notified_task(text)
            if notified is not None:
                self._background_done(*notified)
        if text.startswith(INTERRUPT_MARKER):
            self._interrupt(state, record)
            return
        if record.get("isCompactSummary") is True:
            self.removed.add("compaction_summary")
            return
        self.removed.add("user_prompt")
        if record.get("isMeta") is True or text.lstrip().startswith(_COMMAND_PREFIXES):
            if text.lstrip().startswith(_CAVEAT) and isinstance(record.get("uuid"), str):
                self.caveats.add(record["uuid"])
            return
        parent = record.get("parentUuid")
        if isinstance(parent, str) and parent in self.caveats:
            return  # a local command's own output after its caveat ("Unknown skill: ...")
        origin = record.get("origin")
        if text.lstrip().startswith(TASK_NOTIFICATION) or (
            isinstance(origin, dict) and origin.get("kind") == "task-notification"
        ):
            # Claude Code's, not the user's: a background task's end handed to the model, which
            # answers it in a new turn; with no reply the run ends undecided, as after a tool
            # result with no reply
            state.last_event = "task_notification"
            return
        state.last_event = "prompt"

    def _queued_command(self, attachment: dict[str, Any]) -> None:
        """An ``attachment`` of type ``queued_command``: a message queued while the model was
        busy and handed to it within the turn (2.1.1xx+). When it is a background task's
        ``<task-notification>`` (``commandMode: task-notification``), the task ended: read as
        on a user line (only the head: task id and status). It is no prompt and no event of the
        run: the turn it joins goes on."""
        text = _text_of(attachment.get("prompt"))
        if text is not None and text.lstrip().startswith(TASK_NOTIFICATION):
            notified = notified_task(text)
            if notified is not None:
                self._background_done(*notified)

    def _interrupt(self, state: AgentState, record: dict[str, Any]) -> None:
        """Calls still open are interrupted; so are those answered ``User rejected tool use``
        of the message the line's ``interruptedMessageId`` names (2.1.3xx: the user pressed Esc
        while they ran; a refusal at the prompt names no message)."""
        moment = self._time(record)
        for draft in state.pending.values():
            draft.outcome = "interrupted"
            draft.duration_ms = ms_between(draft.started, moment)
            draft.attributes["duration_source"] = "timestamps"
        state.pending.clear()
        stopped = record.get("interruptedMessageId")
        for draft in state.rejected:
            if isinstance(stopped, str) and draft.message_id == stopped:
                draft.outcome = "interrupted"
        state.rejected.clear()
        state.last_event = "interrupt"

    def _tool_result(self, line: int, index: int, block: dict[str, Any], record: dict) -> None:
        tool_id = block.get("tool_use_id")
        if not isinstance(tool_id, str):
            raise AbwInputError(
                "tool_result without a tool_use_id",
                file=self.path,
                line=line,
                field=f"message.content[{index}].tool_use_id",
            )
        self.removed.add("tool_output")
        draft = self.tools.get(tool_id)
        state = self.agents.get(draft.agent) if draft is not None else None
        if draft is None or state is None or tool_id not in state.pending:
            return  # a result for an unknown call, or one logged twice: nothing to add
        del state.pending[tool_id]
        state.last_event = "tool_result"
        content = block.get("content")
        tool_use_result = record.get("toolUseResult")
        draft.outcome = classify_result(
            block.get("is_error"),
            content,
            tool_use_result,
            record.get("toolDenialKind"),
            record.get("permissionDecision"),
        )
        if draft.outcome == "rejected":
            state.rejected.append(draft)
        if "content" in block:
            draft.output_hash, stored = output_hash(content, self.path)
            if stored is not None:
                draft.attributes["output_stored"] = stored
        else:
            draft.output_hash = None
        reported = reported_duration_ms(tool_use_result)
        if reported is not None:
            draft.duration_ms = reported
            draft.attributes["duration_source"] = "reported"
        else:
            draft.duration_ms = ms_between(draft.started, self._time(record))
            if draft.duration_ms is not None:
                draft.attributes["duration_source"] = "timestamps"
        if draft.type == "handoff" and isinstance(tool_use_result, dict):
            agent_id = tool_use_result.get("agentId")
            if isinstance(agent_id, str) and agent_id:
                self.agent_links.setdefault(agent_id, tool_id)
        if isinstance(tool_use_result, dict) and draft.outcome == "ok":
            self._background(draft, tool_use_result)

    def _background(self, draft: Draft, result: dict[str, Any]) -> None:
        """Note a call that launched a background task (``backgroundTaskId`` of a shell call, an
        ``Agent`` launched ``isAsync``, the ``taskId`` of a ``Workflow`` ``async_launched`` or of
        a ``Monitor``), or
        read the final ``task.status`` a poll (``TaskOutput``) reports for one, or the
        ``task_id`` a ``TaskStop`` stopped (killed)."""
        task_id = result.get("backgroundTaskId")
        if draft.type == "handoff" and result.get("isAsync") is True:
            task_id = result.get("agentId")
        elif task_id is None and _launched(result.get("status")):
            task_id = result.get("taskId")  # a Workflow run, a remote agent
        elif task_id is None and draft.attributes.get("tool") == MONITOR_TOOL:
            task_id = result.get("taskId")
        if isinstance(task_id, str) and task_id:
            draft.attributes["background"] = True
            self.background[task_id] = draft
            return
        task = result.get("task")
        if isinstance(task, dict) and isinstance(task.get("task_id"), str):
            self._background_done(task["task_id"], task.get("status"))
        elif draft.attributes.get("tool") == STOP_TOOL and isinstance(result.get("task_id"), str):
            self._background_done(result["task_id"], "killed")

    def _background_done(self, task_id: str, status: Any) -> None:
        """A background task ended: the call that launched it takes its final outcome
        (:data:`BACKGROUND_OUTCOMES`; a status that is not final changes nothing)."""
        draft = self.background.get(task_id)
        if draft is None or not isinstance(status, str) or status not in BACKGROUND_OUTCOMES:
            return
        draft.outcome = BACKGROUND_OUTCOMES[status]
        draft.attributes["background_status"] = status

    def _new_inline_root(self, agent: str, text: str) -> None:
        """Link an inline sidechain to the first unclaimed Task call with the same prompt."""
        if is_warmup_prompt(text):
            self.excluded_inline.add(agent)
            return
        wanted = content_hash(text)
        for position, (prompt_hash, draft) in enumerate(self.task_prompts):
            if prompt_hash == wanted:
                draft.children.append((self, agent))
                del self.task_prompts[position]
                return
        self.unlinked_inline.append(agent)

    # ---------------------------------------------------------------- system, progress
    def _system(self, line: int, record: dict[str, Any], agent: str) -> None:
        subtype = record.get("subtype") if isinstance(record.get("subtype"), str) else None
        if subtype in _COMPACTIONS:
            self._compaction(line, record, agent, subtype)
            return
        if subtype == "model_refusal_fallback":
            self._refusal_fallback(record, agent)
        if subtype == "api_error":
            state = self._state(agent)
            state.last_event = "api_retry"  # a retry announced: not yet the request's outcome
            error = record.get("error") if isinstance(record.get("error"), dict) else {}
            state.retries.append(
                (line, record.get("retryAttempt"), record.get("maxRetries"), error.get("status"))
            )
        if any(key in record for key in ("content", "hookInfos", "hookErrors", "error")):
            self.removed.add("system_message")

    def _refusal_fallback(self, record: dict[str, Any], agent: str) -> None:
        """``system``/``model_refusal_fallback`` (2.1.2xx): the model's safeguards refused a
        request and another model answered it. Like an API retry, it is no span of its own:
        the llm span of that request (its ``requestId``; else the agent's next one) carries
        :func:`fallback_attributes`."""
        found = fallback_attributes(record.get("originalModel"), record.get("trigger"))
        request_id = record.get("requestId")
        llm = self.requests.get((agent, request_id)) if isinstance(request_id, str) else None
        if llm is not None:
            llm.attributes.update(found)
        else:
            self._state(agent).fallback.update(found)

    def _compaction(self, line: int, record: dict[str, Any], agent: str, subtype: str) -> None:
        """A ``memory`` span for a context compaction: ``compact_boundary`` (the conversation
        summarised) is ``compaction``; ``microcompact_boundary`` (old tool results cleared from
        the context, no summary) is ``microcompaction``, with ``tokens_saved`` and
        ``cleared_tool_results`` (how many; the ids are not kept)."""
        name, key = _COMPACTIONS[subtype]
        metadata = record.get(key)
        metadata = metadata if isinstance(metadata, dict) else {}
        trigger = metadata.get("trigger")
        attributes: dict[str, Any] = {
            "trigger": trigger if trigger in ("auto", "manual") else "other"
        }
        for source, target in (("preTokens", "pre_tokens"), ("tokensSaved", "tokens_saved")):
            if _int(metadata.get(source)) is not None:
                attributes[target] = metadata[source]
        cleared = metadata.get("compactedToolIds")
        if isinstance(cleared, list):
            attributes["cleared_tool_results"] = len(cleared)
        draft = Draft(
            self.name,
            line,
            0,
            agent,
            "memory",
            name,
            attributes=attributes,
            started=self._time(record),
        )
        self.drafts.setdefault(agent, []).append(draft)

    def _progress(self, record: dict[str, Any]) -> None:
        data = record.get("data")
        if not isinstance(data, dict):
            return
        self.removed.add("progress_output")
        if data.get("type") == "agent_progress":
            agent_id, tool_id = data.get("agentId"), record.get("parentToolUseID")
            if isinstance(agent_id, str) and isinstance(tool_id, str) and agent_id and tool_id:
                self.agent_links.setdefault(agent_id, tool_id)
