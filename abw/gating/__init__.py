"""``abw gate``: candidate traces against baseline traces under a locked spec -> GateReport.

One module per check category (output_eval, behavior_contract, operational_quality,
diff_shape, sample_sufficiency); this module groups runs by scenario, applies them and takes
the worst verdict. Semantics: docs/semantics.md. The result is deterministic: runs are sorted
by what they are, never by the order they were passed in.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abw.errors import AbwInputError
from abw.gating.ledger import inputs_digest

if TYPE_CHECKING:
    from abw.gating.sequence import Previous
    from abw.gating.vacuity import Observed
    from abw.models.report import Check, GateReport, LatentAdvisory
    from abw.models.spec import Spec
    from abw.traceio import TraceFile

__all__ = ["gate", "inputs_digest", "report_bytes", "report_json", "run_gate"]

CATEGORY_ORDER = (
    "output_eval",
    "behavior_contract",
    "operational_quality",
    "diff_shape",
    "execution",
    "sample_sufficiency",
)


def _check_unique(traces: list[TraceFile], role: str) -> None:
    if not traces:
        raise AbwInputError(f"no {role} traces were given", field=role)
    seen: set[str] = set()
    for trace_file in traces:
        if trace_file.path in seen:
            raise AbwInputError(f"the same file is given twice as {role}", file=trace_file.path)
        seen.add(trace_file.path)


def gate(
    baseline: list[TraceFile],
    candidate: list[TraceFile],
    spec: Spec,
    *,
    spec_file: str,
    spec_sha256: str,
    latent: LatentAdvisory | None = None,
    previous: Mapping[str | None, Previous] | None = None,
) -> GateReport:
    """Gate ``candidate`` against ``baseline`` under ``spec``: every check, with its evidence.

    ``previous``: per scenario, what an earlier gate of the same candidate recorded (its
    sequence length, hash chain and restarts; abw.gating.sequence), from ``--previous``.
    """
    from abw import __version__
    from abw.diffing import diff, group_by_scenario, run_sort_key, scenario_key
    from abw.gating import diff_shape, execution, ledger, sample_sufficiency, sequence
    from abw.gating.input_warnings import input_warnings
    from abw.models.report import GateReport, RunStatus, SequenceState, ToolInfo, worst_verdict

    _check_unique(baseline, "baseline")
    _check_unique(candidate, "candidate")
    baseline = sorted(baseline, key=run_sort_key)
    candidate = sorted(candidate, key=run_sort_key)

    checks, failed = per_run_checks(spec, baseline, candidate)
    tolerate = spec.thresholds.failing_runs == "tolerate"
    if tolerate:
        checks = [_tolerated(c) for c in checks]
    hard_fail = any(c.hard and c.verdict == "FAIL" for c in checks)

    # Per scenario: shape against the baseline, execution status, and sample statistics on
    # per-run passes in recording order.
    diffs = diff(baseline, candidate)
    base_groups = group_by_scenario(baseline)
    cand_groups = group_by_scenario(candidate)
    statistics = []
    executions = []
    scenario_count = max(len(diffs), 1)
    for result in diffs:
        sid = result.scenario_id
        runs = cand_groups.get(sid, [])
        if runs and not base_groups.get(sid):
            checks.append(diff_shape.coverage_check(sid, len(runs)))
        elif runs:
            checks += diff_shape.checks(result, spec.thresholds, {t.path: t for t in runs})
        ordered, order = sequence.recording_order(runs)
        digests = [t.sha256 for t in ordered]
        heads = sequence.chain(digests)
        link = sequence.continuity(digests, (previous or {}).get(sid) if previous else None)
        state = SequenceState(
            order=order,
            n=len(ordered),
            chain=heads[-1] if heads else sequence.GENESIS,
            restarts=link.restarts,
            continuity=link.status,
            continuity_message=link.message,
        )
        status = execution.status(sid, ordered)
        executions.append(status)
        checks.append(execution.check(status, ordered))
        failing = execution.failing(ordered, failed)
        stats = sample_sufficiency.statistics(
            sid,
            [t.path not in failing for t in ordered],
            spec.thresholds,
            scenarios=scenario_count,
            sequence=state,
            hard_fail=hard_fail,
        )
        statistics.append(stats)
        checks += sample_sufficiency.checks(stats, ordered, failing, len(base_groups.get(sid, [])))

    checks.sort(key=lambda c: CATEGORY_ORDER.index(c.category))  # stable: spec order within
    verdict = worst_verdict([c.verdict for c in checks])

    def status(role: str, trace_file: TraceFile) -> RunStatus:
        trace = trace_file.trace
        return RunStatus(
            role=role,  # type: ignore[arg-type]
            trace_id=trace.run.trace_id,
            trace_file=trace_file.path,
            scenario_id=trace.run.scenario_id,
            passed=None
            if role == "baseline"
            else not failed[trace_file.path] and trace.run.final_status == "success",
            path_length=len(trace_file.path_spans),
            errors=len(trace_file.error_spans),
            retries=len(trace_file.retry_spans),
            failed_checks=[] if role == "baseline" else failed[trace_file.path],
        )

    runs_out = [
        status(role, t)
        for role, group in (("baseline", baseline), ("candidate", candidate))
        for t in sorted(
            group, key=lambda t: (scenario_key(t.trace.run.scenario_id), run_sort_key(t))
        )
    ]
    return GateReport(
        tool=ToolInfo(version=__version__),
        verdict=verdict,
        summary=ledger.summary(verdict, checks, len(candidate)),
        spec_id=spec.id,
        checks=checks,
        diff=diffs,
        statistics=statistics,
        execution=executions,
        multiplicity=ledger.multiplicity(spec.thresholds, scenario_count),
        runs=runs_out,
        evidence_ledger=ledger.evidence_ledger(
            latent, bool(spec.output.required_fields or spec.output.expected or spec.assertions)
        ),
        inputs=ledger.inputs(
            spec_file, spec_sha256, [("baseline", baseline), ("candidate", candidate)]
        ),
        input_warnings=input_warnings(baseline, candidate, spec.thresholds),
    )


def _tolerated(check: Check) -> Check:
    """Under ``failing_runs: tolerate`` a violated hard check is evidence, not proof: WARN."""
    if not (check.hard and check.verdict == "FAIL"):
        return check
    return check.model_copy(
        update={
            "verdict": "WARN",
            "message": check.message.rstrip()
            + " Tolerated (failing_runs: tolerate): the pass-rate test against tau decides.",
        }
    )


def per_run_checks(
    spec: Spec,
    baseline: list[TraceFile],
    candidate: list[TraceFile],
    seen: Observed | None = None,
) -> tuple[list[Check], dict[str, list[str]]]:
    """The hard, per-run checks over every candidate run (the spec applies to every scenario),
    and per candidate trace file the ids of the checks it failed.

    A check whose tool names match no span of any run (``seen``: by default the span names of
    ``baseline`` and ``candidate``) is INCONCLUSIVE where it would PASS (abw.gating.vacuity).
    """
    from abw.gating import behavior_contract, operational_quality, output_eval, vacuity
    from abw.gating.common import evaluate_rule, mark_against_baseline

    rules = [
        *output_eval.rules(spec.output),
        *behavior_contract.rules(spec.invariants),
        *operational_quality.rules(spec.invariants),
    ]
    checks = []
    references: dict[str, tuple[Any, ...]] = {}
    failed: dict[str, list[str]] = {t.path: [] for t in candidate}
    for rule in rules:
        check, outcome = evaluate_rule(rule, candidate)
        if check.violations:
            check, outcome = mark_against_baseline(
                rule, check, outcome, baseline, spec.baseline_violations
            )
        checks.append(check)
        references[check.id] = rule.references
        for path, ok in outcome.items():
            if not ok:
                failed[path].append(check.id)
    for extra in _rule_checks(spec, baseline, candidate):
        checks += extra.checks
        references.update(extra.references)
        for path, ids in extra.run_failed.items():
            failed[path] += ids
    if seen is None:
        seen = vacuity.observed([*baseline, *candidate])
    checks, _ = vacuity.apply(checks, references, seen)
    return checks, failed


def _rule_checks(spec: Spec, baseline: list[TraceFile], candidate: list[TraceFile]) -> list[Any]:
    """Checks for ``spec.rules`` and ``spec.assertions`` (abw.rules)."""
    if not spec.rules and not spec.assertions:
        return []
    from abw.rules.checks import assertion_checks, rule_checks

    return [
        rule_checks(list(spec.rules), candidate, baseline, spec.baseline_violations),
        assertion_checks(list(spec.assertions), baseline, candidate, spec.strict),
    ]


def run_gate(
    baseline: str | Path,
    candidate: str | Path,
    spec: str | Path,
    *,
    latent: str | Path | None = None,
    strict: bool = False,
    previous: str | Path | Mapping[str | None, Previous] | None = None,
) -> GateReport:
    """Load the baseline and candidate folders (or files) and the spec, then :func:`gate`.

    ``strict``: as the spec's ``strict: true`` (every assertion counts as severity error);
    ``previous``: an earlier gate-report.json of the same candidate (or what its sticky-comment
    marker carried), whose sequences the current ones should extend.
    """
    from abw.leanrun import load_lean_traces
    from abw.specio import load_spec

    if isinstance(previous, str | Path):
        previous = load_previous(previous)

    loaded_spec, spec_sha256 = load_spec(spec)
    if strict:
        loaded_spec = loaded_spec.model_copy(update={"strict": True})
    baseline_traces = load_lean_traces(baseline)
    candidate_traces = load_lean_traces(candidate)
    advisory = load_latent(latent) if latent is not None else None
    return gate(
        baseline_traces,
        candidate_traces,
        loaded_spec,
        spec_file=str(spec),
        spec_sha256=spec_sha256,
        latent=advisory,
        previous=previous,
    )


def load_previous(path: str | Path) -> dict[str | None, Previous]:
    """The per-scenario sequences an earlier gate-report.json recorded."""
    from abw.gating.sequence import previous_from_report
    from abw.validate import load_document

    document = load_document(Path(path))
    if not isinstance(document, dict) or document.get("schema_version") != "gate-report/v0":
        raise AbwInputError("not a gate-report/v0 document", file=path, field="--previous")
    return previous_from_report(document)


def load_latent(folder: str | Path) -> LatentAdvisory:
    """Summarize representation trajectories (advisory only) via ``abw.latent_summary``."""
    import importlib

    try:
        module = importlib.import_module("abw.latent_summary")
    except ModuleNotFoundError as exc:
        if exc.name not in ("abw.latent_summary",):
            raise
        raise AbwInputError(
            "latent summaries are not available in this installation", field="--latent"
        ) from None
    return module.summarize_latent(Path(folder))


def report_document(report: GateReport) -> dict[str, Any]:
    """The report as plain JSON data (what ``gate-report.json`` holds)."""
    return report.model_dump(mode="json")


def report_json(report: GateReport) -> str:
    """Byte-stable JSON text of a report: sorted keys, two-space indent, trailing newline."""
    from abw.jsontext import indented_json

    return indented_json(report_document(report))


def report_bytes(report: GateReport) -> bytes:
    """:func:`report_json` as the UTF-8 bytes of ``gate-report.json``, without the str."""
    from abw.jsontext import indented_json_bytes

    return indented_json_bytes(report_document(report))
