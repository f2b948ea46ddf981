"""Turn one agent run into one trace file in the candidate folder, atomically.

The transcript goes through ``abw import <importer>`` itself (the same flags, the same code), so
a sampled trace is byte-for-byte what a person importing the transcript by hand would get
(but for ``exported_at``). A run that did not complete (its command failed or timed out, or it
left no transcript that imports) is still recorded: as a trace whose ``run.final_status`` says
so and whose ``run.execution_problem`` says why, so the gate counts it and never as a pass.

Layout: ``OUT/<scenario id>/<sequence>-<trace id prefix>.json``, sequence from 0001. Each file
is written with :func:`abw.traceio.write_trace` (a temporary file and a rename), so an
interrupted ``abw sample`` leaves whole traces only; their names never end in ``.json`` until
they are complete.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.sample.runner import RunResult, now_iso
from abw.sample.scenarios import Scenario

_NAME = re.compile(r"^(\d{4,})-[^/]*\.json$")


def scenario_folder(out: Path, scenario_id: str) -> Path:
    return out / scenario_id


def recorded_sequences(out: Path, scenario_id: str) -> list[int]:
    """Sequence numbers of the runs already recorded for a scenario, ascending."""
    folder = scenario_folder(out, scenario_id)
    if not folder.is_dir():
        return []
    found = (_NAME.match(p.name) for p in folder.iterdir() if p.is_file())
    return sorted(int(m.group(1)) for m in found if m)


def _inputs(importer: Any, transcripts: tuple[Path, ...]) -> tuple[Path, ...]:
    """The inputs ``abw import`` would read among the files a run created or changed, each
    once: a Claude Code subagent transcript is read with its session, an event file with its
    conversation folder (``importer.discover`` of their common folder decides)."""
    if len(transcripts) < 2:
        return transcripts
    folder = Path(os.path.commonpath(transcripts))
    try:
        entries = importer.discover(folder) if folder.is_dir() else []
    except AbwInputError:
        return transcripts
    inputs: list[Path] = []
    for path in transcripts:
        owner = next((e for e in entries if e == path or e in path.parents), None)
        if owner is not None and owner not in inputs:
            inputs.append(owner)
    return tuple(inputs) or transcripts


def _import(scenario: Scenario, transcripts: tuple[Path, ...], staging: Path) -> list[Path]:
    """Every trace ``abw import <importer> ... <import_args>`` writes for these transcripts."""
    from abw.cli.import_cmd import make_import_command
    from abw.importers import get_importer

    importer = get_importer(scenario.importer)
    command = make_import_command(scenario.importer, importer.help)
    written: list[Path] = []
    for index, source in enumerate(_inputs(importer, transcripts)):
        target = staging / f"{index:03d}"
        args = ["--input", str(source), "--out", str(target), "--scenario-id", scenario.id]
        command.main(args=[*args, "--quiet", *scenario.import_args], standalone_mode=False)
        written += sorted(target.glob("*.json"))
    return written


def _placeholder_trace(scenario: Scenario, status: str, problem: str, started_at: str) -> Any:
    """The trace of a run that left nothing to import: no spans, its status and why."""
    from abw.hashing import sha256_hex
    from abw.importers import get_importer
    from abw.models.trace import Run, Source, Trace

    importer = get_importer(scenario.importer)
    return Trace(
        source=Source(
            platform=importer.platform,
            export_format=importer.export_format,
            exported_at=now_iso(),
            source_hash=sha256_hex(b""),
        ),
        run=Run(
            trace_id=str(uuid.uuid4()),
            scenario_id=scenario.id,
            final_status=status,  # type: ignore[arg-type]
            execution_problem=problem,
            started_at=started_at,
        ),
    )


def _without_folder(exc: AbwInputError) -> str:
    """The import error's one line with its file named, not its path: the folder is the
    user's (a home or project path) or abw's temporary one, and no path goes into a trace."""
    name = Path(exc.file).name if exc.file is not None else None
    return AbwInputError(exc.message, file=name, line=exc.line, field=exc.field).one_line()


def build_trace(scenario: Scenario, result: RunResult, staging: Path) -> Any:
    """The one trace recording ``result``: imported, or a placeholder when nothing imports."""
    from abw.traceio import load_trace

    problem = result.problem
    status = "cancelled" if result.timed_out else "error"
    traces: list[Any] = []
    if result.transcripts:
        try:
            traces = [load_trace(p).trace for p in _import(scenario, result.transcripts, staging)]
        except AbwInputError as exc:
            problem = problem or f"the transcript did not import ({_without_folder(exc)})"
        if len(traces) > 1:
            problem = problem or f"the run left {len(traces)} runs in its transcript; expected one"
            traces = []
    if not traces:
        if problem is None:
            problem = "the transcript held no run"
        if not result.transcripts:
            status = "cancelled" if result.timed_out else "unknown"
        return _placeholder_trace(scenario, status, problem, result.started_at)
    trace = traces[0]
    run_update: dict[str, Any] = {}
    if getattr(trace.run, "started_at", None) is None:
        run_update["started_at"] = result.started_at
    if problem is not None:
        run_update["execution_problem"] = problem
        if trace.run.final_status == "success":
            run_update["final_status"] = status
    if run_update:
        trace = trace.model_copy(update={"run": trace.run.model_copy(update=run_update)})
    return trace


def write_run(out: Path, scenario: Scenario, sequence: int, trace: Any) -> Path:
    """Write the trace of run ``sequence`` atomically; returns its path."""
    from abw.traceio import write_trace

    prefix = re.sub(r"[^A-Za-z0-9_-]", "_", trace.run.trace_id)[:8]
    name = f"{sequence:04d}-{prefix}.json"
    return write_trace(trace, scenario_folder(out, scenario.id) / name)
