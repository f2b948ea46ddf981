"""Gate semantics (DESIGN.md §3), one rule at a time, with small real traces."""

from __future__ import annotations

import json
import random

import jsonschema
import pytest
from conftest import REPO
from test_gate_factory import REFUND, REGRESSED, make_trace, runs, trace_file, write_runs

from abw.gating import gate, inputs_digest, report_json
from abw.hashing import file_sha256
from abw.models.report import LatentAdvisory
from abw.models.spec import Spec


def make_spec(**sections) -> Spec:
    document = {"schema_version": "behavior-spec/v0", "id": "t", **sections}
    return Spec.model_validate(document)


def run_gate(baseline, candidate, spec, **kw):
    return gate(baseline, candidate, spec, spec_file="spec.yaml", spec_sha256="0" * 64, **kw)


def check(report, check_id):
    return next(c for c in report.checks if c.id == check_id)


BASE = runs("b", [REFUND] * 20)


def order_spec(before="policy_check", after="refund_commit"):
    return make_spec(invariants={"required_order": [{"before": before, "after": after}]})


# --- behavior_contract --------------------------------------------------------------------


def test_required_tool_needs_a_successful_span_in_every_run():
    spec = make_spec(invariants={"required_tools": ["policy_check"]})
    errors_then_ok = [("policy_check", "error"), ("policy_check", "success"), "refund_commit"]
    only_errors = [("policy_check", "error"), "refund_commit"]
    candidate = runs("c", [errors_then_ok, only_errors, ["refund_commit"]])
    report = run_gate(BASE, candidate, spec)
    c = check(report, "behavior_contract.required_tools[0]")
    assert c.verdict == "FAIL" and c.hard
    assert [v.trace_id for v in c.violations] == ["c-01", "c-02"]
    assert c.violations[0].span_ordinals == [1]  # the failed attempt
    assert c.violations[1].span_ordinals == []
    assert report.verdict == "FAIL"


def test_forbidden_tool_counts_any_status():
    spec = make_spec(invariants={"forbidden_tools": ["delete_account"]})
    candidate = runs("c", [REFUND, [*REFUND, ("delete_account", "error")]])
    c = check(run_gate(BASE, candidate, spec), "behavior_contract.forbidden_tools[0]")
    assert c.verdict == "FAIL"
    assert [(v.trace_id, v.span_ordinals) for v in c.violations] == [("c-01", [5])]


@pytest.mark.parametrize(
    ("path", "verdict"),
    [
        (["policy_check", "x", "y", "refund_commit"], "PASS"),  # precedence, not "immediately"
        (["policy_check", "refund_commit", "refund_commit"], "PASS"),  # not one-to-one
        (["refund_commit", "policy_check"], "FAIL"),
        (["policy_check", "refund_commit", "policy_check", "refund_commit"], "PASS"),
        ([("refund_commit", "error"), "policy_check", "refund_commit"], "PASS"),  # failed B: no B
        ([("policy_check", "error"), "refund_commit"], "FAIL"),  # failed A: no A
        # no B at all: nothing to precede, but the baseline's steps were never reached, so the
        # check tested nothing about the candidate: WARN, not PASS (candidate-side vacuity)
        (["x", "y"], "WARN"),
        ([], "WARN"),
    ],
)
def test_required_order_is_precedence_on_successful_spans(path, verdict):
    c = check(
        run_gate(BASE, runs("c", [path]), order_spec()), "behavior_contract.required_order[0]"
    )
    assert c.verdict == verdict
    assert bool(c.violations) is (verdict == "FAIL")


def test_required_order_globs_and_evidence():
    spec = order_spec(before="*_check", after="refund_*")
    candidate = runs("c", [REFUND, REGRESSED, ["fraud_check", "refund_partial"]])
    c = check(run_gate(BASE, candidate, spec), "behavior_contract.required_order[0]")
    assert c.verdict == "FAIL"
    (v,) = c.violations
    assert v.trace_id == "c-01" and v.span_ordinals == [3, 4]  # the early commit, the late check
    assert "first successful *_check is at ordinal 4" in v.message


def test_violation_lines_point_at_the_spans_in_the_file(tmp_path):
    from abw.traceio import load_traces

    folder = write_runs(tmp_path / "c", runs("c", [REGRESSED]))
    candidate = load_traces(folder)
    (v,) = check(
        run_gate(BASE, candidate, order_spec()), "behavior_contract.required_order[0]"
    ).violations
    lines = (folder / "c-00.json").read_text().splitlines()
    for ordinal, line in zip(v.span_ordinals, v.span_lines, strict=True):
        assert json.loads(lines[line - 1].rstrip(","))["ordinal"] == ordinal


