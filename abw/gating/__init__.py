"""``abw gate``: candidate traces against baseline traces under a locked spec -> GateReport.

One module per check category (output_eval, behavior_contract, operational_quality,
diff_shape, sample_sufficiency); this module groups runs by scenario, applies them and takes
the worst verdict. Semantics: docs/semantics.md. The result is deterministic: runs are sorted
by what they are, never by the order they were passed in.

The gate is a mergeable reduction: each candidate run is summarized once
(:func:`abw.gating.summary.summarize`), and :func:`merged_report` builds the report from the
merged summaries only, whether one process summarized them all (:func:`gate`) or Dask workers
did (abw.shard).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from abw.errors import AbwInputError, naming_field
from abw.gating.ledger import inputs_digest

if TYPE_CHECKING:
    from abw.gating.reach import Reached
    from abw.gating.sequence import Previous
    from abw.gating.summary import Context, Partial, RunHead, RunSummary
    from abw.gating.vacuity import Observed
    from abw.models.report import Check, GateReport, LatentAdvisory
    from abw.models.spec import Spec
    from abw.traceio import TraceFile

__all__ = [
    "gate",
    "inputs_digest",
    "merged_report",
    "report_bytes",
    "report_chunks",
    "report_json",
    "run_gate",
]

CATEGORY_ORDER = (
    "output_eval",
    "behavior_contract",
    "operational_quality",
    "diff_shape",
    "execution",
    "sample_sufficiency",
)


def _check_unique(traces: list[Any], role: str) -> None:
    if not traces:
        raise AbwInputError(f"no {role} traces were given", field=role)
    seen: set[str] = set()
    for trace_file in traces:
        if trace_file.path in seen:
            raise AbwInputError(f"the same file is given twice as {role}", file=trace_file.path)
        seen.add(trace_file.path)


def _check_runs(runs: Any, role: str) -> None:
    """TypeError for a folder given where loaded runs go (``run_gate`` takes folders)."""
    if isinstance(runs, str | os.PathLike):
        raise TypeError(
            f"gate's {role} is loaded runs (abw.load_traces(folder)); abw.run_gate takes "
            "folders and a spec file"
        )


def _check_spec(spec: Any) -> None:
    """TypeError for what is no :class:`~abw.models.spec.Spec`: most often ``load_spec``'s
    ``(spec, sha256)`` pair, or a spec file's path."""
    from abw.models.spec import Spec

    if isinstance(spec, Spec):
        return
    if isinstance(spec, tuple) and spec and isinstance(spec[0], Spec):
        raise TypeError(
            "gate's spec is the Spec: load_spec(path) returns (spec, sha256); pass "
            "gate(baseline, candidate, spec, spec_file=path, spec_sha256=sha256)"
        )
    raise TypeError(
        f"gate's spec is a Spec (abw.load_spec(path)[0]), not {type(spec).__name__}; "
        "abw.run_gate takes a spec file"
    )


def gate(
    baseline: list[TraceFile],
    candidate: Iterable[TraceFile],
    spec: Spec,
    *,
    spec_file: str,
    spec_sha256: str,
    latent: LatentAdvisory | None = None,
    previous: Mapping[str | None, Previous] | None = None,
) -> GateReport:
    """Gate ``candidate`` against ``baseline`` under ``spec``: every check, with its evidence.

    The reduction over one partition: each candidate run summarized
    (abw.gating.summary.summarize), then :func:`merged_report`. ``candidate`` is iterated once
    (a stream of runs, each loaded when the one before is summarized, is never all in memory).

    ``previous``: per scenario, what an earlier gate of the same candidate recorded (its
    sequence length, hash chain and restarts; abw.gating.sequence), from ``--previous``.
    """
    from abw.gating.summary import Context, summarize_all
    from abw.gcpause import gc_paused

    _check_runs(baseline, "baseline")
    _check_runs(candidate, "candidate")
    baseline = list(baseline)  # (a generator is read once; the candidate stays a stream)
    _check_spec(spec)
    _check_unique(baseline, "baseline")
    context = Context(spec, baseline)
    with gc_paused():
        partial = summarize_all(candidate, context)
    return merged_report(  # (it refuses no candidate run, or one file twice)
        context,
        partial,
        spec_file=spec_file,
        spec_sha256=spec_sha256,
        latent=latent,
        previous=previous,
    )


