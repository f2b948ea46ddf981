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
_NAMES = {
    "claude": "a Claude Code transcript",
    "codex": "a Codex CLI rollout",
    "gemini": "a Gemini CLI session",
    "otel": "an OpenTelemetry export",
}


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(_PEEK_BYTES)
    except OSError:
        return b""


def _first_record(head: bytes) -> object:
    for line in head.split(b"\n"):
        if line.strip():
            try:
                return json.loads(line)
            except (ValueError, RecursionError):  # not JSON, or nested too deeply to matter
                return None
    return None


def _pretty_source(head: bytes) -> str | None:
    """The importer of a JSON document written over many lines (a Gemini CLI session, an
    OTLP/JSON or Jaeger export), by the keys its start holds; or None."""
    start = head[:2048]
    if not start.lstrip().startswith(b"{") or b'"schema_version"' in start:
        return None
    if b'"projectHash"' in start:
        return "gemini"
    if b'"resourceSpans"' in start or b'"traceID"' in start:
        return "otel"
    return None


def _source(path: Path) -> str | None:
    """The importer whose export ``path`` looks like ("claude", "codex", "gemini", "otel";
    "claude-meta" for a Claude Code subagent's metadata file; "" for another), or None."""
    head = _head(path)
    record = _first_record(head)
    if record is None:
        return _pretty_source(head)
    if not isinstance(record, dict) or "schema_version" in record:
        return None
    kind = record.get("type")
    if kind in _CODEX_TYPES or (isinstance(record.get("payload"), dict) and "timestamp" in record):
        return "codex"
    if "projectHash" in record:  # a Gemini CLI session (its JSON Lines header, or the whole file)
        return "gemini"
    if kind in _CLAUDE_TYPES or "sessionId" in record or kind == "file-history-snapshot":
        return "claude"
    if "agentType" in record and "toolUseId" in record and path.parent.name == "subagents":
        return "claude-meta"
    if "resourceSpans" in record or _jaeger(record):
        return "otel"
    return "" if path.suffix.lower() in _RAW_SUFFIXES else None


def _jaeger(record: dict) -> bool:
    """Whether ``record`` is a Jaeger JSON export (``{"data": [{"traceID": ...}]}``)."""
    data = record.get("data")
    return (
        isinstance(data, list)
        and bool(data)
        and isinstance(data[0], dict)
        and ("traceID" in data[0])
    )


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
    name = _NAMES.get(source, "a raw agent export")
    if source == "claude-meta":  # <project>/<session>/subagents/agent-*.meta.json
        name, source, path = "a Claude Code subagent's metadata", "claude", path.parents[2]
    return (
        f"this looks like {name}, not an abw document: import it first with "
        f"`abw import {source or '<source>'} --input {path} --out traces/` (docs/guide.md)"
    )


def with_hint(message: str, path: str | Path) -> str:
    """``message``, followed by the raw-export hint for ``path`` when there is one."""
    hint = raw_export_hint(path)
    return f"{message}; {hint}" if hint else message
