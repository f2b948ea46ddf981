"""``abw diff`` semantics (DESIGN.md §3): nearest-baseline edit distance, fingerprint,
Jaccard, first divergent step, tools new and missing."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein
from test_gate_factory import REFUND, REGRESSED, make_trace, runs, trace_file, write_runs

from abw.diffing import diff, normalized_edit_distance


def test_identical_sets_have_zero_distance_and_no_divergence():
    (result,) = diff(runs("b", [REFUND] * 3), runs("c", [REFUND] * 2))
    assert result.path_edit_distance_mean == result.path_edit_distance_max == 0
    assert result.fingerprint_distance == 0 and result.tool_jaccard_distance == 0
    assert result.first_divergence is None and result.divergences == []
    assert result.baseline_runs == 3 and result.candidate_runs == 2


def test_edit_distance_is_levenshtein_over_longer_length():
    assert normalized_edit_distance(["a", "b"], ["b", "a"]) == 1.0
    assert normalized_edit_distance([], []) == 0.0
    assert normalized_edit_distance(["a"], []) == 1.0
    assert normalized_edit_distance(REFUND, REGRESSED) == 0.5
    # Multi-character names count as one symbol each (not as their letters).
    a, b = ["lookup_order", "refund"], ["lookup_order", "refund", "notify"]
    assert normalized_edit_distance(a, b) == pytest.approx(1 / 3)
    assert normalized_edit_distance(a, b) == Levenshtein.normalized_distance("ab", "abc")


def test_each_candidate_is_compared_with_its_nearest_baseline_run():
    baseline = runs("b", [["a", "b", "c"], ["a", "x", "c", "d"]])
    candidate = runs("c", [["a", "x", "c"], ["a", "b", "c"]])
    (result,) = diff(baseline, candidate)
    per_run = {r.trace_id: r for r in result.per_run}
    assert per_run["c-00"].path_edit_distance == pytest.approx(1 / 4)  # 1/3 to b-00
    assert per_run["c-00"].nearest_baseline_trace_id == "b-01"
    assert per_run["c-01"].path_edit_distance == 0
    assert result.path_edit_distance_mean == pytest.approx(1 / 8)
    assert result.path_edit_distance_max == pytest.approx(1 / 4)


def test_ties_go_to_the_first_baseline_run_by_trace_id():
    baseline = runs("b", [["a", "y"], ["a", "x"]])
    (result,) = diff(baseline, runs("c", [["a", "z"]]))
    assert result.per_run[0].nearest_baseline_trace_id == "b-00"


def test_fingerprint_is_euclidean_between_mean_count_vectors():
    baseline = runs("b", [["a", "a", "b"], ["a", "b"]])  # means a 1.5, b 1
    candidate = runs("c", [["a", "c"], ["a", "c", "c"]])  # means a 1, c 1.5
    (result,) = diff(baseline, candidate)
    assert result.fingerprint_distance == pytest.approx(math.sqrt(0.5**2 + 1**2 + 1.5**2))
    assert result.baseline_tool_means == {"a": 1.5, "b": 1.0}
    assert result.candidate_tool_means == {"a": 1.0, "c": 1.5}
    assert result.tool_jaccard_distance == pytest.approx(1 - 1 / 3)
    assert result.tools_new == ["c"] and result.tools_missing == ["b"]


def test_llm_spans_are_not_part_of_the_path():
    with_llm = trace_file(make_trace("c-00", ["a", "b"], llm_first=True), "c")
    without = trace_file(make_trace("c-01", ["a", "b"], llm_first=False), "c")
    (result,) = diff(runs("b", [["a", "b"]]), [with_llm, without])
    assert result.path_edit_distance_max == 0 and result.divergences == []


def test_first_divergence_reports_step_tool_and_baseline_alternatives():
    baseline = runs("b", [REFUND, ["classify", "lookup_order", "escalate", "notify", "close"]])
    (result,) = diff(baseline, runs("c", [REFUND, REGRESSED]))
    d = result.first_divergence
    assert d is not None and d.trace_id == "c-01"
    assert d.step == 2 and d.candidate_tool == "refund_commit"
    assert d.baseline_alternatives == ["escalate", "policy_check"]
    assert d.common_prefix == ["classify", "lookup_order"]
    assert d.span_ordinal == 3  # an llm span sits at ordinal 0
    assert d.baseline_path == REFUND  # nearest among those sharing the prefix
    assert len(result.divergences) == 1


def test_divergence_past_the_end_and_at_an_early_end():
    baseline = runs("b", [["a", "b"], ["a", "b", "c"]])
    (result,) = diff(baseline, runs("c", [["a", "b", "c", "d"], ["a"], ["a", "b"]]))
    by_run = {d.trace_id: d for d in result.divergences}
    assert set(by_run) == {"c-00", "c-01"}  # ["a", "b"] ends where a baseline path ends
    assert by_run["c-00"].step == 3 and by_run["c-00"].baseline_alternatives == ["<end>"]
    assert by_run["c-01"].candidate_tool is None and by_run["c-01"].span_ordinal is None
    assert by_run["c-01"].baseline_alternatives == ["b"]
    assert result.first_divergence.trace_id == "c-01"


def test_empty_paths():
    (result,) = diff(runs("b", [[]]), runs("c", [[], ["a"]]))
    per_run = {r.trace_id: r.path_edit_distance for r in result.per_run}
    assert per_run == {"c-00": 0.0, "c-01": 1.0}
    assert result.first_divergence.step == 0
    assert result.first_divergence.baseline_alternatives == ["<end>"]


def test_one_result_per_scenario_including_one_sided_ones():
    baseline = runs("b", [REFUND], scenario="refund") + runs("bx", [["a"]], scenario="other")
    candidate = runs("c", [REFUND], scenario="refund") + runs("cn", [["a"]], scenario=None)
    results = diff(baseline, candidate)
    assert [r.scenario_id for r in results] == [None, "other", "refund"]
    none, other, refund = results
    assert none.baseline_runs == 0 and none.per_run[0].nearest_baseline_trace_id is None
    assert none.per_run[0].path_edit_distance is None
    assert other.candidate_runs == 0 and other.path_edit_distance_mean is None
    assert refund.path_edit_distance_max == 0


def test_input_order_does_not_matter():
    baseline = runs("b", [REFUND, ["classify", "escalate"], REGRESSED])
    candidate = runs("c", [REGRESSED, ["classify"], REFUND, ["x", "y"]])
    first = [r.model_dump() for r in diff(baseline, candidate)]
    second = [r.model_dump() for r in diff(baseline[::-1], candidate[::-1])]
    assert first == second


def test_library_import_is_callable_whatever_was_imported_first():
    import abw.diffing  # noqa: F401  (must not shadow the lazy function)
    from abw import diff as api_diff

    (result,) = api_diff(runs("b", [REFUND]), runs("c", [REFUND]))
    assert result.path_edit_distance_max == 0


def test_cli_text_and_json(tmp_path, run_cli):
    base = write_runs(tmp_path / "base", runs("b", [REFUND] * 3))
    cand = write_runs(tmp_path / "cand", runs("c", [REFUND, REGRESSED]))
    code, out, _ = run_cli("diff", "--baseline", base, "--candidate", cand)
    assert code == 0
    assert f"first divergence      step 2 in c-01 ({cand / 'c-01.json'}): refund_commit" in out
    assert "policy_check" in out
    code, out, _ = run_cli("diff", "--baseline", base, "--candidate", cand, "--format", "json")
    assert code == 0
    (document,) = json.loads(out)
    assert document["path_edit_distance_max"] == 0.5
    code, _, err = run_cli("diff", "--baseline", tmp_path / "nope", "--candidate", cand)
    assert code == 2 and err.count("\n") == 1 and "no such folder" in err


def test_batched_distances_equal_scalar_ones_exactly():
    baseline = runs("b", [["a", "b", "c"], ["a", "b", "c", "d", "e", "f", "g"]])
    (result,) = diff(baseline, runs("c", [["a", "x", "c"], ["a", "b", "c", "d", "e", "f"]]))
    got = {r.trace_id: r.path_edit_distance for r in result.per_run}
    assert got["c-00"] == normalized_edit_distance(["a", "x", "c"], ["a", "b", "c"]) == 1 / 3
    assert got["c-01"] == 1 / 7


def test_text_paths_fold_repeated_steps():
    from abw.cli.diff_cmd import join_path

    assert join_path([]) == ""
    assert join_path(["a", "b", "b", "b", "c", "b"]) == "a > b \u00d73 > c > b"


def _measured_all(baseline, candidate) -> list[tuple]:
    from abw.diffing import BaselineShape

    shape = BaselineShape(baseline)
    measured = [shape.measure(t) for t in candidate]
    return [
        (m.distance, m.nearest, m.divergence and m.divergence.model_dump_json()) for m in measured
    ]


PATHS = st.lists(st.lists(st.sampled_from("abcdef"), max_size=8), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(PATHS, PATHS)
def test_paths_coded_as_text_measure_as_paths_coded_as_ids(baseline, candidate) -> None:
    """A path is coded as one character per id (rapidfuzz's fastest input) unless more ids than
    characters could occur; both codes give the same distances, nearest runs and divergences."""
    from abw import diffing

    base, cand = runs("b", baseline), runs("c", candidate)
    as_text = _measured_all(base, cand)
    assert isinstance(diffing.BaselineShape(base).encode(["a", "zz"]), str)
    original = diffing._CHARACTERS
    diffing._CHARACTERS = 0  # every bound is over it: ids as tuples
    try:
        assert isinstance(diffing.BaselineShape(base).encode(["a", "zz"]), tuple)
        assert isinstance(diffing.Symbols(["a"]).encode(["a"]), tuple)
        assert _measured_all(base, cand) == as_text
        as_ids = [normalized_edit_distance(a, b) for a in baseline for b in candidate]
    finally:
        diffing._CHARACTERS = original
    assert [normalized_edit_distance(a, b) for a in baseline for b in candidate] == as_ids


def test_runs_sharing_a_path_share_its_measure_but_each_names_itself():
    """A distinct path is measured once (BaselineShape keeps its distance, nearest run and
    departure); each run taking it still gets its own divergence, naming its own trace, file
    and span, whether the run came first or after."""
    from abw.diffing import BaselineShape

    baseline = runs("b", [["a", "b", "c"], ["a", "x", "c", "d"]])
    # the same tool path, reached after a different number of llm spans (other ordinals)
    candidate = runs("c", [["a", "q", "c"], ["a", "q", "c"]])
    candidate[1] = trace_file(make_trace("c-01", ["a", "q", "c"], llm_first=False))
    shape = BaselineShape(baseline)
    first, second = (shape.measure(t) for t in candidate)
    assert len(shape._measured) == 1
    assert (first.distance, first.nearest) == (second.distance, second.nearest)
    one, two = first.divergence, second.divergence
    assert one is not None and two is not None and one is not two
    assert (one.trace_id, two.trace_id) == ("c-00", "c-01")
    assert one.trace_file != two.trace_file
    assert (one.step, one.candidate_tool) == (two.step, two.candidate_tool) == (1, "q")
    assert (one.span_ordinal, two.span_ordinal) == (2, 1)
    fresh = BaselineShape(baseline).measure(candidate[1])
    assert fresh.divergence.model_dump() == two.model_dump()
