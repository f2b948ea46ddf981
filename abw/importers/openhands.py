"""OpenHands trajectories: V0 action/observation events and V1 (software-agent-sdk) events.

**V0** (a JSON array of ``{id, source, action|observation, ...}``): each agent action that calls a
tool (``run``, ``edit``, ``read``, ``browse``, ``finish``, ...) is a tool span named by
``tool_call_metadata.function_name`` (else the action), paired with the observation whose ``cause``
is its id. The status comes from the observation: ``error`` or a non-zero ``exit_code`` -> error;
exit ``-1`` that "timed out" or has "no new output" -> timeout; ``user_rejected`` -> rejected; a
failed browser action (``extras.error``) -> error; the controller's "not executed" error for the
call in flight followed by the ``stopped`` state -> interrupted; none -> incomplete. In
confirmation mode an action is written twice (awaiting confirmation, then, with a new id, confirmed
or rejected): one call. LLM spans are implicit: one per distinct ``model_response.id`` (placed
before its first action), plus agent messages, all named by the run's model (a message before the
first ``model_response``: the model that one names; a run with none: the model its evaluation's
record names, as below, else ``llm``); a run that records no ``tool_call_metadata`` at all (CodeAct
before function calling) has one llm span before each agent action, the model call it answered.
Event order is file order; OpenDevin's history of ``[action, observation]`` pairs (mid-2024) is
read as those events in order. A ``condensation`` (and V1's ``Condensation``) is a ``memory`` span
``compaction``: ``trigger`` ``auto``, or ``other`` after a ``condensation_request``
(``CondensationRequest``), and ``forgotten_events``, a count; the condenser's own model call is no
llm span (no agent turn).

**V1** (``{kind: "ActionEvent"|"ObservationEvent"|"MessageEvent"|..., ...}``, the
software-agent-sdk's events) means the same: an ``ActionEvent`` is a tool span named by its
``tool_name`` (else its action's ``kind``), paired with the ``ObservationEvent`` (or
``AgentErrorEvent``, ``UserRejectObservation``) whose ``action_id`` is its id or whose
``tool_call_id`` is its own; ``is_error``/``error`` -> error, the exit code as in V0; an ACP
server's call (``ACPToolCallEvent``s of one ``tool_call_id``) is a tool span named by its
``tool_kind``, ended by its ``completed`` or ``failed`` event. One llm span
per distinct ``llm_response_id``, plus agent messages without one, named by the model an
evaluation's record names: ``metadata.llm.model`` (V1), ``metadata.llm_config.model``
(V0), ``metadata.model_name`` or gorilla's ``model_id`` (OpenDevin, mid-2024); a conversation's
folder by the model its ``base_state.json`` names: its agent's, or, for a response of an LLM
it switched from (another usage id), that one's usage record's (else ``llm``). ``FinishAction``
and an agent message (the conversation waits for the user) end it in success. Nothing of an
action, an observation or a message is read but its kind and status fields: they are hashed
whole. A folder of
``event-NNNNN-<id>.json`` files (one event a file, as a conversation persists them, in
``<conversation>/events/``, or the agent server's ``<conversation>/event_service/events/`` of 2025;
of its ``base_state.json`` the ``execution_status`` is read, the last word on the final
status (a local conversation that got stuck writes no event), and its models
(``agent.llm.model``, ``stats.usage_to_metrics.*.token_usages[].model`` by ``response_id``);
``meta.json`` is not read; one with no event file yet, just created, is skipped with a warning)
is one conversation, and so is what
``openhands --headless --json`` prints: the same events one a line (but the ``SystemPromptEvent``),
among the console lines the CLI prints around them (its banner, ``Agent is working``, the
conversation summary, the id to resume it with), which are not read. A file is read so when its
first line that opens a JSON object is a V1 event; every such line must then be one (a cut-off last
line is skipped, with a warning, as in any JSON Lines file).

An evaluation's output (``output.jsonl``: one ``EvalOutput`` per line, ``{instance_id, history,
error, ...}``; also one alone in a ``.json``) gives a trace per instance: its ``scenario_id`` is
the ``instance_id`` (the task; ``--scenario-id`` does not override it; OpenDevin's benchmarks of
mid-2024 named it ``task_id``, ``question_id``, ``qid``, ``test_case_id`` or ``id``), and a run
that ended in an ``error`` (a runtime error, the iteration limit) is ``final_status: error``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from abw.errors import AbwInputError
from abw.hashing import sha256_hex
from abw.importers.base import Importer, ImportOptions
from abw.importers.common import (
    identifier,
    instance_scenario,
    task_id,
    warn_instance_scenario,
)
from abw.importers.rawio import (
    as_dict,
    held_fields,
    json_body,
    jsonl_records,
    load_json,
    read_raw,
)
from abw.importers.spans import ABSENT, Draft, finish, make_trace, ms_between, parse_time
from abw.jsonlocate import value_lines
from abw.limits import MAX_LINE_BYTES, check_line
from abw.reader import MalformedJson, parse_json

if TYPE_CHECKING:
    from datetime import datetime

    from abw.models.trace import Span, Trace

_NOT_TOOLS = {"message", "change_agent_state", "system", "recall", "null", "condensation"}
_SHELL = {"run", "execute_bash", "run_ipython", "execute_ipython_cell"}
_STATE_STATUS = {
    "finished": "success",
    "awaiting_user_input": "success",
    "error": "error",
    "stopped": "cancelled",
    "paused": "cancelled",
    "rejected": "cancelled",
}
#: The ``error_id`` of the error the V0 controller answers the call in flight with when it
#: stops (the stop button, the session closed) or fails (a runtime crash).
_NOT_EXECUTED = "AGENT_ERROR$ERROR_ACTION_NOT_EXECUTED"
REMOVED_FIELDS = (
    "message",
    "args",
    "content",
    "extras",
    "tool_call_metadata.model_response",
)
#: What an evaluation's output holds around the events, never read (the task's text, the patch,
#: the error, the model's answer ...): EvalOutput's fields (``llm_completions``, the raw model
#: calls, in late 2024), then those of OpenDevin's benchmarks of mid-2024, which wrote their own
#: records (``final_message``, ``messages``: logic_reasoning; ``text``: gorilla, toolqa; ...).
INSTANCE_FIELDS = (
    "instruction",
    "instance",
    "test_result",
    "metadata",
    "metrics",
    "error",
    "llm_completions",
    "final_message",
    "messages",
    "text",
    "generated",
    "biocoder_instance",
    "swe_instance",
    "git_patch",
    "agent_answer",
    "final_answer",
    "ground_truth",
    "eval_output",
    "eval_script",
)
#: What an evaluation's output names its task by (the first it holds): EvalOutput's
#: ``instance_id``; in a record with a ``history``, also what OpenDevin's benchmarks of mid-2024
#: wrote instead: ``task_id`` (bird, humanevalfix), ``question_id`` (gorilla), ``qid`` (toolqa),
#: ``test_case_id`` (biocoder), ``id`` (logic_reasoning, mint).
_TASK_KEYS = ("instance_id",)
_OPENDEVIN_TASK_KEYS = ("task_id", "question_id", "qid", "test_case_id", "id")

#: Where an evaluation's record names its model: V1 benchmarks' ``metadata.llm.model``, V0's
#: EvalMetadata ``metadata.llm_config.model``, OpenDevin's of mid-2024 ``metadata.model_name``,
#: and gorilla's ``model_id``.
_MODEL_PATHS = (
    ("metadata", "llm", "model"),
    ("metadata", "llm_config", "model"),
    ("metadata", "model_name"),
    ("model_id",),
)

#: V1 event kinds that do not end in ``Event``.
_V1_KINDS = {"UserRejectObservation", "Condensation", "CondensationRequest"}
#: The content a V1 event may hold (hashed or never read), for ``redaction.removed_fields``.
V1_REMOVED_FIELDS = (
    "action",
    "observation",
    "tool_call",
    "thought",
    "reasoning_content",
    "thinking_blocks",
    "responses_reasoning_item",
    "reasoning_details",
    "summary",
    "llm_message",
    "extended_content",
    "system_prompt",
    "tools",
    "error",
    "rejection_reason",
    "detail",
    "title",
    "raw_input",
    "raw_output",
    "content",
)
_V1_SHELL = {"ExecuteBashAction", "TerminalAction", "BashAction"}
#: The V1 events between the errors an interrupt writes for the calls it cuts short (the
#: SDK's ``AgentErrorEvent``, an ACP server's call closed ``failed``) and its ``InterruptEvent``.
_CUT_KINDS = {
    "AgentErrorEvent",
    "ACPToolCallEvent",
    "ConversationStateUpdateEvent",
    "InterruptEvent",
}
#: The ACP tool kinds that read (an ``ACPToolCallEvent``'s ``tool_kind``): V0's read, browse.
_ACP_RETRIEVERS = {"read", "search", "fetch"}
_V1_SHELL_TOOLS = _SHELL | {"terminal"}
#: V1 conversation execution statuses, as V0's agent states.
_V1_STATUS = {"finished": "success", "error": "error", "stuck": "error", "paused": "cancelled"}
#: A conversation's event file: ``event-00012-<event id>.json`` (the SDK's EVENT_NAME_RE).
_EVENT_FILE = re.compile(r"event-(\d{5,})-[0-9a-fA-F-]{8,}\.json")
#: What a conversation's folder holds beside ``events/``: its state, the agent server's record
#: of it (``meta.json``: the agent's config, its masked secrets); neither is a trajectory (of
#: the state only its ``execution_status`` and models are read: :func:`_state`).
_STATE_FILES = {"base_state.json", "meta.json"}
#: The key of a document that holds its events.
_HISTORY_KEYS = ("events", "history", "trajectory")
#: A conversation's state, written when it is created (its first event comes later).
_BASE_STATE = "base_state.json"
#: A line that opens a JSON object (``openhands --headless --json`` prints an event a line).
_OBJECT_LINE = re.compile(rb"^[ \t]*\{", re.MULTILINE)
#: The model an ACP agent's state names until its server says which it runs: no model.
_ACP_MODEL = "acp-managed"


def _is_v0(event: dict[str, Any]) -> bool:
    """A V0 event: ``action`` or ``observation`` a string, with its ``source`` and ``id``."""
    kind = event.get("action", event.get("observation"))
    return isinstance(kind, str) and "source" in event and "id" in event


def _is_v1(event: dict[str, Any]) -> bool:
    """A V1 event: its ``kind`` names an event class."""
    kind = event.get("kind")
    return isinstance(kind, str) and (kind.endswith("Event") or kind in _V1_KINDS)


def _pairs(document: Any) -> bool:
    """OpenDevin's history (0.x of mid-2024): ``[action, observation]`` pairs, not events."""
    return (
        isinstance(document, list)
        and bool(document)
        and all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(e, dict) for e in p)
            for p in document
        )
    )


