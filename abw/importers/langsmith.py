"""LangSmith runs: the ``/runs/batch`` body, the ``/runs/multipart`` parts, or plain run lists.

A run is one node (``id``, ``trace_id``, ``parent_run_id``, ``dotted_order``, ``run_type``,
``inputs``, ``outputs``, ``error``). A ``post`` and a later ``patch`` of the same id are merged.
``dotted_order`` is both the tree path and the order. ``llm`` runs are llm spans (named by
``ls_model_name`` when given; ``input_tokens``/``output_tokens`` where the run records them),
``tool`` runs are tools (an ``error`` makes them errors),
``retriever``/``embedding`` runs are retrievers; ``chain``, ``prompt`` and ``parser`` runs only
scope their children (a span's parent is its nearest span ancestor). A run whose error is a
cancellation (``CancelledError()``, ``KeyboardInterrupt()``: the SDKs record
``repr(exception)``; langsmith-js records ``message + "\n\n" + stack``, the class at the
stack's head, and a caller's ``AbortSignal`` gives ``AbortError``) was interrupted, not failed,
as is a LangGraph.js graph its caller aborted (``Error("Abort")``, no run timed out);
LangGraph's ``GraphInterrupt`` (``interrupt()`` waiting for a person) leaves the call incomplete
and the run unknown. A tool run answering a
``ToolMessage`` with ``status: error`` failed. A ``<Middleware>.wrap_tool_call`` run with no tool
run below it is the call a person held back (paused, or rejected). Every ``trace_id`` becomes
its own trace, read from every file of its folder that holds runs of it (the SDK sends a run's
post and patch in whichever body it flushes then).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from abw.errors import AbwInputError
from abw.hashing import sha256_hex
from abw.importers.base import ImportOptions
from abw.importers.rawio import (
    INPUT_OUTPUT,
    PROMPT_COMPLETION,
    as_dict,
    held_fields,
    json_body,
    jsonl_records,
    object_at,
    read_raw,
    scalar_text,
    token_counts,
)
from abw.importers.siblings import Holdings, SplitExportImporter
from abw.importers.spans import ABSENT, Draft, finish, make_trace, stopped, timed_out
from abw.importers.tree import group_by_trace
from abw.jsonlocate import value_line
from abw.reader import MalformedJson, parse_json

if TYPE_CHECKING:
    from abw.models.trace import Trace

_PART = re.compile(r"^(post|patch)\.([^.]+)(?:\.(\w+))?$")
#: The other parts a ``/runs/multipart`` body holds: a run's file ``attachment.<run id>.<name>``
#: and a ``feedback.<id>`` score, neither of them a step of the run (skipped)
_OTHER_PART = re.compile(r"^(attachment|feedback)\.")
TYPES = {"llm": "llm", "tool": "tool", "retriever": "retriever", "embedding": "retriever"}
REMOVED_FIELDS = ("inputs", "outputs", "error", "events", "extra", "serialized", "tags")


def _runs(document: Any, path: Path) -> list[tuple[str, dict[str, Any]]]:
    """``(operation, run)`` pairs from any of the accepted shapes."""
    if isinstance(document, dict) and ("post" in document or "patch" in document):
        return [
            (op, run)
            for op in ("post", "patch")
            for run in (document.get(op) if isinstance(document.get(op), list) else [])
            if isinstance(run, dict)
        ]
    if isinstance(document, dict) and "runs" in document and isinstance(document["runs"], list):
        return [("post", r) for r in document["runs"] if isinstance(r, dict)]
    if isinstance(document, dict) and "id" in document and "run_type" in document:
        return [("post", document)]
    if isinstance(document, list) and document and all(isinstance(p, dict) for p in document):
        if all("name" in p and "value" in p for p in document):
            names = [str(p["name"]) for p in document]
            runs = [p for p, name in zip(document, names, strict=True) if _PART.match(name)]
            if runs and len(runs) + sum(map(bool, map(_OTHER_PART.match, names))) == len(names):
                return _from_parts(runs)
        return [("post", r) for r in document]
    raise AbwInputError(
        "not a LangSmith export: expected {'post': [...], 'patch': [...]}, multipart parts "
        "[{'name': 'post.<id>', 'value': ...}] or a list of runs",
        file=path,
    )


def _from_parts(parts: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    runs: dict[tuple[str, str], dict[str, Any]] = {}
    order: list[tuple[str, str]] = []
    for part in parts:
        op, run_id, field = _PART.match(str(part["name"])).groups()  # type: ignore[union-attr]
        key = (op, run_id)
        if key not in runs:
            runs[key] = {"id": run_id}
            order.append(key)
        if field is None:
            if isinstance(part["value"], dict):
                runs[key].update(part["value"])
        else:
            runs[key][field] = part["value"]
    return [(op, runs[(op, run_id)]) for op, run_id in order]


#: A ``dotted_order`` segment: the run's start time (``%Y%m%dT%H%M%S%fZ``), then its id
_DOTTED_SEGMENT = re.compile(r"\d{8}T\d{6,12}Z(.+)")


def _run_id(run: dict[str, Any]) -> str | None:
    """The run's ``id``; else the id its ``dotted_order`` ends with (a PATCH of one run, as
    langsmith-js sends it to ``/runs/{id}``, has the id in the URL and not in the body)."""
    run_id = run.get("id")
    if isinstance(run_id, str) and run_id:
        return run_id
    dotted = run.get("dotted_order")
    found = (
        _DOTTED_SEGMENT.fullmatch(dotted.rsplit(".", 1)[-1]) if isinstance(dotted, str) else None
    )
    return found.group(1) if found else None


def _merge(
    pairs: list[tuple[str, dict[str, Any]]], path: Path, raw: bytes | None = None
) -> dict[str, dict[str, Any]]:
    """The runs by id, a ``patch`` merged into its ``post``; ``raw``, the bytes of ``path``
    the pairs were read from, places a run with no id (its line and field)."""
    merged: dict[str, dict[str, Any]] = {}
    for op, run in pairs:
        run_id = _run_id(run)
        if run_id is None:
            place = _place(op, run, raw, path) if raw is not None else None
            location, line = place if place is not None else ((op, "id"), None)
            raise AbwInputError(
                "a run has no id (and no dotted_order ending in one)",
                file=path,
                line=line,
                field=".".join(map(str, location)),
            )
        target = merged.setdefault(run_id, {})
        for key, value in run.items():
            if value is not None or key not in target:
                target[key] = value
        target["id"] = run_id  # (the one it was found by, when the body has none)
    return merged


def _place(
    op: str, run: dict[str, Any], raw: bytes, path: Path
) -> tuple[tuple[str | int, ...], int | None] | None:
    """Where ``run`` (an ``op`` pair of :func:`_runs`) has its ``id`` in ``raw``: the location
    and its line (the run's, where it has no id), or None when it is not found there (a run of
    multipart parts, or of another file). The file is read again, only for an error: the
    pairs keep no place of theirs, so that an import pays nothing for it."""
    body = json_body(raw, path)
    try:
        document: Any = parse_json(body, path)
    except MalformedJson:  # JSON Lines: a run a line, named by its line
        found = (line for line, record in jsonl_records(body, path, []) if record == run)
        line = next(found, None)
        return (("id",), line) if line is not None else None
    if isinstance(document, dict) and ("post" in document or "patch" in document):
        prefix, items = (op,), document.get(op)
    elif isinstance(document, dict) and isinstance(document.get("runs"), list):
        prefix, items = ("runs",), document["runs"]
    elif isinstance(document, dict):  # a single run
        return ("id",), value_line(body, ("id",))
    else:  # a list of runs
        prefix, items = (), document
    for index, item in enumerate(items if isinstance(items, list) else []):
        if item == run:
            location = (*prefix, index, "id")
            return location, value_line(body, location)
    return None


class LangSmithImporter(SplitExportImporter):
    name: ClassVar[str] = "langsmith"
    platform: ClassVar[str] = "langsmith"
    export_format: ClassVar[str] = "langsmith-runs"
    supports_argument_fields: ClassVar[bool] = True
    help: ClassVar[str] = (
        "LangSmith runs: the /runs/batch body {'post','patch'}, /runs/multipart parts as a "
        "JSON list, or run lists / JSON Lines. One trace per trace_id. --argument-fields reads "
        "tool and retriever runs' inputs."
    )
    #: the SDK sends a long run's post and its patch in separate bodies (files)
    records_exported_once: ClassVar[bool] = False

    @staticmethod
    def holdings(path: Path) -> Holdings:
        return _holdings(path)

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        raw, pairs = _read(path, options.warnings)
        runs = _merge(pairs, path, raw)
        if not runs:
            raise AbwInputError("the export holds no runs", file=path)
        here = {_trace_of(r) for r in runs.values()}
        share = self._siblings.share(path, here, _whole(pairs, runs), options)
        raws = [raw]
        for later in share.later:
            more_raw, more = _read(later, [])
            raws.append(more_raw)
            pairs += more
        if share.later:
            runs = _merge(pairs, path, raw)
        source_hash = sha256_hex(b"".join(raws))
        return [
            self._trace(t, members, source_hash, path, options)
            for t, members in group_by_trace(runs.values(), _trace_of, _order)
            if t in share.own
        ]

    def _trace(
        self,
        trace_id: str,
        members: list[dict[str, Any]],
        source_hash: str,
        path: Path,
        options: ImportOptions,
    ) -> Trace:
        members = sorted(members, key=_order)
        by_id = {r["id"]: r for r in members}
        root = _root(members, trace_id)
        held = _calls_held(members, by_id)
        emitted = {r["id"] for r in members if str(r.get("run_type")) in TYPES} | held.keys()
        drafts: list[Draft] = []
        for position, run in enumerate(members):
            span_type = TYPES.get(str(run.get("run_type")))
            call = held.get(run["id"])
            if span_type is None and call is None:
                continue
            error_type = _error_type(run.get("error"))
            inputs = run.get("inputs", ABSENT)
            if call is not None:  # a call a middleware held back: no tool run
                span_type, (name, outcome, inputs) = "tool", call
            else:
                outcome = _outcome(run, span_type, error_type)
                name = _name(run, span_type)
            draft = Draft(
                (position,),
                span_type,
                name,
                outcome,
                inputs,
                run.get("outputs", ABSENT),
                span_id=run["id"],
            )
            draft.set_times(_moment(run.get("start_time")), _moment(run.get("end_time")))
            draft.parent_span_id = _emitted_parent(run, by_id, emitted)
            draft.attributes["run_type"] = run.get("run_type")
            if span_type == "llm":
                draft.attributes.update(token_counts(_usages(run)))
            else:  # a tool or retriever run's inputs are the call's arguments
                draft.keep_arguments(options.argument_fields, inputs, path)
            if error_type:
                draft.attributes["error_type"] = error_type
            drafts.append(draft)
        final_status, final_output, final_text = "unknown", None, None
        if root is not None:
            final_status = _final_status(root, members)
            final_output = root.get("outputs")
            if final_output is not None:
                final_text = (
                    final_output if isinstance(final_output, str) else json.dumps(final_output)
                )
        return make_trace(
            platform=self.platform,
            export_format=self.export_format,
            source_hash=source_hash,
            trace_id=trace_id,
            spans=finish(drafts, path),
            options=options,
            final_status=final_status,
            final_output=final_output,
            final_text=final_text,
            removed_fields=held_fields(members, REMOVED_FIELDS),
        )


def _name(run: dict[str, Any], span_type: str) -> str:
    """A span's name: the run's, an llm run's model (``extra.metadata.ls_model_name``)."""
    model = as_dict(as_dict(run.get("extra")).get("metadata")).get("ls_model_name")
    if span_type == "llm" and (name := scalar_text(model)):
        return name
    return scalar_text(run.get("name")) or str(scalar_text(run.get("run_type")))


