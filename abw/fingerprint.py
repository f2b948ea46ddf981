"""A stable SHA-256 of a trace's *behavior*: what ran, in what order, how it ended.

Two imports of the same run give the same fingerprint; moving one tool call changes it.
Inclusion and exclusion lists (also in docs/fingerprint.md):

Included, in ordinal order of the spans: ``type``, ``name``, ``status``, ``outcome``, the
parent span as a position (not its id), and explicitly extracted ``attributes.arguments``;
from the run: ``final_status`` and ``canonical_output``.

Excluded: every id (trace, span, parent), ordinal numbers (only their order counts), times,
durations, ``source`` (platform, export format, export time, raw-file hash), ``source_ref``
(file and line), ``scenario_id`` and ``environment`` (labels given at import time),
``final_output_hash``, ``redaction``, all other span attributes (importer metadata such as
exit codes, poll counts, duration sources), and, by default, ``input_hash`` and
``output_hash``: they hash raw content (absolute paths, timestamps inside tool outputs) that
changes between machines and reruns without the behavior changing. ``with_content=True``
includes ``input_hash`` (the call signature) and ``output_hash``.
"""

from __future__ import annotations

from typing import Any

from abw.hashing import canonical_json, numbers_by_value, sha256_hex
from abw.semantics import in_order

FINGERPRINT_VERSION = "abw-fingerprint/v0"


def behavior_document(trace: Any, *, with_content: bool = False) -> dict[str, Any]:
    """The canonical document the fingerprint hashes (see the module docstring)."""
    spans = in_order(trace.spans)
    position = {s.span_id: i for i, s in enumerate(spans)}
    items = []
    for span in spans:
        item: dict[str, Any] = {"type": span.type, "name": span.name, "status": span.status}
        if span.outcome is not None:
            item["outcome"] = span.outcome
        if span.parent_span_id is not None:
            item["parent"] = position.get(span.parent_span_id, -1)
        arguments = (span.attributes or {}).get("arguments")
        if arguments is not None:
            item["arguments"] = arguments
        if with_content:
            item["input_hash"] = span.input_hash
            item["output_hash"] = span.output_hash
        items.append(item)
    document: dict[str, Any] = {
        "fingerprint": FINGERPRINT_VERSION,
        "with_content": with_content,
        "final_status": trace.run.final_status,
        "canonical_output": trace.run.canonical_output,
        "spans": items,
    }
    return document


def fingerprint(trace: Any, *, with_content: bool = False) -> str:
    """Hex SHA-256 of :func:`behavior_document`'s canonical JSON, numbers compared by value
    (``1.0`` and ``1`` are one number: abw.hashing.numbers_by_value)."""
    document = behavior_document(trace, with_content=with_content)
    return sha256_hex(canonical_json(numbers_by_value(document)))