def _events(
    document: Any, path: Path, line_of: Callable[[tuple[str | int, ...]], int | None]
) -> tuple[list[dict[str, Any]], tuple[str, ...], bool, bool]:
    """The events, the key of the document they are under (``()`` for a bare array), whether
    they are V1 events, and whether they came in ``[action, observation]`` pairs (event ``i``
    is then in pair ``i // 2``); a trajectory in which no event is OpenHands' is refused."""
    prefix: tuple[str, ...] = ()
    if isinstance(document, dict):
        if path.name == _BASE_STATE and not any(k in document for k in _HISTORY_KEYS):
            raise AbwInputError(
                "an OpenHands conversation's state, not its events: import the conversation's "
                "folder (its events/event-*.json)",
                file=path,
                line=line_of(()),
            )
        if _is_v1(document):
            raise AbwInputError(
                "one event of an OpenHands conversation: import the folder that holds its "
                "event-*.json files",
                file=path,
                line=line_of(()),
                field="kind",
            )
        for key in _HISTORY_KEYS:
            if isinstance(document.get(key), list):
                document, prefix = document[key], (key,)
                break
    paired = _pairs(document)
    if paired:
        document = [event for pair in document for event in pair]
    if not isinstance(document, list) or not all(isinstance(e, dict) for e in document):
        raise AbwInputError(
            "not an OpenHands trajectory: expected a JSON array of events",
            file=path,
            line=line_of(prefix),
        )
    v1 = any(_is_v1(e) for e in document)
    if document and not v1 and not any(_is_v0(e) for e in document):
        raise AbwInputError(
            "not an OpenHands trajectory: no OpenHands event (V0: action or observation with "
            "source and id; V1: a kind ending in Event)",
            file=path,
            line=line_of(prefix),
            field=".".join(prefix) or None,
        )
    return document, prefix, v1, paired


