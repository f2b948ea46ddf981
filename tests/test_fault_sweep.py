"""A bad-input and fault sweep over the commands around the gate: standard streams the process
started without, ``abw sample``'s output paths and its verdict after a fault, ``verify-report``'s
verdict on a full stdout, edited reports given to ``report``/``explain``, and contract clauses
whose errors must name the contract's own field and line.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, one_line

EXAMPLE = REPO / "examples" / "refund-policy"
TRACES = EXAMPLE / "traces"
SPEC = EXAMPLE / "behavior.yaml"
CONTRACT = EXAMPLE / "contract.json"
AGENT = REPO / "examples" / "sample" / "claude_agent.py"
ABW = str(Path(sys.executable).with_name("abw"))
ENV = {**os.environ, "ABW_NO_PROGRESS": "1"}
VERDICTS = {"good": 0, "regressed": 1, "small": 3}  # PASS, FAIL, INCONCLUSIVE
LABELS = "classify,lookup_order,policy_check:guardrail,refund_commit"
FIELDS = "decision,order_id,refund_amount,currency,fraud_check_passed"


def _gate(candidate: str, *extra: str | Path) -> list[str]:
    return [
        ABW, "gate", "--baseline", str(TRACES / "baseline"),
        "--candidate", str(TRACES / candidate), "--spec", str(SPEC), *map(str, extra),
    ]  # fmt: skip


def _closing(fd: int):
    return lambda: os.close(fd)  # runs in the child, after its streams are set up


# ---------------------------------------------------------------- standard streams closed


@pytest.mark.parametrize("candidate", sorted(VERDICTS))
def test_a_closed_stdout_keeps_the_verdicts_exit_code(candidate, tmp_path):
    """``abw gate ... >&-``: Python left sys.stdout None; flushing it at exit was a traceback
    and exit 1 (read as FAIL) whatever the verdict."""
    result = subprocess.run(
        _gate(candidate, "--out", tmp_path / "r.json"),
        stderr=subprocess.PIPE, text=True, env=ENV, timeout=120, preexec_fn=_closing(1),
    )  # fmt: skip
    assert result.returncode == VERDICTS[candidate], result.stderr
    assert "standard output is closed" in one_line(result.stderr)
    assert json.loads((tmp_path / "r.json").read_text())["schema_version"] == "gate-report/v0"


@pytest.mark.parametrize("candidate", sorted(VERDICTS))
def test_a_closed_stderr_keeps_the_verdicts_exit_code(candidate):
    """``abw gate ... 2>&-``: the exit code was 1 for every verdict (flushing a None stderr)."""
    result = subprocess.run(
        _gate(candidate), stdout=subprocess.PIPE, text=True, env=ENV, timeout=120,
        preexec_fn=_closing(2),
    )  # fmt: skip
    assert result.returncode == VERDICTS[candidate]
    assert result.stdout.startswith(("PASS", "FAIL", "INCONCLUSIVE"))


def test_bad_input_with_a_closed_stderr_is_exit_2_and_nothing_on_stdout(tmp_path):
    """The error line went to stdout (``print(file=None)``) and the exit code was 1."""
    result = subprocess.run(
        [ABW, "validate", tmp_path / "missing.json"], stdout=subprocess.PIPE, text=True,
        env=ENV, timeout=60, preexec_fn=_closing(2),
    )  # fmt: skip
    assert result.returncode == 2 and result.stdout == ""


def test_a_closed_stdout_is_no_file_descriptor_for_output(tmp_path):
    """With descriptor 1 closed, the first file abw opened took its number; it is /dev/null
    now, so nothing written to standard output can land in a report."""
    script = (
        "import os, sys; from abw.faults import open_standard_streams; open_standard_streams();"
        "fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT); print(fd, file=sys.stderr)"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, tmp_path / "file"], stderr=subprocess.PIPE, text=True,
        timeout=60, preexec_fn=_closing(1),
    )  # fmt: skip
    assert result.returncode == 0 and int(result.stderr) > 2, result.stderr


# ---------------------------------------------------------------- abw sample


def _scenarios(tmp_path: Path, marker: Path) -> Path:
    run = f"touch {shlex.quote(str(marker))} && {shlex.quote(sys.executable)} " + shlex.quote(
        str(AGENT)
    )
    path = tmp_path / "scenarios.yaml"
    path.write_text(
        "scenarios:\n  - id: refund-policy\n"
        f"    run: {json.dumps(run + ' --seed 3 --transcript {transcript}')}\n"
        "    importer: claude\n"
        f'    import_args: [--bash-tool-labels, "{LABELS}", --output-fields, "{FIELDS}"]\n',
        encoding="utf-8",
    )
    return path


def _sample(scenarios: Path, out: Path, *extra: str | Path) -> list[str]:
    return [
        "sample", "--scenarios", str(scenarios), "--baseline", str(TRACES / "baseline"),
        "--spec", str(SPEC), "--out", str(out), "--budget-runs", "1", "-q", *map(str, extra),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("option", "kind", "needle"),
    [
        ("--report", "folder", "--report: expected a file, found a folder"),
        ("--report-dir", "file", "--report-dir: cannot write: exists and is not a folder"),
        ("--out", "file", "--out: cannot write: exists and is not a folder"),
    ],
)
def test_sample_refuses_a_wrong_output_path_before_any_agent_run(
    tmp_path, run_cli, option, kind, needle
):
    """The paths were written only after every agent run had been paid for (exit 2, the
    verdict and its report lost)."""
    marker = tmp_path / "agent-ran"
    target = tmp_path / "target"
    target.mkdir() if kind == "folder" else target.write_text("x")
    out = target if option == "--out" else tmp_path / "candidate"
    extra = [] if option == "--out" else [option, target]
    code, _, err = run_cli(*_sample(_scenarios(tmp_path, marker), out, *extra))
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err
    assert not marker.exists() and not (tmp_path / "candidate").exists()


def test_sample_keeps_the_verdicts_exit_code_when_writing_fails(tmp_path):
    """A full stdout or a report that cannot be written came after the verdict: exit 2."""
    scenarios = _scenarios(tmp_path, tmp_path / "ran")
    out = tmp_path / "candidate"
    with open("/dev/full", "w") as full:
        first = subprocess.run(
            [ABW, *_sample(scenarios, out)], stdout=full, stderr=subprocess.PIPE, text=True,
            env=ENV, timeout=120,
        )  # fmt: skip
    assert first.returncode == 3, first.stderr  # one passing run: INCONCLUSIVE
    assert "no space left" in one_line(first.stderr)
    # a report that fails only when written (a folder that cannot be written is refused
    # before the first run: test_sample.py)
    second = subprocess.run(
        [ABW, *_sample(scenarios, out, "--report", "/dev/full")], capture_output=True, text=True,
        env=ENV, timeout=120,
    )  # fmt: skip
    assert second.returncode == 3, second.stderr
    assert "/dev/full: --report: cannot write: no space left" in one_line(second.stderr)


# ---------------------------------------------------------------- verify-report, edited reports


@pytest.fixture(scope="module")
def regressed_report(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("report") / "gate-report.json"
    subprocess.run(_gate("regressed", "--out", path), capture_output=True, env=ENV, timeout=120)
    return path


@pytest.mark.parametrize(("candidate", "code"), [("regressed", 0), ("good", 1)])
def test_verify_report_keeps_its_verdict_on_a_full_stdout(regressed_report, candidate, code):
    command = [
        ABW, "verify-report", str(regressed_report), "--baseline", str(TRACES / "baseline"),
        "--candidate", str(TRACES / candidate), "--spec", str(SPEC),
    ]  # fmt: skip
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            command, stdout=full, stderr=subprocess.PIPE, text=True, env=ENV, timeout=120
        )
    assert result.returncode == code, result.stderr
    assert "no space left" in one_line(result.stderr)


@pytest.mark.parametrize("command", ["report", "explain", "gate --previous"])
def test_an_edited_verdict_is_refused_by_every_reader(regressed_report, tmp_path, run_cli, command):
    """``abw report`` rendered a report edited from FAIL to PASS with a PASS badge (the Action
    refused the same file); explain and --previous read it as well."""
    edited = json.loads(regressed_report.read_text())
    edited["verdict"] = "PASS"
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(edited, indent=2))
    args = {
        "report": ["report", "--input", path, "--out-dir", tmp_path / "out"],
        "explain": ["explain", "behavior_contract.required_order[0]", "--report", path],
        "gate --previous": [*_gate("regressed")[1:], "--previous", path],
    }[command]
    code, out, err = run_cli(*args)
    assert code == 2 and out == "" and not (tmp_path / "out").exists()
    assert f"{path}: verdict: refused: the report contradicts itself" in err
    assert len(err.strip().splitlines()) == 1, err


# ---------------------------------------------------------------- contract clauses


def _contract(tmp_path: Path, *clauses: dict) -> Path:
    document = json.loads(CONTRACT.read_text())
    document["invariants"]["hard"] += list(clauses)
    path = tmp_path / "contract.json"
    path.write_text(json.dumps(document, indent=2))
    return path


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.mark.parametrize("command", ["contract compile", "gate --contract"])
@pytest.mark.parametrize(
    ("params", "shown", "field"),
    [
        ({"value": "x"}, '"value": "x"', "params.value: Input should be a valid integer"),
        ({"value": -1}, '"value": -1', "params.value: Input should be greater than or equal"),
    ],
)
def test_a_limit_clause_is_named_by_its_own_field_and_line(
    tmp_path, run_cli, command, params, shown, field
):
    """A second max_errors clause with a string value was an internal error (min() of a str and
    an int); a wrong built-in value named the compiled spec (invariants.max_errors) and no
    line."""
    clause = {"id": "z", "statement": "s", "rule": "max_errors", "params": params}
    path = _contract(tmp_path, clause)
    count = len(json.loads(CONTRACT.read_text())["invariants"]["hard"])
    args = [*command.split(), path]
    if command.startswith("gate"):
        args = [*_gate("good")[1:-2], "--contract", path]
    code, _, err = run_cli(*args)
    line = _line_of(path, shown)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{path}:{line}: invariants.hard[{count}].{field}" in err


def test_a_required_tool_clause_error_names_the_clause(tmp_path, run_cli):
    """It named invariants.required_tools.0 of the compiled spec, with no line."""
    clause = {"id": "z", "statement": "s", "rule": "required_tool", "params": {"tool": 5}}
    path = _contract(tmp_path, clause)
    count = len(json.loads(CONTRACT.read_text())["invariants"]["hard"])
    code, _, err = run_cli("contract", "compile", path)
    line = _line_of(path, '"tool": 5')
    assert code == 2
    assert f"{path}:{line}: invariants.hard[{count}].params.tool: Input should be a valid" in err


# ---------------------------------------------------------------- YAML


def test_a_merge_key_is_refused_by_name(tmp_path, run_cli):
    """``<<:`` read as an unknown tag: "could not determine a constructor for the tag
    'tag:yaml.org,2002:merge'"."""
    spec = tmp_path / "behavior.yaml"
    spec.write_text(
        "schema_version: behavior-spec/v0\nid: x\ninvariants:\n  <<: {required_tools: [a]}\n"
    )
    code, _, err = run_cli("validate", spec)
    assert code == 2
    assert f"{spec}:4: YAML merge keys (<<) are not allowed" in one_line(err)


def test_validate_refuses_a_contract_the_gate_refuses(tmp_path):
    """``abw validate`` says ok only for a contract the gate accepts: one that compiles (a
    clause's unknown parameter is refused by the compiler, not the contract model)."""
    from abw.validate import validate_file

    document = json.loads((REPO / "examples/refund-policy/contract.json").read_text())
    document["governance"]["hard"][0]["params"]["within"] = 3
    path = tmp_path / "contract.json"
    path.write_text(json.dumps(document, indent=2))
    (problem,) = validate_file(path)
    assert problem.path == "$.governance.hard[0].params.within"
    assert problem.message == "unknown key" and problem.line is not None
