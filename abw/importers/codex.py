"""OpenAI Codex CLI rollouts (``~/.codex/sessions/**/rollout-*.jsonl``), every version seen.

Spans come from the model-visible ``response_item`` records only: consecutive model output
(reasoning, assistant text, tool calls) between two inputs is one ``llm`` span; each tool call is
a ``tool`` span paired with its output by ``call_id``; a web search, and a ``tool_search_call``
(the model looking up deferred tools, answered by a ``tool_search_output``), is a ``retriever``
span.
``event_msg`` records only refine statuses and durations (``exec_command_end``,
``patch_apply_end``, ``mcp_tool_call_end``) and mark interrupted turns (``turn_aborted``).

One logical command: an ``exec_command`` whose output says ``Process running with session ID N``
keeps running across the ``write_stdin`` calls that poll session N; they fold into its span
(``attributes.polls``) and its exit code is the one the last poll or ``exec_command_end`` reports.
A failed poll (stdin closed, or the process already exited: ``Unknown process id N``) is counted
in ``attributes.poll_errors``; it is neither a call of its own nor the command's outcome.

A ``response_item`` type abw does not know (a newer Codex's tool item) is skipped with a warning
naming it; only the types :data:`_HARMLESS_ITEMS` lists are skipped silently.

Sub-agents (``spawn_agent``, multi-agent v1 and v2): each child thread writes a rollout of its
own beside its parent's, its first ``session_meta`` naming where it came from
(``source: {"subagent": {"thread_spawn": {"parent_thread_id", ...}}}``). A child is no run of
its own: its spans are folded into its parent's trace right after the ``spawn_agent`` call that
started it (linked by the call's output: ``agent_id`` in v1, ``task_name`` = the child's
``agent_path`` in v2), as Claude Code's subagents are; the parent's history a forked child
starts with (``fork_context`` / ``fork_turns``) is context, not its work, and is left out. See
:meth:`CodexImporter.discover` and :func:`_own_lines`.

``codex exec --json`` output (what the CLI printed: ``thread.started`` / ``item.completed``
events in newer versions, 0.46 among them; ``{"id", "msg"}`` event envelopes before) is refused,
naming the rollout to import instead: it has no timestamps and no model, names every command
``command_execution`` whichever tool ran it and leaves out the calls it has no item for, so read
as a run it would not compare with a rollout of the same behavior.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from abw.errors import AbwInputError
from abw.hashing import sha256_hex
from abw.importers.base import Importer, ImportOptions
from abw.importers.common import extract_arguments
from abw.importers.rawio import (
    as_dict,
    decode_json_string,
    held_fields,
    jsonl_records,
    load_json,
    read_raw,
)
from abw.importers.spans import (
    SHELL_TOOLS,
    Draft,
    exit_outcome,
    finish,
    make_trace,
    ms_between,
    parse_time,
)
from abw.limits import MAX_LINE_BYTES

if TYPE_CHECKING:
    from abw.models.trace import Trace

_RUNNING = re.compile(r"Process running with session ID (\d+)")
_EXITED = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")
_WALL = re.compile(r"Wall time:\s*([0-9.]+)\s*seconds")
_SANDBOX_EXIT = re.compile(r"exit code:\s*(-?\d+)")
_TIMED_OUT = re.compile(r"\btimed out\b", re.IGNORECASE)

_RECORD_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
#: The ``type`` of each line newer ``codex exec --json`` prints (its ``ThreadEvent``s).
_EXEC_EVENTS = {
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
}
_THREAD_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z_.-]{0,99}")
_LEGACY_ITEMS = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "local_shell_call_output",
    "web_search_call",
    "tool_search_call",
    "tool_search_output",
}
#: How the output of a call that failed before or while running starts (Codex's own texts; an
#: ``apply_patch`` whose patch does not match the files is answered "apply_patch verification
#: failed: …" and no ``patch_apply_end`` follows).
_FAILED_PREFIXES = (
    "execution error",
    "error",
    "write_stdin failed",
    "failed to",
    "apply_patch verification failed",
)
_CALLS = {"function_call", "custom_tool_call", "local_shell_call", "tool_search_call"}
_OUTPUTS = {
    "function_call_output",
    "custom_tool_call_output",
    "local_shell_call_output",
    "tool_search_output",
}
_MODEL_ITEMS = {"reasoning", "web_search_call", *_CALLS}
#: A context compaction's item (``compaction_summary``: an older name Codex still reads as one).
_COMPACTION_ITEMS = {"compaction", "compaction_summary", "compacted"}
#: ``response_item`` types that hold no behavior: a ghost commit snapshot, request controls
#: (``compaction_trigger``, ``configuration_update``), the tools declared to the model
#: (``additional_tools``) and what Codex could not read itself (``other``).
_HARMLESS_ITEMS = {
    "ghost_snapshot",
    "compaction_trigger",
    "configuration_update",
    "additional_tools",
    "other",
}
_HANDOFF_TOOLS = {"spawn_agent", "wait_agent"}
_MEMORY_TOOLS = {"update_plan"}  # the agent's own plan, like Claude's TodoWrite
#: ``tool_search_call`` (0.140+): the model searching the deferred MCP/app tools for the ones to
#: load, answered by a ``tool_search_output`` listing them, like Claude's ToolSearch.
_RETRIEVER_TOOLS = {"tool_search"}
#: A ``tool_search_output``'s status -> outcome (an unfinished search stays unanswered).
_SEARCH_STATUS = {"completed": "ok", "failed": "error", "incomplete": "error"}

REMOVED_FIELDS = (
    "session_meta.cwd",
    "session_meta.git",
    "session_meta.instructions",
    "session_meta.base_instructions",
    "turn_context.cwd",
    "turn_context.workspace_roots",
    "turn_context.user_instructions",
    "turn_context.developer_instructions",
    "turn_context.collaboration_mode.settings.developer_instructions",
    "turn_context.sandbox_policy.writable_roots",
    "turn_context.permission_profile.file_system.entries.path.path",
    "compacted.message",
    "compacted.replacement_history",
    "ghost_snapshot.ghost_commit",
    "message.content",
    "reasoning.summary",
    "reasoning.encrypted_content",
    "function_call.arguments",
    "function_call_output.output",
    "custom_tool_call.input",
    "custom_tool_call_output.output",
    "web_search_call.action",
    "tool_search_call.arguments",
    "tool_search_output.tools",
    "event_msg",
)


@dataclass
class Verdict:
    """What one tool output says about its call."""

    outcome: str | None = None
    exit_code: int | None = None
    seconds: float | None = None
    running_session: str | None = None


def classify_output(output: Any, file: Path | None = None, line: int | None = None) -> Verdict:
    """Read a call's output: exit code, sandbox/rejection texts, wall time, a running session."""
    value = decode_json_string(output, file, line)
    if isinstance(value, dict):
        if value.get("isError") is True:
            return Verdict("error")
        metadata = value.get("metadata")
        if isinstance(metadata, dict) and "exit_code" in metadata:
            code = _int(metadata.get("exit_code"))
            seconds = _float(metadata.get("duration_seconds"))
            text = value.get("output") if isinstance(value.get("output"), str) else ""
            return Verdict(_exit_outcome(code, text), code, seconds)  # (output: the body only)
        return Verdict("ok")
    if not isinstance(value, str):
        return Verdict("ok")
    text = value.strip()
    head = text[:400]
    wall = _WALL.search(head)
    seconds = float(wall.group(1)) if wall else None
    running = _RUNNING.search(head)
    exited = _EXITED.search(head)
    if exited:
        code = int(exited.group(1))
        return Verdict(_exit_outcome(code, _body(head)), code, seconds)
    if running:
        return Verdict(None, None, seconds, running.group(1))
    lowered = head.lower()
    if lowered.startswith("patch rejected:"):  # Codex's patch safety check refused to apply it
        return Verdict("denied", None, seconds)
    if lowered.startswith("failed in sandbox") or "sandbox denied" in lowered:
        code = _SANDBOX_EXIT.search(head)
        return Verdict("denied", int(code.group(1)) if code else None, seconds)
    if "rejected by user" in lowered or lowered.startswith("user rejected"):
        return Verdict("rejected")
    if lowered in {"aborted", "aborted by user"} or lowered.startswith("aborted"):
        return Verdict("interrupted")
    if _timed_out(_body(text)):
        return Verdict("timeout", None, seconds)
    if lowered.startswith(_FAILED_PREFIXES):
        return Verdict("error", None, seconds)
    return Verdict("ok", None, seconds)