def merged_report(
    context: Context,
    partial: Partial,
    *,
    spec_file: str,
    spec_sha256: str,
    latent: LatentAdvisory | None = None,
    previous: Mapping[str | None, Previous] | None = None,
) -> GateReport:
    """The report from the candidate runs' merged summaries (``partial``) and the context
    (spec, baseline runs) they were summarized under; the summaries' order never matters."""
    from abw import __version__
    from abw.diffing import diff_result, scenario_key
    from abw.gating import diff_shape, execution, ledger, sample_sufficiency, sequence
    from abw.gating.input_warnings import input_warnings
    from abw.gating.reach import candidate_side
    from abw.gating.summary import RUN_ORDER, head, output_field_names
    from abw.gating.vacuity import Observed
    from abw.models.report import GateReport, RunStatus, SequenceState, ToolInfo, worst_verdict
    from abw.sharedfields import built

    spec = context.spec
    baseline = context.baseline
    _check_unique(baseline, "baseline")
    candidate = sorted(partial.summaries, key=RUN_ORDER)
    _check_unique(candidate, "candidate")
    base_heads = [head(t) for t in baseline]
    names = {span.name for t in baseline for span in t.trace.spans} | partial.span_names
    fields = partial.output_fields.union(*map(output_field_names, baseline))
    scenarios = {t.scenario_id for t in [*base_heads, *candidate] if t.scenario_id is not None}
    run_count = len(baseline) + len(candidate)
    kinds = arguments = None  # (what only rules and assertions refer to)
    if context.folds_span_kinds:
        from abw.gating.vacuity import argument_keys, span_kinds

        kinds = frozenset(partial.span_kinds.union(*(span_kinds(t.trace.spans) for t in baseline)))
        arguments = frozenset(
            partial.argument_keys.union(*(argument_keys(t.trace.spans) for t in baseline))
        )
    seen = Observed(
        frozenset(names), run_count, frozenset(fields), frozenset(scenarios), kinds, arguments
    )
    reached = candidate_side(partial, candidate, context.folds_span_kinds)

    checks, failed = per_run_checks(context, candidate, seen, reached)
    tolerate = spec.thresholds.failing_runs == "tolerate"
    if tolerate:
        checks = [_tolerated(c) for c in checks]
    hard_fail = any(c.hard and c.verdict == "FAIL" for c in checks)

    # Per scenario: shape against the baseline, execution status, and sample statistics on
    # per-run passes in recording order.
    base_groups = context.groups
    cand_groups: dict[str | None, list[RunSummary]] = {}
    for summary in candidate:
        cand_groups.setdefault(summary.scenario_id, []).append(summary)
    present = set(base_groups) | set(cand_groups)
    scenarios = sorted(present | sequence.carried(previous, present), key=scenario_key)
    diffs = [
        diff_result(
            sid, context.shape(sid), cand_groups.get(sid, []), partial.tool_totals.get(sid, {})
        )
        for sid in scenarios
    ]
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
        failing = execution.failing(runs, failed)
        distinct = sequence.once_each(runs, failing)  # (one file for each recording)
        ordered, order = sequence.in_recording_order(
            distinct, [t.started_at for t in distinct], RUN_ORDER
        )
        earlier = (previous or {}).get(sid) if previous else None
        left_out = set(earlier.left_out) if earlier is not None else set()
        keys = {t.path: sequence.run_key(t.trace_id) for t in ordered}
        counted = [t for t in ordered if not {keys[t.path], t.sha256} & left_out]
        passed: dict[str, bool] = {}  # per run key: whether each of its runs passed
        for t in counted:
            passed[keys[t.path]] = passed.get(keys[t.path], True) and t.path not in failing
        link = sequence.continuity(
            [keys[t.path] for t in counted], earlier, spec_sha256=spec_sha256, outcomes=passed
        )
        if link.seen:  # (runs removed or reordered: only runs recorded since count)
            left_out.update(link.seen)
            counted = [t for t in counted if keys[t.path] not in left_out]
        heads = sequence.chain([keys[t.path] for t in counted])
        state = SequenceState(
            order=order,
            n=len(counted),
            chain=heads[-1] if heads else sequence.GENESIS,
            restarts=link.restarts,
            continuity=link.status,
            continuity_message=link.message,
            left_out=sorted(left_out),
        )
        status = execution.status(sid, ordered)
        executions.append(status)
        checks.append(execution.check(status, ordered, baseline_runs=len(base_groups.get(sid, []))))
        stats = sample_sufficiency.statistics(
            sid,
            [t.path not in failing for t in counted],
            spec.thresholds,
            scenarios=scenario_count,
            sequence=state,
            hard_fail=hard_fail,
        )
        statistics.append(stats)
        baseline_runs = len(base_groups.get(sid, []))
        checks += sample_sufficiency.checks(
            stats, counted, failing, baseline_runs, scenario_count, spec.thresholds.sequential
        )

    checks.sort(key=lambda c: CATEGORY_ORDER.index(c.category))  # stable: spec order within
    verdict = worst_verdict([c.verdict for c in checks])

    def status_of(role: str, run: RunHead) -> RunStatus:
        candidate_run = role == "candidate"
        return built(
            RunStatus,
            {
                "role": role,
                "trace_id": run.trace_id,
                "trace_file": run.path,
                "scenario_id": run.scenario_id,
                "passed": not failed[run.path] and run.final_status == "success"
                if candidate_run
                else None,
                "path_length": run.path_length,
                "errors": run.errors,
                "retries": run.retries,
                "failed_checks": list(failed[run.path]) if candidate_run else [],
            },
        )

    runs_out = [
        status_of(role, t)
        for role, group in (("baseline", base_heads), ("candidate", candidate))
        for t in sorted(group, key=lambda t: scenario_key(t.scenario_id))  # (each in run order)
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
            spec_file, spec_sha256, [("baseline", base_heads), ("candidate", candidate)]
        ),
        input_warnings=input_warnings(base_heads, candidate, spec.thresholds, baseline, diffs),
    )