def _event_stream(
    raw: bytes, path: Path, warnings: list[str]
) -> tuple[list[dict[str, Any]], list[int]] | None:
    """The V1 events ``openhands --headless --json`` printed one a line (its ``json_callback``:
    each event's ``model_dump()``) and the line of each, or None when the first line that opens
    a JSON object is no V1 event. The lines that open none are the CLI's console output."""
    found = _OBJECT_LINE.search(raw)
    if found is None:
        return None
    start = found.start()
    end = raw.find(b"\n", start)
    first_line = raw[start : end if end >= 0 else len(raw)]
    number = raw.count(b"\n", 0, start) + 1
    if len(first_line) > MAX_LINE_BYTES:
        return None  # (a document on one line, not an event a line)
    try:
        first = parse_json(first_line, path, first_line=number)
    except AbwInputError:
        return None
    lines = raw.split(b"\n")
    written = [n for n, line in enumerate(lines) if line.strip()]
    if not isinstance(first, dict) or not _is_v1(first) or len(written) < 2:
        return None  # (one event alone, on one line: one file of a conversation's folder)
    events, numbers = [], []
    for n in written:
        if not lines[n].lstrip().startswith(b"{"):
            continue  # the CLI's console output
        check_line(lines[n], path, n + 1)
        try:
            event = parse_json(lines[n], path, first_line=n + 1)
        except MalformedJson:
            if n != written[-1]:
                raise
            warnings.append(f"{path.name}:{n + 1}: skipped a cut-off last line")
            continue
        if not isinstance(event, dict) or not _is_v1(event):
            raise AbwInputError(
                "not an OpenHands event among the events `openhands --headless --json` printed "
                "one a line: expected an object whose kind ends in Event",
                file=path,
                line=n + 1,
                field="kind",
            )
        events.append(event)
        numbers.append(n + 1)
    return events, numbers


def _events_folder(folder: Path) -> Path:
    """Where a conversation's event files are: ``events/`` (the CLI's, the agent server's),
    ``event_service/events/`` (the agent server's of 2025), else ``folder`` itself."""
    for events in (folder / "events", folder / "event_service" / "events"):
        if events.is_dir():
            return events
    return folder


def _event_files(folder: Path) -> list[Path]:
    """A conversation's event files in order (in :func:`_events_folder`)."""
    events = _events_folder(folder)
    numbered = []
    for path in events.iterdir():
        match = _EVENT_FILE.fullmatch(path.name)
        if match and path.is_file():
            numbered.append((int(match[1]), path.name, path))
    return [path for *_, path in sorted(numbered)]


def _holds_state(folder: Path) -> bool:
    """Whether ``folder`` holds a conversation's state: its ``events/``, or its
    ``base_state.json`` (written when the conversation is created, before any event)."""
    return (folder / "events").is_dir() or (folder / _BASE_STATE).is_file()


def _conversation_of(holder: Path, root: Path) -> Path:
    """The conversation folder a file in ``holder`` belongs to: above its ``events/`` and the
    agent server's ``event_service/``, never above ``root`` (the folder imported)."""
    for name in ("events", "event_service"):
        holder = holder.parent if holder.name == name and holder != root else holder
    return holder


@dataclass(frozen=True)
class _State:
    """What a conversation's ``base_state.json`` says of its run: the final status
    (:data:`_V1_STATUS`), its agent's model and the model that wrote each response."""

    status: str | None = None
    model: str | None = None
    by_response: dict[str, str] = field(default_factory=dict)


def _state(folder: Path, options: ImportOptions) -> _State:
    """What a conversation's ``base_state.json`` (beside its ``events/``) records: its
    ``execution_status`` (``agent_status`` before late 2025), as a state update's (finished,
    error, stuck, paused), and its models (:func:`_state_models`). The SDK writes no event when
    a local conversation gets stuck (the agent server does: a state update): only the state says
    so. A state that is no JSON object is not read, with a warning (the events still are)."""
    events = _events_folder(folder)
    state = (events.parent if events != folder else folder) / _BASE_STATE
    if not state.is_file():
        return _State()
    try:
        document = load_json(read_raw(state), state)
    except AbwInputError as error:
        where = f":{error.line}" if error.line else ""
        options.warn(f"{folder.name}: {_BASE_STATE}{where} not read: {error.message}")
        return _State()
    state_of = as_dict(document)
    value = state_of.get("execution_status", state_of.get("agent_status"))
    status = _V1_STATUS.get(value) if isinstance(value, str) else None
    return _State(status, *_state_models(state_of))


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


