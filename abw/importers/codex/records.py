"""A rollout's records, ``(line, record)``, in the envelope form (``{"type", "payload"}``):
legacy bare items and the 0.1.x JSON document are wrapped; legacy state lines passed as they
are (each precedes a model request's batch of items)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.base import ImportOptions
from abw.importers.codex.values import nonempty_str
from abw.importers.rawio import as_dict, jsonl_records, load_json

RECORD_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
_LEGACY_ITEMS = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "local_shell_call_output",
    "web_search_call",
    "tool_search_call",
    "tool_search_output",
}


def rollout_records(
    raw: bytes, path: Path, options: ImportOptions
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, record)`` in the envelope form; legacy bare items and 0.1.x JSON are wrapped."""
    stripped = raw.lstrip()
    if path.suffix == ".json" and stripped[:1] == b"{":
        document = load_json(raw, path)
        if isinstance(document, dict) and isinstance(document.get("items"), list):
            session = as_dict(document.get("session"))
            yield 1, {"type": "session_meta", "payload": session}
            for item in document["items"]:
                if isinstance(item, dict):
                    yield 1, {"type": "response_item", "payload": item}
            return
        raise AbwInputError("not a Codex rollout (expected JSON Lines)", file=path)
    for line, record in jsonl_records(raw, path, options.warnings):
        if not isinstance(record, dict):
            raise AbwInputError("expected a JSON object on each line", file=path, line=line)
        if (
            nonempty_str(record.get("type")) in RECORD_TYPES
            and isinstance(record.get("payload"), dict)
        ) or record.get("record_type") == "state":
            yield line, record
        elif nonempty_str(record.get("type")) in _LEGACY_ITEMS:
            yield line, {"type": "response_item", "payload": record}
        elif line == 1 and "id" in record and "type" not in record and "msg" not in record:
            yield line, {"type": "session_meta", "payload": record}
        else:
            yield line, record
