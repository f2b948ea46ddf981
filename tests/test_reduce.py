"""The gate as a mergeable reduction (abw.gating.summary): the report built from per-run
summaries merged in any partition, in any order, is byte-identical to the single-process
gate's; summaries and the broadcast context travel (pickle) without any loaded run."""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Iterator

import pytest
from conftest import REPO
from pydantic import BaseModel

from abw.gating import gate, merged_report, report_json
from abw.gating.summary import Context, Partial, RunSummary, summarize, summarize_all
from abw.leanrun import load_lean_traces
from abw.specio import load_spec

EXAMPLE = REPO / "examples" / "refund-policy"


def _inputs(candidate: str, contract: bool = False):
    baseline = load_lean_traces(EXAMPLE / "traces" / "baseline")
    runs = load_lean_traces(EXAMPLE / "traces" / candidate)
    if contract:
        from abw.contract import load_contract_as_spec

        spec, digest = load_contract_as_spec(EXAMPLE / "contract.json")
    else:
        spec, digest = load_spec(EXAMPLE / "behavior.yaml")
    return baseline, runs, spec, digest


@pytest.mark.parametrize("contract", [False, True], ids=["spec", "contract"])
@pytest.mark.parametrize("candidate", ["good", "regressed", "small"])
def test_partitions_in_any_order_give_the_same_report(candidate, contract):
    baseline, runs, spec, digest = _inputs(candidate, contract)
    single = gate(baseline, runs, spec, spec_file="s", spec_sha256=digest)
    context = Context(spec, baseline)
    parts = [summarize_all(runs[i::3], context) for i in range(3)]
    merged = Partial()
    for part in reversed(parts):
        merged.merge(part)
    spread = merged_report(context, merged, spec_file="s", spec_sha256=digest)
    assert report_json(spread) == report_json(single)


def test_a_summary_holds_no_loaded_run():
    baseline, runs, spec, _ = _inputs("regressed", contract=True)
    summary = summarize(runs[0], Context(spec, baseline))
    restored = pickle.loads(pickle.dumps(summary))
    assert type(restored) is RunSummary and restored == summary
    text = pickle.dumps(summary)
    assert b"LeanSpan" not in text and b"TraceFile" not in text and b"LeanTrace" not in text


def test_the_context_travels_without_what_it_derives():
    baseline, runs, spec, _ = _inputs("regressed", contract=True)
    context = Context(spec, baseline)
    here = [summarize(run, context) for run in runs]  # builds rules, shapes, baseline facts
    travelled = pickle.loads(pickle.dumps(context))
    assert "run_rules" not in travelled.__dict__ and not travelled._shapes
    assert [summarize(run, travelled) for run in runs] == here


def test_partial_folds_tool_counts_and_span_names():
    baseline, runs, spec, _ = _inputs("good")
    partial = summarize_all(runs, Context(spec, baseline))
    assert all(not s.path_names and not s.span_names for s in partial.summaries)
    assert sum(sum(c.values()) for c in partial.tool_totals.values()) == sum(
        len(run.path_spans) for run in runs
    )
    expected: dict = {}
    for run in runs:  # each tool's count on the paths, per scenario
        counts = expected.setdefault(run.trace.run.scenario_id, Counter())
        counts.update(span.name for span in run.path_spans)
    assert partial.tool_totals == expected
    halves = summarize_all(runs[::2], Context(spec, baseline))
    halves.merge(summarize_all(runs[1::2], Context(spec, baseline)))
    assert halves.tool_totals == expected
    assert partial.span_names == {span.name for run in runs for span in run.trace.spans}


@pytest.mark.parametrize(
    "make", ["pass_report", "warn_report", "fail_report", "inconclusive_report", "malicious_report"]
)
def test_report_pieces_join_to_the_report_text(make):
    """report_chunks (what abw gate --out writes piece by piece) is the report's JSON text,
    also on hostile strings (escapes, lone surrogates, line breaks) and empty lists."""
    import render_fixtures

    from abw.gating import report_chunks

    report = getattr(render_fixtures, make)()
    text = report_json(report).encode("utf-8", "surrogatepass")
    pieces = list(report_chunks(report))
    assert b"".join(pieces) == text
    assert len(pieces) > 10 and max(map(len, pieces)) < len(text)


