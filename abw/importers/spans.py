"""Build spans the same way in every importer: outcomes, statuses, hashes, times and ordinals.

An importer collects :class:`Draft` spans in any order, each with a *sort key* that says where it
belongs in the trajectory (a raw line number, or a tree position), then :func:`finish` sorts
them, numbers them from 0 and turns them into :class:`~abw.models.trace.Span` objects. Content is
only ever stored as :func:`~abw.hashing.content_hash` of the raw value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abw.hashing import content_hash

if TYPE_CHECKING:
    from collections.abc import Iterable

    from abw.importers.common import ArgumentField, Label
    from abw.models.trace import Span, Trace

#: Marks a value that the raw export did not record (distinct from an empty value).
ABSENT: Any = object()

#: The coarse status behind each outcome: a person's refusal or an interrupt cancels a call; a
#: policy/sandbox denial or a timeout is a failed call; a call with no result is unknown.
OUTCOME_STATUS: dict[str, str] = {
    "ok": "success",
    "error": "error",
    "denied": "error",
    "timeout": "error",
    "rejected": "cancelled",
    "interrupted": "cancelled",
    "incomplete": "unknown",
}

#: Tool names that run a shell command: ``--bash-tool-labels`` applies to them.
SHELL_TOOLS = frozenset(
    {"shell", "shell_command", "exec_command", "local_shell", "local_shell_call", "bash", "Bash"}
)


def exit_outcome(code: int) -> str:
    """The outcome of a command from its exit code: 0 ok, 124 (``timeout``'s) timeout, else
    error. Every importer whose format records exit codes reads them through this."""
    if code == 0:
        return "ok"
    return "timeout" if code == 124 else "error"


#: The error classes of a call or a run stopped while it ran, not failed: its asyncio task
#: cancelled (a client that stopped a streaming run; OpenInference writes the class name, the
#: OpenTelemetry SDK its module too), the process interrupted (^C), a stream its consumer left
#: (``GeneratorExit``: LangGraph's ``stream`` and LangChain's model ``stream`` record every
#: ``BaseException``), a graph drained on shutdown (LangGraph 1.2's ``GraphDrained``: stopped
#: cooperatively, resumable), or (JavaScript) the ``AbortError`` of a call whose
#: ``AbortSignal`` fired (the Vercel AI SDK's ``abortSignal``, a LangChain.js run's caller).
STOPPED_ERRORS = frozenset(
    {"CancelledError", "asyncio.CancelledError", "asyncio.exceptions.CancelledError"}
    | {"KeyboardInterrupt", "GeneratorExit", "GraphDrained", "AbortError"}
)


def stopped(error_type: str | None) -> bool:
    """Whether an error's class says the call or run was stopped while it ran
    (:data:`STOPPED_ERRORS`), not that it failed. Every importer whose format records an
    error's class reads it through this."""
    return error_type in STOPPED_ERRORS


def timed_out(error_type: str | None) -> bool:
    """Whether an error's class says the call timed out (``TimeoutError``,
    ``asyncio.TimeoutError``, ``httpx.ReadTimeout``, ``McpError``'s ``RequestTimeout``…).
    Every importer whose format records an error's class reads it through this."""
    return error_type is not None and "Timeout" in error_type.rsplit(".", 1)[-1]


def status_of(outcome: str | None) -> str:
    """The span status for an outcome (``None`` -> ``unknown``)."""
    return OUTCOME_STATUS.get(outcome or "", "unknown")


def hash_or_none(value: Any) -> str | None:
    """SHA-256 of the canonical JSON of ``value``; ``None`` when it was :data:`ABSENT`."""
    return None if value is ABSENT else content_hash(value)


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 string (``Z`` or offset; naive means UTC) or epoch seconds -> aware datetime."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(float(value), UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
        return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
    except (ValueError, OverflowError):  # 9999-12-31T23:59:59-05:00 is past datetime.max in UTC
        return None


def iso(moment: datetime | None) -> str | None:
    """``2025-09-25T01:22:20.083000Z`` (UTC, microseconds) or ``None``."""
    if moment is None:
        return None
    if moment.tzinfo is not UTC:
        moment = moment.astimezone(UTC)
    if moment.year < 1000:  # strftime writes such a year without leading zeros
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return moment.isoformat(timespec="microseconds").removesuffix("+00:00") + "Z"


def ms_between(start: datetime | None, end: datetime | None) -> float | None:
    """Milliseconds from ``start`` to ``end``; ``None`` if either is missing or time ran back."""
    if start is None or end is None or end < start:
        return None
    return round((end - start).total_seconds() * 1000, 3)


@dataclass
class Draft:
    """A span before its ordinal is known."""

    sort_key: tuple[Any, ...]
    type: str
    name: str
    outcome: str | None = None
    input: Any = ABSENT
    output: Any = ABSENT
    attributes: dict[str, Any] = field(default_factory=dict)
    span_id: str | None = None
    parent_span_id: str | None = None
    started_at: datetime | None = None
    duration_ms: float | None = None
    line: int | None = None
    status: str | None = None  # overrides the status derived from ``outcome``

    def apply_label(self, labels: tuple[Label, ...], command: str | None) -> None:
        """Rename a shell call to the first ``--bash-tool-labels`` label its command names."""
        from abw.importers.common import match_label

        if not labels or not command:
            return
        label = match_label(labels, command)
        if label is not None:
            self.attributes.setdefault("tool", self.name)
            self.attributes["label"] = label.name
            self.name = label.name
            self.type = label.span_type

    def set_times(self, start: Any, end: Any) -> None:
        """``started_at`` and ``duration_ms`` from raw start and end times (:func:`parse_time`)."""
        self.started_at = parse_time(start)
        self.duration_ms = ms_between(self.started_at, parse_time(end))

    def mark_shell(self, labels: tuple[Label, ...], command: Any) -> None:
        """A shell call: ``tool_alias: shell``, then the ``--bash-tool-labels`` label of its
        command (when ``command`` is a string)."""
        self.attributes["tool_alias"] = "shell"
        self.apply_label(labels, command if isinstance(command, str) else None)

    def keep_arguments(self, fields: tuple[ArgumentField, ...], tool_input: Any, file: Any) -> None:
        """Copy the ``--argument-fields`` named for this span (by its name after labels) out of
        the call's input (a JSON object, or a string holding one) into ``attributes.arguments``."""
        from abw.importers.common import extract_arguments
        from abw.importers.rawio import decode_json_string

        tool_input = decode_json_string(tool_input, file, self.line)
        arguments = extract_arguments(fields, self.name, tool_input, file=file, line=self.line)
        if arguments is not None:
            self.attributes["arguments"] = arguments


def _duration(value: float | None) -> float | None:
    """A duration a span can hold: finite and not negative (clock skew in exports), else None."""
    return value if value is not None and math.isfinite(value) and value >= 0 else None


def finish(drafts: list[Draft], source_file: str | Path | None = None) -> list[Span]:
    """Sort drafts by their sort key, number them from 0 and build the spans.

    Span ids default to ``span-<ordinal>``; ids given by the export are kept when unique.
    """
    from abw.models.trace import SourceRef, Span

    ordered = sorted(drafts, key=lambda d: d.sort_key)
    seen: set[str] = set()
    spans: list[Span] = []
    base = Path(source_file).name if source_file is not None else None
    for ordinal, draft in enumerate(ordered):
        span_id = draft.span_id if draft.span_id and draft.span_id not in seen else None
        span_id = span_id or f"span-{ordinal:04d}"
        seen.add(span_id)
        ref = SourceRef(file=base, line=draft.line) if (base or draft.line) else None
        spans.append(
            Span(
                span_id=span_id,
                ordinal=ordinal,
                type=draft.type,
                name=draft.name,
                status=draft.status or status_of(draft.outcome),
                input_hash=hash_or_none(draft.input),
                output_hash=hash_or_none(draft.output),
                attributes=dict(sorted(draft.attributes.items())),
                parent_span_id=draft.parent_span_id,
                outcome=draft.outcome,
                started_at=iso(draft.started_at),
                duration_ms=_duration(draft.duration_ms),
                source_ref=ref,
            )
        )
    known = {s.span_id for s in spans}
    for span in spans:
        if span.parent_span_id is not None and span.parent_span_id not in known:
            span.parent_span_id = None
    return spans


def recorded_start(span_starts: Iterable[str | None], first: datetime | None) -> dict[str, str]:
    """``{"started_at": first}`` (the recording's first time, ISO 8601) for a run none of whose
    spans has a time (a prompt a hook blocked, a turn aborted before any step): without it the
    run has no start, and its scenario no recording order (abw.gating.sequence). Otherwise
    nothing: the earliest span time is the run's start."""
    if first is None or any(span_starts):
        return {}
    return {"started_at": iso(first)}


def make_trace(
    *,
    platform: str,
    export_format: str,
    raw: bytes | None = None,
    trace_id: str,
    spans: list[Span],
    options: Any,
    final_status: str = "unknown",
    final_output: Any = None,
    final_text: str | None = None,
    removed_fields: list[str] | tuple[str, ...] = (),
    extra_run: dict[str, Any] | None = None,
    source_hash: str | None = None,
    recording_start: datetime | None = None,
    cut_off: bool = False,
) -> Trace:
    """Assemble a redacted trace: source hash, run metadata, spans and the redaction record.

    The source hash is of ``raw``, the export's bytes, or is given as ``source_hash`` (an
    export of many traces hashes its bytes once, not once a trace). ``final_output`` is hashed
    into ``final_output_hash``; ``final_text`` (the final answer as text) is where
    ``--output-fields`` are looked for. The argument fields the spans keep are recorded in
    ``redaction.kept_fields``. ``recording_start``: when the recording began, the run's start
    when no span has a time (:func:`recorded_start`). ``cut_off``: the recording's last line
    was cut off mid-write (abw.importers.rawio.cut_off): what it held is lost, so a run that
    read ``success`` is ``unknown``.
    """
    from abw.hashing import sha256_hex
    from abw.importers.common import (
        extract_canonical_output,
        final_output_hash,
        model_name,
        record_kept_arguments,
    )
    from abw.models.trace import Redaction, Run, Source, Trace

    for span in spans:
        if span.type == "llm":
            span.name = model_name(span.name)
    if cut_off and final_status == "success":
        final_status = "unknown"  # (the lost last line may have held calls, or more)
    if source_hash is None:
        if raw is None:
            raise TypeError("make_trace needs the export's raw bytes or their source_hash")
        source_hash = sha256_hex(raw)
    run = Run(
        trace_id=trace_id,
        scenario_id=options.scenario_id,
        environment=options.environment,
        final_status=final_status,
        final_output_hash=final_output_hash(final_output),
        canonical_output=extract_canonical_output(final_text, options.output_fields),
        **recorded_start((s.started_at for s in spans), recording_start),
        **(extra_run or {}),
    )
    trace = Trace(
        source=Source(
            platform=platform,
            export_format=export_format,
            exported_at=options.exported_at,
            source_hash=source_hash,
        ),
        run=run,
        spans=spans,
        redaction=Redaction(
            applied=True, method="hash-only", removed_fields=sorted(set(removed_fields))
        ),
    )
    return record_kept_arguments(trace)


#: Keys of a chat message or a model response: a JSON object without any of them is not one.
MESSAGE_KEYS = frozenset(
    {"role", "content", "parts", "tool_calls", "messages", "choices", "candidates", "generations"}
)


def assistant_text(value: Any) -> str | None:
    """The last assistant text in a model output: a string, or a list of messages (OpenAI
    ``content`` strings, GenAI semconv ``parts`` of type text, Gemini ``parts`` with ``text``,
    Google ADK's response holding its Gemini ``content``), possibly JSON-encoded. A text
    that is a JSON object but no message (a structured answer, ``{"steps": [...]}``) is the
    answer itself."""
    from abw.importers.rawio import decode_json_string

    text = value
    value = decode_json_string(value)
    if isinstance(value, str):
        return value
    if isinstance(text, str) and isinstance(value, dict) and not MESSAGE_KEYS & value.keys():
        return text
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return None
    texts: list[str] = []
    for message in value:
        if not isinstance(message, dict):
            continue
        if isinstance(message.get("content"), dict):  # Google ADK's LlmResponse: a Gemini Content
            message = message["content"]
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        for part in message.get("parts") or []:
            if not isinstance(part, dict) or part.get("type", "text") != "text":
                continue
            body = part.get("content", part.get("text"))  # GenAI semconv / Gemini parts
            if isinstance(body, str):
                texts.append(body)
    return texts[-1] if texts else None
