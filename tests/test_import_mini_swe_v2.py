"""mini-swe-agent 2.x (tool-calling, ``trajectory_format: mini-swe-agent-1.1``) on the corpus.

Each test reads the raw file with a few lines of its own and compares what the importer wrote:
one tool span per ``tool_calls`` entry, its status from the paired ``tool`` reply's
``<returncode>``, the run's status from ``info.exit_status`` (an exception's class name), llm
spans named by the model, and files that are no mini-swe-agent run refused.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from abw.importers import get_importer
from abw.importers.base import ImportOptions
from abw.importers.common import parse_argument_fields, parse_labels
from abw.models.trace import Trace
from abw.traceio import render_trace
from tests.conftest import CORPUS
from tests.importkit import import_trace, path_statuses

MINI = CORPUS / "mini-swe-agent"
SUBMITTED = MINI / "miniswe2__django__django-11039.traj.json"  # 2.2.7, Submitted
SERVER_ERROR = MINI / "miniswe2__pvlib__pvlib-python-1072.traj.json"  # InternalServerError
NO_STEPS = MINI / "miniswe2__pvlib__pvlib-python-1154.traj.json"  # Timeout before any step
TOOL_CALLING = [SUBMITTED, SERVER_ERROR]
GEMINI_SESSION = CORPUS / "gemini-cli" / "codemie__session-2025-12-01T21-45-5b959dae.json"


def _import(path: Path, **kwargs: Any) -> Trace:
    return import_trace("swe-agent", path, **kwargs)


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def _write(tmp_path: Path, document: Any, name: str = "run.traj.json") -> Path:
    out = tmp_path / name
    out.write_text(json.dumps(document, indent=2))
    return out


def _calls(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Every tool call of the run, in order."""
    return [c for m in document["messages"] if m["role"] == "assistant" for c in m["tool_calls"]]


def _expected(document: dict[str, Any]) -> list[tuple[str, str]]:
    """(function name, status) of each call: its reply's return code; a call no ``tool`` message
    answers is the one that submitted when the run ends ``Submitted``, else unknown."""
    codes = {}
    for m in document["messages"]:
        if m["role"] == "tool":
            codes[m["tool_call_id"]] = int(re.search(r"<returncode>(-?\d+)", m["content"])[1])
    submitted = document["messages"][-1]["extra"]["exit_status"] == "Submitted"
    expected = []
    for call in _calls(document):
        code = codes.get(call["id"])
        status = "unknown" if code is None else "success" if code == 0 else "error"
        if code is None and submitted:
            status = "success"
        expected.append((call["function"]["name"], status))
    return expected


@pytest.mark.parametrize("path", TOOL_CALLING, ids=lambda p: p.name)
def test_every_tool_call_is_a_span_judged_by_its_reply(path):
    document = _load(path)
    expected = _expected(document)
    trace = _import(path)
    assert len(expected) >= 15 and path_statuses(trace) == expected
    assert ("bash", "error") in expected  # non-zero return codes are read
    assert all(s.attributes["tool_alias"] == "shell" for s in trace.path())
    assistants = sum(m["role"] == "assistant" for m in document["messages"])
    assert sum(s.type == "llm" for s in trace.spans) == assistants
    raw_lines = path.read_text().splitlines()
    for span in trace.spans:  # each span points at its assistant message
        assert raw_lines[span.source_ref.line - 1].strip() == "{"


def test_the_submitting_call_is_answered_by_the_exit_message(tmp_path):
    """The call whose output submitted gets no ``tool`` reply: the ``exit`` message (Submitted)
    answers it; a run that ended otherwise leaves a call nothing answered incomplete."""
    document = _load(SUBMITTED)
    answered = {m["tool_call_id"] for m in document["messages"] if m["role"] == "tool"}
    last = _calls(document)[-1]
    assert last["id"] not in answered and document["messages"][-1]["role"] == "exit"
    assert _import(SUBMITTED).path()[-1].status == "success"
    document["messages"][-1]["extra"]["exit_status"] = "LimitsExceeded"
    span = _import(_write(tmp_path, document)).path()[-1]
    assert (span.status, span.outcome) == ("unknown", "incomplete")


