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

A V0 session's folder as V0's file store persists it (``sessions/<id>/events/<n>.json``, one
event a file; ``event_cache/`` pages of the same events, ``metadata.json`` and ``init.json``
beside them are not read) is one trajectory, its events in number order.

An evaluation's output (``output.jsonl``: one ``EvalOutput`` per line, ``{instance_id, history,
error, ...}``; also one alone in a ``.json``) gives a trace per instance: its ``scenario_id`` is
the ``instance_id`` (the task; ``--scenario-id`` does not override it; OpenDevin's benchmarks of
mid-2024 named it ``task_id``, ``question_id``, ``qid``, ``test_case_id`` or ``id``), and a run
that ended in an ``error`` (a runtime error, the iteration limit) is ``final_status: error``.
The package, lowest module first: ``outcomes`` (a call's outcome, the run's status),
``folders`` (a conversation's folder and its ``base_state.json``), ``forms`` (the input forms
into events), ``common`` (span ids, condensations), ``records`` (an evaluation's record),
``v0`` and ``v1`` (the two event forms into spans); this module imports a file or folder.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from abw.errors import AbwInputError
from abw.hashing import sha256_hex
from abw.importers.base import Importer, ImportOptions
from abw.importers.common import instance_scenario, task_id, warn_instance_scenario
from abw.importers.openhands.folders import (
    BASE_STATE,
    EVENT_FILE,
    STATE_FILES,
    V0_CACHE,
    V0_EVENT_FILE,
    V0_STATE_FILES,
    State,
    conversation_of,
    event_files,
    holds_state,
    read_state,
    v0_event_files,
)
from abw.importers.openhands.forms import event_stream, is_v0, is_v1, trajectory_events
from abw.importers.openhands.records import (
    INSTANCE_FIELDS,
    OPENDEVIN_TASK_KEYS,
    TASK_KEYS,
    record_model,
)
from abw.importers.openhands.v0 import REMOVED_FIELDS, read_v0
from abw.importers.openhands.v1 import V1_REMOVED_FIELDS, V1Run
from abw.importers.rawio import held_fields, json_body, jsonl_records, load_json, read_raw
from abw.importers.spans import Draft, finish, make_trace
from abw.jsonlocate import value_lines

if TYPE_CHECKING:
    from abw.models.trace import Span, Trace


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
    #: OpenHands CLI's ``~/.openhands`` (openhands_cli/locations.py): its agent, MCP and CLI
    #: settings beside ``conversations/``.
    home_files: ClassVar[tuple[str, ...]] = (
        "agent_settings.json",
        "mcp.json",
        "oh_cli_settings.json",
    )
    home_sessions: ClassVar[tuple[str, ...]] = ("conversations",)

    def discover(self, folder: Path) -> list[Path]:
        """The exports in ``folder``; a V1 conversation's event files are one unit, their
        conversation's folder (``<id>/events/``, the agent server's ``<id>/event_service/
        events/``); its ``base_state.json`` and the agent server's ``meta.json`` are no
        trajectories."""
        units: set[Path] = set()
        files: list[Path] = []
        for path in super().discover(folder):
            if EVENT_FILE.fullmatch(path.name) or (
                path.name in STATE_FILES and holds_state(path.parent)
            ):  # (a conversation with no event yet is one too: it is skipped, with a warning)
                units.add(conversation_of(path.parent, folder))
            elif (session := _v0_session_of(path, folder)) is not None:
                units.add(session)
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
        stream = event_stream(json_body(raw, path), path, options.warnings)
        if stream is not None:  # ``openhands --headless --json``: one conversation
            events, lines, cut = stream

            def line_of(location: tuple[str | int, ...]) -> int | None:
                return lines[location[0]] if location and isinstance(location[0], int) else None

            return [self._trace(events, source_hash, trace_id, line_of, path, options, cut=cut)]
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
        files = event_files(folder)
        v0_files = [] if files else v0_event_files(folder)
        if v0_files:
            return self._v0_session(folder, v0_files, options)
        if not files and any(holds_state(f) for f in (folder, folder / "event_service")):
            options.warn(
                f"{folder.name}: an OpenHands conversation with no event yet (its "
                f"{BASE_STATE}, no events/event-*.json): skipped"
            )
            return None
        if not files:
            raise AbwInputError("no OpenHands event files (event-NNNNN-<id>.json)", file=folder)
        events, source_hash, trace_id = _read_events(
            files,
            is_v1,
            "not an OpenHands event: expected an object whose kind ends in Event",
            "kind",
        )
        names = [path.name for path in files]
        state = read_state(folder, options)
        return self._trace(
            events, source_hash, trace_id, lambda _: 1, folder, options, names, state
        )

    def _v0_session(self, folder: Path, files: list[Path], options: ImportOptions) -> Trace:
        """The trace of a V0 session persisted by its file store (``<id>/events/<n>.json``,
        one event a file); each span points at its event's file."""
        events, source_hash, trace_id = _read_events(
            files,
            is_v0,
            "not an OpenHands V0 event: expected an object with an action or an observation, "
            "its source and id",
        )
        names = [path.relative_to(folder).as_posix() for path in files]
        return self._trace(events, source_hash, trace_id, lambda _: 1, folder, options, names)

    def _trace(
        self,
        document: Any,
        source_hash: str,
        trace_id: str,
        line_of: Callable[[tuple[str | int, ...]], int | None],
        path: Path,
        options: ImportOptions,
        files: list[str] | None = None,
        state: State | None = None,
        *,
        cut: bool = False,
    ) -> Trace:
        """The trace of one trajectory (``document``; ``line_of``: the line of a location in
        it; ``source_hash``: the file's; ``files``: each event's own file, if any; ``state``:
        what its conversation's state records, if any: its final status is the last word;
        ``cut``: its last line was cut off mid-write)."""
        events, prefix, v1, paired = trajectory_events(document, path, line_of)
        if isinstance(document, dict):
            keys = TASK_KEYS + (OPENDEVIN_TASK_KEYS if "history" in document else ())
            options = instance_scenario(options, task_id(document, keys))
        if v1:
            state = state or State()
            run = V1Run(options, path, record_model(document) or state.model, state.by_response)
            run.read(events)
            drafts, final_status, final_text = run.drafts, run.final_status, run.final_text
            final_status = state.status or final_status
            removed = held_fields(events, V1_REMOVED_FIELDS)
        else:
            drafts, final_status, final_text = read_v0(
                events, options, path, record_model(document)
            )
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
            cut_off=cut,
        )


