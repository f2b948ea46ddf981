"""Builders for small, real traces used by the gate tests (no tests of its own).

Each trace is rendered with the real writer and parsed back with the real reader, so span
lines and hashes are the ones a file on disk would have.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from abw.hashing import content_hash
from abw.models.trace import Run, Source, Span, Trace
from abw.traceio import TraceFile, parse_trace, render_trace

Step = str | tuple[str, str] | tuple[str, str, str]


def make_trace(
    trace_id: str,
    steps: list[Step],
    *,
    scenario: str | None = "refund",
    output: dict[str, Any] | None = None,
    llm_first: bool = True,
    final_status: str = "success",
    started_at: str | None = None,
) -> Trace:
    """A trace whose path is ``steps``: "name", (name, status) or (name, status, input key).

    An llm span starts the run when ``llm_first``; the input hash of a step is derived from
    its input key (default: its position), so equal keys mean the same input. ``started_at``
    is the first span's start time (the run's recording time).
    """
    spans: list[Span] = []
    if llm_first:
        spans.append(Span(span_id="s0", ordinal=0, type="llm", name="assistant", status="success"))
    for index, step in enumerate(steps):
        name, status, key = (step, "success", None) if isinstance(step, str) else (*step, None)[:3]
        if key is None:
            key = f"{trace_id}-{index}"
        ordinal = len(spans)
        spans.append(
            Span(
                span_id=f"s{ordinal}",
                ordinal=ordinal,
                type="guardrail" if name == "policy_check" else "tool",
                name=name,
                status=status,
                input_hash=content_hash([name, key]),
            )
        )
    if started_at is not None and spans:
        spans[0] = spans[0].model_copy(update={"started_at": started_at})
    return Trace(
        source=Source(platform="test", export_format="json", source_hash=content_hash(trace_id)),
        run=Run(
            trace_id=trace_id,
            scenario_id=scenario,
            final_status=final_status,  # type: ignore[arg-type]
            canonical_output=output,
        ),
        spans=spans,
    )


def trace_file(trace: Trace, folder: str = "mem") -> TraceFile:
    """Render and re-read a trace as if it were ``folder/<trace_id>.json``."""
    raw = render_trace(trace).encode()
    return parse_trace(raw, f"{folder}/{trace.run.trace_id}.json")


def runs(
    prefix: str,
    paths: list[list[Step]],
    folder: str | None = None,
    *,
    start_minute: int | None = None,
    **kw: Any,
) -> list[TraceFile]:
    """Trace files ``prefix-00``, ``prefix-01``, ... with the given paths.

    With ``start_minute`` run i starts at that many minutes (plus i) after 2026-06-01T00:00Z.
    """

    def start(i: int) -> dict[str, Any]:
        if start_minute is None:
            return {}
        minute = start_minute + i
        return {"started_at": f"2026-06-01T{minute // 60:02d}:{minute % 60:02d}:00Z"}

    return [
        trace_file(make_trace(f"{prefix}-{i:02d}", p, **start(i), **kw), folder or prefix)
        for i, p in enumerate(paths)
    ]


def write_runs(folder: Path, files: list[TraceFile]) -> Path:
    """Write trace files into a real folder (for CLI tests)."""
    folder.mkdir(parents=True, exist_ok=True)
    for tf in files:
        (folder / f"{tf.trace.run.trace_id}.json").write_text(render_trace(tf.trace))
    return folder


REFUND = ["classify", "lookup_order", "policy_check", "refund_commit"]
REGRESSED = ["classify", "lookup_order", "refund_commit", "policy_check"]
