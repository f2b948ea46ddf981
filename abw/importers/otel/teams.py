"""AutoGen AgentChat's team runs as one run each. AutoGen's runtime starts a trace for every
message it delivers, so one ``team.run()`` of a ``RoundRobinGroupChat``, ``SelectorGroupChat`` or
``Swarm`` is many traces (the manager's messages, each agent turn), tied together only by the span
links of its messaging spans (``autogen publish``/``send``/``process``/``ack``) to the span that
created the message. The traces so linked are one run; two runs, even of one team object, share
no link (each starts at its own ``GroupChatStart`` message)."""

from __future__ import annotations

import re
from dataclasses import replace

from abw.importers.otel.span import OSpan

#: AutoGen's messaging spans: ``autogen <operation> <destination>`` with ``messaging.operation``.
_PREFIX = "autogen "
_OPERATION = "messaging.operation"
_MESSAGE_TYPE = "messaging.message.type"
_DESTINATION = "messaging.destination"

#: The id of the team a messaging span's destination belongs to (``output_topic_<uuid>``,
#: ``<agent>_<uuid>``, ``RoundRobinGroupChatManager_<uuid>``): the team object's, each run's alike.
_TEAM_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

#: The message a team run starts with, and the one its manager sends when the run ends (its
#: termination condition met, its ``max_turns`` reached, an agent's error reported).
_START = "GroupChatStart"
_END = "GroupChatTermination"

Group = tuple[str, list[OSpan]]


def join_team_runs(groups: list[Group]) -> list[Group]:
    """The trace groups (in run order), the traces of one AutoGen team run joined into one
    group under the first trace's id: each later trace's root hangs under the first trace's
    root (the ``GroupChatStart`` message), so its agent turns follow one another in start
    order. The traces a turn left whose root was never exported (the process killed while it
    ran) join the last run of the team they name (:func:`_owner`; a team never runs twice at
    once), else stay apart. Groups no AutoGen messaging span links are returned as they are."""
    joined: dict[str, list[list[OSpan]]] = {}
    runs: dict[str, list[list[OSpan]]] = {}  # the team runs among them
    for parts in _linked(groups):
        started = _started(parts)
        owner = None if started else _owner(parts, runs)
        if owner is not None:
            joined[owner] += parts
        elif started or len(parts) == 1:
            joined[parts[0][0].trace_id] = parts
            if started:
                runs[parts[0][0].trace_id] = parts
        else:  # a fragment of no run this export holds: its traces as they are
            joined.update((part[0].trace_id, [part]) for part in parts)
    return [(trace_id, _one_tree(parts)) for trace_id, parts in joined.items()]


def _linked(groups: list[Group]) -> list[list[list[OSpan]]]:
    """The groups' spans, those of traces that AutoGen messaging spans link joined (in the
    order of their first trace: union-find with paths halved)."""
    order = {trace_id: index for index, (trace_id, _) in enumerate(groups)}
    first = {trace_id: trace_id for trace_id in order}
    held = {(span.trace_id, span.span_id) for _, members in groups for span in members}
    for trace_id, members in groups:
        for span in members:
            for link in _team_links(span):
                if link in held and link[0] != trace_id:
                    heads = (_head(first, trace_id), _head(first, link[0]))
                    earlier, later = sorted(heads, key=order.__getitem__)
                    first[later] = earlier
    joined: dict[str, list[list[OSpan]]] = {}
    for trace_id, members in groups:
        joined.setdefault(_head(first, trace_id), []).append(members)
    return list(joined.values())


def _started(parts: list[list[OSpan]]) -> bool:
    """Whether linked traces hold the start of a team run (its ``GroupChatStart`` message)."""
    return any(span.attributes.get(_MESSAGE_TYPE) == _START for part in parts for span in part)


def _owner(parts: list[list[OSpan]], runs: dict[str, list[list[OSpan]]]) -> str | None:
    """The run (of those before it) a fragment belongs to: the last that started before it
    and names a team the fragment's messaging spans name (``output_topic_<team id>``)."""
    teams = _team_ids(parts)
    if not teams:
        return None
    start = min((s.start_ns or 0) for part in parts for s in part)
    for trace_id, run in reversed(runs.items()):
        began = min((s.start_ns or 0) for s in run[0])
        if began <= start and teams & _team_ids(run):
            return trace_id
    return None


def _team_ids(parts: list[list[OSpan]]) -> set[str]:
    """The team ids the messaging spans' destinations name (``<topic or agent>_<uuid>``)."""
    found = (
        _TEAM_ID.search(str(span.attributes.get(_DESTINATION) or ""))
        for part in parts
        for span in part
        if _messaging(span)
    )
    return {match[0] for match in found if match}


def team_stopped(spans: list[OSpan]) -> bool:
    """Whether the spans are an AutoGen team run that was stopped before it ended: its
    ``GroupChatStart`` was sent and its manager never sent ``GroupChatTermination`` (the run's
    cancellation token cancelled; AutoGen ends every span cleanly even so)."""
    types = {span.attributes.get(_MESSAGE_TYPE) for span in spans if _messaging(span)}
    return _START in types and _END not in types


def _messaging(span: OSpan) -> bool:
    return span.name.startswith(_PREFIX) and _OPERATION in span.attributes


def _team_links(span: OSpan) -> list[tuple[str, str]]:
    """The spans an AutoGen messaging span links to (none for any other span)."""
    return span.links if span.links and _messaging(span) else []


def _head(first: dict[str, str], trace_id: str) -> str:
    """The first trace of the run ``trace_id`` is joined to (union-find, paths halved)."""
    while first[trace_id] != trace_id:
        first[trace_id] = first[first[trace_id]]
        trace_id = first[trace_id]
    return trace_id


def _one_tree(parts: list[list[OSpan]]) -> list[OSpan]:
    """The spans of a run's traces (the first trace first) as one tree: the roots of the later
    traces (and spans whose parent the export lacks) become children of the first trace's
    earliest root (copies; the spans are kept)."""
    if len(parts) == 1:
        return parts[0]
    held = {span.span_id for part in parts for span in part}
    roots = [s for s in parts[0] if s.parent_id not in held] or parts[0]
    top = min(roots, key=lambda s: (s.start_ns or 0, s.span_id))
    spans = list(parts[0])
    for part in parts[1:]:
        spans += [s if s.parent_id in held else replace(s, parent_id=top.span_id) for s in part]
    return spans