def _model(document: Any) -> str | None:
    """The model an evaluation's record names, a plain identifier (the first of
    :data:`_MODEL_PATHS` that holds one), else None (V1 events, V0 text actions name none)."""
    for path in _MODEL_PATHS:
        value = document
        for key in path:
            value = as_dict(value).get(key)
        if name := identifier(value):
            return name
    return None


class OpenHandsImporter(Importer):
    name: ClassVar[str] = "openhands"
    platform: ClassVar[str] = "openhands"
    export_format: ClassVar[str] = "openhands-trajectory-json"
    help: ClassVar[str] = (
        "OpenHands trajectories (V0: JSON array of action/observation events; V1: "
        "software-agent-sdk events, also a conversation's folder of event-*.json files) and "
        "evaluation output.jsonl (a run per instance; the instance id is its scenario). "
        "--argument-fields reads the model's function-call arguments, else the action's."
    )
    suffixes: ClassVar[tuple[str, ...]] = (".json", ".jsonl")
    supports_argument_fields: ClassVar[bool] = True

    def discover(self, folder: Path) -> list[Path]:
        """The exports in ``folder``; a V1 conversation's event files are one unit, their
        conversation's folder (``<id>/events/``, the agent server's ``<id>/event_service/
        events/``); its ``base_state.json`` and the agent server's ``meta.json`` are no
        trajectories."""
        units: set[Path] = set()
        files: list[Path] = []
        for path in super().discover(folder):
            if _EVENT_FILE.fullmatch(path.name) or (
                path.name in _STATE_FILES and _holds_state(path.parent)
            ):  # (a conversation with no event yet is one too: it is skipped, with a warning)
                units.add(_conversation_of(path.parent, folder))
            else:
                files.append(path)
        return sorted([*files, *units])

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        if path.is_dir():  # a V1 conversation: one event a file
            trace = self._conversation(path, options)
            return [] if trace is None else [trace]
        raw = read_raw(path)
        source_hash = sha256_hex(raw)  # (the format has no id: a trace's id is made from it)
        trace_id = f"openhands-{source_hash[:16]}"
        stream = _event_stream(json_body(raw, path), path, options.warnings)
        if stream is not None:  # ``openhands --headless --json``: one conversation
            events, lines = stream

            def line_of(location: tuple[str | int, ...]) -> int | None:
                return lines[location[0]] if location and isinstance(location[0], int) else None

            return [self._trace(events, source_hash, trace_id, line_of, path, options)]
        if path.suffix == ".jsonl":  # an evaluation's output: one instance a line
            traces = [
                self._trace(
                    document,
                    source_hash,
                    f"{trace_id}-{line}",
                    lambda location, line=line: line,
                    path,
                    options,
                )
                # (an empty output.jsonl, of an evaluation that finished no instance, is refused)
                for line, document in jsonl_records(json_body(raw, path), path, options.warnings)
            ]
        else:
            document = load_json(raw, path)
            lines = value_lines(raw, 2 if isinstance(document, dict) else 1)
            traces = [self._trace(document, source_hash, trace_id, lines.get, path, options)]
        warn_instance_scenario(options, traces, path.name)
        return traces

    def _conversation(self, folder: Path, options: ImportOptions) -> Trace | None:
        """The trace of a V1 conversation persisted as a folder of event files; each span
        points at its event's file. A conversation just created (its ``base_state.json``, no
        event file yet) is no run yet: None, with a warning."""
        files = _event_files(folder)
        if not files and any(_holds_state(f) for f in (folder, folder / "event_service")):
            options.warn(
                f"{folder.name}: an OpenHands conversation with no event yet (its "
                f"{_BASE_STATE}, no events/event-*.json): skipped"
            )
            return None
        if not files:
            raise AbwInputError("no OpenHands event files (event-NNNNN-<id>.json)", file=folder)
        raws = [read_raw(path) for path in files]
        events = []
        for path, raw in zip(files, raws, strict=True):
            event = load_json(raw, path)
            if not isinstance(event, dict) or not _is_v1(event):
                raise AbwInputError(
                    "not an OpenHands event: expected an object whose kind ends in Event",
                    file=path,
                    field="kind",
                )
            events.append(event)
        source_hash = sha256_hex(b"\n".join(raws))
        trace_id = f"openhands-{source_hash[:16]}"
        names = [path.name for path in files]
        state = _state(folder, options)
        return self._trace(
            events, source_hash, trace_id, lambda _: 1, folder, options, names, state
        )

    def _trace(
        self,
        document: Any,
        source_hash: str,
        trace_id: str,
        line_of: Callable[[tuple[str | int, ...]], int | None],
        path: Path,
        options: ImportOptions,
        files: list[str] | None = None,
        state: _State | None = None,
    ) -> Trace:
        """The trace of one trajectory (``document``; ``line_of``: the line of a location in
        it; ``source_hash``: the file's; ``files``: each event's own file, if any; ``state``:
        what its conversation's state records, if any: its final status is the last word)."""
        events, prefix, v1, paired = _events(document, path, line_of)
        if isinstance(document, dict):
            keys = _TASK_KEYS + (_OPENDEVIN_TASK_KEYS if "history" in document else ())
            options = instance_scenario(options, task_id(document, keys))
        if v1:
            state = state or _State()
            run = _V1Run(options, path, _model(document) or state.model, state.by_response)
            run.read(events)
            drafts, final_status, final_text = run.drafts, run.final_status, run.final_text
            final_status = state.status or final_status
            removed = held_fields(events, V1_REMOVED_FIELDS)
        else:
            drafts, final_status, final_text = self._v0(events, options, path, _model(document))
            removed = held_fields(events, REMOVED_FIELDS)
        for draft in drafts:
            at = draft.sort_key[0] // 2 if paired else draft.sort_key[0]
            draft.line = line_of((*prefix, at))  # the event (or pair) it came from
            if draft.outcome is None:
                draft.outcome = "incomplete"
        if isinstance(document, dict):
            removed = sorted({*removed, *held_fields(document, INSTANCE_FIELDS)})
            error = document.get("error")
            if isinstance(error, str) and error.strip():
                final_status = "error"  # the run ended in an error (a crash, the iteration limit)
        spans = finish(drafts, path)
        if files is not None:
            _point_at_files(spans, drafts, files)
        return make_trace(
            platform=self.platform,
            export_format=self.export_format,
            source_hash=source_hash,
            trace_id=trace_id,
            spans=spans,
            options=options,
            final_status=final_status,
            final_output=final_text,
            final_text=final_text,
            removed_fields=removed,
        )

    def _v0(
        self,
        events: list[dict[str, Any]],
        options: ImportOptions,
        path: Path,
        configured: str | None,
    ) -> tuple[list[Draft], str, str | None]:
        """The drafts, final status and final text of a V0 trajectory; an llm span is named by
        its model response's ``model``, else the run's first, else ``configured`` (the model its
        evaluation names), else ``llm``."""
        drafts: list[Draft] = []
        calls: dict[Any, Draft] = {}
        by_tool_call: dict[str, Draft] = {}
        responses: set[str] = set()
        final_status, final_text, model = "unknown", None, None
        unnamed: list[Draft] = []  # llm spans before the run's first model_response
        first_model, requested = None, False
        pending: Draft | None = None  # a call awaiting the user's confirmation
        cut: list[Draft] = []  # calls just answered "not executed": a stop writes one a call
        # a run before function calling (CodeAct's text actions, OpenDevin): no model response
        # is recorded, and every agent action answered one model call
        text_actions = not any("tool_call_metadata" in event for event in events)
        for index, event in enumerate(events):
            when = parse_time(event.get("timestamp"))
            meta = as_dict(event.get("tool_call_metadata"))
            response = as_dict(meta.get("model_response"))
            action = event.get("action")
            if event.get("observation") not in {"error", "agent_state_changed"}:
                cut.clear()
            if action == "condensation_request":  # (the agent's, on a context-window error)
                requested = True
                continue
            if action == "condensation":
                drafts.append(_compaction(index, event, when, requested))
                requested = False
                continue
            if action == "message" and event.get("source") == "user":
                final_status = "unknown"  # the user sets the run going again (as in V1)
                continue
            if isinstance(action, str) and event.get("source") == "agent":
                if pending is not None and _decided(event, pending):  # (confirmation mode)
                    calls[repr(event.get("id"))], pending.started_at, pending = pending, when, None
                    continue
                response_id = response.get("id")
                model = identifier(response.get("model")) or model
                first_model = first_model or model
                if isinstance(response_id, str) and response_id not in responses:
                    responses.add(response_id)
                    llm = Draft((index, 0), "llm", str(model or "llm"), "ok", span_id=response_id)
                    if model is None:
                        unnamed.append(llm)
                    llm.output = response.get("choices", ABSENT)
                    llm.started_at = when
                    usage = as_dict(response.get("usage"))
                    for source, target in (
                        ("prompt_tokens", "input_tokens"),
                        ("completion_tokens", "output_tokens"),
                    ):
                        if isinstance(usage.get(source), int):
                            llm.attributes[target] = usage[source]
                    drafts.append(llm)
                if action == "message":
                    content = as_dict(event.get("args")).get("content")
                    final_text = content if isinstance(content, str) else final_text
                    if response_id is None:
                        llm = Draft((index, 0), "llm", str(model or "llm"), "ok")
                        llm.output = content if content is not None else ABSENT
                        llm.started_at = when
                        drafts.append(llm)
                        if model is None:
                            unnamed.append(llm)
                    continue
                if action in _NOT_TOOLS:
                    continue
                if text_actions:  # (each action of such a run is the answer of one model call)
                    llm = Draft((index, 0), "llm", str(model or "llm"), "ok")
                    llm.output, llm.started_at = event.get("args", ABSENT), when
                    drafts.append(llm)
                    if model is None:
                        unnamed.append(llm)
                draft = self._action(event, index, action, meta, when, options, path)
                drafts.append(draft)
                calls[repr(event.get("id"))] = draft
                if _confirmation(event) == "awaiting_confirmation":
                    pending = draft
                if isinstance(meta.get("tool_call_id"), str):
                    by_tool_call[meta["tool_call_id"]] = draft
                if action == "finish":  # the terminal tool call: it has no observation
                    draft.outcome = "ok"
                    final_status = "success"
                    outputs = as_dict(event.get("args")).get("final_thought") or as_dict(
                        event.get("args")
                    ).get("outputs")
                    final_text = outputs if isinstance(outputs, str) else final_text
            elif "observation" in event:
                observation = str(event.get("observation"))
                if observation == "agent_state_changed":
                    state = as_dict(event.get("extras")).get("agent_state")
                    final_status = _STATE_STATUS.get(str(state), final_status)
                    _stopped(cut, state)
                    continue
                draft = calls.get(repr(event.get("cause")))
                if draft is None:
                    draft = by_tool_call.get(str(meta.get("tool_call_id")))
                if draft is None or draft.outcome is not None:
                    continue
                _observe(draft, event, observation, when)
                if observation == "error" and _not_executed(event):
                    cut.append(draft)
        for llm in unnamed:  # one run, one model: its first model_response names it
            llm.name = str(first_model or configured or llm.name)
        return drafts, final_status, final_text

    def _action(
        self,
        event: dict[str, Any],
        index: int,
        action: str,
        meta: dict[str, Any],
        when: Any,
        options: ImportOptions,
        path: Path,
    ) -> Draft:
        # only plain identifiers become a name or an attribute (as in V1): an action kind
        name = identifier(meta.get("function_name")) or identifier(action) or "tool"
        args = event.get("args", ABSENT)
        draft = Draft((index, 1), "tool", name, None, args, span_id=_id(event))
        if identifier(action):
            draft.attributes["action"] = action
        draft.started_at = when
        if action == "delegate":
            draft.type = "handoff"
        if action in {"read", "browse", "browse_interactive"}:
            draft.type = "retriever"
        if action in _SHELL or name in _SHELL:
            command = args.get("command") or args.get("code") if isinstance(args, dict) else None
            draft.mark_shell(options.labels, command)
        called = _function_arguments(meta) if meta.get("function_name") else None
        draft.keep_arguments(options.argument_fields, args if called is None else called, path)
        return draft