def test_replies_pair_by_tool_call_id_else_in_order(tmp_path):
    document = _load(SUBMITTED)
    expected = path_statuses(_import(SUBMITTED))
    for message in document["messages"]:
        message.pop("tool_call_id", None)
    assert path_statuses(_import(_write(tmp_path, document, "order.traj.json"))) == expected
    # one assistant message with two calls answered in reverse order: paired by id
    first = next(m for m in document["messages"] if m["role"] == "assistant")
    index = document["messages"].index(first)
    second = {**first["tool_calls"][0], "id": "call-b"}
    first["tool_calls"] = [{**first["tool_calls"][0], "id": "call-a"}, second]
    replies = [
        {"role": "tool", "tool_call_id": "call-b", "content": "<returncode>2</returncode>"},
        {"role": "tool", "tool_call_id": "call-a", "content": "<returncode>0</returncode>"},
    ]
    document["messages"][index + 1 : index + 2] = replies
    trace = _import(_write(tmp_path, document, "pairs.traj.json"))
    assert path_statuses(trace)[:2] == [("bash", "success"), ("bash", "error")]
    assert [s.attributes["exit_code"] for s in trace.path()[:2]] == [0, 2]


@pytest.mark.parametrize("path", [*TOOL_CALLING, NO_STEPS], ids=lambda p: p.name)
def test_exit_status_is_the_exception_name(path):
    """``Submitted`` is success; every other exception (``InternalServerError``, ``Timeout``)
    an error."""
    status = _load(path)["info"]["exit_status"]
    expected = "success" if status == "Submitted" else "error"
    assert _import(path).run.final_status == expected


@pytest.mark.parametrize(
    ("exit_status", "final"),
    [
        ("Submitted", "success"),
        ("LimitsExceeded", "error"),
        ("TimeExceeded", "error"),
        ("TimeoutError", "error"),
        ("RepeatedFormatError", "error"),
        # SWE-agent's own statuses read as before
        ("submitted", "success"),
        ("submitted (exit_cost)", "error"),
        ("exit_context", "error"),
        ("skipped", "cancelled"),
        ("exit_forfeit", "cancelled"),
    ],
)
def test_exit_statuses(tmp_path, exit_status, final):
    document = _load(NO_STEPS)
    document["info"]["exit_status"] = exit_status
    assert _import(_write(tmp_path, document)).run.final_status == final


def test_llm_spans_are_named_by_the_model(tmp_path):
    document = _load(SERVER_ERROR)
    configured = document["info"]["config"]["model"]["model_name"]
    names = {s.name for s in _import(SERVER_ERROR).spans if s.type == "llm"}
    assert names == {configured}
    del document["info"]["config"]["model"]
    answered = [
        m["extra"]["response"]["model"] for m in document["messages"] if m["role"] == "assistant"
    ]
    trace = _import(_write(tmp_path, document, "response.traj.json"))
    assert [s.name for s in trace.spans if s.type == "llm"] == answered
    for message in document["messages"]:
        message.get("extra", {}).pop("response", None)
    trace = _import(_write(tmp_path, document, "none.traj.json"))
    assert {s.name for s in trace.spans if s.type == "llm"} == {"model"}


def test_argument_fields_read_the_calls_arguments():
    commands = [json.loads(c["function"]["arguments"])["command"] for c in _calls(_load(SUBMITTED))]
    options = ImportOptions(argument_fields=parse_argument_fields("bash:command"))
    (trace,) = get_importer("swe-agent").import_file(SUBMITTED, options)
    assert [s.attributes["arguments"] for s in trace.path()] == [{"command": c} for c in commands]
    assert trace.redaction.kept_fields == ["bash:command"]
    assert not options.warnings


def test_bash_tool_labels_apply_to_the_command():
    commands = [json.loads(c["function"]["arguments"])["command"] for c in _calls(_load(SUBMITTED))]
    word = re.compile(r"(?<![A-Za-z0-9_])python(?![A-Za-z0-9_])")
    expected = ["python" if word.search(c) else "bash" for c in commands]
    trace = _import(SUBMITTED, labels=parse_labels("python"))
    assert "python" in expected and [s.name for s in trace.path()] == expected


