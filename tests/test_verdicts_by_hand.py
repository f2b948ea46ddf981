"""The gate's figures recomputed by hand, with independent code, on runs made from real
corpus files: shape figures against thresholds at equality, and the pass-rate statistics."""

from __future__ import annotations

import copy
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import CORPUS

CODEX = (
    CORPUS
    / "codex"
    / "agentcmd__rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"
)
CLAUDE = CORPUS / "claude-code" / "agentcmd__full-session-five.jsonl"


def _import(run_cli, fmt: str, source: Path, out: Path) -> dict:
    code, _, err = run_cli(
        "import", fmt, "--input", source, "--out", out, "--exported-at", "2026-01-01T00:00:00Z"
    )
    assert code == 0, err
    return json.loads(out.read_text())


def _run(real: dict, number: int, scenario: str, names: list[str] | None = None) -> dict:
    """A copy of a real trace as run ``number`` of ``scenario``; ``names`` renames its first
    tool spans and drops the rest (llm spans stay)."""
    trace = copy.deepcopy(real)
    trace["run"] |= {"trace_id": f"{scenario}-{number:03d}", "scenario_id": scenario}
    trace["run"]["final_status"] = "success"
    spans = trace["spans"]
    if names is not None:
        tools = [s for s in spans if s["type"] != "llm"][: len(names)]
        assert len(tools) == len(names)
        for span, name in zip(tools, names, strict=True):
            span["name"] = name
        kept = {id(s) for s in tools}
        spans = [s for s in spans if s["type"] == "llm" or id(s) in kept]
    for ordinal, span in enumerate(spans):
        span |= {"ordinal": ordinal, "span_id": f"span-{ordinal:04d}"}
        span["started_at"] = f"2026-01-01T{number // 60:02d}:{number % 60:02d}:{ordinal:02d}Z"
    trace["spans"] = spans
    return trace


def _write(folder: Path, traces: list[dict]) -> Path:
    folder.mkdir()
    for trace in traces:
        (folder / f"{trace['run']['trace_id']}.json").write_text(json.dumps(trace))
    return folder


def _gate(run_cli, tmp_path: Path, baseline: list, candidate: list, spec: str) -> dict:
    (tmp_path / "spec.yaml").write_text("schema_version: behavior-spec/v0\nid: t\n" + spec)
    out = tmp_path / "report.json"
    code, _, err = run_cli(
        "gate",
        "--baseline",
        _write(tmp_path / "b", baseline),
        "--candidate",
        _write(tmp_path / "c", candidate),
        "--spec",
        tmp_path / "spec.yaml",
        "--out",
        out,
    )
    assert code in (0, 1, 3), err
    return json.loads(out.read_text())


def _checks(report: dict, category: str) -> dict[str, dict]:
    return {c["id"]: c for c in report["checks"] if c["category"] == category}


def test_shape_figures_equal_to_their_threshold_are_within_it(run_cli, tmp_path):
    """1 - 17/20, (1/10 + 2/10) / 2 and a mean count shift of 8/5 - 1 all equal their
    thresholds (0.15, 0.15, 0.6): within them, and reported as those values (they were
    0.15000000000000002 and 0.6000000000000001, past the threshold: WARN)."""
    real = _import(run_cli, "codex", CODEX, tmp_path / "real.json")
    tools = [f"T{i:02d}" for i in range(20)]
    path = tools[:10]
    baseline = [
        _run(real, 0, "jaccard", tools[:19]),
        _run(real, 1, "edits", path),
        _run(real, 2, "counts", ["A", "B"]),
    ]
    candidate = [
        _run(real, 3, "jaccard", [*tools[:17], "T19"]),
        _run(real, 4, "edits", ["X", *path[1:]]),
        _run(real, 5, "edits", ["X", "Y", *path[2:]]),
        *(_run(real, 6 + i, "counts", ["A", "A", "B"] if i < 3 else ["A", "B"]) for i in range(5)),
    ]
    spec = (
        "thresholds:\n  path_edit_distance_warn: 0.15\n  path_edit_distance_fail: 0.9\n"
        "  tool_jaccard_warn: 0.15\n  tool_jaccard_fail: 0.9\n"
        "  fingerprint_distance_warn: 0.6\n  fingerprint_distance_fail: 5\n"
    )
    report = _gate(run_cli, tmp_path, baseline, candidate, spec)
    diffs = {d["scenario_id"]: d for d in report["diff"]}
    union, shared = set(tools), set(tools[:17])
    assert diffs["jaccard"]["tool_jaccard_distance"] == float(1 - Fraction(len(shared), len(union)))
    edits = [Fraction(1, 10), Fraction(2, 10)]
    assert diffs["edits"]["path_edit_distance_mean"] == float(sum(edits) / len(edits))
    shift = Fraction(3 + 5, 5) - Fraction(1, 1)  # A: 8 calls over 5 runs against 1 over 1
    assert diffs["counts"]["fingerprint_distance"] == float(shift)
    shape = _checks(report, "diff_shape")
    assert shape["diff_shape.tool_jaccard@jaccard"]["verdict"] == "PASS"
    assert shape["diff_shape.path_edit_distance@edits"]["verdict"] == "PASS"
    assert shape["diff_shape.fingerprint_distance@counts"]["verdict"] == "PASS"
    assert "0.150 for scenario jaccard" in shape["diff_shape.tool_jaccard@jaccard"]["message"]