def _confirmation(event: dict[str, Any]) -> Any:
    """A V0 action's ``confirmation_state`` (confirmation mode), if any."""
    return as_dict(event.get("args")).get("confirmation_state")


def _decided(event: dict[str, Any], pending: Draft) -> bool:
    """Whether ``event`` is the call ``pending`` awaited confirmation for, added again (with a
    new id) once the user confirmed or rejected it: the same call, not a second one."""
    return (
        pending.outcome is None
        and _confirmation(event) in {"confirmed", "rejected"}
        and pending.attributes.get("action") == event.get("action")
    )


def _not_executed(event: dict[str, Any]) -> bool:
    """An error observation the controller wrote for the call in flight when it stopped or
    failed (``_reset``; its ``error_id`` since 2025-04: ``..._NOT_EXECUTED``, from 2025-08
    ``..._NOT_EXECUTED_STOPPED`` or ``..._NOT_EXECUTED_ERROR``)."""
    error_id = as_dict(event.get("extras")).get("error_id")
    return isinstance(error_id, str) and error_id.startswith(_NOT_EXECUTED)


def _stopped(cut: list[Draft], state: Any) -> None:
    """A V0 agent state change: when the agent is stopped (the stop button, the session
    closed), the calls just answered "not executed" (:func:`_not_executed`) were cut short by
    it: interrupted, as V1's ``AgentErrorEvent`` before an ``InterruptEvent``."""
    if state == "stopped":
        for draft in cut:
            draft.outcome = "interrupted"
    cut.clear()