def _usages(run: dict[str, Any]) -> Iterator[tuple[dict[str, Any], tuple[str, str]]]:
    """The places an llm run records its token counts, each with its input and output keys
    (for :func:`abw.importers.rawio.token_counts`), in the order they are read: the answer's
    ``usage_metadata`` (langsmith's ``wrap_openai``, ``@traceable``), each generated
    message's (LangChain core: ``generations[][].message.kwargs``), LangChain's
    ``llm_output.token_usage`` (Python) and ``llmOutput.tokenUsage`` (JS), the SDKs' copy in
    ``extra.metadata.usage_metadata``, then the run's ``prompt_tokens``/``completion_tokens``
    (a run the LangSmith API returns)."""
    outputs = as_dict(run.get("outputs"))
    yield object_at(outputs, "usage_metadata"), INPUT_OUTPUT
    for message in _generated_messages(outputs):
        yield object_at(message, "kwargs", "usage_metadata"), INPUT_OUTPUT
    yield object_at(outputs, "llm_output", "token_usage"), PROMPT_COMPLETION
    yield object_at(outputs, "llmOutput", "tokenUsage"), ("promptTokens", "completionTokens")
    yield object_at(run, "extra", "metadata", "usage_metadata"), INPUT_OUTPUT
    yield run, PROMPT_COMPLETION