def _exit_outcome(code: int | None, body: str) -> str:
    """``exit_outcome`` of the code; a failing one is a timeout when Codex's note opens ``body``."""
    if code is not None and exit_outcome(code) != "error":
        return exit_outcome(code)
    return "timeout" if _timed_out(body) else "error"


def _body(text: str) -> str:
    """The command's output in a call's output text: what follows the ``Output:`` line that
    ends Codex's header (``Exit code: N`` / ``Chunk ID: …``), else the whole text."""
    _, header_end, body = text.partition("\nOutput:\n")
    return body if header_end else text


def _timed_out(body: str) -> bool:
    """Whether the output's first line says "timed out": where Codex writes its note on a call
    it stopped ("command timed out after N milliseconds"). The command's own output saying so
    further down (a test runner reporting a test's timeout) is no Codex timeout."""
    first = body.lstrip().split("\n", 1)[0]
    return bool(_TIMED_OUT.search(first))


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        return int(value)
    return None


def _float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError:  # an exact integer beyond a double: no duration
            return None
    return None


def shell_command_text(name: str, args: Any) -> str | None:
    """The command a shell-like call runs (``bash -lc X`` -> ``X``), for semantic labels."""
    if not isinstance(args, dict):
        return args if isinstance(args, str) and name in SHELL_TOOLS else None
    command = args.get("cmd", args.get("command"))
    if isinstance(args.get("action"), dict):
        command = args["action"].get("command", command)
    if isinstance(command, list):
        parts = [str(p) for p in command]
        if len(parts) >= 3 and parts[1] in {"-lc", "-c"}:
            return parts[2]
        return " ".join(parts)
    return command if isinstance(command, str) else None


@dataclass
class _Call:
    draft: Draft
    is_shell: bool
    line: int
    outputs: list[Any] = field(default_factory=list)
    wall_seconds: float = 0.0
    saw_wall: bool = False
    exit_code: int | None = None
    explicit_ms: float | None = None
    duration_source: str | None = None
    last_output_at: datetime | None = None
    session: str | None = None
    polls: int = 0
    poll_errors: int = 0
    ended: bool = False


@dataclass
class _State:
    options: ImportOptions
    path: Path
    drafts: list[Draft] = field(default_factory=list)
    calls: dict[str, _Call] = field(default_factory=dict)
    order: list[_Call] = field(default_factory=list)
    sessions: dict[str, _Call] = field(default_factory=dict)
    exited: dict[str, _Call] = field(default_factory=dict)  # sessions whose process ended
    polls: dict[str, _Call] = field(default_factory=dict)
    llm: Draft | None = None
    llm_items: list[Any] = field(default_factory=list)
    model: str | None = None
    trace_id: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    turn_starts: list[int] = field(default_factory=list)
    turn_events: bool = False
    aborts: list[int] = field(default_factory=list)
    final_status: str = "unknown"
    cancelled_turn: bool = False
    final_text: str | None = None
    recognised: int = 0
    exec_output: tuple[int, str] | None = None  # the first ``codex exec --json`` line, its field
    exec_thread: str | None = None
    unknown_types: set[str] = field(default_factory=set)
    unknown_items: set[str] = field(default_factory=set)
    #: ``spawn_agent`` call id -> the child its output (or ``collab_agent_spawn_end``) names:
    #: ``(thread id, task name)``.
    spawned: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)