def _tolerated(check: Check) -> Check:
    """Under ``failing_runs: tolerate`` a violated hard check is evidence, not proof: WARN;
    INCONCLUSIVE while runs it could not decide remain (``measured.unknown`` of a rule or an
    assertion): a run that breaks it never stands in for those that may."""
    from abw.gating.common import TOLERATED
    from abw.text import plural

    if not (check.hard and check.verdict == "FAIL"):
        return check
    undecided = check.measured.get("unknown") or 0
    message = f"{check.message.rstrip()} {TOLERATED}"
    if undecided:
        message += f" {plural(undecided, 'candidate run')} cannot be decided: INCONCLUSIVE."
    return check.model_copy(
        update={"verdict": "INCONCLUSIVE" if undecided else "WARN", "message": message}
    )


def per_run_checks(
    context: Context, candidate: list[RunSummary], seen: Observed, reached: Reached | None = None
) -> tuple[list[Check], dict[str, list[str]]]:
    """The hard, per-run checks over every candidate run (the spec applies to every scenario),
    from the runs' summaries (in run order), and per candidate trace file the ids of the checks
    it failed.

    A check whose tool names match no span of any run (``seen``: the span names of every
    baseline and candidate run), whose output fields no run's output holds, or whose
    ``scenarios`` match no run's scenario, is INCONCLUSIVE where it would not FAIL; one that
    PASSed only because no candidate run (``reached``: what they show) triggered it WARNs
    (abw.gating.vacuity, abw.gating.reach).
    """
    from abw.gating import reach
    from abw.gating.common import mark_against_baseline, rule_check

    spec = context.spec
    checks = []
    references: dict[str, tuple[Any, ...]] = {}
    fields: dict[str, tuple[str, ...]] = {}
    failed: dict[str, list[str]] = {t.path: [] for t in candidate}
    found: list[list[tuple[str, Any]]] = [[] for _ in context.run_rules]
    for summary in candidate:
        for index, item in summary.findings:
            found[index].append((summary.path, item))
    for rule, hits in zip(context.run_rules, found, strict=True):
        check = rule_check(rule, [item for _, item in hits], len(candidate))
        excused: set[str] = set()
        if check.violations:
            check, excused = mark_against_baseline(
                rule, check, context.baseline, spec.baseline_violations
            )
        checks.append(check)
        references[check.id] = rule.references
        fields[check.id] = rule.output_fields
        for path, _ in hits:
            if path not in excused:
                failed[path].append(check.id)
    for extra in _rule_checks(context, candidate):
        checks += extra.checks
        references.update(extra.references)
        for path, ids in extra.run_failed.items():
            failed[path] += ids
    return reach.apply(checks, references, fields, seen, reached, context.baseline), failed


