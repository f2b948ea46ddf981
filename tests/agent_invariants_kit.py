"""agent-invariants events as abw traces, mapped by hand (docs/contracts.md, "agent-invariants"):
used by the differential tests until an importer writes them."""

from __future__ import annotations

import json
from pathlib import Path

from abw.hashing import content_hash
from abw.models.trace import Trace

CORPUS = Path(__file__).parent / "corpus" / "agent-invariants"


def events(name: str) -> list[dict]:
    lines = (CORPUS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def to_trace(
    items: list[dict], trace_id: str, scenario: str = "support"
) -> tuple[Trace, dict[int, int]]:
    """The trace, and each span's ordinal -> the peer's event ``seq``."""
    results: dict[str, dict] = {}  # call_id -> the first result after the call
    calls = {e["call_id"]: e["seq"] for e in items if e["type"] == "tool.call" and "call_id" in e}
    for e in items:
        call = calls.get(e.get("call_id"))
        if e["type"] == "tool.result" and call is not None and e["seq"] > call:
            results.setdefault(e["call_id"], e)
    spans, seq_of = [], {}
    for event in items:
        kind = event["type"]
        arguments: dict | None = None
        result, input_hash = ["event", event["seq"]], None
        if kind == "tool.result":
            continue  # folded into its call
        if kind == "tool.call":
            answer = results.get(event.get("call_id"))
            span_type, name = "tool", event["tool"]
            status = (
                "unknown" if answer is None else "error" if answer.get("ok") is False else "success"
            )
            result = None if answer is None else ["result", answer["seq"]]
            if "call_signature" in event:
                input_hash = content_hash(event["call_signature"])
            arguments = {k: event[k] for k in ("approval_id",) if k in event}
        elif kind == "approval.granted":
            span_type, name = "guardrail", f"approval:{event.get('approval_scope', '')}"
            status = "error" if event.get("approved") is False else "success"
            arguments = {k: event[k] for k in ("approval_id",) if k in event}
        elif kind == "outcome.observed":
            evidence = event.get("evidence_class", "none")
            span_type, name = "guardrail", f"outcome.{evidence}:{event.get('outcome_id', '')}"
            status = "success" if event.get("verdict") == "satisfied" else "error"
        elif kind == "agent.message":
            claims = event.get("claims_completion") is True
            span_type = "llm"
            name = "agent.claims_completion" if claims else "agent.message"
            status = "success"
            arguments = {k: event[k] for k in ("confidence",) if k in event}
        else:
            span_type, name, status = "guardrail", kind, "success"
        seq_of[len(spans)] = event["seq"]
        spans.append(
            {
                "span_id": f"e{event['seq']}",
                "ordinal": len(spans),
                "type": span_type,
                "name": name,
                "status": status,
                "input_hash": input_hash,
                "output_hash": None if result is None else content_hash(result),
                "attributes": {} if arguments is None else {"arguments": arguments},
            }
        )
    kinds = {e["type"] for e in items}
    final = (
        "success" if "run.completed" in kinds else "error" if "run.failed" in kinds else "unknown"
    )
    verdicts = [e.get("verdict") for e in items if e["type"] == "outcome.observed"]
    document = {
        "source": {
            "platform": "agent-invariants",
            "export_format": "jsonl",
            "source_hash": "0" * 64,
        },
        "run": {
            "trace_id": trace_id,
            "scenario_id": scenario,
            "final_status": final,
            "canonical_output": {"final_outcome": verdicts[-1] if verdicts else "none"},
        },
        "spans": spans,
    }
    return Trace.model_validate(document), seq_of