def test_a_windows_checkout_keeps_the_violation_lines(tmp_path):
    """The example's traces with CR LF line breaks (git's autocrlf on Windows): the gate's
    report is the same but for the files' hashes, its violations on the same lines."""
    import shutil

    from abw.gating import run_gate as gate_folders

    example = REPO / "examples" / "refund-policy"
    for side in ("baseline", "regressed"):
        shutil.copytree(example / "traces" / side, tmp_path / "lf" / side)
        shutil.copytree(example / "traces" / side, tmp_path / "crlf" / side)
        for path in (tmp_path / "crlf" / side).glob("*.json"):
            path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))

    def lines(root):
        report = gate_folders(root / "baseline", root / "regressed", example / "behavior.yaml")
        return [(v.trace_id, v.span_lines) for c in report.checks for v in c.violations]

    found = lines(tmp_path / "lf")
    assert any(span_lines for _, span_lines in found)
    assert lines(tmp_path / "crlf") == found


def test_pretty_printed_traces_keep_the_violation_lines(tmp_path):
    """The example's traces pretty-printed (``json.dump(..., indent=2)``, as a writer of its own
    might): each violation points at the lines its spans begin on there, as in the original."""
    import json
    import shutil

    from abw.gating import run_gate as gate_folders

    example = REPO / "examples" / "refund-policy"
    begins: dict[str, dict[int, int]] = {}  # trace file name -> ordinal -> line in the copy
    for side in ("baseline", "regressed"):
        shutil.copytree(example / "traces" / side, tmp_path / side)
        for path in (tmp_path / side).glob("*.json"):
            document = json.loads(path.read_bytes())
            text = json.dumps(document, indent=2)
            path.write_text(text)
            # with indent=2, a top-level array's objects, and only they, open on a line "    {"
            starts = [n for n, line in enumerate(text.split("\n"), 1) if line == "    {"]
            ordinals = [span["ordinal"] for span in document["spans"]]
            begins[path.name] = dict(zip(ordinals, starts, strict=True))

    def violations(baseline, candidate):
        report = gate_folders(baseline, candidate, example / "behavior.yaml")
        return [v for c in report.checks for v in c.violations]

    original = violations(example / "traces" / "baseline", example / "traces" / "regressed")
    pretty = violations(tmp_path / "baseline", tmp_path / "regressed")
    assert [v.span_ordinals for v in pretty] == [v.span_ordinals for v in original]
    assert any(v.span_lines for v in pretty)
    for v in pretty:
        where = begins[v.trace_file.rsplit("/", 1)[-1]]
        assert v.span_lines == [where[ordinal] for ordinal in v.span_ordinals], v.trace_id


# --- operational_quality ------------------------------------------------------------------


def test_path_length_counts_non_llm_spans():
    spec = make_spec(invariants={"max_path_length": 4})
    long = runs("c", [REFUND, [*REFUND, "notify"]])
    c = check(run_gate(BASE, long, spec), "operational_quality.max_path_length")
    assert c.verdict == "FAIL" and [v.span_ordinals for v in c.violations] == [[5]]


def test_errors_and_retries():
    spec = make_spec(invariants={"max_errors": 1, "max_retries": 0})
    retried = [("lookup", "error", "k1"), ("lookup", "success", "k1"), "refund_commit"]
    other_input = [("lookup", "error", "k1"), ("lookup", "success", "k2")]
    repeat_ok = [("lookup", "success", "k1"), ("lookup", "success", "k1")]
    two_errors = [("lookup", "error", "k1"), ("pay", "error", "k3")]
    report = run_gate(BASE, runs("c", [retried, other_input, repeat_ok, two_errors]), spec)
    retries = check(report, "operational_quality.max_retries")
    assert [(v.trace_id, v.span_ordinals) for v in retries.violations] == [("c-00", [2])]
    errors = check(report, "operational_quality.max_errors")
    assert [(v.trace_id, v.span_ordinals) for v in errors.violations] == [("c-03", [1, 2])]
    status = {r.trace_id: r for r in report.runs if r.role == "candidate"}
    assert (status["c-00"].errors, status["c-00"].retries) == (1, 1)
    assert status["c-02"].retries == 0


# --- output_eval --------------------------------------------------------------------------


def test_output_fields_and_expected_values():
    spec = make_spec(
        output={"required_fields": ["approved"], "expected": {"approved": True, "amount": 120}}
    )
    outputs = [
        {"approved": True, "amount": 120.0},
        {"approved": 1, "amount": 120},
        {"amount": 120},
        None,
    ]
    candidate = [
        trace_file(make_trace(f"c-{i}", REFUND, output=o), "c") for i, o in enumerate(outputs)
    ]
    report = run_gate(BASE, candidate, spec)
    fields = check(report, "output_eval.required_fields")
    assert [v.trace_id for v in fields.violations] == ["c-2", "c-3"]
    expected = check(report, "output_eval.expected")
    assert [v.trace_id for v in expected.violations] == ["c-1", "c-2", "c-3"]
    assert "approved is 1, expected true" in expected.violations[0].message
    assert report.evidence_ledger.used[1].kind == "canonical_output_fields"