_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}")


@dataclass(frozen=True)
class _Thread:
    """What a rollout's first line (its own ``session_meta``) says of its thread."""

    thread_id: str | None = None
    kind: str | None = None  # a sub-agent's kind (``thread_spawn``, ``review``, …); None: a run
    parent: str | None = None  # the spawning thread, for a ``thread_spawn`` child
    path: str | None = None  # its agent path (``/root/task_name``, multi-agent v2)
    role: str | None = None
    history_start: int | None = None  # ``subagent_history_start_ordinal``

    def describe(self) -> str:
        """How a warning names it (plain identifiers only; ``?`` for anything else)."""
        me, parent = _safe(self.thread_id) or "?", _safe(self.parent) or "?"
        if self.kind == "thread_spawn":
            return f"sub-agent thread (agent {me} of thread {parent})"
        return f"Codex {self.kind} sub-agent thread ({me})"


def _peek(path: Path) -> _Thread:
    """The first line of ``path`` read as a ``session_meta`` (bounded; anything else, or a line
    in error, which the import itself reports, says nothing)."""
    from abw.reader import parse_json

    try:
        with open(path, "rb") as handle:
            first = b""
            while not first.strip():
                first = handle.readline(MAX_LINE_BYTES + 1)
                if not first or len(first) > MAX_LINE_BYTES:
                    return _Thread()
        record = parse_json(first, path)
    except (OSError, AbwInputError):
        return _Thread()
    payload = record.get("payload") if isinstance(record, dict) else None
    if not isinstance(record, dict) or record.get("type") != "session_meta":
        return _Thread()
    return _thread(payload) if isinstance(payload, dict) else _Thread()


def _thread(meta: dict[str, Any]) -> _Thread:
    """A ``session_meta`` payload's thread: ``source`` is ``{"subagent": "review"}`` (or
    ``compact``, ``memory_consolidation``), ``{"subagent": {"other": …}}`` or
    ``{"subagent": {"thread_spawn": {"parent_thread_id", "depth", "agent_path",
    "agent_nickname", "agent_role"}}}`` for a sub-agent, a plain string for a run; newer
    versions repeat ``parent_thread_id``, ``agent_path``, ``agent_role`` at the top level and
    say ``thread_source: "subagent"``."""
    thread_id = _str(meta.get("id"))
    source = meta.get("source")
    sub = source.get("subagent") if isinstance(source, dict) else None
    top_parent = _str(meta.get("parent_thread_id"))
    start = meta.get("subagent_history_start_ordinal")
    start = start if isinstance(start, int) and not isinstance(start, bool) else None
    if isinstance(sub, str):
        return _Thread(thread_id, _safe(sub) or "unknown")
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    if isinstance(sub, dict) and not isinstance(spawn, dict):
        return _Thread(thread_id, _safe(next(iter(sub), None)) or "unknown")
    if spawn is None and not (meta.get("thread_source") == "subagent" and top_parent):
        return _Thread(thread_id)
    spawn = spawn or {}
    return _Thread(
        thread_id,
        "thread_spawn",
        _str(spawn.get("parent_thread_id")) or top_parent,
        _str(spawn.get("agent_path")) or _str(meta.get("agent_path")),
        _str(spawn.get("agent_role")) or _str(meta.get("agent_role")),
        start,
    )


def _safe(value: Any) -> str | None:
    """``value`` when it is a plain identifier (kept in a trace or a message), else None."""
    return value if isinstance(value, str) and _SAFE_ID.fullmatch(value) else None


def _spawn_call(state: _State, child: _Thread, claimed: set[str]) -> str | None:
    """The ``spawn_agent`` call of ``state``'s thread that started ``child``: the one whose
    output names its thread id (v1's ``agent_id``) or its agent path (v2's ``task_name``)."""
    for call_id, (thread, task) in sorted(state.spawned.items(), key=lambda i: i[0]):
        if call_id in claimed:
            continue
        if (thread and thread == child.thread_id) or (task and task == child.path):
            return call_id
    return None


def _own_lines(
    records: list[tuple[int, dict[str, Any]]],
    thread: _Thread,
    call_id: str | None,
    path: Path,
    options: ImportOptions,
) -> Callable[[int, dict[str, Any]], bool]:
    """Which records of a sub-agent's rollout are its own work, not the parent's history a
    forked child (``fork_context``, ``fork_turns``) was started with, which Codex writes into
    its rollout right after its own ``session_meta`` (the parent's ``session_meta`` first).

    Newer versions number every line (``ordinal``) and name the first of the child's own
    (``subagent_history_start_ordinal``). Otherwise the copy ends with the parent's
    ``spawn_agent`` call that started the child (and the output Codex gives it in the child):
    every line up to the last one holding that call's id is the parent's. A copy that neither
    tells apart is kept, with a warning."""
    first = records[0][0] if records else 0
    if thread.history_start is not None and any(
        isinstance(r.get("ordinal"), int) for _, r in records
    ):
        start = thread.history_start

        def by_ordinal(line: int, record: dict[str, Any]) -> bool:
            ordinal = record.get("ordinal")
            return line == first or not isinstance(ordinal, int) or ordinal >= start

        return by_ordinal
    forked = next(
        (
            line
            for line, record in records
            if line != first
            and record.get("type") == "session_meta"
            and isinstance(record.get("payload"), dict)
            and record["payload"].get("id") != thread.thread_id
        ),
        None,
    )
    if call_id is None and forked is not None:
        call_id = _forking_call(records, forked, path)
    copied = [
        line
        for line, record in records
        if call_id
        and isinstance(record.get("payload"), dict)
        and record["payload"].get("call_id") == call_id
    ]
    if copied:
        end = copied[-1]
        return lambda line, record: line == first or line > end
    if forked is not None:
        options.warn(
            f"{path.name}: the parent's history this sub-agent was forked with could not be "
            "told from its own work; it is kept"
        )
    return lambda line, record: True


