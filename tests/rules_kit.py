"""Small trace builders for the rule, assertion, contract and fingerprint tests."""

from __future__ import annotations

from typing import Any

from abw.hashing import content_hash, sha256_hex
from abw.models.trace import Trace
from abw.traceio import TraceFile, render_trace


def span(name: str, status: str = "success", **extra: Any) -> dict[str, Any]:
    """One span description: ``span("refund_commit", "error", input="x", arguments={...})``;
    also ``type=``, ``result=None`` (no output recorded) and ``outcome=``."""
    return {"name": name, "status": status, **extra}


def trace(
    *spans: dict[str, Any] | str,
    output: dict[str, Any] | None = None,
    scenario: str | None = "refund",
    trace_id: str = "t1",
    final_status: str = "success",
) -> Trace:
    """A trace whose spans get ordinals 0, 1, ... in the order given; a str is a successful span."""
    built = []
    for ordinal, item in enumerate(spans):
        item = span(item) if isinstance(item, str) else dict(item)
        attributes = {}
        if "arguments" in item:
            attributes["arguments"] = item.pop("arguments")
        given_input = item.pop("input", item["name"] + str(ordinal))
        result = item.pop("result", ["out", ordinal])  # None: no output recorded
        built.append(
            {
                **({"outcome": item.pop("outcome")} if "outcome" in item else {}),
                "span_id": f"s{ordinal}",
                "ordinal": ordinal,
                "type": item.pop("type", "tool"),
                "name": item["name"],
                "status": item["status"],
                "input_hash": None if given_input is None else content_hash(given_input),
                "output_hash": None if result is None else content_hash(result),
                "attributes": attributes,
            }
        )
    return Trace.model_validate(
        {
            "schema_version": "agent-behavior-trace/v0",
            "source": {"platform": "test", "export_format": "test", "source_hash": "0" * 64},
            "run": {
                "trace_id": trace_id,
                "scenario_id": scenario,
                "final_status": final_status,
                "canonical_output": output,
            },
            "spans": built,
        }
    )


def trace_file(t: Trace, path: str | None = None) -> TraceFile:
    """``t`` as the file ``path`` would hold it: its SHA-256 is the rendered trace's."""
    return TraceFile(path or f"{t.run.trace_id}.json", t, sha256_hex(render_trace(t)), {})
