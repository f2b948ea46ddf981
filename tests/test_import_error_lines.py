"""Importer errors name the line of the value they refuse, and its field.

Each test takes a real export from the corpus, spoils one value, and writes it back laid out
with ``json.dumps(indent=2)``; the spoiled value is first written as a marker, so its line is
found in the text (and the marker then replaced by the refused value, on the same line).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import CORPUS

MARK = "@@abw-refused-value@@"

SWE = CORPUS / "swe-agent" / "sweagent__pydicom__pydicom-1458.traj"
SWE_HISTORY = (
    CORPUS / "swe-agent" / "demonstrations" / "sweagent__demo_function_calling_simple.traj"
)
BEHAVIORLOCK = CORPUS / "behaviorlock" / "behaviorlock__readme_candidate.trace.json"
LANGSMITH = CORPUS / "langsmith" / "gen__langsmith__runs-batch_payload.json"
GEMINI = CORPUS / "gemini-cli" / "codemie__session-2026-01-16T11-01-file-ops-37b7abef.json"


def _marked(text: str, value: Any) -> tuple[str, int]:
    """``text`` with the marker replaced by ``value`` (JSON), and the marker's line."""
    marker = json.dumps(MARK)
    assert text.count(marker) == 1
    line = text[: text.index(marker)].count("\n") + 1
    return text.replace(marker, json.dumps(value)), line


def _write(path: Path, document: Any, value: Any) -> int:
    """Write ``document`` with its marker as ``value``; the line the marker was on."""
    text, line = _marked(json.dumps(document, indent=2), value)
    path.write_text(text + "\n")
    return line


def _refused(run_cli, importer: str, path: Path, tmp_path: Path, *extra: str) -> str:
    code, _, err = run_cli("import", importer, "--input", path, "--out", tmp_path / "out", *extra)
    assert code == 2, err
    return err.strip()


# ----------------------------------------------------------------- SWE-agent


def test_swe_agent_step_not_an_object_names_its_line(run_cli, tmp_path):
    document = json.loads(SWE.read_text())
    document["trajectory"][2] = MARK
    bad = tmp_path / "bad.traj"
    line = _write(bad, document, 5)
    err = _refused(run_cli, "swe-agent", bad, tmp_path, "--scenario-id", "s")
    assert err == f"abw: error: {bad}:{line}: trajectory.2: a step is not an object"


def test_swe_agent_history_message_not_an_object_names_its_line(run_cli, tmp_path):
    document = json.loads(SWE_HISTORY.read_text())
    assert "trajectory" not in document
    document["history"][3] = MARK
    bad = tmp_path / "bad.traj"
    line = _write(bad, document, 5)
    err = _refused(run_cli, "swe-agent", bad, tmp_path, "--scenario-id", "s")
    assert err == f"abw: error: {bad}:{line}: history.3: a message is not an object"


# ----------------------------------------------------------------- behaviorlock


def test_behaviorlock_observations_not_an_object_names_their_line(run_cli, tmp_path):
    document = json.loads(BEHAVIORLOCK.read_text())
    document["scenarios"][0]["observations"] = MARK
    bad = tmp_path / "bad.trace.json"
    line = _write(bad, document, 5)
    err = _refused(run_cli, "behaviorlock", bad, tmp_path)
    assert err == (
        f"abw: error: {bad}:{line}: scenarios.0.observations: observations must be an object"
    )


def test_behaviorlock_scenario_id_not_a_string_names_its_line(run_cli, tmp_path):
    document = json.loads(BEHAVIORLOCK.read_text())
    document["scenarios"][0]["id"] = MARK
    bad = tmp_path / "bad.trace.json"
    line = _write(bad, document, 7)
    err = _refused(run_cli, "behaviorlock", bad, tmp_path)
    assert err == f"abw: error: {bad}:{line}: scenarios.0.id: a scenario needs a string id"


def test_behaviorlock_scenario_not_an_object_names_its_line(run_cli, tmp_path):
    document = json.loads(BEHAVIORLOCK.read_text())
    document["scenarios"].append(MARK)
    bad = tmp_path / "bad.trace.json"
    line = _write(bad, document, 5)
    err = _refused(run_cli, "behaviorlock", bad, tmp_path)
    assert err == f"abw: error: {bad}:{line}: scenarios.1: a scenario needs a string id"


# ----------------------------------------------------------------- LangSmith

NO_ID = "a run has no id (and no dotted_order ending in one)"


def _idless(run: dict[str, Any]) -> dict[str, Any]:
    """``run`` with its id marked and no dotted_order to find one in."""
    run.pop("dotted_order", None)
    run["id"] = MARK
    return run


def test_langsmith_batch_run_without_id_names_its_place(run_cli, tmp_path):
    document = json.loads(LANGSMITH.read_text())
    _idless(document["post"][2])
    bad = tmp_path / "bad.json"
    line = _write(bad, document, 7)
    err = _refused(run_cli, "langsmith", bad, tmp_path, "--scenario-id", "s")
    assert err == f"abw: error: {bad}:{line}: post.2.id: {NO_ID}"


def test_langsmith_batch_run_with_no_id_member_names_the_run(run_cli, tmp_path):
    document = json.loads(LANGSMITH.read_text())
    run = document["post"][3]
    run.pop("dotted_order", None)
    run.pop("id")
    first = next(iter(run))
    original, run[first] = run[first], MARK
    bad = tmp_path / "bad.json"
    line = _write(bad, document, original) - 1  # the run's "{" is the line above its first key
    err = _refused(run_cli, "langsmith", bad, tmp_path, "--scenario-id", "s")
    assert err == f"abw: error: {bad}:{line}: post.3.id: {NO_ID}"


def test_langsmith_json_lines_run_without_id_names_its_line(run_cli, tmp_path):
    runs = json.loads(LANGSMITH.read_text())["post"]
    _idless(runs[2])
    text, line = _marked("\n".join(json.dumps(run) for run in runs) + "\n", 7)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text)
    assert line == 3
    err = _refused(run_cli, "langsmith", bad, tmp_path, "--scenario-id", "s")
    assert err == f"abw: error: {bad}:3: id: {NO_ID}"


# ----------------------------------------------------------------- Gemini CLI


def test_gemini_message_type_not_a_string_names_its_own_line(run_cli, tmp_path):
    document = json.loads(GEMINI.read_text())
    document["messages"][6]["type"] = MARK
    bad = tmp_path / "session-bad.json"
    line = _write(bad, document, 5)
    err = _refused(run_cli, "gemini", bad, tmp_path, "--scenario-id", "s")
    assert err == f"abw: error: {bad}:{line}: messages.6.type: a message's type is not a string"


def test_gemini_tool_calls_not_a_list_name_their_own_line(run_cli, tmp_path):
    document = json.loads(GEMINI.read_text())
    assert "toolCalls" in document["messages"][6]
    document["messages"][6]["toolCalls"] = MARK
    bad = tmp_path / "session-bad.json"
    line = _write(bad, document, 5)
    err = _refused(run_cli, "gemini", bad, tmp_path, "--scenario-id", "s")
    assert err == f"abw: error: {bad}:{line}: messages.6.toolCalls: expected a list of tool calls"