def _point_at_files(spans: list[Span], drafts: list[Draft], files: list[str]) -> None:
    """Each span's source: the file of the event it came from (``finish`` orders the drafts
    by their sort key, the event's index first)."""
    from abw.models.trace import SourceRef

    for span, draft in zip(spans, sorted(drafts, key=lambda d: d.sort_key), strict=True):
        span.source_ref = SourceRef(file=files[draft.sort_key[0]], line=1)


def _function_arguments(meta: dict[str, Any]) -> Any:
    """The arguments the model sent with the function call ``tool_call_metadata`` names (the
    ones that match the span's ``function_name``), or ``None`` when the response lacks it."""
    response = as_dict(meta.get("model_response"))
    for choice in response.get("choices") or []:
        for call in as_dict(as_dict(choice).get("message")).get("tool_calls") or []:
            if as_dict(call).get("id") == meta.get("tool_call_id"):
                return as_dict(call.get("function")).get("arguments")
    return None


def _compaction(index: int, event: dict[str, Any], when: Any, requested: bool) -> Draft:
    """A context condensation (V1 ``Condensation``, V0 ``condensation``) as the ``memory`` span
    ``compaction`` that a Claude Code or Codex compaction is: ``trigger`` ``auto`` (the
    condenser's own limit) or ``other`` (asked for: a context-window error, a user's request),
    ``forgotten_events`` (how many events left the model's view; the ids are not kept), its
    input the summary (hashed). The condenser's model call is part of it, not an llm span: an
    agent turn is a call whose answer the agent acts on (as Claude's summariser is left out)."""
    args = as_dict(event.get("args")) if "action" in event else event
    draft = Draft((index, 1), "memory", "compaction", "ok", args.get("summary", ABSENT))
    draft.span_id, draft.started_at = _id(event), when
    draft.attributes["trigger"] = "other" if requested else "auto"
    forgotten = args.get("forgotten_event_ids")
    start, end = args.get("forgotten_events_start_id"), args.get("forgotten_events_end_id")
    if isinstance(forgotten, list) and forgotten:
        draft.attributes["forgotten_events"] = len(forgotten)
    elif _plain_int(start) and _plain_int(end) and end >= start:
        draft.attributes["forgotten_events"] = end - start + 1  # (V0: a range of event ids)
    return draft


def _plain_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _id(event: dict[str, Any]) -> str | None:
    value = event.get("id")
    if isinstance(value, str):
        value = identifier(value)
    return f"event-{value}" if isinstance(value, int | str) else None


