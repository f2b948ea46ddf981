"""Step texts from a raw Claude Code transcript, aligned with the redacted trace's spans.

The real Claude importer turns the transcript into traces with the same options
``abw import claude`` gets; each *path* span (non-``llm``) of a trace becomes one step. Its
text is the tool call as the model wrote it — the tool's name, a space, then its input as
JSON — found on the raw line the span's ``source_ref`` names, by the span's ``input_hash``.
A path span with no tool call (e.g. a compaction) reads as ``"<type> <name>"``. The texts live
in memory only; the trajectory stores their SHA-256, the span id and the ordinal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.hashing import content_hash
from abw.latent.build import StepRef
from abw.latent.run import TrajectoryInput
from abw.models.trajectory import TrajectorySource
from abw.reader import MalformedJson, parse_json


def _tool_calls(path: Path) -> dict[int, list[dict[str, Any]]]:
    """``line -> tool_use blocks`` of one raw JSONL file (lines without one are skipped)."""
    calls: dict[int, list[dict[str, Any]]] = {}
    with open(path, "rb") as handle:
        for line, raw in enumerate(handle, start=1):
            if b'"tool_use"' not in raw:
                continue
            try:
                record = parse_json(raw, path, first_line=line)
            except MalformedJson:  # a cut-off line; the importer has reported any other
                continue
            message = record.get("message") if isinstance(record, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, list):
                blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
                if blocks:
                    calls[line] = blocks
    return calls


class _RawFiles:
    """The raw files a trace's spans point at: the session and its subagent files."""

    def __init__(self, session: Path) -> None:
        self.folders = [
            session.parent,
            session.parent / session.stem / "subagents",
            session.parent / session.stem,
        ]
        self.session = session
        self.cache: dict[str, dict[int, list[dict[str, Any]]]] = {}

    def calls(self, name: str | None) -> dict[int, list[dict[str, Any]]]:
        name = name or self.session.name
        if name not in self.cache:
            found = next((f / name for f in self.folders if (f / name).is_file()), None)
            self.cache[name] = _tool_calls(found) if found else {}
        return self.cache[name]


def step_text(block: dict[str, Any]) -> str:
    """A tool call as the model wrote it: name, a space, the input as JSON."""
    return f"{block.get('name')} {json.dumps(block.get('input'), ensure_ascii=False)}"


def trace_steps(trace: Any, raw: _RawFiles) -> tuple[list[str], list[StepRef]]:
    """One step per path span of ``trace``: its text (memory only) and its reference."""
    texts: list[str] = []
    refs: list[StepRef] = []
    for span in trace.path():
        ref = span.source_ref
        blocks = raw.calls(ref.file if ref else None).get(ref.line, []) if ref and ref.line else []
        match = next((b for b in blocks if content_hash(b.get("input")) == span.input_hash), None)
        text = step_text(match) if match is not None else f"{span.type} {span.name}"
        texts.append(text)
        refs.append(StepRef.of_text(text, span.span_id, span.ordinal))
    return texts, refs


def transcript_inputs(
    input_path: Path,
    *,
    scenario_id: str | None = None,
    labels: str | None = None,
    warnings: list[str] | None = None,
) -> list[tuple[str, TrajectoryInput]]:
    """``(output name, trajectory input)`` for every trace of a transcript file or folder.

    The importer's warnings are appended to ``warnings`` when given.
    """
    from abw.importers import get_importer
    from abw.importers.base import ImportOptions
    from abw.importers.common import parse_exported_at, parse_labels

    importer = get_importer("claude")
    options = ImportOptions(
        scenario_id=scenario_id,
        labels=parse_labels(labels),
        exported_at=parse_exported_at(None),  # now
        warnings=warnings if warnings is not None else [],
    )
    if input_path.is_dir():
        files = importer.discover(input_path)
        if not files:
            raise AbwInputError("no Claude Code transcripts found", file=input_path)
    elif input_path.is_file():
        files = [input_path]
    else:
        raise AbwInputError("no such file or folder", file=input_path, field="--input")
    out: list[tuple[str, TrajectoryInput]] = []
    for path in files:
        traces = importer.import_file(path, options)
        raw = _RawFiles(path)
        for index, trace in enumerate(traces):
            texts, refs = trace_steps(trace, raw)
            if not texts:
                continue
            name = path.stem if len(traces) == 1 else f"{path.stem}-{index:03d}"
            source = TrajectorySource(
                kind="claude_transcript",
                source_hash=trace.source.source_hash,
                trace_id=trace.run.trace_id,
                scenario_id=trace.run.scenario_id,
            )
            out.append((name, TrajectoryInput(texts, refs, source)))
    if not out:
        raise AbwInputError("no tool calls to read: every trace has an empty path", file=input_path)
    return out
