"""The pytest plugin (``abw_gate`` fixture, ``abw`` marker) and the library surface."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import tomllib

import pytest

from tests.conftest import REPO

pytest_plugins = ("pytester",)

REFUND = REPO / "examples" / "refund-policy"
EXAMPLE_TEST = REPO / "examples" / "pytest" / "test_refund_agent.py"


@pytest.fixture(scope="module", autouse=True)
def _warm_gate():
    """Run the gate once outside pytester: its C extensions (numpy, rapidfuzz) must be loaded
    before in-process pytester runs, which drop the modules they imported afterwards."""
    from abw.gating import run_gate

    run_gate(REFUND / "traces" / "baseline", REFUND / "traces" / "small", REFUND / "behavior.yaml")


def _plugin_args() -> list[str]:
    """Load the plugin explicitly unless the installed distribution already autoloads it."""
    names = {e.name for e in importlib.metadata.entry_points(group="pytest11")}
    return [] if "abw" in names else ["-p", "abw.pytest_plugin"]


def _run(pytester, *args: str):
    return pytester.runpytest_inprocess(*_plugin_args(), "-p", "no:cacheprovider", *args)


def test_example_fails_on_the_regressed_refund_candidate(pytester):
    result = _run(pytester, str(EXAMPLE_TEST), "-q")
    result.assert_outcomes(passed=1, failed=1)
    text = result.stdout.str()
    assert "test_regressed_candidate_is_blocked" in text
    assert "abw gate verdict: FAIL" in text
    assert "[FAIL] behavior_contract.required_order[0]" in text
    assert (
        "In 3 of 20 candidate runs, refund_commit succeeded before any successful policy_check"
        in text
    )
    # the violating runs are named with their spans
    # (counted in the failure section: under CI=true pytest repeats it in the short summary)
    failure_section = text.split("short test summary info")[0]
    assert failure_section.count("refund_commit succeeded at ordinal") == 3
    assert "Traceback" not in text


def _write_test(pytester, body: str) -> None:
    pytester.makepyfile(
        test_agent_gated=f"""
import pytest
from pathlib import Path
REFUND = Path({str(REFUND)!r})
GATE = dict(baseline=REFUND / "traces" / "baseline", spec=REFUND / "behavior.yaml")
{body}
"""
    )


def test_marker_defaults_from_ini_and_folder_candidates(pytester):
    baseline, spec = REFUND / "traces" / "baseline", REFUND / "behavior.yaml"
    pytester.makeini(f"[pytest]\nabw_baseline = {baseline}\nabw_spec = {spec}\n")
    _write_test(
        pytester,
        """
def test_good(abw_gate):
    report = abw_gate(REFUND / "traces" / "good")
    assert report.verdict == "PASS"

def test_regressed_report_does_not_fail(abw_gate):
    report = abw_gate.report(REFUND / "traces" / "regressed")
    assert report.verdict == "FAIL"
""",
    )
    result = _run(pytester, "-q")
    result.assert_outcomes(passed=2)


def test_inconclusive_fails_unless_allowed(pytester):
    _write_test(
        pytester,
        """
@pytest.mark.abw(**GATE)
def test_small_sample(abw_gate):
    abw_gate(REFUND / "traces" / "small")

@pytest.mark.abw(**GATE, allow_inconclusive=True)
def test_small_sample_allowed(abw_gate):
    assert abw_gate(REFUND / "traces" / "small").verdict == "INCONCLUSIVE"
""",
    )
    result = _run(pytester, "-q")
    result.assert_outcomes(passed=1, failed=1)
    assert "abw gate verdict: INCONCLUSIVE" in result.stdout.str()


def test_trace_objects_spec_object_and_report_dir(pytester, tmp_path):
    _write_test(
        pytester,
        """
from abw.specio import load_spec
from abw.traceio import load_traces

def test_objects(abw_gate):
    spec, _ = load_spec(REFUND / "behavior.yaml")
    traces = [f.trace for f in load_traces(REFUND / "traces" / "regressed")]
    abw_gate(traces, baseline=REFUND / "traces" / "baseline", spec=spec)
""",
    )
    reports = tmp_path / "reports"
    result = _run(pytester, "-q", f"--abw-report-dir={reports}")
    result.assert_outcomes(failed=1)
    assert "behavior_contract.required_order[0]" in result.stdout.str()
    (saved,) = reports.rglob("gate-report-1.json")
    assert '"verdict": "FAIL"' in saved.read_text()


def test_missing_settings_are_a_usage_error(pytester):
    _write_test(
        pytester,
        """
def test_no_baseline(abw_gate):
    abw_gate(REFUND / "traces" / "good")