def _forking_call(records: list[tuple[int, dict[str, Any]]], start: int, path: Path) -> str | None:
    """The id of the parent's ``spawn_agent`` call that a forked child's copied history (from
    line ``start``, the parent's ``session_meta``) ends with, when the parent's rollout is not
    there to name it: the first ``spawn_agent`` call of the copy whose output in the file names
    no agent (the calls before it spawned its siblings, and their outputs say so)."""
    calls: list[str] = []
    answered: set[str] = set()
    for line, record in records:
        payload = record.get("payload")
        if line < start or not isinstance(payload, dict) or record.get("type") != "response_item":
            continue
        call_id = _str(payload.get("call_id"))
        if payload.get("type") == "function_call" and payload.get("name") == "spawn_agent":
            if call_id:
                calls.append(call_id)
        elif payload.get("type") == "function_call_output" and call_id in calls:
            value = decode_json_string(payload.get("output"), path, line)
            if isinstance(value, dict) and (value.get("agent_id") or value.get("task_name")):
                answered.add(call_id)
    return next((c for c in calls if c not in answered), None)


def _read(
    raw: bytes,
    path: Path,
    options: ImportOptions,
    own: Callable[[int, dict[str, Any]], bool] | None = None,
    records: Iterable[tuple[int, dict[str, Any]]] | None = None,
) -> tuple[_State, dict[str, list[Any]]]:
    """One rollout read into its drafts (only the records ``own`` keeps), settled; and the
    payloads it held, by kind, for ``removed_fields``."""
    state = _State(options, path)
    held: dict[str, list[Any]] = {}  # record kind -> its payloads, for removed_fields
    for line, record in records if records is not None else _records(raw, path, options):
        _note_held(held, record)
        if own is None or own(line, record):
            _step(state, line, record)
    if state.recognised == 0 and state.exec_output is not None:
        line, key = state.exec_output
        raise AbwInputError(_exec_refusal(state.exec_thread), file=path, line=line, field=key)
    if state.recognised == 0:
        raise AbwInputError(
            "not a Codex rollout: no session_meta, response_item or event_msg records",
            file=path,
        )
    _close_llm(state)
    _settle(state)
    return state, held


@dataclass
class _Fold:
    """Sub-agent drafts folded into a run: each one's parent (the ``spawn_agent`` call that
    started its thread) and file, set on the spans once :func:`finish` has numbered them."""

    options: ImportOptions
    parents: dict[int, Draft] = field(default_factory=dict)
    file_of: dict[int, str] = field(default_factory=dict)
    files: list[tuple[str, str]] = field(default_factory=list)  # (file name, sha256)

    def mark(self, drafts: list[Draft], thread: _Thread, name: str) -> None:
        """A sub-agent's drafts: ``attributes.agent`` ``subagent``, its ``agent_id`` and
        ``agent_role`` (plain identifiers only), and the file they came from."""
        for draft in drafts:
            if id(draft) in self.file_of:
                continue  # (a deeper sub-agent's, marked already)
            self.file_of[id(draft)] = name
            draft.attributes["agent"] = "subagent"
            if _safe(thread.thread_id):
                draft.attributes["agent_id"] = thread.thread_id
            if _safe(thread.role):
                draft.attributes["agent_role"] = thread.role

    def patch(self, drafts: list[Draft], spans: list[Any]) -> None:
        """Set the parent and the source file of every folded span (``spans`` are ``drafts``
        in :func:`finish`'s order)."""
        if not self.file_of:
            return
        from abw.models.trace import SourceRef

        ordered = sorted(drafts, key=lambda d: d.sort_key)
        index = {id(draft): i for i, draft in enumerate(ordered)}
        for i, draft in enumerate(ordered):
            parent = self.parents.get(id(draft))
            if parent is not None:
                spans[i].parent_span_id = spans[index[id(parent)]].span_id
            name = self.file_of.get(id(draft))
            if name is not None:
                spans[i].source_ref = SourceRef(file=name, line=draft.line)