def test_a_shared_fields_set_refuses_changes_and_copies_get_their_own():
    from abw.models.report import Violation
    from abw.sharedfields import shared

    make = {"trace_id": "t", "trace_file": "f", "span_ordinals": [1], "message": "m"}
    one, two = shared(Violation(**make)), shared(Violation(**make))
    assert one.__pydantic_fields_set__ is two.__pydantic_fields_set__
    with pytest.raises(TypeError):
        one.in_baseline = True
    assert "in_baseline" not in two.__pydantic_fields_set__
    copy = two.model_copy(update={"in_baseline": True})
    assert copy.in_baseline and "in_baseline" not in two.__pydantic_fields_set__
    restored = pickle.loads(pickle.dumps([one, two]))
    assert restored == [one, two]
    assert restored[0].__pydantic_fields_set__ is one.__pydantic_fields_set__


@pytest.mark.parametrize("make", ["fail_report", "malicious_report"])
def test_long_mixed_lists_of_models_join_to_the_report_text(make):
    """Leaf models are written in batches (abw.gating._list_items): lists longer than a batch,
    with models that hold models between them, still give the report's JSON text."""
    import render_fixtures

    from abw.gating import _LIST_BATCH, _holds_lists, report_chunks

    report = getattr(render_fixtures, make)()
    checks = [c for _ in range(2 * _LIST_BATCH // len(report.checks) + 3) for c in report.checks]
    kinds = {_holds_lists(c) for c in checks}
    assert kinds == {True, False} and len(checks) > 2 * _LIST_BATCH
    for chosen in (checks, checks[1:], checks[: _LIST_BATCH + 1], [checks[0]]):
        longer = report.model_copy(update={"checks": chosen})
        text = report_json(longer).encode("utf-8", "surrogatepass")
        assert b"".join(report_chunks(longer)) == text


@pytest.mark.parametrize("contract", [False, True], ids=["spec", "contract"])
def test_a_summarys_report_models_share_their_fields_set(contract):
    """The evidence a summary holds to the report (its divergence, its violations) shares one
    read-only fields_set per set of names (abw.sharedfields), in the process that summarized
    it and after pickling: a report of 100,000 runs would otherwise hold a set per model."""
    from abw.sharedfields import SharedFieldsSet

    baseline, runs, spec, _ = _inputs("regressed", contract)
    summaries = summarize_all(runs, Context(spec, baseline)).summaries
    models = [s.divergence for s in summaries if s.divergence is not None]
    models += [item for s in summaries for _, item in s.findings]
    models += [s.new_tools for s in summaries if s.new_tools is not None]
    models += [found[1] for s in summaries for found in s.rules if isinstance(found, tuple)]
    assert models and any(s.divergence for s in summaries) and any(s.findings for s in summaries)
    for model in [*models, *pickle.loads(pickle.dumps(models))]:
        assert type(model.__pydantic_fields_set__) is SharedFieldsSet


@pytest.mark.parametrize("make", ["fail_report", "malicious_report"])
def test_a_batch_of_leaf_models_dumps_as_each_model_does(make):
    """The report writer dumps a batch of models in one call where they are all of one type,
    else model by model (abw.gating._dumped): the same JSON data either way."""
    import render_fixtures

    from abw.gating import _dumped

    report = getattr(render_fixtures, make)()
    violations = [v for c in report.checks for v in c.violations]
    for batch in (report.runs, violations, [*report.runs[:2], *violations[:2], report.runs[0]]):
        assert batch
        assert _dumped(batch) == [model.model_dump(mode="json") for model in batch]


def _models_in(value: object) -> Iterator[BaseModel]:
    """Every pydantic model inside ``value`` (fields, lists, mappings), depth first."""
    if isinstance(value, BaseModel):
        yield value
        value = dict(value)
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple):
        for item in value:
            yield from _models_in(item)


@pytest.mark.parametrize(
    "make", ["pass_report", "warn_report", "fail_report", "inconclusive_report", "malicious_report"]
)
def test_a_models_own_fields_are_its_dump_where_the_writer_takes_them(make):
    """The report writer takes a model's ``__dict__`` for its JSON-mode dump where its type's
    fields are plain JSON values (abw.gating._dict_is_dump): on every model of the report
    fixtures (run rows, input files, violations, divergences, ...), the same JSON text."""
    import json

    import render_fixtures

    from abw.sharedfields import plain_model as _dict_is_dump

    taken = Counter()
    for model in _models_in(getattr(render_fixtures, make)()):
        if _dict_is_dump(type(model)):
            taken[type(model).__name__] += 1
            dumped = model.model_dump(mode="json")
            assert json.dumps(vars(model), sort_keys=True) == json.dumps(dumped, sort_keys=True)
    assert {"RunStatus", "InputFile", "ToolInfo"} <= set(taken)


def test_a_model_whose_dump_may_differ_from_its_fields_is_dumped_by_pydantic():
    """An alias, a serializer, a validator, extra fields, a computed field, a nested model or
    a non-JSON type (a datetime, a tuple) each keep pydantic's own dump."""
    from datetime import datetime

    from pydantic import ConfigDict, Field, computed_field, field_serializer, field_validator

    from abw.sharedfields import plain_model as _dict_is_dump

    class Plain(BaseModel):
        name: str
        count: int = Field(ge=0)
        share: float | None = None
        tags: list[str] = []

    class Aliased(Plain):
        other: str = Field(serialization_alias="Other")

    class Serialized(Plain):
        @field_serializer("name")
        def _name(self, name: str) -> str:
            return name.upper()

    class Validated(Plain):
        @field_validator("name")
        @classmethod
        def _name(cls, name: str) -> str:
            return name

    class Extra(Plain):
        model_config = ConfigDict(extra="allow")

    class Computed(Plain):
        @computed_field
        @property
        def double(self) -> int:
            return 2 * self.count

    class Nested(Plain):
        inner: Plain

    class Dated(Plain):
        at: datetime

    class Pair(Plain):
        pair: tuple[int, int]

    assert _dict_is_dump(Plain)
    for kind in (Aliased, Serialized, Validated, Extra, Computed, Nested, Dated, Pair):
        assert not _dict_is_dump(kind), kind.__name__


@pytest.mark.parametrize("kind", ["pass", "warn", "fail", "inconclusive"])
def test_the_rows_the_gate_builds_unvalidated_are_what_validation_gives(kind):
    """The report's run rows (run statuses, input files, distances) are built from abw's own
    values without validating them again (abw.sharedfields.built): on reports of the real
    gate, every such row validates to a row with the same JSON text."""
    import render_fixtures

    from abw.models.report import InputFile, RunDistance, RunStatus

    rows = Counter()
    for model in _models_in(render_fixtures.gated(kind)):
        if type(model) in (RunStatus, InputFile, RunDistance):
            rows[type(model).__name__] += 1
            again = type(model).model_validate(vars(model), strict=True)
            assert again.model_dump_json() == model.model_dump_json()
    assert set(rows) == {"RunStatus", "InputFile", "RunDistance"}


def test_built_refuses_what_it_cannot_build_as_pydantic_would():
    """``built`` takes every field of a plain model and nothing else."""
    from abw.models.report import Check, InputFile
    from abw.sharedfields import built

    values = {"role": "baseline", "file": "a.json", "sha256": "ab" * 32, "trace_id": "a"}
    with pytest.raises(TypeError):
        built(InputFile, values)  # scenario_id missing
    with pytest.raises(TypeError):
        built(InputFile, {**values, "scenario_id": None, "extra": 1})
    with pytest.raises(TypeError):
        built(Check, {})  # a model holding models is validated
    row = built(InputFile, {**values, "scenario_id": None})
    assert row == InputFile(**values) and row.model_dump() == InputFile(**values).model_dump()