def _rule_checks(context: Context, candidate: list[RunSummary]) -> list[Any]:
    """Checks for ``spec.rules`` and ``spec.assertions`` (abw.rules), from the summaries."""
    spec = context.spec
    found = []
    if spec.rules:
        from abw.rules.checks import RunResults, merge_rule_checks

        runs = [RunResults(t.path, t.scenario_id, t.rules) for t in candidate]
        base = context.rule_baseline
        found.append(merge_rule_checks(base.rules, runs, base, spec.baseline_violations))
    if spec.assertions:
        from abw.rules.checks import RunResults, merge_assertion_checks

        runs = [RunResults(t.path, t.scenario_id, t.assertions) for t in candidate]
        base_values = context.assertion_baseline
        found.append(merge_assertion_checks(base_values.assertions, runs, base_values, spec.strict))
    return found


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
    from abw.leanrun import load_lean_traces, stream_lean_traces
    from abw.specio import load_spec

    if isinstance(previous, str | Path):
        previous = load_previous(previous)

    loaded_spec, spec_sha256 = load_spec(spec)
    if strict:
        loaded_spec = loaded_spec.model_copy(update={"strict": True})
    baseline_traces = load_lean_traces(baseline)
    candidate_traces = stream_lean_traces(candidate)
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
    """The per-scenario sequences an earlier gate-report.json recorded, from the report as its
    model validates it (abw.validate.read_report: a wrong value is one line, never an internal
    error or a sequence taken on trust)."""
    from abw.gating.sequence import previous_from_report
    from abw.validate import read_report

    with naming_field("--previous"):
        return previous_from_report(read_report(Path(path)))


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
    """:func:`report_json` as the UTF-8 bytes of ``gate-report.json``, without the str: the
    pieces of :func:`report_chunks`, joined."""
    return b"".join(report_chunks(report))


def report_chunks(report: GateReport) -> Iterator[bytes]:
    """:func:`report_bytes` in pieces whose concatenation is those bytes: a model that holds
    lists of models field by field, those lists item by item, so a large report's JSON data
    and text are never held whole (``abw gate --out`` writes the pieces as they come)."""
    yield from _chunks(report, 0)
    yield b"\n"


def _holds_lists(model: Any) -> bool:
    """Whether ``model`` holds models (its JSON is then written field by field): never for a
    model with extra or computed fields, which only its own dump writes."""
    if not _may_hold_models(type(model)):
        return False
    if model.__pydantic_extra__ or type(model).model_computed_fields:
        return False
    from pydantic import BaseModel

    return any(
        isinstance(value, BaseModel)
        or (isinstance(value, list) and value and isinstance(value[0], BaseModel))
        for value in model.__dict__.values()
    )


@cache
def _may_hold_models(model_type: type) -> bool:
    """Whether a field of ``model_type`` may hold a model: its annotation names one, or ``Any``
    (a report model type whose fields name none is written whole, never asked per instance)."""
    from pydantic import BaseModel

    def names_model(annotation: Any) -> bool:
        if annotation is Any:
            return True
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return True
        return any(names_model(arg) for arg in get_args(annotation))

    return any(names_model(info.annotation) for info in model_type.model_fields.values())


