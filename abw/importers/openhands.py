"""OpenHands trajectories: a JSON array of action/observation events.

Each agent action that calls a tool (``run``, ``edit``, ``read``, ``browse``, ``finish``, ...)
is a tool span named by ``tool_call_metadata.function_name`` (else the action), paired with the
observation whose ``cause`` is its id. The status comes from the observation: ``error`` or a
non-zero ``exit_code`` -> error; exit ``-1`` with "no new output" -> timeout; ``user_rejected``
-> rejected; none -> incomplete. LLM spans are implicit: one per distinct
``model_response.id`` (placed before its first action), plus agent messages, all named by the
run's model (a message before the first ``model_response``: the model that one names). Event
order is file order.

An evaluation's output (``output.jsonl``: one ``EvalOutput`` per line, ``{instance_id, history,
error, ...}``; also one alone in a ``.json``) gives a trace per instance: its ``scenario_id`` is
the ``instance_id`` (the task; ``--scenario-id`` does not override it), and a run that ended in
an ``error`` (a runtime error, the iteration limit) is ``final_status: error``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from abw.errors import AbwInputError
from abw.hashing import sha256_hex
from abw.importers.base import Importer, ImportOptions
from abw.importers.rawio import as_dict, held_fields, jsonl_records, load_json, read_raw
from abw.importers.spans import ABSENT, Draft, finish, make_trace, ms_between, parse_time
from abw.jsonlocate import value_lines

if TYPE_CHECKING:
    from abw.models.trace import Trace

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
REMOVED_FIELDS = (
    "message",
    "args",
    "content",
    "extras",
    "tool_call_metadata.model_response",
)
#: What an evaluation's EvalOutput holds around the events (the task's text, the patch, ...)
INSTANCE_FIELDS = ("instruction", "instance", "test_result", "metadata", "metrics")


def _events(document: Any, path: Path) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """The events, and the key of the document they are under (``()`` for a bare array)."""
    prefix: tuple[str, ...] = ()
    if isinstance(document, dict):
        for key in ("events", "history", "trajectory"):
            if isinstance(document.get(key), list):
                document, prefix = document[key], (key,)
                break
    if not isinstance(document, list) or not all(isinstance(e, dict) for e in document):
        raise AbwInputError(
            "not an OpenHands trajectory: expected a JSON array of events", file=path
        )
    if document and not any("action" in e or "observation" in e for e in document):
        raise AbwInputError(
            "not an OpenHands trajectory: no action or observation events", file=path
        )
    return document, prefix


class OpenHandsImporter(Importer):
    name: ClassVar[str] = "openhands"
    platform: ClassVar[str] = "openhands"
    export_format: ClassVar[str] = "openhands-trajectory-json"
    help: ClassVar[str] = (
        "OpenHands trajectories (JSON array of action/observation events) and evaluation "
        "output.jsonl (a run per instance; the instance id is its scenario). --argument-fields "
        "reads the model's function-call arguments, else the action's args."
    )
    suffixes: ClassVar[tuple[str, ...]] = (".json", ".jsonl")
    supports_argument_fields: ClassVar[bool] = True

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        raw = read_raw(path)
        source_hash = sha256_hex(raw)  # (the format has no id: a trace's id is made from it)
        trace_id = f"openhands-{source_hash[:16]}"
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
                for line, document in jsonl_records(raw, path, options.warnings)
            ]
        else:
            document = load_json(raw, path)
            lines = value_lines(raw, 2 if isinstance(document, dict) else 1)
            traces = [self._trace(document, source_hash, trace_id, lines.get, path, options)]
        if any(t.run.scenario_id != options.scenario_id for t in traces) and options.scenario_id:
            options.warn(
                f"{path.name}: an evaluation's instance id is the scenario of its run; "
                "--scenario-id does not override it"
            )
        return traces

    def _trace(
        self,
        document: Any,
        source_hash: str,
        trace_id: str,
        line_of: Callable[[tuple[str | int, ...]], int | None],
        path: Path,
        options: ImportOptions,
    ) -> Trace:
        """The trace of one trajectory (``document``; ``line_of``: the line of a location in
        it; ``source_hash``: the file's)."""
        events, prefix = _events(document, path)
        instance = document.get("instance_id") if isinstance(document, dict) else None
        if isinstance(instance, str) and instance:
            options = replace(options, scenario_id=instance)
        drafts: list[Draft] = []
        calls: dict[Any, Draft] = {}
        by_tool_call: dict[str, Draft] = {}
        responses: set[str] = set()
        final_status, final_text, model = "unknown", None, None
        unnamed: list[Draft] = []  # llm spans before the run's first model_response
        first_model = None
        for index, event in enumerate(events):
            when = parse_time(event.get("timestamp"))
            meta = as_dict(event.get("tool_call_metadata"))
            response = as_dict(meta.get("model_response"))
            if "action" in event and event.get("source") == "agent":
                action = str(event.get("action"))
                response_id = response.get("id")
                model = response.get("model") or model
                first_model = first_model or model
                if isinstance(response_id, str) and response_id not in responses:
                    responses.add(response_id)
                    llm = Draft((index, 0), "llm", str(model or "llm"), "ok", span_id=response_id)
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
                draft = self._action(event, index, action, meta, when, options, path)
                drafts.append(draft)
                calls[repr(event.get("id"))] = draft
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
                    continue
                draft = calls.get(repr(event.get("cause")))
                if draft is None:
                    draft = by_tool_call.get(str(meta.get("tool_call_id")))
                if draft is None or draft.outcome is not None:
                    continue
                _observe(draft, event, observation, when)
        for llm in unnamed:  # one run, one model: its first model_response names it
            llm.name = str(first_model or llm.name)
        for draft in drafts:
            draft.line = line_of((*prefix, draft.sort_key[0]))  # the event it came from
            if draft.outcome is None:
                draft.outcome = "incomplete"
        removed = held_fields(events, REMOVED_FIELDS)
        if isinstance(document, dict):
            removed = sorted({*removed, *held_fields(document, INSTANCE_FIELDS)})
            error = document.get("error")
            if isinstance(error, str) and error.strip():
                final_status = "error"  # the run ended in an error (a crash, the iteration limit)
        return make_trace(
            platform=self.platform,
            export_format=self.export_format,
            source_hash=source_hash,
            trace_id=trace_id,
            spans=finish(drafts, path),
            options=options,
            final_status=final_status,
            final_output=final_text,
            final_text=final_text,
            removed_fields=removed,
        )

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
        name = str(meta.get("function_name") or action)
        args = event.get("args", ABSENT)
        draft = Draft((index, 1), "tool", name, None, args, span_id=_id(event))
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


def _function_arguments(meta: dict[str, Any]) -> Any:
    """The arguments the model sent with the function call ``tool_call_metadata`` names (the
    ones that match the span's ``function_name``), or ``None`` when the response lacks it."""
    response = as_dict(meta.get("model_response"))
    for choice in response.get("choices") or []:
        for call in as_dict(as_dict(choice).get("message")).get("tool_calls") or []:
            if as_dict(call).get("id") == meta.get("tool_call_id"):
                return as_dict(call.get("function")).get("arguments")
    return None


def _id(event: dict[str, Any]) -> str | None:
    value = event.get("id")
    return f"event-{value}" if isinstance(value, int | str) else None


def _observe(draft: Draft, event: dict[str, Any], observation: str, when: Any) -> None:
    extras = as_dict(event.get("extras"))
    metadata = as_dict(extras.get("metadata"))
    code = metadata.get("exit_code")
    draft.output = {"content": event.get("content"), "observation": observation}
    draft.duration_ms = ms_between(draft.started_at, when)
    if isinstance(code, int) and not isinstance(code, bool):
        draft.attributes["exit_code"] = code
    if observation == "error":
        draft.outcome = "error"
    elif observation == "user_rejected":
        draft.outcome = "rejected"
    elif isinstance(code, int) and code == -1 and "no new output" in str(metadata.get("suffix")):
        draft.outcome = "timeout"
    elif (isinstance(code, int) and code != 0) or event.get("success") is False:
        draft.outcome = "error"
    else:
        draft.outcome = "ok"