def _generated_messages(outputs: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The messages of an llm run's ``generations`` (a list per prompt of its generations,
    each holding its ``message``), in order."""
    batches = outputs.get("generations")
    for batch in batches if isinstance(batches, list) else []:
        for generation in batch if isinstance(batch, list) else []:
            yield object_at(generation, "message")


def _calls_held(
    members: list[dict[str, Any]], by_id: dict[str, dict[str, Any]]
) -> dict[str, tuple[str, str, Any]]:
    """``run id -> (tool, outcome, arguments)`` of the calls a middleware of langchain's
    ``create_agent`` held back: a ``<Middleware>.wrap_tool_call`` run (the outermost) with no
    tool run below it, paused for a person (GraphInterrupt: incomplete) or that a person
    rejected (its answer the ToolMessage of a ``reject`` decision: rejected)."""
    ids = by_id.keys()
    ran: set[str] = set()  # the runs a tool run lies below
    for run in members:
        parent = _parent(run, ids) if run.get("run_type") == "tool" else None
        while parent is not None and parent not in ran:
            ran.add(parent)
            parent = _parent(by_id[parent], ids)
    held: dict[str, tuple[str, str, Any]] = {}
    for run in members:
        parent = _parent(run, ids)
        if not _wraps_call(run) or run["id"] in ran or (parent and _wraps_call(by_id[parent])):
            continue
        call = as_dict(as_dict(as_dict(run.get("inputs")).get("request")).get("tool_call"))
        tool = call.get("name")
        if not isinstance(tool, str) or not tool:
            continue
        if _paused(_error_type(run.get("error"))):
            held[run["id"]] = (tool, "incomplete", call.get("args", ABSENT))
        elif _rejected(run.get("outputs")):
            held[run["id"]] = (tool, "rejected", call.get("args", ABSENT))
    return held


def _wraps_call(run: dict[str, Any]) -> bool:
    name = run.get("name")
    return isinstance(name, str) and name.endswith(".wrap_tool_call")


def _rejected(outputs: Any) -> bool:
    """Whether a middleware's answer is the ToolMessage langchain's HumanInTheLoopMiddleware
    writes for a person's ``reject`` decision (``additional_kwargs.lc_source``
    ``hitl_interrupt_decision``, ``lc_data.decision`` ``reject``)."""
    message = as_dict(outputs)
    extra = as_dict(message.get("additional_kwargs"))
    return (
        message.get("type") == "tool"
        and extra.get("lc_source") == "hitl_interrupt_decision"
        and as_dict(extra.get("lc_data")).get("decision") == "reject"
    )


def _read(path: Path, warnings: list[str]) -> tuple[bytes, list[tuple[str, dict[str, Any]]]]:
    """A file's bytes and its ``(operation, run)`` pairs."""
    raw = read_raw(path)
    body = json_body(raw, path)
    try:
        document: Any = parse_json(body, path)
    except MalformedJson:  # JSON Lines
        document = [run for _, run in jsonl_records(body, path, warnings)]
    return raw, _runs(document, path)