@cache
def _float_free(model_type: type) -> bool:
    """Whether no field of ``model_type`` can hold a float (its annotations name only strings,
    integers, booleans, None, literals, lists, tuples and mappings of those, and models that
    are float-free too): its JSON-mode dump is then written by orjson without the walk that
    proves no float in it is written otherwise (abw.hashing.orjson_exact)."""
    from enum import Enum
    from types import NoneType
    from typing import Literal, get_origin

    from pydantic import BaseModel

    def plain(annotation: Any) -> bool:
        origin = get_origin(annotation)
        if origin is Literal:
            return all(type(arg) in (str, int, bool, NoneType) for arg in get_args(annotation))
        if origin is not None:  # list[...], dict[...], X | None, Annotated[...] ...
            return all(plain(arg) for arg in get_args(annotation) if arg is not Ellipsis)
        if annotation in (str, int, bool, NoneType):
            return True
        if isinstance(annotation, type) and issubclass(annotation, Enum):
            return all(type(member.value) in (str, int) for member in annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return _float_free(annotation)
        return False  # float, Any, object, anything else

    return not model_type.model_computed_fields and all(
        plain(info.annotation) for info in model_type.model_fields.values()
    )


_LIST_BATCH = 256  # leaf models written per orjson call: a batch's JSON data held at once


def _chunks(model: Any, depth: int) -> Iterator[bytes]:
    """``model`` as the indented JSON text at ``depth`` that :func:`report_bytes` writes."""
    from pydantic import BaseModel

    from abw.jsontext import indented_json_bytes

    inner = b"\n" + b"  " * (depth + 1)
    if not _holds_lists(model):
        float_free = _float_free(type(model)) and not model.__pydantic_extra__
        text = indented_json_bytes(_dumped([model])[0], float_free=float_free)
        yield text[:-1].replace(b"\n", inner[:-2])
        return
    names = sorted(type(model).model_fields)
    yield b"{"
    for index, name in enumerate(names):
        yield inner + indented_json_bytes(name)[:-1] + b": "
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            yield from _chunks(value, depth + 1)
        elif isinstance(value, list) and value and isinstance(value[0], BaseModel):
            yield b"["
            yield from _list_items(value, depth + 1)
            yield inner + b"]"
        else:
            text = indented_json_bytes(model.model_dump(mode="json", include={name})[name])
            yield text[:-1].replace(b"\n", inner)
        if index < len(names) - 1:
            yield b","
    yield b"\n" + b"  " * depth + b"}"


def _list_items(items: list[Any], depth: int) -> Iterator[bytes]:
    """The items of a list of models at ``depth`` (between its brackets): a model holding
    models piece by piece; consecutive others in batches, each the middle of the indented
    text of the batch as a list (the same bytes as item by item)."""
    kinds = set(map(type, items))
    if len(kinds) == 1 and _leaf_type(kind := kinds.pop()):  # (a list of run rows): no walk
        float_free = _float_free(kind)
        for start in range(0, len(items), _LIST_BATCH):
            yield _batch_text(items[start : start + _LIST_BATCH], depth, float_free, start == 0)
        return
    batch: list[Any] = []
    float_free = True  # every model of the batch is (_float_free)
    first = True
    for position, item in enumerate(items):
        holds = _holds_lists(item)
        if not holds:
            batch.append(item)
            float_free = float_free and _float_free(type(item)) and not item.__pydantic_extra__
            if len(batch) < _LIST_BATCH and position < len(items) - 1:
                continue
        if batch:
            yield _batch_text(batch, depth, float_free, first)
            first, batch, float_free = False, [], True
        if holds:
            yield (b"" if first else b",") + b"\n" + b"  " * depth + b"  "
            yield from _chunks(item, depth + 1)
            first = False


def _batch_text(batch: list[Any], depth: int, float_free: bool, first: bool) -> bytes:
    """A batch of leaf models as list items at ``depth``: the middle of the indented text of
    the batch as a list, after a comma unless ``first``."""
    from abw.jsontext import indented_json_bytes

    text = indented_json_bytes(_dumped(batch), float_free=float_free)  # "[\n  {...},\n  {...}\n]\n"
    return (b"" if first else b",") + text[1:-3].replace(b"\n", b"\n" + b"  " * depth)


@cache
def _leaf_type(model_type: type) -> bool:
    """Whether every instance of ``model_type`` is written whole (:func:`_holds_lists` is
    false for it): no field may hold a model and it allows no extra fields."""
    return not _may_hold_models(model_type) and model_type.model_config.get("extra") != "allow"


def _dumped(models: list[Any]) -> list[Any]:
    """The JSON-mode dumps of ``models`` (each its own ``model_dump(mode="json")``): their own
    field mappings when that is what the dump would give (abw.sharedfields.plain_model), else
    in one call of pydantic's serializer when they are all of one type, as a batch of run rows
    is."""
    from abw.sharedfields import plain_model

    kind = type(models[0])
    if all(type(model) is kind for model in models):
        if plain_model(kind):
            return list(map(vars, models))
        return _list_adapter(kind).dump_python(models, mode="json")
    return [model.model_dump(mode="json") for model in models]


@cache
def _list_adapter(model_type: type) -> Any:
    """A ``TypeAdapter`` of a list of ``model_type``: its serializer is the model's own."""
    from pydantic import TypeAdapter

    return TypeAdapter(list[model_type])  # type: ignore[valid-type]
