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
naming it; only the types ``_HARMLESS_ITEMS`` (:mod:`.parser`) lists are skipped silently.

Sub-agents (``spawn_agent``, multi-agent v1 and v2): each child thread writes a rollout of its
own beside its parent's, its first ``session_meta`` naming where it came from
(``source: {"subagent": {"thread_spawn": {"parent_thread_id", ...}}}``). A child is no run of
its own: its spans are folded into its parent's trace right after the ``spawn_agent`` call that
started it (linked by the call's output: ``agent_id`` in v1, ``task_name`` = the child's
``agent_path`` in v2), as Claude Code's subagents are; the parent's history a forked child
starts with (``fork_context`` / ``fork_turns``) is context, not its work, and is left out. See
:meth:`CodexImporter.discover` and :func:`.subagents.own_lines`. A thread the user forked
(``codex fork``, ``/fork``: ``forked_from_id``, a plain ``source``) is a run of its own; the copy
of the parent's history its rollout starts with is left out the same way when the parent's
rollout lies beside it to tell it apart, else kept with a warning (:func:`.subagents._user_fork`).
A backtrack in the 0.171 TUI (Esc Esc, paginated history) goes on in a later file of the same
thread, ``rollout-<time>-<thread id>_<segment id>.jsonl``: read with the thread's first file
beside it, as one run (:meth:`CodexImporter._segments`).

``codex exec --json`` output (what the CLI printed: ``thread.started`` / ``item.completed``
events in newer versions, 0.46 among them; ``{"id", "msg"}`` event envelopes before) is refused,
naming the rollout to import instead: it has no timestamps and no model, names every command
``command_execution`` whichever tool ran it and leaves out the calls it has no item for, so read
as a run it would not compare with a rollout of the same behavior.