class CodexImporter(Importer):
    name: ClassVar[str] = "codex"
    platform: ClassVar[str] = "codex_cli"
    export_format: ClassVar[str] = "codex-rollout-jsonl"
    help: ClassVar[str] = (
        "Codex CLI rollouts (~/.codex/sessions/**/rollout-*.jsonl): shell, exec_command/"
        "write_stdin, apply_patch, web search and MCP tools, any version."
    )
    suffixes: ClassVar[tuple[str, ...]] = (".jsonl", ".json")
    supports_argument_fields: ClassVar[bool] = True

    def __init__(self) -> None:
        self._threads: dict[Path, dict[Path, _Thread]] = {}  # folder -> its rollouts' threads

    def _folder(self, folder: Path) -> dict[Path, _Thread]:
        """What the first line of each rollout in ``folder`` says of its thread (read once)."""
        if folder not in self._threads:
            found = sorted(p for p in folder.glob("*.jsonl") if p.is_file())
            self._threads[folder] = {p: _peek(p) for p in found if p.name != "history.jsonl"}
        return self._threads[folder]

    def _children(self, folder: Path, thread_id: str | None) -> list[tuple[Path, _Thread]]:
        """The sub-agent rollouts in ``folder`` that ``thread_id`` spawned, by file name."""
        if not thread_id:
            return []
        return [(p, t) for p, t in self._folder(folder).items() if t.parent == thread_id]

    def _folded(self, path: Path) -> bool:
        """Whether ``path`` is a spawned sub-agent's rollout that the import of another rollout
        in its folder folds in: its parent thread's rollout lies beside it, and so on up to a
        rollout that is imported as a run (a root thread, or a child whose parent is absent)."""
        threads = self._folder(path.parent)
        ids: dict[str, _Thread] = {}
        for thread in threads.values():
            if thread.thread_id:
                ids.setdefault(thread.thread_id, thread)
        current, seen = threads.get(path), set()
        while current is not None and current.parent is not None and current.parent in ids:
            if current.parent in seen:
                return False  # a cycle: no run would read it, so it is imported on its own
            seen.add(current.parent)
            current = ids[current.parent]
        return bool(seen)

    def discover(self, folder: Path) -> list[Path]:
        """Rollout files; ``~/.codex/history.jsonl`` (a prompt log) is not one, and a spawned
        sub-agent's rollout whose parent's rollout lies in the same folder is read with it."""
        files = [p for p in super().discover(folder) if p.name != "history.jsonl"]
        return [p for p in files if p.suffix != ".jsonl" or not self._folded(p)]

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        raw = read_raw(path)
        thread = _peek(path) if path.suffix == ".jsonl" else _Thread()
        own, records = None, None
        if thread.kind is not None:
            if thread.kind != "thread_spawn":
                why = ""
            elif self._folded(path):
                why = ": import its folder to fold it into its parent's run"
            else:
                why = ": its parent's rollout is not in its folder"
            options.warn(f"{path.name}: a {thread.describe()}, imported on its own{why}")
            records = list(_records(raw, path, options))
            own = _own_lines(records, thread, None, path, options)
        state, held = _read(raw, path, options, own, records)
        fold = _Fold(options)
        if thread.kind is not None:
            fold.mark(state.drafts, thread, path.name)
        self._fold(fold, state, path, held, {path.resolve()})
        spans = finish(state.drafts, path)
        fold.patch(state.drafts, spans)
        trace_id = state.trace_id or f"codex-{path.stem}"
        extra = {k: v for k, v in state.meta.items() if v is not None}
        if state.aborts:
            extra["turns_aborted"] = len(state.aborts)
        trace = make_trace(
            platform=self.platform,
            export_format=self.export_format,
            raw=raw,
            trace_id=trace_id,
            spans=spans,
            options=options,
            final_status=state.final_status,
            final_output=state.final_text,
            final_text=state.final_text,
            removed_fields=held_fields(held, REMOVED_FIELDS),
            extra_run=extra,
        )
        if fold.files:
            trace.source.subagent_files = [  # type: ignore[attr-defined]
                {"file": name, "sha256": digest} for name, digest in sorted(fold.files)
            ]
        return [trace]

    def _fold(
        self,
        fold: _Fold,
        state: _State,
        path: Path,
        held: dict[str, list[Any]],
        seen: set[Path],
    ) -> None:
        """Fold the sub-agents ``state``'s thread spawned (their rollouts beside ``path``) into
        its drafts, depth first: each child's spans right after its ``spawn_agent`` call, those
        of a child no call names at the end; a call whose child's rollout is missing is warned
        about."""
        claimed: set[str] = set()
        late = 0
        for child_path, child in self._children(path.parent, state.trace_id):
            if child_path.resolve() in seen:
                continue
            seen.add(child_path.resolve())
            call_id = _spawn_call(state, child, claimed)
            raw = read_raw(child_path)
            records = list(_records(raw, child_path, state.options))
            own = _own_lines(records, child, call_id, child_path, state.options)
            child_state, child_held = _read(raw, child_path, state.options, own, records)
            for kind, payloads in child_held.items():
                held.setdefault(kind, []).extend(payloads)
            fold.files.append((child_path.name, sha256_hex(raw)))
            self._fold(fold, child_state, child_path, held, seen)
            fold.mark(child_state.drafts, child, child_path.name)
            spawn = state.calls.get(call_id) if call_id else None
            if spawn is None:
                late += 1
                state.options.warn(
                    f"{child_path.name}: sub-agent {_safe(child.thread_id) or '?'} is not "
                    "linked to any "
                    f"spawn_agent call of {path.name}; its spans are kept at the end of the trace"
                )
                prefix: tuple[Any, ...] = (1 << 62, late)
            else:
                claimed.add(call_id or "")
                prefix = (*spawn.draft.sort_key, len(claimed))
            for draft in child_state.drafts:
                draft.sort_key = (*prefix, *draft.sort_key)
                if spawn is not None:
                    fold.parents.setdefault(id(draft), spawn.draft)
            state.drafts.extend(child_state.drafts)
        for call_id, (thread, task) in sorted(state.spawned.items()):
            call = state.calls.get(call_id)
            if call_id not in claimed and call is not None:
                state.options.warn(
                    f"{path.name}:{call.line}: no rollout found beside it for sub-agent "
                    f"{_safe(thread) or _safe(task) or '?'}; its spans are missing"
                )


def _note_held(held: dict[str, list[Any]], record: dict[str, Any]) -> None:
    """File the record's payload under the name ``REMOVED_FIELDS`` reads it by: the record
    type for ``session_meta`` / ``turn_context`` / ``event_msg``, the item type for a
    ``response_item`` (``message``, ``function_call``, ...)."""
    kind, payload = _str(record.get("type")), record.get("payload")
    if not isinstance(payload, dict):
        return
    if kind == "response_item":
        kind = _str(payload.get("type"))
    if kind:
        held.setdefault(kind, []).append(payload)


