"""``abw spec init``: the inference rules and the invariant "a generated spec passes its own
baseline" as a property over random baselines, including its commented order suggestions."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_gate_factory import REFUND, make_trace, runs, trace_file, write_runs

from abw.gating import gate
from abw.spec_init import infer, render_yaml
from abw.specio import load_spec, parse_yaml_text

TOOLS = ["classify", "lookup_order", "policy_check", "refund_commit", "notify"]
# Real tool names a glob would misread: a character class, wildcards, the literal prefix.
GLOB_LIKE = ["fetch[1]", "lookup*", "ask?", "=exact", "##[group]x"]

step = st.tuples(
    st.sampled_from(TOOLS + GLOB_LIKE),
    st.sampled_from(["success", "success", "success", "error"]),
    st.sampled_from(["k1", "k2"]),
)
baselines = st.lists(st.lists(step, max_size=7), min_size=1, max_size=8)


def uncomment_all(text: str) -> str:
    return re.sub(r"^(\s*)# (\{before: .*\},)$", r"\1\2", text, flags=re.MULTILINE)


def gate_text(text: str, baseline, tmp_path, name="spec.yaml"):
    path = tmp_path / name
    path.write_text(text)
    spec, digest = load_spec(path)
    return spec, gate(baseline, baseline, spec, spec_file=str(path), spec_sha256=digest)


def test_rules_on_a_small_baseline():
    baseline = runs(
        "b",
        [
            REFUND,
            [("classify", "error", "k"), ("classify", "success", "k"), *REFUND[1:], "notify"],
            [*REFUND, ("notify", "error")],
        ],
    )
    inferred = infer(baseline)
    assert inferred.required_tools == REFUND  # notify is not in every run (successfully)
    assert inferred.max_path_length == 8  # ceil(1.25 * 6) = ceil(7.5)
    assert inferred.max_errors == 1 and inferred.max_retries == 1
    assert inferred.order_suggestions == [
        ("classify", "lookup_order"),
        ("classify", "policy_check"),
        ("classify", "refund_commit"),
        ("lookup_order", "policy_check"),
        ("lookup_order", "refund_commit"),
        ("policy_check", "refund_commit"),
    ]


def test_long_chains_suggest_only_the_transitive_reduction():
    chain = [f"t{i:02d}" for i in range(12)]  # 66 pairs hold; the 11 links are kept
    inferred = infer(runs("b", [chain, chain]))
    assert inferred.order_suggestions == list(itertools.pairwise(chain))


def test_spec_init_ignores_input_order():
    paths = [REFUND, ["lookup_order", "classify", "policy_check", "refund_commit"], REFUND]
    baseline = runs("b", paths)
    assert render_yaml(infer(baseline), "x") == render_yaml(infer(baseline[::-1]), "x")


def test_ceil_is_exact_on_multiples_of_four():
    baseline = runs("b", [["a"] * 4])
    assert infer(baseline).max_path_length == 5
    assert infer(runs("b", [[]])).max_path_length == 0


def test_yaml_uncommented_suggestions_still_pass_the_baseline(tmp_path):
    # 16 runs: the default anytime rule needs 15 all-pass runs to show tau = 0.7.
    baseline = runs("b", [REFUND] * 16)
    text = render_yaml(infer(baseline), "refund", "Refund agent")
    spec, report = gate_text(text, baseline, tmp_path)
    assert spec.invariants.required_order == [] and report.verdict == "PASS"
    accepted = uncomment_all(text)
    assert accepted != text
    spec, report = gate_text(accepted, baseline, tmp_path, "accepted.yaml")
    assert len(spec.invariants.required_order) == 6
    assert report.verdict == "PASS", report.summary
    # Accepting only one of them is a valid YAML edit too.
    one = text.replace(
        "# {before: policy_check, after: refund_commit},",
        "{before: policy_check, after: refund_commit},",
    )
    spec, _ = gate_text(one, baseline, tmp_path, "one.yaml")
    assert [(c.before, c.after) for c in spec.invariants.required_order] == [
        ("policy_check", "refund_commit")
    ]


def test_odd_tool_names_are_quoted(tmp_path):
    baseline = runs("b", [["mcp__srv__do", "true", "1x", "a b", "x:y"]])
    text = render_yaml(infer(baseline), "odd")
    document = parse_yaml_text(text, "odd.yaml")
    assert document["invariants"]["required_tools"] == sorted(
        ["mcp__srv__do", "true", "1x", "a b", "x:y"]
    )


@settings(max_examples=60, deadline=None)
@given(paths=baselines, data=st.data())
def test_generated_spec_passes_its_own_baseline(tmp_path_factory, paths, data):
    tmp_path = tmp_path_factory.mktemp("prop")
    scenarios = data.draw(
        st.lists(st.sampled_from(["s1", "s2"]), min_size=len(paths), max_size=len(paths))
    )
    baseline = [
        trace_file(make_trace(f"b-{i:02d}", p, scenario=s), "b")
        for i, (p, s) in enumerate(zip(paths, scenarios, strict=True))
    ]
    text = render_yaml(infer(baseline), "prop")
    for variant in (text, uncomment_all(text)):
        _, report = gate_text(variant, baseline, tmp_path)
        for check in report.checks:
            if check.category == "sample_sufficiency":
                # Only the sample size may hold the verdict back, never a failure.
                assert check.verdict in ("PASS", "INCONCLUSIVE"), check
            else:
                assert check.verdict == "PASS", check
        assert all(r.passed for r in report.runs if r.role == "candidate")
        for stats in report.statistics:
            assert stats.k == stats.n
            assert stats.decision == ("pass" if stats.runs_needed in (0, None) else "inconclusive")


def test_glob_characters_in_tool_names_are_exact_names(tmp_path):
    """Names holding ``[``, ``*``, ``?`` or a leading ``=`` are required as exact names and
    suggested in order as ``=name``: the generated spec, suggestions accepted, passes its own
    baseline (a plain glob ``fetch[1]`` matches ``fetch1``, not ``fetch[1]``)."""
    path = ["fetch[1]", "lookup*", "ask?", "=exact", "refund_commit"]
    baseline = runs("b", [path] * 16)
    text = render_yaml(infer(baseline), "odd")
    assert '{before: "=fetch[1]", after: "=lookup*"}' in text
    for variant in (text, uncomment_all(text)):
        _, report = gate_text(variant, baseline, tmp_path)
        assert report.verdict == "PASS", report.summary
    # A look-alike is still no match: an exact required name is not a glob.
    lookalike = runs("c", [["fetch1", "lookupX", "askX", "exact", "refund_commit"]] * 16)
    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text(text)
    spec, digest = load_spec(spec_path)
    report = gate(baseline, lookalike, spec, spec_file=str(spec_path), spec_sha256=digest)
    failed = {c.id for c in report.checks if c.verdict == "FAIL"}
    assert {f"behavior_contract.required_tools[{i}]" for i in range(2)} | {
        f"operational_quality.rules.count-{i}" for i in range(2)
    } <= failed


def test_cli_names_from_traces_never_reach_the_log_raw(tmp_path, run_cli):
    """A name read from traces reaches the terminal only through the log sanitizer (and a
    name of the baseline is never reported as matching no span of it)."""
    base = write_runs(tmp_path / "base", runs("b", [["##[error]x[1]", *REFUND]] * 3))
    code, stdout, stderr = run_cli("spec", "init", "--baseline", base, "--out", tmp_path / "s.yaml")
    assert code == 0 and "##[" not in stdout + stderr
    assert "matches no span" not in stderr


def test_cli(tmp_path, run_cli):
    base = write_runs(tmp_path / "base", runs("b", [REFUND] * 20))
    out = tmp_path / "behavior.yaml"
    code, stdout, _ = run_cli("spec", "init", "--baseline", base, "--out", out)
    assert code == 0 and "4 required tools" in stdout
    spec, _ = load_spec(out)
    assert spec.id == "behavior"
    assert "# {before: policy_check, after: refund_commit}," in out.read_text()
    first = out.read_bytes()
    code, _, err = run_cli("spec", "init", "--baseline", base, "--out", out)
    assert code == 2 and "exists; pass --force" in err and err.count("\n") == 1
    out.write_text(first.decode() + "# reviewed\n")  # a person's edit survives a refused init
    assert out.read_text().endswith("# reviewed\n")
    assert run_cli("spec", "init", "--baseline", base, "--out", out, "--force")[0] == 0
    assert out.read_bytes() == first
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run_cli("spec", "init", "--baseline", empty, "--out", tmp_path / "new.yaml")
    assert code == 2 and "no trace files" in err


def test_a_span_named_with_spaces_only_is_no_required_tool(tmp_path, run_cli):
    """A baseline whose every run holds a span named ``""`` (the trace schema allows it):
    ``spec init`` wrote ``required_tools: [""]``, said "wrote", then exited 2 on the spec it
    had just written, and left it. Such a name is no tool a spec can name."""
    files = runs("b", [[*REFUND, ""]] * 3) + runs("s", [[*REFUND, "  "]] * 3)
    for name, group in (("empty", files[:3]), ("spaces", files[3:])):
        base = write_runs(tmp_path / name, group)
        out = tmp_path / f"{name}.yaml"
        code, _, err = run_cli("spec", "init", "--baseline", base, "--out", out)
        assert code == 0, err
        spec, _ = load_spec(out)
        assert spec.invariants.required_tools == sorted(REFUND)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ('invariants:\n  forbidden_tools: ["  "]\n', "'  ' is spaces only and names no tool"),
        ('invariants:\n  required_tools: [" "]\n', "' ' is spaces only and names no tool"),
        ('rules:\n  - {kind: count, tool: "  ", max: 0}\n', "is spaces only and names no tool"),
        ('invariants:\n  required_order: [{before: "  ", after: x}]\n',
         "required_order[0].before: '  ' is spaces only and names no tool"),
        ("invariants:\n  required_tools: [a, b]\n  forbidden_tools: [b]\n",
         "b is both required and forbidden: no run can pass"),
        ("rules:\n  - {kind: count, tool: {name: x, status: [error]}, count_status: success,"
         " max: 0}\n", "count_status: success counts successful spans only, but the matcher's "
         "status names error"),
    ],
)  # fmt: skip
def test_a_spec_that_can_only_pass_or_only_fail_is_refused(tmp_path, run_cli, body, said):
    """A forbidden name of spaces only forbade nothing and PASSed (an empty one was refused),
    and one in ``required_order`` FAILed every run that called its ``after``;
    a tool both required and forbidden FAILed every run; ``count_status: success`` beside a
    matcher's ``status: [error]`` was silently ignored."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"schema_version: behavior-spec/v0\nid: t\n{body}")
    code, _, err = run_cli("validate", spec)
    assert code == 2 and said in err, err
