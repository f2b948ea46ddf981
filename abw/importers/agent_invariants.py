"""agent-invariants event streams (JSON Lines of ``{seq, type, ...}`` events, one run a file,
or one JSON array of them; ``seq``, where given, must increase strictly, as the peer requires).

The mapping (docs/contracts.md, "agent-invariants and behaviorlock"):

* ``tool.call`` + its first later ``tool.result`` with the same ``call_id`` -> one ``tool`` span
  named by the tool: ``ok: false`` -> error, otherwise ok; no result -> incomplete (unknown).
  ``call_signature`` is the span's input (its hash); the result event its output.
* ``approval.granted`` -> a ``guardrail`` span ``approval:<approval_scope>`` (``approved:
  false`` -> denied: status error, as a policy's refusal in every importer).
* ``outcome.observed`` -> a ``guardrail`` span ``outcome.<evidence_class>:<outcome_id>``, ok
  when its verdict is ``satisfied``; the last verdict (or ``none``) is the run's
  ``canonical_output.final_outcome``.
* ``agent.message`` -> an ``llm`` span ``agent.claims_completion`` (or ``agent.message``).
* any other event (``run.start``, ``run.completed``, ``control.stop``, ``telemetry.*``) -> a
  ``guardrail`` span named by its type; ``final_status`` success after ``run.completed``,
  error after ``run.failed``, else unknown.

``approval_id`` (calls and approvals) and ``confidence`` (messages) are kept as span arguments
(identities and numbers the peer's rules bind and compare; listed in ``redaction.kept_fields``);
every other field (``data``, ``actor``, ``risk``, ...) is only hashed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from abw.errors import AbwInputError
from abw.importers.base import Importer, ImportOptions
from abw.importers.rawio import json_body, jsonl_records, load_json, read_raw, scalar_text
from abw.importers.spans import ABSENT, Draft, finish, make_trace, parse_time
from abw.jsonlocate import value_lines

if TYPE_CHECKING:
    from abw.models.trace import Trace

#: Fields of an event that hold content (hashed, never kept), for ``removed_fields``.
CONTENT_FIELDS = ("call_signature", "data", "actor", "risk", "message", "text")


class AgentInvariantsImporter(Importer):
    name: ClassVar[str] = "agent-invariants"
    platform: ClassVar[str] = "agent_invariants"
    export_format: ClassVar[str] = "agent-invariants-jsonl"
    help: ClassVar[str] = (
        "agent-invariants event streams (JSON Lines of {seq, type, ...} events, one run a "
        "file): tool.call/tool.result, approval.granted, outcome.observed, agent.message."
    )
    suffixes: ClassVar[tuple[str, ...]] = (".jsonl",)

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        raw = read_raw(path)
        warnings: list[str] = []
        events: list[tuple[int, dict[str, Any]]] = []
        for line, value in _records(raw, path, warnings):
            if not isinstance(value, dict) or not isinstance(value.get("type"), str):
                raise AbwInputError(
                    "not an agent-invariants event: expected an object with a type",
                    file=path,
                    line=line,
                    field="type",
                )
            events.append((line, value))
        for warning in warnings:
            options.warn(warning)
        if not events:
            raise AbwInputError("the file holds no events", file=path)
        _check_seq(events, path)
        drafts, final_status, verdicts, run_id = _drafts(events)
        held = sorted({f for _, e in events for f in CONTENT_FIELDS if e.get(f) not in (None, "")})
        return [_trace(self, raw, path, drafts, options, final_status, verdicts, run_id, held)]


def _records(raw: bytes, path: Path, warnings: list[str]) -> list[tuple[int, Any]]:
    """``(line, event)`` of a trace in either of the peer's forms (its docs/event-format.md):
    JSON Lines, or one JSON array of events."""
    if json_body(raw, path).lstrip()[:1] == b"[":
        document = load_json(raw, path)
        lines = value_lines(raw, 1)
        return [(lines.get((index,), 1), event) for index, event in enumerate(document)]
    return list(jsonl_records(raw, path, warnings))


def _check_seq(events: list[tuple[int, dict[str, Any]]], path: Path) -> None:
    """``seq``, where given, is a non-negative integer that increases strictly, as the peer
    requires (its events are ordered by it; a stream out of order is refused there too)."""
    last: int | None = None
    for line, event in events:
        seq = event.get("seq")
        if seq is None:
            continue
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            raise AbwInputError(
                "seq must be a non-negative integer", file=path, line=line, field="seq"
            )
        if last is not None and seq <= last:
            raise AbwInputError(
                f"seq must increase strictly: {seq} follows {last}",
                file=path,
                line=line,
                field="seq",
            )
        last = seq


def _trace(
    importer: AgentInvariantsImporter,
    raw: bytes,
    path: Path,
    drafts: list[Draft],
    options: ImportOptions,
    final_status: str,
    verdicts: list[str],
    run_id: str | None,
    held: list[str],
) -> Trace:
    trace = make_trace(
        platform=importer.platform,
        export_format=importer.export_format,
        raw=raw,
        trace_id=run_id or path.stem,
        spans=finish(drafts, path),
        options=options,
        final_status=final_status,
        final_output=verdicts[-1] if verdicts else "none",
        removed_fields=held,
    )
    # the final outcome is an enum the peer's compare policy ranks: always recorded
    output = {
        **(trace.run.canonical_output or {}),
        "final_outcome": verdicts[-1] if verdicts else "none",
    }
    trace.run = trace.run.model_copy(update={"canonical_output": output})
    return trace


def _seq(event: dict[str, Any], line: int) -> Any:
    seq = event.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else line


def _drafts(
    events: list[tuple[int, dict[str, Any]]],
) -> tuple[list[Draft], str, list[str], str | None]:
    """The spans, the run's final status, the outcome verdicts in order, and the run id."""
    calls: dict[str, int] = {}  # call_id -> position of its call event
    for position, (_, event) in enumerate(events):
        if event["type"] == "tool.call" and isinstance(event.get("call_id"), str):
            calls.setdefault(event["call_id"], position)
    results: dict[str, dict[str, Any]] = {}  # call_id -> the first result after its call
    for position, (_, event) in enumerate(events):
        call_id = event.get("call_id")
        call = (
            calls.get(call_id)
            if isinstance(call_id, str) and event["type"] == "tool.result"
            else None
        )
        if call is not None and position > call:
            results.setdefault(event["call_id"], event)
    drafts: list[Draft] = []
    verdicts: list[str] = []
    kinds: set[str] = set()
    run_id: str | None = None
    for position, (line, event) in enumerate(events):
        kind = event["type"]
        kinds.add(kind)
        if run_id is None and isinstance(event.get("run_id"), str) and event["run_id"]:
            run_id = event["run_id"]
        if kind == "tool.result":
            continue  # folded into its call
        draft = _draft(event, position, results)
        draft.line = line
        draft.span_id = f"e{_seq(event, line)}"
        draft.started_at = parse_time(event.get("time"))
        if kind == "outcome.observed":
            verdicts.append(scalar_text(event.get("verdict"), "unknown"))
        drafts.append(draft)
    final = (
        "success" if "run.completed" in kinds else "error" if "run.failed" in kinds else "unknown"
    )
    return drafts, final, verdicts, run_id