def _records(raw: bytes, path: Path, options: ImportOptions):
    """``(line, record)`` in the envelope form; legacy bare items and 0.1.x JSON are wrapped."""
    stripped = raw.lstrip()
    if path.suffix == ".json" and stripped[:1] == b"{":
        document = load_json(raw, path)
        if isinstance(document, dict) and isinstance(document.get("items"), list):
            session = as_dict(document.get("session"))
            yield 1, {"type": "session_meta", "payload": session}
            for item in document["items"]:
                if isinstance(item, dict):
                    yield 1, {"type": "response_item", "payload": item}
            return
        raise AbwInputError("not a Codex rollout (expected JSON Lines)", file=path)
    for line, record in jsonl_records(raw, path, options.warnings):
        if not isinstance(record, dict):
            raise AbwInputError("expected a JSON object on each line", file=path, line=line)
        if _str(record.get("type")) in _RECORD_TYPES and isinstance(record.get("payload"), dict):
            yield line, record
        elif record.get("record_type") == "state":
            continue
        elif _str(record.get("type")) in _LEGACY_ITEMS:
            yield line, {"type": "response_item", "payload": record}
        elif line == 1 and "id" in record and "type" not in record and "msg" not in record:
            yield line, {"type": "session_meta", "payload": record}
        else:
            yield line, record


def _step(state: _State, line: int, record: dict[str, Any]) -> None:
    kind = _str(record.get("type"))
    payload = record.get("payload")
    if kind not in _RECORD_TYPES or not isinstance(payload, dict):
        state.unknown_types.add(str(kind))
        _note_exec_output(state, line, record)
        return
    state.recognised += 1
    when = parse_time(record.get("timestamp"))
    if kind == "session_meta":
        state.trace_id = state.trace_id or _str(payload.get("id"))
        state.meta.setdefault("agent_version", _str(payload.get("cli_version")))
        state.meta.setdefault("originator", _str(payload.get("originator")))
    elif kind == "turn_context":
        _close_llm(state)
        state.model = _str(payload.get("model")) or state.model
    elif kind == "compacted":
        _close_llm(state)
        state.drafts.append(
            Draft((line,), "memory", "compaction", "ok", payload.get("message"), line=line)
        )
        state.drafts[-1].started_at = when
    elif kind == "event_msg":
        _event(state, line, payload, when)
    else:
        _item(state, line, payload, when)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _note_exec_output(state: _State, line: int, record: dict[str, Any]) -> None:
    """Note a line of ``codex exec --json`` output, and the thread it names: a ``ThreadEvent``
    (newer versions; ``thread.started`` names it) or an ``{"id", "msg"}`` event envelope
    (older ones; ``session_configured`` names it)."""
    msg = record.get("msg")
    if _str(record.get("type")) in _EXEC_EVENTS:
        key, thread = "type", record.get("thread_id")
    elif "id" in record and isinstance(msg, dict) and isinstance(msg.get("type"), str):
        key, thread = "msg", msg.get("session_id")
    else:
        return
    if state.exec_output is None:
        state.exec_output = (line, key)
    if state.exec_thread is None and isinstance(thread, str) and _THREAD_ID.fullmatch(thread):
        state.exec_thread = thread


def _exec_refusal(thread: str | None) -> str:
    """Why ``codex exec --json`` output is refused, and the rollout of its thread to import."""
    rollout = f"rollout-*-{thread}.jsonl" if thread else "rollout-*.jsonl"
    return (
        "not a Codex rollout: this is `codex exec --json` output (the events the CLI printed); "
        f"import the session's rollout ~/.codex/sessions/YYYY/MM/DD/{rollout} instead "
        "(`codex exec --ephemeral` writes none)"
    )


def _turn_start(state: _State, line: int) -> None:
    _close_llm(state)
    state.turn_starts.append(line)
    state.cancelled_turn = False
    state.final_status = "unknown"


def _set_final(state: _State, status: str) -> None:
    if not state.cancelled_turn:
        state.final_status = status


def _event(state: _State, line: int, payload: dict[str, Any], when: datetime | None) -> None:
    kind = _str(payload.get("type"))
    if kind in {"task_started", "user_message"}:
        state.turn_events = True
        _turn_start(state, line)
    elif kind == "task_complete":
        _set_final(state, "success")
        message = payload.get("last_agent_message")
        if isinstance(message, str):
            state.final_text = message
    elif kind == "turn_aborted":
        state.aborts.append(line)
        state.final_status = "cancelled"
        state.cancelled_turn = True
    elif kind == "error":
        _set_final(state, "error")
    elif kind == "collab_agent_spawn_end":  # (older versions persisted it)
        thread = _str(payload.get("new_thread_id"))
        call_id = _str(payload.get("call_id"))
        if thread and call_id and call_id not in state.spawned:
            state.spawned[call_id] = (thread, None)
    elif kind == "exec_command_end":
        call = state.calls.get(str(payload.get("call_id")))
        if call is not None:
            code = _int(payload.get("exit_code"))
            call.exit_code = code if code is not None else call.exit_code
            call.ended = True
            duration = payload.get("duration")
            if isinstance(duration, dict):
                secs, nanos = _float(duration.get("secs")), _float(duration.get("nanos"))
                if secs is not None:
                    call.explicit_ms = round(secs * 1000 + (nanos or 0) / 1e6, 3)
                    call.duration_source = "exec_command_end"
            if code is not None:
                call.draft.outcome = _exit_outcome(code, "")
            elif payload.get("status") == "failed":
                call.draft.outcome = "error"
    elif kind == "patch_apply_end":
        call = state.calls.get(str(payload.get("call_id")))
        if call is not None and isinstance(payload.get("success"), bool):
            call.draft.outcome = "ok" if payload["success"] else "error"
            call.ended = True
    elif kind == "mcp_tool_call_end":
        call = state.calls.get(str(payload.get("call_id")))
        if call is not None:
            result = payload.get("result")
            failed = isinstance(result, dict) and (
                "Err" in result
                or (isinstance(result.get("Ok"), dict) and result["Ok"].get("isError"))
            )
            call.draft.outcome = "error" if failed else "ok"
            call.ended = True