# --- the pass-rate statistics, from their definitions (docs/semantics.md) -------------------


def _e_fail(k: int, f: int, tau: Fraction) -> Fraction:
    """(1/tau) int_0^tau q^k (1-q)^f dq / (tau^k (1-tau)^f), the integral expanded binomially."""
    integral = sum(
        Fraction(math.comb(f, j) * (-1) ** j, k + j + 1) * tau ** (k + j + 1) for j in range(f + 1)
    )
    return integral / (tau ** (k + 1) * (1 - tau) ** f)


def _confidence_sequence(outcomes: list[bool], tau: Fraction, pass_level, fail_level):
    k = f = 0
    for n, passed in enumerate(outcomes, 1):
        k, f = k + passed, f + (not passed)
        if fail_level is not None and _e_fail(k, f, tau) >= 1 / fail_level:
            return "fail", n
        if _e_fail(f, k, 1 - tau) >= 1 / pass_level:
            return "pass", n
    return "inconclusive", None


def _sprt(outcomes: list[bool], p0, p1, alpha, beta):
    """Ville's boundaries: accept H1 once the likelihood ratio reaches 1/alpha, H0 at beta."""
    ratio = Fraction(1)
    for n, passed in enumerate(outcomes, 1):
        ratio *= p1 / p0 if passed else (1 - p1) / (1 - p0)
        if ratio >= 1 / alpha:
            return "fail", n
        if ratio <= beta:
            return "pass", n
    return "inconclusive", None


PATTERNS = {"a": "1101111111", "b": "0010000", "c": "1" * 18, "d": "111110"}


@pytest.mark.parametrize("sprt", [False, True])
def test_pass_rate_decisions_over_four_scenarios(run_cli, tmp_path, sprt):
    """Four scenarios of Claude Code runs, failing ones lacking their Grep call, in recording
    order: each decision, the run it was taken at and each side's level (Bonferroni on the
    FAIL side, half the budget to the first sequence) as the definitions give them."""
    real = _import(run_cli, "claude", CLAUDE, tmp_path / "real.json")
    baseline, candidate = [], []
    for scenario, pattern in PATTERNS.items():
        baseline += [_run(real, i, scenario) for i in range(2)]
        for i, bit in enumerate(pattern):
            run = _run(real, 10 + i, scenario)
            if bit == "0":
                run["spans"] = [s for s in run["spans"] if s["name"] != "Grep"]
            candidate.append(run)
    spec = "invariants:\n  required_tools: [Grep]\nthresholds:\n  failing_runs: tolerate\n"
    if sprt:
        spec += "  sprt: {enabled: true, alpha: 0.05, beta: 0.2, p0: 0.95, p1: 0.8}\n"
    report = _gate(run_cli, tmp_path, baseline, candidate, spec)
    tau, alpha = Fraction(7, 10), Fraction(5, 100)
    for stats in report["statistics"]:
        outcomes = [bit == "1" for bit in PATTERNS[stats["scenario_id"]]]
        if sprt:
            fail_level, pass_level = Fraction(5, 100) / 2 / 4, Fraction(2, 10) / 2
            expected = _sprt(outcomes, Fraction(95, 100), Fraction(8, 10), fail_level, pass_level)
        else:
            fail_level, pass_level = alpha / 2 / 4, alpha / 2
            expected = _confidence_sequence(outcomes, tau, pass_level, fail_level)
        assert (stats["decision"], stats["runs_used"]) == expected
        assert (stats["fail_level"], stats["pass_level"]) == (float(fail_level), float(pass_level))


def test_a_tolerated_violation_leaves_the_undecided_runs_inconclusive(run_cli, tmp_path):
    """Under ``failing_runs: tolerate`` a violated hard check WARNs; a check that also has runs
    it cannot decide (here: a policy check whose outcome was not recorded) stays INCONCLUSIVE.
    It WARNed (exit 0) while the same runs without the violating one were INCONCLUSIVE: one
    more bad run made the verdict better."""
    real = _import(run_cli, "claude", CLAUDE, tmp_path / "real.json")
    baseline = [_run(real, i, "s", ["policy_check", "refund_commit"]) for i in range(3)]
    candidate = [_run(real, 10 + i, "s", ["policy_check", "refund_commit"]) for i in range(39)]
    for run in candidate[:3]:
        next(s for s in run["spans"] if s["name"] == "policy_check")["status"] = "unknown"
    spec = (
        "rules:\n  - {id: policy-first, kind: precedence, before: policy_check, "
        "after: refund_commit}\nthresholds: {failing_runs: tolerate, min_wilson_pass_rate: 0.7}\n"
    )
    verdicts = []
    for extra in ([], [_run(real, 60, "s", ["refund_commit", "policy_check"])]):
        folder = tmp_path / f"with-{len(extra)}"
        folder.mkdir()
        report = _gate(run_cli, folder, baseline, candidate + extra, spec)
        check = next(c for c in report["checks"] if c["id"].endswith("policy-first"))
        assert check["measured"]["unknown"] == 3
        verdicts.append((report["verdict"], check["verdict"], check["measured"]["violated"]))
    assert verdicts == [("INCONCLUSIVE", "INCONCLUSIVE", 0), ("INCONCLUSIVE", "INCONCLUSIVE", 1)]