@pytest.mark.parametrize("path", TOOL_CALLING, ids=lambda p: p.name)
def test_no_command_output_or_path_reaches_the_trace(path):
    document = _load(path)
    text = render_trace(_import(path, labels=parse_labels("python,git")))
    commands = [json.loads(c["function"]["arguments"])["command"] for c in _calls(document)]
    assert not [c for c in commands if c in text]
    for message in document["messages"][2:]:
        extra = message.get("extra", {})
        for piece in (extra.get("raw_output") or "").splitlines():
            assert len(piece) < 12 or piece not in text
    assert "/testbed" not in text and "/mnt/" not in text and "diff --git" not in text
    held = set(_import(path).redaction.removed_fields)
    assert {"messages.content", "messages.tool_calls", "messages.extra"} <= held


def test_a_run_with_no_steps_is_an_empty_valid_run(run_cli, tmp_path):
    document = _load(NO_STEPS)
    assert [m["role"] for m in document["messages"]] == ["system", "user", "exit"]
    code, _, err = run_cli("import", "swe-agent", "--input", NO_STEPS, "--out", tmp_path / "o")
    assert code == 0, err
    trace = _import(NO_STEPS)
    assert trace.spans == [] and trace.run.final_status == "error"


def test_a_gemini_session_is_refused(run_cli, tmp_path):
    """A Gemini CLI session has a ``messages`` list too; it read as an empty run (exit 0)."""
    assert "role" not in _load(GEMINI_SESSION)["messages"][0]
    out = tmp_path / "o.json"
    code, _, err = run_cli("import", "swe-agent", "--input", GEMINI_SESSION, "--out", out)
    assert code == 2 and not out.exists()
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "not a SWE-agent trajectory" in err and GEMINI_SESSION.name in err
    assert "messages.0.role" in err


@pytest.mark.parametrize(
    ("document", "accepted"),
    [
        ({"messages": []}, False),
        ({"messages": [{"type": "user", "content": "x"}]}, False),
        ([{"role": "human", "content": "x"}, {"role": "ai", "content": "y"}], False),
        ({"messages": [], "trajectory_format": "mini-swe-agent-1.1"}, True),
        ({"messages": [], "info": {"exit_status": "Timeout"}}, True),
        ({"messages": [{"role": "user", "content": "x"}]}, True),
        (
            [{"role": "ai", "content": "x"}, {"role": "assistant", "content": "```bash\nls\n```"}],
            True,
        ),
    ],
)
def test_what_is_recognised_as_mini_swe_agent(run_cli, tmp_path, document, accepted):
    path = _write(tmp_path, document)
    code, _, err = run_cli("import", "swe-agent", "--input", path, "--out", tmp_path / "o.json")
    assert code == (0 if accepted else 2), err
    if not accepted:
        assert "not a SWE-agent trajectory" in err and len(err.strip().splitlines()) == 1


def test_json_lines_is_refused_as_no_trajectory(run_cli, tmp_path):
    lines = "\n".join(json.dumps(m) for m in _load(SUBMITTED)["messages"][:4])
    path = tmp_path / "some.jsonl"
    path.write_text(lines + "\n")
    code, _, err = run_cli("import", "swe-agent", "--input", path, "--out", tmp_path / "o.json")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "not a SWE-agent trajectory" in err and "JSON Lines" in err and "some.jsonl" in err
    broken = tmp_path / "broken.json"
    broken.write_text('{"messages": [\n')
    code, _, err = run_cli("import", "swe-agent", "--input", broken, "--out", tmp_path / "b.json")
    assert code == 2 and "invalid JSON" in err


def test_the_benchmark_instance_is_the_runs_scenario():
    """mini-swe-agent 2.x writes the SWE-bench ``instance_id`` it solved: that task is the run's
    scenario (as an OpenHands evaluation's), so a gate compares runs of one task with each
    other; ``--scenario-id`` does not override it, and says so."""
    for path in (SUBMITTED, SERVER_ERROR, NO_STEPS):
        instance = json.loads(path.read_text())["instance_id"]
        assert _import(path).run.scenario_id == instance
    options = ImportOptions(scenario_id="refunds")
    (trace,) = get_importer("swe-agent").import_file(SUBMITTED, options)
    assert trace.run.scenario_id == "django__django-11039"
    assert options.warnings == [
        f"{SUBMITTED.name}: an evaluation's instance id is the scenario of its run; "
        "--scenario-id does not override it"
    ]
    old = MINI / "miniswe__github_issue.traj.json"  # 1.x: no instance id, the option applies
    (trace,) = get_importer("swe-agent").import_file(old, ImportOptions(scenario_id="refunds"))
    assert trace.run.scenario_id == "refunds"