def _open_llm(state: _State, line: int, when: datetime | None) -> Draft:
    if state.llm is None:
        state.llm = Draft((line,), "llm", state.model or "model", "ok", line=line)
        state.llm.started_at = when
        state.llm_items = []
        state.drafts.append(state.llm)
    return state.llm


def _close_llm(state: _State) -> None:
    if state.llm is not None:
        state.llm.output = state.llm_items
        state.llm = None
        state.llm_items = []


def _item(state: _State, line: int, payload: dict[str, Any], when: datetime | None) -> None:
    kind = _str(payload.get("type"))
    if kind == "message":
        role = payload.get("role")
        if role == "assistant":
            _open_llm(state, line, when)
            state.llm_items.append(payload.get("content"))
            text = _message_text(payload.get("content"))
            if text is not None:
                state.final_text = text
            _set_final(state, "success")
        else:
            _close_llm(state)
            if role == "user" and not state.turn_events and not _injected(payload):
                _turn_start(state, line)
        return
    if kind in _MODEL_ITEMS:
        _open_llm(state, line, when)
        state.llm_items.append(payload)
        _set_final(state, "unknown")
        if kind == "web_search_call":
            _web_search(state, line, payload, when)
        elif kind in _CALLS:
            _call(state, line, kind, payload, when)
        return
    if kind in _OUTPUTS:
        _close_llm(state)
        _output(state, line, payload, when)
        return
    if kind in _COMPACTION_ITEMS:
        _close_llm(state)
        draft = Draft((line,), "memory", "compaction", "ok", payload, line=line)
        draft.started_at = when
        state.drafts.append(draft)
    elif kind not in _HARMLESS_ITEMS:
        state.unknown_items.add(str(kind))


_INJECTED = ("<environment_context>", "<user_instructions>", "<permissions", "# AGENTS.md")


def _injected(payload: dict[str, Any]) -> bool:
    """Context Codex adds to the history (environment, AGENTS.md), not a person's prompt."""
    text = _message_text(payload.get("content")) or ""
    return text.lstrip().startswith(_INJECTED)


def _message_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [
        c.get("text") for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)
    ]
    return "\n".join(texts) if texts else None