# --- per-run pass, statistics and the overall verdict --------------------------------------


def test_per_run_pass_feeds_the_statistics():
    spec = order_spec()
    candidate = runs("c", [REFUND] * 18 + [REGRESSED] * 2)
    report = run_gate(BASE, candidate, spec)
    (stats,) = report.statistics
    assert (stats.k, stats.n) == (18, 20)
    failed = [r.trace_id for r in report.runs if r.role == "candidate" and not r.passed]
    assert failed == ["c-18", "c-19"]
    assert all(r.passed is None for r in report.runs if r.role == "baseline")
    assert report.verdict == "FAIL"


def test_all_pass_runs_pass():
    report = run_gate(BASE, runs("c", [REFUND] * 20), order_spec())
    assert report.verdict == "PASS", report.summary
    assert report.summary.startswith("PASS")


def test_few_runs_are_inconclusive_with_runs_needed():
    spec = make_spec(thresholds={"min_runs": 5})
    report = run_gate(BASE, runs("c", [REFUND] * 3), spec)
    assert report.verdict == "INCONCLUSIVE"
    assert check(report, "sample_sufficiency.min_runs@refund").verdict == "INCONCLUSIVE"
    rate = check(report, "sample_sufficiency.confidence_sequence@refund")
    assert rate.verdict == "INCONCLUSIVE"
    (stats,) = report.statistics
    # The anytime rule at level alpha/2 = 0.025 needs 15 all-pass runs to show tau = 0.7.
    assert stats.runs_needed == 12 and stats.rule == "confidence_sequence"


def test_ten_of_ten_at_tau_075_is_inconclusive_not_fail():
    spec = make_spec(thresholds={"min_wilson_pass_rate": 0.75})
    report = run_gate(BASE, runs("c", [REFUND] * 10), spec)
    assert check(report, "sample_sufficiency.confidence_sequence@refund").verdict == "INCONCLUSIVE"
    fixed = make_spec(thresholds={"min_wilson_pass_rate": 0.75, "sequential": "fixed"})
    report = run_gate(BASE, runs("c", [REFUND] * 10), fixed)
    assert check(report, "sample_sufficiency.wilson@refund").verdict == "INCONCLUSIVE"


def test_upper_bound_below_tau_fails_under_tolerate():
    spec = order_spec()
    for sequential, rule in (("anytime", "confidence_sequence"), ("fixed", "wilson")):
        spec = make_spec(
            invariants={"required_order": [{"before": "policy_check", "after": "refund_commit"}]},
            thresholds={"failing_runs": "tolerate", "sequential": sequential},
        )
        report = run_gate(BASE, runs("c", [REGRESSED] * 10), spec)
        assert check(report, f"sample_sufficiency.{rule}@refund").verdict == "FAIL"
        assert check(report, "behavior_contract.required_order[0]").verdict == "WARN"


def test_sprt_when_enabled():
    spec = make_spec(
        invariants={"required_order": [{"before": "policy_check", "after": "refund_commit"}]},
        thresholds={
            "sprt": {"enabled": True},
            "min_wilson_pass_rate": 0.5,
            "failing_runs": "tolerate",
        },
    )
    passing = run_gate(BASE, runs("c", [REFUND] * 16), spec)
    sprt = check(passing, "sample_sufficiency.sprt@refund")
    # Ville's boundaries at the first sequence's levels alpha/2, beta/2: ln(0.1) needs 14 passes.
    assert sprt.verdict == "PASS" and passing.statistics[0].sprt.runs_used == 14
    # Three failures first (trace ids sort first) accept H1 exactly: 3 ln 4 >= ln 40.
    failing = run_gate(BASE, runs("a", [REGRESSED] * 3) + runs("c", [REFUND] * 12), spec)
    assert check(failing, "sample_sufficiency.sprt@refund").verdict == "FAIL"
    assert failing.statistics[0].sprt.decision == "accept_h1"
    few = run_gate(BASE, runs("c", [REFUND] * 4), spec)
    assert check(few, "sample_sufficiency.sprt@refund").verdict == "INCONCLUSIVE"