def _timed_out(code: Any, suffix: Any) -> bool:
    """A command the shell gave up waiting for: exit ``-1``, "no new output" or "timed out"."""
    text = str(suffix)
    return code == -1 and ("no new output" in text or "timed out" in text)


def _observe(draft: Draft, event: dict[str, Any], observation: str, when: Any) -> None:
    extras = as_dict(event.get("extras"))
    metadata = as_dict(extras.get("metadata"))
    code = _exit_code(extras)  # (before 2025 ``extras.exit_code``; since, its ``metadata``'s)
    failed = event.get("success") is False or extras.get("error") is True  # (a failed browse)
    draft.output = {"content": event.get("content"), "observation": observation}
    draft.duration_ms = ms_between(draft.started_at, when)
    if isinstance(code, int) and not isinstance(code, bool):
        draft.attributes["exit_code"] = code
    if observation == "error":
        draft.outcome = "error"
    elif observation == "user_rejected":
        draft.outcome = "rejected"
    elif isinstance(code, int) and _timed_out(code, metadata.get("suffix")):
        draft.outcome = "timeout"
    elif (isinstance(code, int) and code != 0) or failed:
        draft.outcome = "error"
    else:
        draft.outcome = "ok"


# ----------------------------------------------------------------- V1 (software-agent-sdk)


def _exit_code(observation: dict[str, Any]) -> int | None:
    """A command's exit code: the observation's own, else its ``metadata``'s."""
    for value in (
        observation.get("exit_code"),
        as_dict(observation.get("metadata")).get("exit_code"),
    ):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _v1_outcome(observation: dict[str, Any], code: int | None) -> str:
    """The outcome of a tool call from its V1 observation (V0's rules)."""
    error = observation.get("error")
    if observation.get("is_error") is True or error is True:
        return "error"
    if isinstance(error, str) and error.strip():
        return "error"
    suffix = as_dict(observation.get("metadata")).get("suffix")
    if observation.get("timeout") is True or _timed_out(code, suffix):
        return "timeout"
    return "error" if code not in (None, 0) else "ok"