def _tool_name(payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The call's span name and its ``namespace`` / ``mcp_server`` / ``mcp_tool`` attributes.

    An MCP tool is named ``mcp__<server>__<tool>`` whichever way the Codex version wrote it, so a
    baseline and a candidate recorded by different versions name the same tool alike:
    :func:`_mcp_flat_name` rejoins a ``namespace`` + ``name`` pair into the flat name older
    versions wrote. ``<server>`` is the name before the next ``__`` (``codex_apps`` for a ChatGPT
    app connector, whose tool keeps the connector's name: ``github_fetch_pr``).
    """
    name = _str(payload.get("name")) or "local_shell"
    attributes: dict[str, Any] = {}
    namespace = _str(payload.get("namespace"))
    if namespace:
        attributes["namespace"] = namespace
        if namespace.startswith("mcp__"):
            name = _mcp_flat_name(namespace, name)
    if name.startswith("mcp__") and name.count("__") >= 2:
        _, server, tool = name.split("__", 2)
        attributes["mcp_server"], attributes["mcp_tool"] = server, tool
    return name, attributes


def _mcp_flat_name(namespace: str, name: str) -> str:
    """The flat ``mcp__<server>__<tool>`` name of a namespaced MCP call, as Codex wrote it before
    it split calls into ``namespace`` + ``name`` (Codex's ``ToolName`` display joins the two).

    The split has had three shapes: ``mcp__node_repl__`` + ``js`` (namespace keeping the
    delimiter), ``mcp__deepwiki`` + ``ask_question`` (0.142: the delimiter dropped), and an app
    connector's ``mcp__codex_apps__github`` + ``_fetch_pr`` (the tool ``github_fetch_pr`` with
    the connector's name cut off). A name that is already flat is kept.
    """
    if name.startswith("mcp__"):
        return name
    if namespace.endswith("_") or name.startswith("_"):
        return namespace + name
    return f"{namespace}__{name}"


def _call(
    state: _State, line: int, kind: str, payload: dict[str, Any], when: datetime | None
) -> None:
    if kind == "local_shell_call":
        name, attributes = "local_shell", {}
        args: Any = payload.get("action")
        call_id = _str(payload.get("call_id")) or _str(payload.get("id"))
    elif kind == "tool_search_call":
        name, attributes = "tool_search", {}
        args = decode_json_string(payload.get("arguments"), state.path, line)
        call_id = _str(payload.get("call_id")) or _str(payload.get("id"))
    else:
        name, attributes = _tool_name(payload)
        args = payload.get("arguments") if kind == "function_call" else payload.get("input")
        args = decode_json_string(args, state.path, line) if kind == "function_call" else args
        call_id = _str(payload.get("call_id"))
    if name == "write_stdin" and isinstance(args, dict):
        session = str(args.get("session_id"))
        # a poll of a session whose process already exited is still a poll of its command:
        # Codex answers it "write_stdin failed: Unknown process id N" (a failed poll)
        target = state.sessions.get(session) or state.exited.get(session)
        if target is not None and call_id:
            target.polls += 1
            state.polls[call_id] = target
            return
    is_shell = name in SHELL_TOOLS
    span_type = "handoff" if name in _HANDOFF_TOOLS else "tool"
    span_type = "memory" if name in _MEMORY_TOOLS else span_type
    span_type = "retriever" if name in _RETRIEVER_TOOLS else span_type
    draft = Draft((line,), span_type, name, None, args, span_id=call_id, line=line)
    draft.started_at = when
    draft.attributes.update(attributes)
    if is_shell:
        draft.mark_shell(state.options.labels, shell_command_text(name, args))
    _extract_arguments(state, draft, args)
    if kind == "local_shell_call" and payload.get("status") == "completed":
        draft.outcome = "ok"
    call = _Call(draft, is_shell, line)
    state.drafts.append(draft)
    state.order.append(call)
    if call_id:
        state.calls[call_id] = call


def _output(state: _State, line: int, payload: dict[str, Any], when: datetime | None) -> None:
    call_id = str(payload.get("call_id"))
    if payload.get("type") == "tool_search_output":  # the tools found, and a status
        output = payload.get("tools")
        verdict = Verdict(_SEARCH_STATUS.get(str(payload.get("status"))))
    else:
        output = payload.get("output")
        verdict = classify_output(output, state.path, line)
    poll_target = state.polls.get(call_id)
    if poll_target is not None:
        call = poll_target
        if verdict.outcome == "error" and verdict.exit_code is None:
            call.poll_errors += 1  # a failed poll does not end the command
            return
    else:
        call = state.calls.get(call_id)
        if call is None:
            state.options.warn(f"{state.path.name}: an output has no matching call ({call_id})")
            return
    if call.draft.name == "spawn_agent" and poll_target is None:
        _note_spawned(state, call_id, output, line)
    call.outputs.append(output)
    call.last_output_at = when
    if verdict.seconds is not None:
        call.wall_seconds += verdict.seconds
        call.saw_wall = True
    if verdict.running_session is not None:
        call.session = verdict.running_session
        state.sessions[verdict.running_session] = call
        return
    if verdict.exit_code is not None:
        call.exit_code = verdict.exit_code
    single = call.polls == 0 and len(call.outputs) == 1
    if verdict.seconds is not None and verdict.exit_code is not None and single:
        call.explicit_ms = call.explicit_ms or round(verdict.seconds * 1000, 3)
        call.duration_source = call.duration_source or "metadata"
    if not call.ended or call.draft.outcome is None:
        call.draft.outcome = verdict.outcome
    if call.session is not None and verdict.outcome is not None:
        state.sessions.pop(call.session, None)
        state.exited[call.session] = call


def _note_spawned(state: _State, call_id: str, output: Any, line: int) -> None:
    """The child a ``spawn_agent`` call's output names: ``{"agent_id", "nickname"}`` (multi-agent
    v1: the child's thread id) or ``{"task_name", "nickname"}`` (v2: the child's agent path)."""
    value = decode_json_string(output, state.path, line)
    if isinstance(value, dict):
        thread, task = _str(value.get("agent_id")), _str(value.get("task_name"))
        if thread or task:
            state.spawned[call_id] = (thread, task)


def _web_search(state: _State, line: int, payload: dict[str, Any], when: datetime | None) -> None:
    status = payload.get("status")
    outcome = {"completed": "ok", "failed": "error"}.get(str(status))
    draft = Draft((line,), "retriever", "web_search", outcome, payload.get("action"), line=line)
    draft.started_at = when
    draft.span_id = _str(payload.get("id"))
    _extract_arguments(state, draft, payload.get("action"))
    state.drafts.append(draft)


def _extract_arguments(state: _State, draft: Draft, args: Any) -> None:
    """Copy the ``--argument-fields`` named for this span (after labels) out of its input."""
    arguments = extract_arguments(
        state.options.argument_fields, draft.name, args, file=state.path, line=draft.line
    )
    if arguments is not None:
        draft.attributes["arguments"] = arguments


def _settle(state: _State) -> None:
    """Outcomes of calls never answered, durations, and poll counts, once the file is read."""
    starts = sorted(state.turn_starts)
    for call in state.order:
        draft = call.draft
        if draft.outcome is None:
            draft.outcome = "interrupted" if _aborted(state, call.line, starts) else "incomplete"
            if call.session is not None and draft.outcome == "incomplete":
                draft.attributes["still_running"] = True
        if call.exit_code is not None:
            draft.attributes["exit_code"] = call.exit_code
        if call.polls:
            draft.attributes["polls"] = call.polls
        if call.poll_errors:
            draft.attributes["poll_errors"] = call.poll_errors
        if call.outputs:
            draft.output = call.outputs[0] if len(call.outputs) == 1 else call.outputs
        if call.explicit_ms is not None:
            draft.duration_ms = call.explicit_ms
            draft.attributes["duration_source"] = call.duration_source or "metadata"
        elif call.saw_wall:
            draft.duration_ms = round(call.wall_seconds * 1000, 3)
            draft.attributes["duration_source"] = "wall_time"
        else:
            elapsed = ms_between(draft.started_at, call.last_output_at)
            if elapsed:
                draft.duration_ms = elapsed
                draft.attributes["duration_source"] = "timestamps"
    if state.unknown_types:
        kinds = ", ".join(sorted(state.unknown_types))
        state.options.warn(f"{state.path.name}: skipped unknown record types: {kinds}")
    if state.unknown_items:
        kinds = ", ".join(sorted(state.unknown_items))
        state.options.warn(f"{state.path.name}: skipped unknown response_item types: {kinds}")


def _aborted(state: _State, line: int, starts: list[int]) -> bool:
    """Whether a ``turn_aborted`` falls in the same turn as ``line``."""
    turn_begin = max((s for s in starts if s <= line), default=0)
    turn_end = min((s for s in starts if s > line), default=1 << 60)
    return any(turn_begin <= a < turn_end for a in state.aborts)
