"""How long ``diff`` and ``gate`` take on large synthetic run sets (in-memory traces).

Usage: ``python benchmarks/gate_speed.py [--runs 1000] [--length 30]``. Each set has ``--runs``
runs per side with paths of about ``--length`` tool calls drawn from 12 tools (with shared
structure, so nearest-baseline search and the prefix tree see realistic repetition).
"""

from __future__ import annotations

import argparse
import random
import time

from abw.diffing import diff
from abw.gating import gate, report_json
from abw.hashing import content_hash
from abw.models.spec import Spec
from abw.models.trace import Run, Source, Span, Trace
from abw.traceio import parse_trace, render_trace

TOOLS = [f"tool_{i:02d}" for i in range(12)]


def make_runs(prefix: str, count: int, length: int, rng: random.Random) -> list:
    skeleton = [rng.choice(TOOLS) for _ in range(length)]
    files = []
    for index in range(count):
        path = [t if rng.random() > 0.1 else rng.choice(TOOLS) for t in skeleton]
        spans = [Span(span_id="l", ordinal=0, type="llm", name="m", status="success")]
        spans += [
            Span(
                span_id=f"s{i}",
                ordinal=i + 1,
                type="tool",
                name=name,
                status="success",
                input_hash=content_hash([prefix, index, i]),
            )
            for i, name in enumerate(path)
        ]
        trace = Trace(
            source=Source(platform="bench", export_format="json", source_hash="0" * 64),
            run=Run(trace_id=f"{prefix}-{index:05d}", scenario_id="bench"),
            spans=spans,
        )
        files.append(parse_trace(render_trace(trace).encode(), f"{prefix}/{index:05d}.json"))
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--length", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(3)
    baseline = make_runs("b", args.runs, args.length, rng)
    candidate = make_runs("c", args.runs, args.length, rng)
    spec = Spec.model_validate(
        {
            "schema_version": "behavior-spec/v0",
            "id": "bench",
            "invariants": {
                "required_tools": TOOLS[:3],
                "required_order": [{"before": "tool_0*", "after": "tool_1*"}],
                "max_path_length": args.length * 2,
                "max_errors": 0,
                "max_retries": 0,
            },
            "thresholds": {"sprt": {"enabled": True}},
        }
    )
    started = time.perf_counter()
    diff(baseline, candidate)
    diff_s = time.perf_counter() - started
    started = time.perf_counter()
    report = gate(baseline, candidate, spec, spec_file="bench.yaml", spec_sha256="0" * 64)
    gate_s = time.perf_counter() - started
    started = time.perf_counter()
    text = report_json(report)
    json_s = time.perf_counter() - started
    print(f"{args.runs} baseline + {args.runs} candidate runs, ~{args.length} tool calls each")
    print(f"  diff       {diff_s:8.2f} s")
    print(f"  gate       {gate_s:8.2f} s  (verdict {report.verdict}, {len(report.checks)} checks)")
    print(f"  report     {json_s:8.2f} s  ({len(text) / 1e6:.1f} MB JSON)")


if __name__ == "__main__":
    main()