@pytest.mark.parametrize(
    ("text", "commands"),
    [
        ("Run:\n```bash\nls\n```\nthen\n```bash\npwd\n```", ["ls", "pwd"]),  # a format error
        ("Run:\n```bash\nls\n```\nlike this:\n```python\nprint(1)\n```", ["ls"]),
        ("Run:\n```bash\nls\n```\nnot\n```sh\npwd\n```", ["ls"]),  # its regex: one kind
        ("<mswea_bash_command>ls</mswea_bash_command>\n```bash\npwd\n```", ["ls"]),
        ("<mswea_bash_command>a</mswea_bash_command><mswea_bash_command>b", ["a"]),
        ("I think the fix is done.", []),  # a format error too (no block)
    ],
)
def test_text_based_commands_are_the_blocks_of_one_kind(text, commands):
    """mini-swe-agent's action regex finds the blocks of its one kind and runs the command only
    when it finds exactly one: an answer's commands are the blocks of the kind it opens first
    (``bash_command`` is the first of them)."""
    from abw.importers.swe_agent import bash_command, bash_commands

    assert bash_commands(text) == commands
    assert bash_command(text) == (commands[0] if commands else None)


def test_a_model_name_that_is_free_text_never_names_a_span(tmp_path: Path) -> None:
    """Span names are plain identifiers: a configured or recorded model "name" holding free
    text (here a sentence) is not copied into the trace; the spans fall back to ``model``."""
    real = MINI / "miniswe2__django__django-11039.traj.json"
    document = json.loads(real.read_text())
    secret = "summarise the customer's private ticket text"
    document["info"]["config"]["model"]["model_name"] = secret
    for message in document["messages"]:
        response = message.get("extra", {}).get("response")
        if isinstance(response, dict):
            response["model"] = secret
    path = tmp_path / "run.traj.json"
    path.write_text(json.dumps(document))
    (trace,) = get_importer("swe-agent").import_file(path, ImportOptions())
    assert {s.name for s in trace.spans if s.type == "llm"} == {"model"}
    assert secret not in render_trace(trace)


def test_two_runs_of_one_instance_are_two_runs_on_either_side(tmp_path, run_cli):
    """mini-swe-agent and SWE-agent write every run of a task as ``<instance>.traj.json``: the
    trace id was the file name, so a baseline run and a candidate run of one task had one id,
    and the gate warned that the candidate was the baseline compared with itself."""
    from tests.conftest import CORPUS

    source = CORPUS / "mini-swe-agent" / "miniswe2__django__django-11039.traj.json"
    document = json.loads(source.read_text())
    name = "django__django-11039.traj.json"
    for side, status in (("b", None), ("c", "LimitsExceeded")):
        if status is not None:
            document["info"]["exit_status"] = status
        (tmp_path / "raw" / side).mkdir(parents=True)
        (tmp_path / "raw" / side / name).write_text(json.dumps(document))
        code, _, err = run_cli(
            "import", "swe-agent", "--input", tmp_path / "raw" / side, "--out", tmp_path / side
        )
        assert code == 0, err
    (base,), (cand,) = (
        [json.loads(p.read_text()) for p in (tmp_path / side).glob("*.json")] for side in "bc"
    )
    assert base["run"]["trace_id"] != cand["run"]["trace_id"]
    assert base["run"]["trace_id"].startswith("django__django-11039-")
    spec = tmp_path / "spec.yaml"
    assert run_cli("spec", "init", "--baseline", tmp_path / "b", "--out", spec)[0] == 0
    report = tmp_path / "r.json"
    run_cli(
        "gate",
        "--baseline",
        tmp_path / "b",
        "--candidate",
        tmp_path / "c",
        "--spec",
        spec,
        "--out",
        report,
        "-q",
    )
    warnings = json.loads(report.read_text())["input_warnings"]
    assert "shared_runs" not in [w["kind"] for w in warnings]
