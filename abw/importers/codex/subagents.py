"""Folding a sub-agent's rollout into its parent's run: the ``spawn_agent`` call that started
it, the records that are its own work (not the parent's history a forked child starts with),
and its spans' parent and source file once numbered."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abw.importers.base import ImportOptions
from abw.importers.codex.state import RolloutState
from abw.importers.codex.threads import Thread, plain_id
from abw.importers.codex.values import nonempty_str
from abw.importers.rawio import decode_json_string
from abw.importers.spans import Draft


def spawn_call(state: RolloutState, child: Thread, claimed: set[str]) -> str | None:
    """The ``spawn_agent`` call of ``state``'s thread that started ``child``: the one whose
    output names its thread id (v1's ``agent_id``) or its agent path (v2's ``task_name``)."""
    for call_id, (thread, task) in sorted(state.spawned.items(), key=lambda i: i[0]):
        if call_id in claimed:
            continue
        if (thread and thread == child.thread_id) or (task and task == child.path):
            return call_id
    return None


def own_lines(
    records: list[tuple[int, dict[str, Any]]],
    thread: Thread,
    call_id: str | None,
    path: Path,
    options: ImportOptions,
    parent: list[tuple[int, dict[str, Any]]] | None = None,
) -> Callable[[int, dict[str, Any]], bool]:
    """Which records of a sub-agent's rollout are its own work, not the parent's history a
    forked child (``fork_context``, ``fork_turns``) was started with, which Codex writes into
    its rollout right after its own ``session_meta`` (the parent's ``session_meta`` first).
    A thread the user forked (``thread.forked_from``, no sub-agent ``kind``) starts the same
    way; :func:`_user_fork` tells its copy apart (``parent``: the records of the rollout it was
    forked from, when found).

    Newer versions number every line (``ordinal``) and name the first of the child's own
    (``subagent_history_start_ordinal``). Otherwise the copy ends with the parent's
    ``spawn_agent`` call that started the child (and the output Codex gives it in the child):
    every line up to the last one holding that call's id is the parent's. A copy that neither
    tells apart is kept, with a warning."""
    first = records[0][0] if records else 0
    if thread.kind is None:
        return _user_fork(records, thread, parent, path, options)
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


def copied_history(records: list[tuple[int, dict[str, Any]]], thread: Thread) -> bool:
    """Whether a user fork's rollout starts with a copy of the history it was forked from:
    its second record is the ``session_meta`` of that thread (Codex writes the copied
    ``InitialHistory::Forked`` items, the parent's own ``session_meta`` first, right after the
    fork's; a fork that references its parent's rollout instead, ``history_base``, holds none)."""
    if thread.forked_from is None or len(records) < 2:
        return False
    record = records[1][1]
    payload = record.get("payload")
    return (
        record.get("type") == "session_meta"
        and isinstance(payload, dict)
        and payload.get("id") == thread.forked_from
    )


def _user_fork(
    records: list[tuple[int, dict[str, Any]]],
    thread: Thread,
    parent: list[tuple[int, dict[str, Any]]] | None,
    path: Path,
    options: ImportOptions,
) -> Callable[[int, dict[str, Any]], bool]:
    """A user fork's own records. Its copy of the parent's history (``codex fork``, ``/fork``)
    carries no mark of where it ends (no ordinal says so, and every copied line is stamped
    when the fork was made), so it is told apart only against the parent's rollout itself:
    the copy is the longest run of records, from the fork's second one, equal to the parent's
    from its first (the parent went on after the fork point; the fork's own records follow).
    That is kept only when nothing after it is the parent's too (a ``call_id`` or an assistant
    message of the parent's); otherwise, or with the parent's rollout absent, the copy is
    kept, with a warning."""

    def keep_all(line: int, record: dict[str, Any]) -> bool:
        return True

    if not copied_history(records, thread):
        return keep_all
    end = None
    if parent:
        matched = 0
        for (_, mine), (_, theirs) in zip(records[1:], parent, strict=False):
            if _same(mine, theirs):
                matched += 1
            else:
                break
        end = records[matched][0] if matched else None
        if end is not None and _parents_after(records, end, parent):
            end = None
    if end is None:
        where = "does not match it" if parent else "is not in its folder"
        options.warn(
            f"{path.name}: forked from thread {thread.forked_from}, whose rollout {where}: the "
            "history it was forked with could not be told from its own work; it is kept"
        )
        return keep_all
    first = records[0][0]
    return lambda line, record: line == first or line > end


def _same(mine: dict[str, Any], theirs: dict[str, Any]) -> bool:
    return mine.get("type") == theirs.get("type") and mine.get("payload") == theirs.get("payload")


def _parents_after(
    records: list[tuple[int, dict[str, Any]]], end: int, parent: list[tuple[int, dict[str, Any]]]
) -> bool:
    """Whether a record after line ``end`` of a fork is the parent's work too: a call id the
    parent's rollout holds, or an assistant message or reasoning item equal to one of its."""
    calls, said = set(), []
    for _, record in parent:
        payload = record.get("payload")
        if not isinstance(payload, dict) or record.get("type") != "response_item":
            continue
        if nonempty_str(payload.get("call_id")):
            calls.add(payload["call_id"])
        if payload.get("type") == "reasoning" or payload.get("role") == "assistant":
            said.append(payload)
    for line, record in records:
        payload = record.get("payload")
        if line <= end or not isinstance(payload, dict):
            continue
        if nonempty_str(payload.get("call_id")) in calls:
            return True
        if record.get("type") == "response_item" and payload in said:
            return True
    return False


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
        call_id = nonempty_str(payload.get("call_id"))
        if payload.get("type") == "function_call" and payload.get("name") == "spawn_agent":
            if call_id:
                calls.append(call_id)
        elif payload.get("type") == "function_call_output" and call_id in calls:
            value = decode_json_string(payload.get("output"), path, line)
            if isinstance(value, dict) and (value.get("agent_id") or value.get("task_name")):
                answered.add(call_id)
    return next((c for c in calls if c not in answered), None)


@dataclass
class Fold:
    """Sub-agent drafts folded into a run: each one's parent (the ``spawn_agent`` call that
    started its thread) and file, set on the spans once :func:`finish` has numbered them."""

    options: ImportOptions
    parents: dict[int, Draft] = field(default_factory=dict)
    file_of: dict[int, str] = field(default_factory=dict)
    files: list[tuple[str, str]] = field(default_factory=list)  # (file name, sha256)

    def mark(self, drafts: list[Draft], thread: Thread, name: str) -> None:
        """A sub-agent's drafts: ``attributes.agent`` ``subagent``, its ``agent_id`` and
        ``agent_role`` (plain identifiers only), and the file they came from."""
        for draft in drafts:
            if id(draft) in self.file_of:
                continue  # (a deeper sub-agent's, marked already)
            self.file_of[id(draft)] = name
            draft.attributes["agent"] = "subagent"
            if plain_id(thread.thread_id):
                draft.attributes["agent_id"] = thread.thread_id
            if plain_id(thread.role):
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
