"""Hints for the usual mix-up: a raw agent export given where an abw document is expected.

``abw validate``, ``abw gate`` and every command that reads traces say what the file looks like
and the import command that turns it into traces, instead of only "invalid JSON".
"""

from __future__ import annotations

import json
from pathlib import Path

from abw.text import plural

#: How much of a file's start is read to recognise it.
_PEEK_BYTES = 1 << 16
_CLAUDE_TYPES = frozenset({"user", "assistant", "system", "summary", "progress", "queue-operation"})
_CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})
_RAW_SUFFIXES = (".jsonl", ".ndjson")


def _first_record(path: Path) -> object:
    try:
        with path.open("rb") as handle:
            head = handle.read(_PEEK_BYTES)
    except OSError:
        return None
    for line in head.split(b"\n"):
        if line.strip():
            try:
                return json.loads(line)
            except (ValueError, RecursionError):  # not JSON, or nested too deeply to matter
                return None
    return None


def _source(path: Path) -> str | None:
    """The importer whose export ``path`` looks like ("claude", "codex", "otel"), or None."""
    record = _first_record(path)
    if not isinstance(record, dict) or "schema_version" in record:
        return None
    kind = record.get("type")
    if kind in _CODEX_TYPES or (isinstance(record.get("payload"), dict) and "timestamp" in record):
        return "codex"
    if kind in _CLAUDE_TYPES or "sessionId" in record or kind == "file-history-snapshot":
        return "claude"
    if "resourceSpans" in record:
        return "otel"
    return "" if path.suffix.lower() in _RAW_SUFFIXES else None


def raw_export_hint(path: str | Path) -> str | None:
    """What to do when ``path`` (a file, or a folder of them) is a raw agent export; or None."""
    path = Path(path)
    if path.is_dir():
        raw = sorted(p for s in _RAW_SUFFIXES for p in path.rglob(f"*{s}") if p.is_file())
        if not raw:
            return None
        source = _source(raw[0]) or "<source>"
        return (
            f"it holds {plural(len(raw), 'raw export file')} ({raw[0].name}, ...), not traces: "
            f"import them first with `abw import {source} --input {path} --out traces/` "
            "(docs/guide.md)"
        )
    source = _source(path) if path.is_file() else None
    if source is None:
        return None
    name = {"claude": "a Claude Code transcript", "codex": "a Codex CLI rollout"}.get(
        source, "an OpenTelemetry export" if source == "otel" else "a raw agent export"
    )
    return (
        f"this looks like {name}, not an abw document: import it first with "
        f"`abw import {source or '<source>'} --input {path} --out traces/` (docs/guide.md)"
    )


def with_hint(message: str, path: str | Path) -> str:
    """``message``, followed by the raw-export hint for ``path`` when there is one."""
    hint = raw_export_hint(path)
    return f"{message}; {hint}" if hint else message
