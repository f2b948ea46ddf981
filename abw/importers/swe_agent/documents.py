"""A trajectory file read into its one JSON document (JSON Lines refused), the forms it comes
in, and the raw fields it may hold (``REMOVED_FIELDS``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.rawio import BOM, load_json
from abw.reader import MalformedJson, parse_json

#: The content kinds a trajectory can hold; ``removed_fields`` names those a file does hold.
REMOVED_FIELDS = (
    "trajectory.action",
    "trajectory.observation",
    "trajectory.response",
    "trajectory.thought",
    "trajectory.state",
    "history",
    "info.submission",
    "info.edited_files30",
    "replay_config",
    "messages.content",
    "messages.tool_calls",
    "messages.extra",
    "messages.output",
    "info.traceback",
    "info.exception_str",
)


def load_document(raw: bytes, path: Path) -> Any:
    """The file's one JSON document; JSON Lines (a JSON object on each line) is refused as no
    trajectory rather than as invalid JSON."""
    try:
        return load_json(raw, path)
    except MalformedJson:
        if _json_lines(raw, path):
            raise AbwInputError(
                "not a SWE-agent trajectory: JSON Lines given (a JSON object on each line); "
                "expected one JSON document",
                file=path,
                field="trajectory",
            ) from None
        raise


def _json_lines(raw: bytes, path: Path) -> bool:
    """The first two non-blank lines are each a JSON object of their own."""
    lines = [line for line in raw.removeprefix(BOM).split(b"\n") if line.strip()][:2]
    try:
        return len(lines) == 2 and all(isinstance(parse_json(x, path), dict) for x in lines)
    except AbwInputError:
        return False


def message_list(document: Any) -> bool:
    """A non-empty list of ``{role, ...}`` objects (mini-swe-agent's older trajectories)."""
    return (
        isinstance(document, list)
        and bool(document)
        and all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in document)
    )