def _read_events(
    files: list[Path],
    is_event: Callable[[dict[str, Any]], bool],
    refusal: str,
    field: str | None = None,
) -> tuple[list[dict[str, Any]], str, str]:
    """A conversation's event files, one event each (``refusal``, at ``field``, for a file
    whose value is no such event), with its source hash (over the files' bytes in order) and
    trace id."""
    raws = [read_raw(path) for path in files]
    events = []
    for path, raw in zip(files, raws, strict=True):
        event = load_json(raw, path)
        if not isinstance(event, dict) or not is_event(event):
            raise AbwInputError(refusal, file=path, field=field)
        events.append(event)
    source_hash = sha256_hex(b"\n".join(raws))
    return events, source_hash, f"openhands-{source_hash[:16]}"


def _v0_session_of(path: Path, root: Path) -> Path | None:
    """The V0 session folder ``path`` is part of (its ``events/<n>.json``, its
    ``event_cache/`` pages, its ``metadata.json`` and ``init.json``; the folder is one unit),
    if any, never above ``root`` (the folder imported)."""
    holder = path.parent
    if holder.name == "events" and V0_EVENT_FILE.fullmatch(path.name):
        return holder.parent if holder != root else holder
    if holder.name == V0_CACHE and holder != root and v0_event_files(holder.parent):
        return holder.parent
    if path.name in V0_STATE_FILES and v0_event_files(holder):
        return holder
    return None


def _point_at_files(spans: list[Span], drafts: list[Draft], files: list[str]) -> None:
    """Each span's source: the file of the event it came from (``finish`` orders the drafts
    by their sort key, the event's index first)."""
    from abw.models.trace import SourceRef

    for span, draft in zip(spans, sorted(drafts, key=lambda d: d.sort_key), strict=True):
        span.source_ref = SourceRef(file=files[draft.sort_key[0]], line=1)


__all__ = ["INSTANCE_FIELDS", "REMOVED_FIELDS", "V1_REMOVED_FIELDS", "OpenHandsImporter"]
