"""LangSmith runs: the ``/runs/batch`` body, the ``/runs/multipart`` parts, or plain run lists.

A run is one node (``id``, ``trace_id``, ``parent_run_id``, ``dotted_order``, ``run_type``,
``inputs``, ``outputs``, ``error``). A ``post`` and a later ``patch`` of the same id are merged.
``dotted_order`` is both the tree path and the order. ``llm`` runs are llm spans (named by
``ls_model_name`` when given), ``tool`` runs are tools (an ``error`` makes them errors),
``retriever``/``embedding`` runs are retrievers; ``chain``, ``prompt`` and ``parser`` runs only
scope their children. A run whose error is a cancellation (``CancelledError()``,
``KeyboardInterrupt()``: the SDKs record ``repr(exception)``) was interrupted, not failed.
Every ``trace_id`` becomes its own trace.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from abw.errors import AbwInputError
from abw.hashing import sha256_hex
from abw.importers.base import Importer, ImportOptions
from abw.importers.rawio import as_dict, held_fields, json_body, jsonl_records, read_raw
from abw.importers.spans import ABSENT, Draft, finish, make_trace
from abw.importers.tree import group_by_trace
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


def _merge(pairs: list[tuple[str, dict[str, Any]]], path: Path) -> dict[str, dict[str, Any]]:
    merged: dict[str, dict[str, Any]] = {}
    for op, run in pairs:
        run_id = _run_id(run)
        if run_id is None:
            raise AbwInputError(
                "a run has no id (and no dotted_order ending in one)", file=path, field=f"{op}.id"
            )
        target = merged.setdefault(run_id, {})
        for key, value in run.items():
            if value is not None or key not in target:
                target[key] = value
        target["id"] = run_id  # (the one it was found by, when the body has none)
    return merged


class LangSmithImporter(Importer):
    name: ClassVar[str] = "langsmith"
    platform: ClassVar[str] = "langsmith"
    export_format: ClassVar[str] = "langsmith-runs"
    supports_argument_fields: ClassVar[bool] = True
    help: ClassVar[str] = (
        "LangSmith runs: the /runs/batch body {'post','patch'}, /runs/multipart parts as a "
        "JSON list, or run lists / JSON Lines. One trace per trace_id. --argument-fields reads "
        "tool and retriever runs' inputs."
    )

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        raw = read_raw(path)
        body = json_body(raw, path)
        try:
            document: Any = parse_json(body, path)
        except MalformedJson:  # JSON Lines
            document = [run for _, run in jsonl_records(body, path, options.warnings)]
        runs = _merge(_runs(document, path), path)
        if not runs:
            raise AbwInputError("the export holds no runs", file=path)
        source_hash = sha256_hex(raw)
        return [
            self._trace(t, members, source_hash, path, options)
            for t, members in group_by_trace(
                runs.values(), lambda r: str(r.get("trace_id") or r["id"]), _order
            )
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
        ids = {r["id"] for r in members}
        root = next((r for r in members if _parent(r, ids) is None), None)
        drafts: list[Draft] = []
        for position, run in enumerate(members):
            span_type = TYPES.get(str(run.get("run_type")))
            if span_type is None:
                continue
            failed = bool(run.get("error"))
            outcome = "error" if failed else ("ok" if run.get("end_time") else "incomplete")
            error_type = _error_type(run.get("error"))
            if error_type and "Timeout" in error_type:
                outcome = "timeout"
            elif _cancelled(error_type):
                outcome = "interrupted"
            name = str(run.get("name") or run.get("run_type"))
            model = as_dict(as_dict(run.get("extra")).get("metadata")).get("ls_model_name")
            if span_type == "llm" and model:
                name = str(model)
            draft = Draft(
                (position,),
                span_type,
                name,
                outcome,
                run.get("inputs", ABSENT),
                run.get("outputs", ABSENT),
                span_id=run["id"],
            )
            draft.set_times(_moment(run.get("start_time")), _moment(run.get("end_time")))
            parent = run.get("parent_run_id")
            draft.parent_span_id = parent if isinstance(parent, str) else None
            draft.attributes["run_type"] = run.get("run_type")
            if span_type != "llm":  # a tool or retriever run's inputs are the call's arguments
                draft.keep_arguments(options.argument_fields, run.get("inputs"), path)
            if error_type:
                draft.attributes["error_type"] = error_type
            drafts.append(draft)
        final_status, final_output, final_text = "unknown", None, None
        if root is not None:
            if _cancelled(_error_type(root.get("error"))):
                final_status = "cancelled"  # stopped while it ran (the task cancelled, ^C)
            elif root.get("error"):
                final_status = "error"
            elif root.get("end_time"):
                final_status = "success"
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
    """The exception class at the head of a LangSmith error string (``TimeoutError('...')``)."""
    if not isinstance(error, str):
        return None
    match = re.match(r"([A-Za-z_][\w.]*)(?:\(|:|$)", error.strip())
    return match.group(1) if match else None


#: The exception classes at the head of the error of a run stopped while it ran: its asyncio
#: task cancelled (a client that stopped a streaming run) or the process interrupted (^C).
_CANCELLED = frozenset({"CancelledError", "asyncio.CancelledError", "KeyboardInterrupt"})


def _cancelled(error_type: str | None) -> bool:
    """Whether a run's error class says it was stopped while it ran, not that it failed."""
    return error_type in _CANCELLED


def _parent(run: dict[str, Any], ids: set[str]) -> str | None:
    parent = run.get("parent_run_id")
    return parent if isinstance(parent, str) and parent in ids else None