def test_diff_shape_warns_and_fails_by_threshold():
    spec = make_spec(thresholds={"path_edit_distance_warn": 0.1, "path_edit_distance_fail": 0.3})
    at_warn = run_gate(BASE, runs("c", [REFUND] * 16 + [REGRESSED] * 4), spec)  # mean 0.1
    assert check(at_warn, "diff_shape.path_edit_distance@refund").verdict == "PASS"
    warn = run_gate(BASE, runs("c", [REFUND] * 15 + [REGRESSED] * 5), spec)
    shape = check(warn, "diff_shape.path_edit_distance@refund")
    assert shape.verdict == "WARN" and len(shape.violations) == 5
    assert warn.verdict == "WARN"
    fail = run_gate(BASE, runs("c", [REGRESSED] * 20), spec)
    assert check(fail, "diff_shape.path_edit_distance@refund").verdict == "FAIL"
    new_tool = run_gate(BASE, runs("c", [[*REFUND, "notify"]] * 20), make_spec())
    jac = check(new_tool, "diff_shape.tool_jaccard@refund")
    assert jac.verdict == "WARN" and jac.violations[0].span_ordinals == [5]


def test_scenario_without_baseline_is_never_silently_passed():
    candidate = runs("c", [REFUND] * 20) + runs("n", [REFUND] * 20, scenario="new")
    report = run_gate(BASE, candidate, make_spec())
    assert check(report, "diff_shape.baseline_coverage@new").verdict == "INCONCLUSIVE"
    assert report.verdict == "INCONCLUSIVE"
    # And a baseline scenario the candidate skipped.
    base = BASE + runs("o", [REFUND] * 3, scenario="other")
    report = run_gate(base, runs("c", [REFUND] * 20), make_spec())
    assert check(report, "sample_sufficiency.min_runs@other").verdict == "INCONCLUSIVE"
    assert [s.scenario_id for s in report.statistics] == ["other", "refund"]


def test_worst_verdict_wins():
    spec = make_spec(
        invariants={"required_order": [{"before": "policy_check", "after": "refund_commit"}]},
        thresholds={"path_edit_distance_warn": 0.0, "path_edit_distance_fail": 0.9},
    )
    report = run_gate(BASE, runs("c", [REGRESSED] * 20), spec)
    verdicts = {c.verdict for c in report.checks}
    # Under failing_runs: forbid the pass-rate test can only hold PASS back (INCONCLUSIVE).
    assert verdicts == {"PASS", "WARN", "FAIL", "INCONCLUSIVE"} and report.verdict == "FAIL"


def test_latent_is_advisory_only():
    latent = LatentAdvisory(model="tiny", baseline_trajectories=2, candidate_trajectories=2)
    plain = run_gate(BASE, runs("c", [REFUND] * 20), make_spec())
    with_latent = run_gate(BASE, runs("c", [REFUND] * 20), make_spec(), latent=latent)
    assert plain.verdict == with_latent.verdict and plain.checks == with_latent.checks
    assert with_latent.evidence_ledger.latent.model == "tiny"


# --- the report -----------------------------------------------------------------------------


def test_report_is_valid_complete_and_deterministic():
    candidate = runs("c", [REFUND] * 10 + [REGRESSED] * 3 + [["classify"]] * 2)
    spec = order_spec()
    first = report_json(run_gate(BASE, candidate, spec))
    shuffled = candidate[:]
    random.Random(7).shuffle(shuffled)
    base = BASE[:]
    random.Random(8).shuffle(base)
    assert report_json(run_gate(base, shuffled, spec)) == first
    document = json.loads(first)
    schema = json.loads((REPO / "schemas" / "gate-report.v0.json").read_text())
    jsonschema.validate(document, schema)
    ledger = document["evidence_ledger"]
    assert ledger["used"] and ledger["advisory"] and ledger["never_used"]
    assert document["generated_at"] is None
    assert len(document["inputs"]["traces"]) == 35


def test_inputs_hash_every_file(tmp_path):
    from abw.gating import run_gate as run_gate_files

    base = write_runs(tmp_path / "base", BASE[:5])
    cand = write_runs(tmp_path / "cand", runs("c", [REFUND] * 2))
    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text("schema_version: behavior-spec/v0\nid: t\n")
    report = run_gate_files(base, cand, spec_path)
    assert report.inputs.spec_sha256 == file_sha256(spec_path)
    for item in report.inputs.traces:
        assert item.sha256 == file_sha256(item.file)
    hashes = [i.sha256 for i in report.inputs.traces]
    assert report.inputs.digest == inputs_digest(report.inputs.spec_sha256, hashes)


def test_library_api():
    import abw.gating  # noqa: F401  (must not shadow the lazy function)
    from abw import gate as api_gate

    report = api_gate(BASE, runs("c", [REFUND] * 20), make_spec(), spec_file="s", spec_sha256="0")
    assert report.verdict == "PASS"