""",
    )
    result = _run(pytester, "-q")
    assert result.ret != 0
    assert "abw_gate needs baseline traces" in result.stdout.str()


def test_plugin_is_registered_and_imports_nothing_heavy():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert pyproject["project"]["entry-points"]["pytest11"] == {"abw": "abw.pytest_plugin"}
    code = (
        "import sys, abw.pytest_plugin; "
        "heavy = [m for m in ('pydantic', 'numpy', 'torch', 'transformers', 'jinja2', "
        "'github', 'abw.gating', 'abw.models') if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert out.stdout.strip() == "[]"


def test_library_surface_and_alias():
    import agent_behavior_workbench
    from abw import Spec, Trace, gate
    from abw.specio import load_spec
    from abw.traceio import load_traces

    assert agent_behavior_workbench.Trace is Trace
    assert agent_behavior_workbench.Spec is Spec
    spec, sha = load_spec(REFUND / "behavior.yaml")
    assert isinstance(spec, Spec)
    baseline = load_traces(REFUND / "traces" / "baseline")
    candidate = load_traces(REFUND / "traces" / "regressed")
    assert isinstance(candidate[0].trace, Trace)
    report = gate(baseline, candidate, spec, spec_file="behavior.yaml", spec_sha256=sha)
    assert report.verdict == "FAIL"
    alias = agent_behavior_workbench.gate(
        baseline, candidate, spec, spec_file="behavior.yaml", spec_sha256=sha
    )
    assert alias.model_dump() == report.model_dump()


def test_bad_input_failures_are_safe_for_a_ci_log(pytester, tmp_path):
    """A file name and a spec key come from the change under test: the one-line failure is
    escaped as every abw log line is (no raw newline, terminal escape or workflow command)."""
    candidate = tmp_path / "candidate"
    candidate.mkdir()
    trace = json.loads(next((REFUND / "traces" / "good").glob("*.json")).read_text())
    trace["spans"][0]["status"] = "bogus"
    (candidate / "run\n::error file=app.py::INJECTED\n.json").write_text(json.dumps(trace))
    spec = tmp_path / "spec.yaml"
    key = "\x1b]0;title\x07\x1b[31mkey"
    spec.write_text((REFUND / "behavior.yaml").read_text() + json.dumps(key) + ": 1\n")
    _write_test(
        pytester,
        f"""
@pytest.mark.abw(**GATE)
def test_named(abw_gate):
    abw_gate(Path({str(candidate)!r}))

@pytest.mark.abw(baseline=GATE["baseline"], spec=Path({str(spec)!r}))
def test_spec_key(abw_gate):
    abw_gate(REFUND / "traces" / "good")
""",
    )
    result = _run(pytester, "-q")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "INJECTED" in out and "key" in out
    assert "\x1b" not in out
    assert not [line for line in out.splitlines() if line.lstrip().startswith("::")]


def test_an_empty_or_nul_path_fails_in_one_line(pytester):
    """``baseline=""`` walked the test's whole folder (``Path("")`` is the working folder) and
    gave a verdict on the wrong runs; a NUL in the spec path was a traceback. Both are the
    CLI's one line."""
    _write_test(
        pytester,
        """
@pytest.mark.abw(baseline="", spec=REFUND / "behavior.yaml")
def test_empty_baseline(abw_gate):
    abw_gate(REFUND / "traces" / "good")

@pytest.mark.abw(**GATE)
def test_empty_candidate(abw_gate):
    abw_gate.report("")

@pytest.mark.abw(baseline=REFUND / "traces" / "baseline")
def test_nul_spec(abw_gate):
    abw_gate(REFUND / "traces" / "good", spec="behavior\\x00.yaml")
""",
    )
    result = _run(pytester, "-q")
    result.assert_outcomes(failed=3)
    out = result.stdout.str()
    assert out.count("empty path (an unset variable?)") >= 2, out
    assert "a path cannot hold a NUL character" in out and "Traceback" not in out


def test_input_warnings_reach_pytest(pytester):
    """The candidate given as the baseline itself PASSed without a word (``abw gate`` prints
    "input warning: the candidate is the baseline itself ..."): each input warning is a pytest
    warning, and the failure text lists them."""
    _write_test(
        pytester,
        """
@pytest.mark.abw(**GATE)
def test_itself(abw_gate):
    abw_gate(REFUND / "traces" / "baseline")
""",
    )
    result = _run(pytester, "-q", "-W", "default")
    result.assert_outcomes(passed=1, warnings=1)
    assert "AbwInputWarning" in result.stdout.str() and "baseline itself" in result.stdout.str()


def test_the_failure_text_lists_the_input_warnings():
    from abw.gating import run_gate
    from abw.pytest_plugin import explain_report

    base = REFUND / "traces" / "baseline"
    report = run_gate(base, base, REFUND / "behavior.yaml")
    assert report.input_warnings
    assert "input warning: " in explain_report(report)