The package, lowest module first: ``values`` (plain values of fields), ``outputs`` (what a
call's output says), ``tools`` (what a call is), ``removed`` (the raw fields left out),
``records`` (a file into records), ``state`` (what reading a rollout keeps), ``exec_json``
(``codex exec --json`` output, refused), ``settle`` (outcomes and durations once read),
``parser`` (a rollout into drafts), ``threads`` (whose thread a rollout is) and ``subagents``
(folding a child into its parent); this module holds the importer.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from abw.errors import AbwInputError
from abw.hashing import content_hash, sha256_hex
from abw.importers.base import Importer, ImportOptions
from abw.importers.codex.outputs import Verdict, classify_output
from abw.importers.codex.parser import read_rollout
from abw.importers.codex.records import rollout_records
from abw.importers.codex.removed import REMOVED_FIELDS
from abw.importers.codex.state import RolloutState
from abw.importers.codex.subagents import Fold, copied_history, own_lines, spawn_call
from abw.importers.codex.threads import Thread, peek_thread, plain_id
from abw.importers.codex.tools import shell_command_text
from abw.importers.rawio import cut_off, held_fields, read_raw
from abw.importers.spans import finish, make_trace

if TYPE_CHECKING:
    from abw.models.trace import Trace

__all__ = [
    "REMOVED_FIELDS",
    "CodexImporter",
    "Verdict",
    "classify_output",
    "shell_command_text",
]


def _trace_id(thread_id: str | None, path: Path) -> str:
    """The run's id: the session's thread id when it is a plain id, a hash of it otherwise
    (nothing else of a rollout is kept raw), ``codex-<file stem>`` when it has none."""
    if thread_id is None:
        return f"codex-{path.stem}"
    return plain_id(thread_id) or f"codex-{content_hash(thread_id)[:32]}"


#: Sort keys start with a line number; spans placed after every line of the file start above
#: them: a thread's later files' (after a backtrack), then sub-agents linked to no call.
_AFTER_LINES = 1 << 61
_AFTER_LATER_FILES = 1 << 62
#: The records a session writes before its first prompt: a rollout holding nothing else is a
#: session left before any prompt, no run.
_SETUP_RECORDS = frozenset({"session_meta", "turn_context"})


def _segment(path: Path, thread: Thread) -> bool:
    """Whether ``path`` is named as a later file of its thread (``…-<thread id>_<id>.jsonl``)."""
    return bool(thread.thread_id) and f"-{thread.thread_id}_" in path.name


def _go_on(state: RolloutState, path: Path, n: int, fold: Fold, held: dict[str, list[Any]]) -> None:
    """Read the ``n``-th later file of ``state``'s thread into it: its spans after the earlier
    files' (each from its own file), and the run's end where it holds a turn: the turn's end,
    or ``unknown`` where it has none (the process died in it), never the earlier files' end."""
    raw = read_raw(path)
    later, later_held = read_rollout(raw, path, state.options, None, None)
    for kind, payloads in later_held.items():
        held.setdefault(kind, []).extend(payloads)
    for draft in later.drafts:
        draft.sort_key = (_AFTER_LINES, n, *draft.sort_key)
        fold.file_of[id(draft)] = path.name
    state.drafts.extend(later.drafts)
    state.aborts.extend(later.aborts)
    if later.turn_starts or later.final_status != "unknown":
        state.final_status, state.final_text = later.final_status, later.final_text


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
    #: ``~/.codex`` (``$CODEX_HOME``): its settings, credentials and prompt log beside the
    #: rollouts of ``sessions/`` and ``archived_sessions/`` (codex-rs core/src/rollout).
    home_files: ClassVar[tuple[str, ...]] = (
        "auth.json",
        "config.toml",
        "history.jsonl",
        "version.json",
    )
    home_sessions: ClassVar[tuple[str, ...]] = ("archived_sessions", "sessions")

    def __init__(self) -> None:
        self._threads: dict[Path, dict[Path, Thread]] = {}  # folder -> its rollouts' threads

    def _folder(self, folder: Path) -> dict[Path, Thread]:
        """What the first line of each rollout in ``folder`` says of its thread (read once)."""
        if folder not in self._threads:
            found = sorted(p for p in folder.glob("*.jsonl") if p.is_file())
            self._threads[folder] = {p: peek_thread(p) for p in found if p.name != "history.jsonl"}
        return self._threads[folder]

    def _thread_of(self, path: Path) -> Thread:
        """What ``path``'s first line says of its thread: from its folder's peeks (which finding
        its sub-agents reads anyway), not a second read of the file."""
        known = self._folder(path.parent).get(path)
        return known if known is not None else peek_thread(path)

    def _children(self, folder: Path, thread_id: str | None) -> list[tuple[Path, Thread]]:
        """The sub-agent rollouts in ``folder`` that ``thread_id`` spawned, by file name."""
        if not thread_id:
            return []
        return [(p, t) for p, t in self._folder(folder).items() if t.parent == thread_id]

    def _folded(self, path: Path) -> bool:
        """Whether ``path`` is a spawned sub-agent's rollout that the import of another rollout
        in its folder folds in: its parent thread's rollout lies beside it, and so on up to a
        rollout that is imported as a run (a root thread, or a child whose parent is absent)."""
        threads = self._folder(path.parent)
        ids: dict[str, Thread] = {}
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

    def _forked_from(self, path: Path, thread: Thread) -> list[tuple[int, dict[str, Any]]] | None:
        """The records of the rollout a user fork was forked from, when it lies beside it
        (one rollout of that thread, read whole); None when absent, ambiguous or unreadable."""
        found = [
            p
            for p, t in self._folder(path.parent).items()
            if t.thread_id == thread.forked_from and p.resolve() != path.resolve()
        ]
        if len(found) != 1:
            return None
        try:
            raw = read_raw(found[0])
            return list(rollout_records(raw, found[0], ImportOptions()))
        except (OSError, AbwInputError):
            return None

    def _segments(self, path: Path, thread: Thread) -> list[Path]:
        """The later files of ``path``'s thread beside it, oldest first: 0.171's paginated
        history goes on in a new ``rollout-<time>-<thread id>_<segment id>.jsonl`` (the same
        ``session_meta`` id, no copy of the turns kept) when a person backtracks (Esc Esc);
        none when ``path`` is itself such a file."""
        if thread.thread_id is None or thread.kind is not None or _segment(path, thread):
            return []
        return sorted(
            p
            for p, t in self._folder(path.parent).items()
            if t.thread_id == thread.thread_id and t.kind is None and _segment(p, t)
        )

    def _continued(self, path: Path) -> bool:
        """Whether ``path`` is a later file of a thread whose first file lies beside it (read
        with that file)."""
        thread = self._folder(path.parent).get(path)
        if thread is None or thread.kind is not None or not _segment(path, thread):
            return False
        folder = self._folder(path.parent).items()
        return any(t.thread_id == thread.thread_id and not _segment(p, t) for p, t in folder)

    def discover(self, folder: Path) -> list[Path]:
        """Rollout files; ``~/.codex/history.jsonl`` (a prompt log) is not one, and a spawned
        sub-agent's rollout whose parent's rollout lies in the same folder, or a later file of
        a thread, is read with it."""
        files = [p for p in super().discover(folder) if p.name != "history.jsonl"]
        return [
            p for p in files if p.suffix != ".jsonl" or not (self._folded(p) or self._continued(p))
        ]

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        raw = read_raw(path)
        thread = self._thread_of(path) if path.suffix == ".jsonl" else Thread()
        own, records = None, None
        if thread.kind is not None:
            if thread.kind != "thread_spawn":
                why = ""
            elif self._folded(path):
                why = ": import its folder to fold it into its parent's run"
            else:
                why = ": its parent's rollout is not in its folder"
            options.warn(f"{path.name}: a {thread.describe()}, imported on its own{why}")
            records = list(rollout_records(raw, path, options))
            own = own_lines(records, thread, None, path, options)
        elif thread.forked_from is not None:
            records = list(rollout_records(raw, path, options))
            if copied_history(records, thread):
                parent = self._forked_from(path, thread)
                own = own_lines(records, thread, None, path, options, parent)
        elif path.suffix == ".jsonl" and self._continued(path):
            options.warn(
                f"{path.name}: a later file of thread {plain_id(thread.thread_id) or '?'} "
                "(after a backtrack), imported on its own: import its folder to read it with "
                "the thread's first file"
            )
        state, held = read_rollout(raw, path, options, own, records)
        fold = Fold(options)
        if thread.kind is not None:
            fold.mark(state.drafts, thread, path.name)
        self._fold(fold, state, path, held, {path.resolve()})
        if path.suffix == ".jsonl":
            for n, segment in enumerate(self._segments(path, thread)):
                _go_on(state, segment, n, fold, held)
        spans = finish(state.drafts, path)
        if not spans and held.keys() <= _SETUP_RECORDS:
            return options.no_run(
                path,
                "no turn, only the session's setup (session_meta, turn_context): a session "
                "opened and left before any prompt",
            )
        fold.patch(state.drafts, spans)
        trace_id = _trace_id(state.trace_id, path)
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
            recording_start=state.first_time,
            cut_off=cut_off(raw),
        )
        if fold.files:
            trace.source.subagent_files = [  # type: ignore[attr-defined]
                {"file": name, "sha256": digest} for name, digest in sorted(fold.files)
            ]
        return [trace]

    def _fold(
        self,
        fold: Fold,
        state: RolloutState,
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
            call_id = spawn_call(state, child, claimed)
            raw = read_raw(child_path)
            records = list(rollout_records(raw, child_path, state.options))
            own = own_lines(records, child, call_id, child_path, state.options)
            child_state, child_held = read_rollout(raw, child_path, state.options, own, records)
            for kind, payloads in child_held.items():
                held.setdefault(kind, []).extend(payloads)
            fold.files.append((child_path.name, sha256_hex(raw)))
            self._fold(fold, child_state, child_path, held, seen)
            fold.mark(child_state.drafts, child, child_path.name)
            spawn = state.calls.get(call_id) if call_id else None
            if spawn is None:
                late += 1
                state.options.warn(
                    f"{child_path.name}: sub-agent {plain_id(child.thread_id) or '?'} is not "
                    "linked to any "
                    f"spawn_agent call of {path.name}; its spans are kept at the end of the trace"
                )
                prefix: tuple[Any, ...] = (_AFTER_LATER_FILES, late)
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
                    f"{plain_id(thread) or plain_id(task) or '?'}; its spans are missing"
                )
