"""behaviorlock portable traces (``traceVersion: 1``): one run, many scenarios, each with a
status and JSON observations the harness chose to record.

Each scenario becomes one trace: ``trace_id`` = ``<run.id>/<scenario id>``, ``scenario_id`` =
the scenario id (``--scenario-id`` cannot override it: the scenario is the unit behaviorlock
compares), ``final_status`` from the scenario status (``completed`` -> success, ``failed``/
``error`` -> error, ``skipped``/``cancelled`` -> cancelled, else unknown), and
``canonical_output`` = ``{"status": ..., "observations": ...}``: the values behaviorlock
compares, so that a converted contract's selectors (``/observations/...`` -> ``/output/
observations/...``) read the same values. Observations are what the harness chose to record,
not transcripts, and are kept as recorded; ``--output-fields`` narrows them to the named
dotted paths (``observations.permission.decision``). A behaviorlock trace has no event
stream: its traces have no spans, so only assertions (not path rules) can judge them.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from abw.errors import AbwInputError
from abw.hashing import sha256_hex
from abw.importers.base import Importer, ImportOptions
from abw.importers.rawio import as_dict, load_json, read_raw
from abw.importers.spans import make_trace
from abw.jsonlocate import value_line

if TYPE_CHECKING:
    from abw.models.trace import Trace

_STATUS = {
    "completed": "success",
    "passed": "success",
    "success": "success",
    "failed": "error",
    "error": "error",
    "skipped": "cancelled",
    "cancelled": "cancelled",
}


def _narrowed(value: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    """Only the named dotted paths of ``value`` (absent ones left out)."""
    out: dict[str, Any] = {}
    for field in fields:
        source, target, parts = value, out, field.split(".")
        for part in parts[:-1]:
            source = source.get(part) if isinstance(source, dict) else None
            target = target.setdefault(part, {})
        if isinstance(source, dict) and parts[-1] in source:
            target[parts[-1]] = source[parts[-1]]
    return out


class BehaviorlockImporter(Importer):
    name: ClassVar[str] = "behaviorlock"
    platform: ClassVar[str] = "behaviorlock"
    export_format: ClassVar[str] = "behaviorlock-trace-v1"
    help: ClassVar[str] = (
        "behaviorlock portable traces (traceVersion 1): one trace per scenario, its status and "
        "observations as canonical_output (--output-fields narrows them)."
    )
    suffixes: ClassVar[tuple[str, ...]] = (".json",)

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        raw = read_raw(path)
        document = load_json(raw, path)
        if not isinstance(document, dict) or document.get("traceVersion") != 1:
            raise AbwInputError(
                "not a behaviorlock trace: expected an object with traceVersion: 1",
                file=path,
                line=value_line(raw, ("traceVersion",)),
                field="traceVersion",
            )
        scenarios = document.get("scenarios")
        if not isinstance(scenarios, list):
            raise AbwInputError(
                "scenarios must be a list",
                file=path,
                line=value_line(raw, ("scenarios",)),
                field="scenarios",
            )
        run_id = as_dict(document.get("run")).get("id")
        run_id = run_id if isinstance(run_id, str) and run_id else path.name.removesuffix(".json")
        if options.scenario_id is not None:
            options.warn(
                f"{path.name}: --scenario-id is not applied: each behaviorlock scenario keeps "
                "its own id as its scenario"
            )
        traces, seen, source_hash = [], set(), sha256_hex(raw)
        for index, scenario in enumerate(scenarios):
            where = f"scenarios.{index}"
            if not isinstance(scenario, dict) or not isinstance(scenario.get("id"), str):
                # the id's line (or the scenario's, where it has none); found only on error
                at = (
                    ("scenarios", index, "id")
                    if isinstance(scenario, dict)
                    else ("scenarios", index)
                )
                raise AbwInputError(
                    "a scenario needs a string id",
                    file=path,
                    line=value_line(raw, at),
                    field=".".join(map(str, at)),
                )
            if scenario["id"] in seen:
                raise AbwInputError(
                    f"scenario {scenario['id']!r} appears twice",
                    file=path,
                    line=value_line(raw, ("scenarios", index, "id")),
                    field=f"{where}.id",
                )
            seen.add(scenario["id"])
            status = scenario.get("status")
            observations = scenario.get("observations", {})
            if not isinstance(observations, dict):
                raise AbwInputError(
                    "observations must be an object",
                    file=path,
                    line=value_line(raw, ("scenarios", index, "observations")),
                    field=f"{where}.observations",
                )
            output: dict[str, Any] = {"status": status, "observations": observations}
            if options.output_fields:
                output = _narrowed(output, options.output_fields)
            scenario_options = replace(options, scenario_id=scenario["id"])
            trace = make_trace(
                platform=self.platform,
                export_format=self.export_format,
                source_hash=source_hash,
                trace_id=f"{run_id}/{scenario['id']}",
                spans=[],
                options=scenario_options,
                final_status=_STATUS.get(str(status), "unknown"),
                final_output=output,
            )
            trace.run = trace.run.model_copy(update={"canonical_output": output})
            traces.append(trace)
        return sorted(traces, key=lambda t: t.run.scenario_id or "")
