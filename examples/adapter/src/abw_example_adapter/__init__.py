"""An example third-party abw adapter: "steps JSONL" logs of a home-grown agent.

Each line is one step of one run::

    {"run": "r1", "type": "tool", "name": "lookup_order", "input": {...}, "output": {...},
     "ok": true, "ms": 41}

``type`` is ``llm``, ``tool`` (or any other abw span type) or ``final`` (the run's answer in
``output``). A file may hold several runs; each becomes one trace. The adapter only decides what
each step *is*; abw's helpers hash the content, number the spans and build the trace.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

from abw.errors import AbwInputError
from abw.importers.base import Importer, ImportOptions
from abw.importers.spans import ABSENT, Draft, finish, make_trace

SPAN_TYPES = {"llm", "tool", "retriever", "memory", "handoff", "guardrail"}


class StepsImporter(Importer):
    """``abw import steps-jsonl --input run.jsonl --out trace.json``"""

    name: ClassVar[str] = "steps-jsonl"
    platform: ClassVar[str] = "example_agent"
    export_format: ClassVar[str] = "steps-jsonl"
    help: ClassVar[str] = "Example adapter: 'steps JSONL' logs (one step per line)."
    suffixes: ClassVar[tuple[str, ...]] = (".jsonl",)

    def import_file(self, path: Path, options: ImportOptions) -> list:
        raw = path.read_bytes()
        runs: dict[str, list[Draft]] = {}
        finals: dict[str, str] = {}
        for number, line in enumerate(raw.decode("utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                step = json.loads(line)
            except json.JSONDecodeError as exc:
                raise AbwInputError(f"invalid JSON: {exc.msg}", file=path, line=number) from None
            if not isinstance(step, dict) or not isinstance(step.get("run"), str):
                raise AbwInputError(
                    "a step needs a string 'run'", file=path, line=number, field="run"
                )
            kind = step.get("type")
            drafts = runs.setdefault(step["run"], [])
            if kind == "final":
                finals[step["run"]] = str(step.get("output", ""))
                continue
            if kind not in SPAN_TYPES:
                raise AbwInputError(
                    f"unknown step type {kind!r}", file=path, line=number, field="type"
                )
            ok = step.get("ok", True)
            draft = Draft(
                sort_key=(number,),
                type=kind,
                name=str(step.get("name") or kind),
                outcome="ok" if ok else "error",
                input=step.get("input", ABSENT),
                output=step.get("output", ABSENT),
                line=number,
            )
            if isinstance(step.get("ms"), int | float):
                draft.duration_ms = float(step["ms"])
            drafts.append(draft)
        if not runs:
            raise AbwInputError("no steps found", file=path)
        return [
            make_trace(
                platform=self.platform,
                export_format=self.export_format,
                raw=raw,
                trace_id=run_id,
                spans=finish(drafts, path),
                options=options,
                final_status="success" if run_id in finals else "unknown",
                final_output=finals.get(run_id),
                final_text=finals.get(run_id),
            )
            for run_id, drafts in sorted(runs.items())
        ]