def _holdings(path: Path) -> Holdings:
    """The runs of each trace a file holds (its folder's index)."""
    raw, pairs = _read(path, [])
    runs = _merge(pairs, path, raw)
    held: dict[str, set[str]] = {}
    for run_id, run in runs.items():
        held.setdefault(_trace_of(run), set()).add(run_id)
    return held


def _whole(pairs: list[tuple[str, dict[str, Any]]], runs: dict[str, dict[str, Any]]) -> bool:
    """Whether the file holds its traces whole: each root, every run posted here and ended
    (else the SDK sent the rest in other bodies, which its folder may hold)."""
    posted = {_run_id(run) for op, run in pairs if op == "post"}
    roots = {
        r["id"]
        for t, m in group_by_trace(runs.values(), _trace_of, _order)
        for r in [_root(m, t)]
        if r is not None
    }
    traces = {_trace_of(r) for r in runs.values()}
    return len(roots) == len(traces) and all(
        r["id"] in posted and (r.get("end_time") or r.get("error")) for r in runs.values()
    )


def _trace_of(run: dict[str, Any]) -> str:
    """The run's ``trace_id``; else its root's id, which its ``dotted_order`` begins with; else
    its own id (a run of no tree)."""
    trace_id = scalar_text(run.get("trace_id"))
    if trace_id is not None:
        return trace_id
    dotted = run.get("dotted_order")
    found = _DOTTED_SEGMENT.fullmatch(dotted.split(".", 1)[0]) if isinstance(dotted, str) else None
    return found.group(1) if found else str(run["id"])


