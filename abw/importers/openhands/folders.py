"""A conversation persisted as a folder: a V1 conversation's ``event-NNNNN-<id>.json`` files,
in order, and what its ``base_state.json`` says of the run (final status, models); a V0
session's ``events/<n>.json`` files, in order."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.base import ImportOptions
from abw.importers.common import identifier
from abw.importers.openhands.outcomes import V1_STATUS
from abw.importers.rawio import as_dict, load_json, read_raw

#: A conversation's event file: ``event-00012-<event id>.json`` (the SDK's EVENT_NAME_RE).
EVENT_FILE = re.compile(r"event-(\d{5,})-[0-9a-fA-F-]{8,}\.json")


#: What a conversation's folder holds beside ``events/``: its state, the agent server's record
#: of it (``meta.json``: the agent's config, its masked secrets); neither is a trajectory (of
#: the state only its ``execution_status`` and models are read: :func:`read_state`).
STATE_FILES = {"base_state.json", "meta.json"}


#: A V0 session's event file (``sessions/<id>/events/<n>.json``, the file store's).
V0_EVENT_FILE = re.compile(r"(\d+)\.json")


#: What a V0 session's folder holds beside ``events/``: its metadata and first settings, and
#: ``event_cache/`` (pages of events that are in ``events/`` too): no trajectory.
V0_STATE_FILES = {"metadata.json", "init.json"}
V0_CACHE = "event_cache"


#: A conversation's state, written when it is created (its first event comes later).
BASE_STATE = "base_state.json"


#: The model an ACP agent's state names until its server says which it runs: no model.
_ACP_MODEL = "acp-managed"


def _events_folder(folder: Path) -> Path:
    """Where a conversation's event files are: ``events/`` (the CLI's, the agent server's),
    ``event_service/events/`` (the agent server's of 2025), else ``folder`` itself."""
    for events in (folder / "events", folder / "event_service" / "events"):
        if events.is_dir():
            return events
    return folder


def event_files(folder: Path) -> list[Path]:
    """A conversation's event files in order (in :func:`_events_folder`)."""
    events = _events_folder(folder)
    numbered = []
    for path in events.iterdir():
        match = EVENT_FILE.fullmatch(path.name)
        if match and path.is_file():
            numbered.append((int(match[1]), path.name, path))
    return [path for *_, path in sorted(numbered)]


def v0_event_files(folder: Path) -> list[Path]:
    """A V0 session's event files in order (in its ``events/``, or ``folder`` itself when it
    is that ``events/``)."""
    events = folder / "events" if folder.name != "events" else folder
    if not events.is_dir():
        return []
    numbered = []
    for path in events.iterdir():
        match = V0_EVENT_FILE.fullmatch(path.name)
        if match and path.is_file():
            numbered.append((int(match[1]), path))
    return [path for _, path in sorted(numbered)]


def holds_state(folder: Path) -> bool:
    """Whether ``folder`` holds a conversation's state: its ``events/``, or its
    ``base_state.json`` (written when the conversation is created, before any event)."""
    return (folder / "events").is_dir() or (folder / BASE_STATE).is_file()


def conversation_of(holder: Path, root: Path) -> Path:
    """The conversation folder a file in ``holder`` belongs to: above its ``events/`` and the
    agent server's ``event_service/``, never above ``root`` (the folder imported)."""
    for name in ("events", "event_service"):
        holder = holder.parent if holder.name == name and holder != root else holder
    return holder


@dataclass(frozen=True)
class State:
    """What a conversation's ``base_state.json`` says of its run: the final status
    (:data:`.outcomes.V1_STATUS`), its agent's model and the model that wrote each response."""

    status: str | None = None
    model: str | None = None
    by_response: dict[str, str] = field(default_factory=dict)


def read_state(folder: Path, options: ImportOptions) -> State:
    """What a conversation's ``base_state.json`` (beside its ``events/``) records: its
    ``execution_status`` (``agent_status`` before late 2025), as a state update's (finished,
    error, stuck, paused), and its models (:func:`_state_models`). The SDK writes no event when
    a local conversation gets stuck (the agent server does: a state update): only the state says
    so. A state that is no JSON object is not read, with a warning (the events still are)."""
    events = _events_folder(folder)
    state = (events.parent if events != folder else folder) / BASE_STATE
    if not state.is_file():
        return State()
    try:
        document = load_json(read_raw(state), state)
    except AbwInputError as error:
        where = f":{error.line}" if error.line else ""
        options.warn(f"{folder.name}: {BASE_STATE}{where} not read: {error.message}")
        return State()
    state_of = as_dict(document)
    value = state_of.get("execution_status", state_of.get("agent_status"))
    status = V1_STATUS.get(value) if isinstance(value, str) else None
    return State(status, *_state_models(state_of))


def _state_models(state: dict[str, Any]) -> tuple[str | None, dict[str, str]]:
    """The models a conversation's state names, plain identifiers: its agent's
    (``agent.llm.model``; not an ACP agent's placeholder ``acp-managed``), and, by response id,
    the one each model call of an LLM the agent no longer uses made (``switch_llm`` to another
    ``usage_id``, a profile's): ``stats.usage_to_metrics.<usage_id>.token_usages``. The agent's
    own usage id's are left out: its metrics keep the model they were made for, the first,
    across a ``switch_llm`` under the same usage id (or a resume with another model)."""
    agent_llm = as_dict(as_dict(state.get("agent")).get("llm"))
    model = identifier(agent_llm.get("model"))
    by_response: dict[str, str] = {}
    for usage_id, metrics in as_dict(as_dict(state.get("stats")).get("usage_to_metrics")).items():
        usages = (
            as_dict(metrics).get("token_usages") if usage_id != agent_llm.get("usage_id") else []
        )
        for usage in map(as_dict, usages if isinstance(usages, list) else []):
            response, name = usage.get("response_id"), identifier(usage.get("model"))
            if isinstance(response, str) and response and name and name != _ACP_MODEL:
                by_response.setdefault(response, name)
    return (None if model == _ACP_MODEL else model), by_response