def _text(message: dict[str, Any]) -> str | None:
    """The text of an ``llm_message``: its text parts joined, or its string content."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = [as_dict(p).get("text") for p in content] if isinstance(content, list) else []
    texts = [t for t in parts if isinstance(t, str)]
    return "\n".join(texts) if texts else None


def _retriever(kind: str | None, action: dict[str, Any]) -> bool:
    """A call that reads (V0's ``read`` and ``browse``): a file viewed, a browser action."""
    if kind in {"FileEditorAction", "StrReplaceEditorAction"}:
        return action.get("command") == "view"
    return bool(kind) and str(kind).startswith("Browser")


@dataclass
class _V1Run:
    """Reads one V1 conversation's events, in file order, into drafts and a final status."""

    options: ImportOptions
    path: Path
    model: str | None
    by_response: dict[str, str]  # llm_response_id -> the model that wrote it
    drafts: list[Draft] = field(default_factory=list)
    calls: dict[str, Draft] = field(default_factory=dict)  # ActionEvent id -> its span
    by_tool_call: dict[str, Draft] = field(default_factory=dict)
    acp: dict[str, Draft] = field(default_factory=dict)  # an ACP server's tool_call_id -> span
    responses: dict[str, Draft] = field(default_factory=dict)  # llm_response_id -> llm span
    final_status: str = "unknown"
    final_text: str | None = None
    requested: bool = False  # a CondensationRequest waits for its Condensation
    #: the calls answered by the ``AgentErrorEvent``s just read (nothing but state updates
    #: between them): the errors an interrupt writes for the calls it cut short come so
    cut: list[Draft] = field(default_factory=list)

    def read(self, events: list[dict[str, Any]]) -> None:
        for index, event in enumerate(events):
            kind = event.get("kind") if _is_v1(event) else None
            when = parse_time(event.get("timestamp"))
            if kind not in _CUT_KINDS:
                self.cut.clear()
            if kind == "ActionEvent" and event.get("source", "agent") == "agent":
                self._action(index, event, when)
            elif kind in {"ObservationEvent", "UserRejectObservation", "AgentErrorEvent"}:
                self._answer(event, str(kind), when)
            elif kind == "ACPToolCallEvent":
                self._acp_call(index, event, when)
            elif kind == "MessageEvent":
                self._message(index, event, when)
            elif kind == "ConversationStateUpdateEvent":
                self._state(event)
            elif kind == "ConversationErrorEvent":
                self.final_status = "error"
            elif kind == "InterruptEvent":
                self._interrupt()
            elif kind == "PauseEvent":
                self.final_status = "cancelled"
            elif kind == "CondensationRequest":
                self.requested = True
            elif kind == "Condensation":
                self.drafts.append(_compaction(index, event, when, self.requested))
                self.requested = False

    def _llm(self, index: int, event: dict[str, Any], output: Any, when: datetime | None) -> None:
        """The llm span of the model response that produced ``event`` (one per response id;
        an event without one is a response of its own)."""
        response = event.get("llm_response_id")
        key = response if isinstance(response, str) and response else None
        llm = self.responses.get(key) if key is not None else None
        if llm is None:
            name = (self.by_response.get(key) if key else None) or self.model or "llm"
            llm = Draft((index, 0), "llm", name, "ok", span_id=identifier(key))
            llm.output, llm.started_at = [], when
            self.drafts.append(llm)
            if key is not None:
                self.responses[key] = llm
        llm.output.append(output)

    def _action(self, index: int, event: dict[str, Any], when: datetime | None) -> None:
        action = as_dict(event.get("action"))  # null: a call the agent could not execute
        call = as_dict(event.get("tool_call"))
        kind = identifier(action.get("kind"))
        name = identifier(event.get("tool_name")) or identifier(call.get("name")) or kind
        if event.get("llm_response_id"):  # (V0: an action without a model response has none)
            self._llm(index, event, event.get("tool_call"), when)
        tool_input = event["action"] if action else call.get("arguments", ABSENT)
        draft = Draft((index, 1), "tool", name or "tool", None, tool_input, span_id=_id(event))
        draft.started_at = when
        if kind:
            draft.attributes["action"] = kind
        if _retriever(kind, action):
            draft.type = "retriever"
        if kind == "DelegateAction" or name == "delegate":
            draft.type = "handoff"
        if kind in _V1_SHELL or name in _V1_SHELL_TOOLS:
            draft.mark_shell(self.options.labels, action.get("command"))
        arguments = call.get("arguments", tool_input)
        draft.keep_arguments(self.options.argument_fields, arguments, self.path)
        self.drafts.append(draft)
        if isinstance(event.get("id"), str):
            self.calls[event["id"]] = draft
        if isinstance(event.get("tool_call_id"), str):
            self.by_tool_call[event["tool_call_id"]] = draft
        if kind == "FinishAction":  # the terminal tool call
            draft.outcome, self.final_status = "ok", "success"
            message = action.get("message")
            self.final_text = message if isinstance(message, str) else self.final_text

    def _acp_call(self, index: int, event: dict[str, Any], when: datetime | None) -> None:
        """A tool call of an ACP server (Claude Code, Codex, Gemini CLI run by ``ACPAgent``):
        its first event starts the span, named by its ``tool_kind`` (never its ``title``, the
        call's text); the first with a terminal ``status`` (``completed``, ``failed``; one
        event when the call starts so) ends it."""
        call_id = event.get("tool_call_id")
        draft = self.acp.get(call_id) if isinstance(call_id, str) else None
        if draft is None:
            name = identifier(event.get("tool_kind")) or "tool"
            tool_input = event.get("raw_input", ABSENT)
            draft = Draft((index, 1), "tool", name, None, tool_input, span_id=_id(event))
            draft.started_at = when
            if name in _ACP_RETRIEVERS:
                draft.type = "retriever"
            if name == "execute":
                command = tool_input.get("command") if isinstance(tool_input, dict) else None
                draft.mark_shell(self.options.labels, command)
            draft.keep_arguments(self.options.argument_fields, tool_input, self.path)
            self.drafts.append(draft)
            if isinstance(call_id, str):
                self.acp[call_id] = draft
        status = event.get("status")
        if draft.outcome is None and status in {"completed", "failed"}:
            failed = status == "failed" or event.get("is_error") is True
            draft.outcome = "error" if failed else "ok"
            draft.output = event.get("raw_output", ABSENT)
            draft.duration_ms = ms_between(draft.started_at, when)
            if failed:  # (the SDK closes so each call an interrupt cuts short)
                self.cut.append(draft)

    def _answer(self, event: dict[str, Any], kind: str, when: datetime | None) -> None:
        """An observation, a rejection or an agent error: the outcome of its tool call."""
        action_id, call_id = event.get("action_id"), event.get("tool_call_id")
        draft = self.calls.get(action_id) if isinstance(action_id, str) else None
        if draft is None and isinstance(call_id, str):
            draft = self.by_tool_call.get(call_id)
        if draft is None or draft.outcome is not None:
            return
        draft.duration_ms = ms_between(draft.started_at, when)
        if kind == "UserRejectObservation":  # by the user, or by a hook (a policy)
            draft.output = event.get("rejection_reason", ABSENT)
            draft.outcome = "denied" if event.get("rejection_source") == "hook" else "rejected"
        elif kind == "AgentErrorEvent":
            draft.output, draft.outcome = event.get("error", ABSENT), "error"
            self.cut.append(draft)
        else:
            observation = as_dict(event.get("observation"))
            code = _exit_code(observation)
            if code is not None:
                draft.attributes["exit_code"] = code
            draft.output = event.get("observation", ABSENT)
            draft.outcome = _v1_outcome(observation, code)

    def _interrupt(self) -> None:
        """An ``InterruptEvent`` (``interrupt()``: the run cancelled mid-step, mid-call): the
        run is cancelled, and so is every call it cut short: one still unanswered, and one
        answered by the ``AgentErrorEvent`` the SDK writes, just before the interrupt, for each
        call in flight ("interrupted before completion") — interrupted, not failed."""
        self.final_status = "cancelled"
        cut = {id(d) for d in self.cut}
        for draft in self.drafts:
            if draft.type != "llm" and (draft.outcome is None or id(draft) in cut):
                draft.outcome = "interrupted"
        self.cut.clear()

    def _message(self, index: int, event: dict[str, Any], when: datetime | None) -> None:
        """An agent message: an llm span, the final text, and the conversation waits for the
        user (finished); a user message sets it running again."""
        if event.get("source") != "agent":
            self.final_status = "unknown" if event.get("source") == "user" else self.final_status
            return
        message = as_dict(event.get("llm_message"))
        self._llm(index, event, event.get("llm_message"), when)
        self.final_text = _text(message) or self.final_text
        self.final_status = "success"

    def _state(self, event: dict[str, Any]) -> None:
        """A state update: its ``execution_status`` (alone, or in a full state; from 2025-09-30
        to 2025-11-04 the agent server wrote it ``agent_status``)."""
        key, value = event.get("key"), event.get("value")
        if key == "full_state":
            state = as_dict(value)
            value = state.get("execution_status", state.get("agent_status"))
        elif key not in {"execution_status", "agent_status"}:
            return
        self.final_status = _V1_STATUS.get(str(value), self.final_status)