def _root(members: list[dict[str, Any]], trace_id: str) -> dict[str, Any] | None:
    """The trace's root run: the one whose id is the trace id, else the one without a parent;
    none when the export holds only later runs of the trace (a body of the SDK's without the
    root's post and patch: a child there says nothing of how the run ended)."""
    for run in members:
        if run["id"] == trace_id:
            return run
    return next((r for r in members if not r.get("parent_run_id")), None)


def _moment(value: Any) -> Any:
    """A run's time as :func:`abw.importers.spans.parse_time` reads it: an ISO 8601 string (the
    Python SDK's) as it is; a number is epoch milliseconds (langsmith-js sends ``Date.now()``)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value / 1000
    return value


def _order(run: dict[str, Any]) -> tuple[str, str]:
    """Sort key: ``dotted_order`` (root-to-self path), else the start time."""
    dotted = run.get("dotted_order")
    if isinstance(dotted, str) and dotted:
        return (dotted, run["id"])
    return (str(run.get("start_time") or ""), run["id"])


def _error_type(error: Any) -> str | None:
    """The exception class of a LangSmith error string: at its head (the Python SDK's
    ``repr``: ``TimeoutError('...')``), or at the head of the stack langsmith-js appends to the
    message (``<message>\n\n<Class>: <message>\n    at ...``)."""
    if not isinstance(error, str):
        return None
    thrown = _js_error_type(error)
    if thrown is not None:
        return thrown
    match = re.match(r"([A-Za-z_][\w.]*)(?:\(|:|$)", error.strip())
    return match.group(1) if match else None


#: The first line of a JavaScript stack: the error's name, then ``: <message>`` if it has one
_JS_STACK_HEAD = re.compile(r"([A-Za-z_$][\w$.]*)(?:: |\n|$)")


def _js_error_type(error: str) -> str | None:
    """The class langsmith-js records (``error.message + "\n\n" + error.stack``, the stack
    opening with ``<name>: <message>``), else None (not that form)."""
    start = error.find("\n\n")
    while start != -1:
        message, stack = error[:start], error[start + 2 :]
        head = _JS_STACK_HEAD.match(stack)
        if head and stack[head.end() :].startswith(message) and (message or head.end()):
            return head.group(1)
        start = error.find("\n\n", start + 1)
    return None


#: The error LangGraph.js records on the graph's run when its signal aborted (``new
#: Error("Abort")``): stopped by its caller, or by its own ``timeout``.
_GRAPH_ABORT = "Abort\n\nError: Abort\n"


#: The exception classes LangGraph raises where ``interrupt()`` stops a graph to wait for a
#: person's answer (``Command(resume=...)`` runs the node again, in a trace of its own): the
#: run paused, it neither failed nor finished.
_PAUSED = frozenset({"GraphInterrupt", "NodeInterrupt"})


def _paused(error_type: str | None) -> bool:
    """Whether a run's error class says LangGraph paused it for a person's answer."""
    return error_type is not None and error_type.rsplit(".", 1)[-1] in _PAUSED


def _outcome(run: dict[str, Any], span_type: str, error_type: str | None) -> str:
    """A run's outcome: its error's class decides (a timeout, a cancellation, a pause for a
    person), else a tool whose answer is a ``ToolMessage`` with ``status: error`` failed (the
    error was handed to the model: ``handle_tool_error``, ``ToolNode(handle_tool_errors=...)``)."""
    if _paused(error_type):
        return "incomplete"  # no result yet: the call waits for a person's answer
    if timed_out(error_type):
        return "timeout"
    if stopped(error_type):
        return "interrupted"
    if run.get("error"):
        return "error"
    if span_type == "tool" and _tool_message_error(run.get("outputs")):
        return "error"
    return "ok" if run.get("end_time") else "incomplete"


def _tool_message_error(outputs: Any) -> bool:
    """Whether a tool run's ``outputs`` is a ``ToolMessage`` with ``status: error``: as a
    plain dict (``{"output": {"type": "tool", "status": "error", ...}}``) or LangChain's
    serialized form (``{"lc": 1, "id": [..., "ToolMessage"], "kwargs": {"status": ...}}``)."""
    message = as_dict(as_dict(outputs).get("output"))
    ids = message.get("id")
    if message.get("lc") == 1 and isinstance(ids, list) and ids[-1:] == ["ToolMessage"]:
        return as_dict(message.get("kwargs")).get("status") == "error"
    return message.get("type") == "tool" and message.get("status") == "error"


def _final_status(root: dict[str, Any], members: list[dict[str, Any]]) -> str:
    """The run's end from its root run: cancelled when stopped while it ran (the task
    cancelled, ^C), ``unknown`` while a LangGraph ``interrupt()`` waits for a person's answer,
    error when the root failed, success when it ended."""
    root_error = _error_type(root.get("error"))
    if stopped(root_error) or _graph_aborted(root, members):
        return "cancelled"
    if any(_paused(_error_type(r.get("error"))) for r in members) and (
        not root.get("error") or _paused(root_error)
    ):
        return "unknown"
    if root.get("error"):
        return "error"
    return "success" if root.get("end_time") else "unknown"


def _graph_aborted(root: dict[str, Any], members: list[dict[str, Any]]) -> bool:
    """Whether LangGraph.js stopped the graph because its caller aborted its signal: the root's
    error is its ``Abort`` and no run of the trace timed out (the graph's own ``timeout``)."""
    error = root.get("error")
    return (
        isinstance(error, str)
        and error.startswith(_GRAPH_ABORT)
        and not any(timed_out(_error_type(r.get("error"))) for r in members)
    )


def _emitted_parent(
    run: dict[str, Any], by_id: dict[str, dict[str, Any]], emitted: set[str]
) -> str | None:
    """The nearest ancestor of ``run`` that is a span (chains only scope their children: a
    sub-agent's steps below a tool run belong to that tool's call)."""
    seen = {run["id"]}
    parent = _parent(run, by_id.keys())
    while parent is not None and parent not in seen:
        if parent in emitted:
            return parent
        seen.add(parent)
        parent = _parent(by_id[parent], by_id.keys())
    return None


def _parent(run: dict[str, Any], ids: Collection[str]) -> str | None:
    parent = run.get("parent_run_id")
    return parent if isinstance(parent, str) and parent in ids else None