def _draft(event: dict[str, Any], position: int, results: dict[str, dict[str, Any]]) -> Draft:
    kind = event["type"]
    keep: tuple[str, ...] = ()
    if kind == "tool.call":
        answer = (
            results.get(event.get("call_id")) if isinstance(event.get("call_id"), str) else None
        )
        outcome = "incomplete" if answer is None else "error" if answer.get("ok") is False else "ok"
        draft = Draft(
            (position,),
            "tool",
            scalar_text(event.get("tool"), "tool"),
            outcome,
            event.get("call_signature", ABSENT),
            ABSENT if answer is None else answer,
        )
        keep = ("approval_id",)
    elif kind == "approval.granted":
        scope = event.get("approval_scope")
        outcome = "denied" if event.get("approved") is False else "ok"  # (refused: as a policy)
        name = f"approval:{scalar_text(scope, '')}"
        draft = Draft((position,), "guardrail", name, outcome, output=event)
        keep = ("approval_id",)
    elif kind == "outcome.observed":
        evidence = scalar_text(event.get("evidence_class"), "none")
        name = f"outcome.{evidence}:{scalar_text(event.get('outcome_id'), '')}"
        outcome = "ok" if event.get("verdict") == "satisfied" else "error"
        draft = Draft((position,), "guardrail", name, outcome, output=event)
    elif kind == "agent.message":
        claims = event.get("claims_completion") is True
        name = "agent.claims_completion" if claims else "agent.message"
        draft = Draft((position,), "llm", name, "ok", output=event)
        keep = ("confidence",)
    else:
        draft = Draft((position,), "guardrail", kind, "ok", output=event)
    # identities and numbers only: an object or array there is no id (its text is content)
    arguments = {k: event[k] for k in keep if k in event and not isinstance(event[k], dict | list)}
    if keep:
        draft.attributes["arguments"] = arguments
    return draft
