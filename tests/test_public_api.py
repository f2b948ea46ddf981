"""The lazy public API of ``abw``: names resolve to functions whatever was imported first."""

from __future__ import annotations

import inspect
import subprocess
import sys

from test_gate_factory import REFUND, REGRESSED, runs, write_runs

import abw
from abw.models.spec import Spec


def test_gate_and_diff_are_functions_after_their_modules_were_imported():
    import abw.diffing
    import abw.gating
    from abw import diff, gate, run_gate

    assert gate is abw.gating.gate and inspect.isfunction(gate)
    assert run_gate is abw.gating.run_gate and inspect.isfunction(run_gate)
    assert diff is abw.diffing.diff and inspect.isfunction(diff)
    assert abw.gate is gate and abw.diff is diff and abw.run_gate is run_gate


def test_calls_through_the_package_after_the_submodules_were_imported(tmp_path):
    import abw.diffing
    import abw.gating

    base, cand = runs("b", [REFUND] * 20), runs("c", [REGRESSED] * 20)
    spec = Spec.model_validate(
        {
            "schema_version": "behavior-spec/v0",
            "id": "api",
            "invariants": {
                "required_order": [{"before": "policy_check", "after": "refund_commit"}]
            },
        }
    )
    report = abw.gate(base, cand, spec, spec_file="s", spec_sha256="0")
    assert report.verdict == "FAIL"
    (result,) = abw.diff(base, cand)
    assert result.path_edit_distance_max == 0.5
    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text("schema_version: behavior-spec/v0\nid: t\n")
    files = abw.run_gate(
        write_runs(tmp_path / "b", base), write_runs(tmp_path / "c", base), spec_path
    )
    assert files.verdict == "PASS"


def test_fresh_interpreter_submodules_first():
    code = (
        "import inspect, abw.gating, abw.diffing; from abw import gate, diff, run_gate; "
        "print(all(map(inspect.isfunction, (gate, diff, run_gate))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_every_public_name_resolves_and_the_alias_agrees():
    import agent_behavior_workbench

    for name in abw.__all__:
        assert getattr(agent_behavior_workbench, name) is getattr(abw, name)
    assert "run_gate" in dir(abw)


def test_type_checkers_see_every_public_name_as_what_it_is():
    """``from abw import gate`` was ``Any`` to a type checker (the names resolve lazily, through
    ``__getattr__``), so mypy --strict passed wrong calls: each lazy name is also imported under
    ``TYPE_CHECKING``, from the very module and attribute it resolves to."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(abw))
    (block,) = [
        node for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
    ]  # fmt: skip
    imported = {
        alias.asname: f"{node.module}:{alias.name}"
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert imported == abw._LAZY


def test_gate_given_what_run_gate_takes_says_so():
    """``gate(base, cand, load_spec(path))`` — the likeliest mistake, the (spec, sha256) pair —
    ended in ``'tuple' object has no attribute 'output'``, and folders in
    ``AttributeError`` from abw's insides; a generator baseline was used up by the duplicate
    check ("no baseline traces were given"). Each says what gate takes."""
    import pytest

    from abw import gate, load_spec, load_traces
    from tests.conftest import REPO

    example = REPO / "examples" / "refund-policy"
    spec_file = example / "behavior.yaml"
    base, cand = (
        load_traces(example / "traces" / "baseline"),
        load_traces(example / "traces" / "good"),
    )
    pair = load_spec(spec_file)
    kwargs = {"spec_file": str(spec_file), "spec_sha256": pair[1]}
    with pytest.raises(TypeError, match=r"load_spec\(path\) returns \(spec, sha256\)"):
        gate(base, cand, pair, **kwargs)
    with pytest.raises(TypeError, match=r"abw\.run_gate takes a spec file"):
        gate(base, cand, str(spec_file), **kwargs)
    with pytest.raises(TypeError, match=r"abw\.run_gate takes folders"):
        gate(str(example / "traces" / "baseline"), cand, pair[0], **kwargs)
    with pytest.raises(TypeError, match=r"candidate is loaded runs"):
        gate(base, example / "traces" / "good", pair[0], **kwargs)
    report = gate((run for run in base), cand, pair[0], **kwargs)
    assert report.verdict == "PASS"
