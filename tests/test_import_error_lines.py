"""Importer errors name the line of the value they refuse, and its field.

Each test takes a real export from the corpus, spoils one value, and writes it back laid out
with ``json.dumps(indent=2)``; the spoiled value is first written as a marker, so its line is
found in the text (and the marker then replaced by the refused value, on the same line).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

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


NO_ID = "a run has no id (and no dotted_order ending in one)"


def _idless(run: dict[str, Any]) -> dict[str, Any]:
    """``run`` with its id marked and no dotted_order to find one in."""
    run.pop("dotted_order", None)
    run["id"] = MARK
    return run


def _set(*path: str | int) -> Any:
    """A spoiler: the value at ``path`` becomes the marker (an index past a list's end appends)."""

    def spoil(document: Any) -> None:
        *parents, last = path
        for key in parents:
            document = document[key]
        if isinstance(document, list) and last == len(document):
            document.append(MARK)
        else:
            document[last] = MARK

    return spoil


def _no_id(post: int) -> Any:
    return lambda document: _idless(document["post"][post])


SCENARIO = ("--scenario-id", "s")
#: (importer, export, file name, spoil, value written, field, message, extra arguments)
CASES = {
    "swe step": (
        "swe-agent",
        SWE,
        "bad.traj",
        _set("trajectory", 2),
        5,
        "trajectory.2",
        "a step is not an object",
        SCENARIO,
    ),
    "swe history": (
        "swe-agent",
        SWE_HISTORY,
        "bad.traj",
        _set("history", 3),
        5,
        "history.3",
        "a message is not an object",
        SCENARIO,
    ),
    "behaviorlock observations": (
        "behaviorlock",
        BEHAVIORLOCK,
        "bad.trace.json",
        _set("scenarios", 0, "observations"),
        5,
        "scenarios.0.observations",
        "observations must be an object",
        (),
    ),
    "behaviorlock id": (
        "behaviorlock",
        BEHAVIORLOCK,
        "bad.trace.json",
        _set("scenarios", 0, "id"),
        7,
        "scenarios.0.id",
        "a scenario needs a string id",
        (),
    ),
    "behaviorlock scenario": (
        "behaviorlock",
        BEHAVIORLOCK,
        "bad.trace.json",
        _set("scenarios", 1),
        5,
        "scenarios.1",
        "a scenario needs a string id",
        (),
    ),
    "langsmith batch": (
        "langsmith",
        LANGSMITH,
        "bad.json",
        _no_id(2),
        7,
        "post.2.id",
        NO_ID,
        SCENARIO,
    ),
    "gemini type": (
        "gemini",
        GEMINI,
        "session-bad.json",
        _set("messages", 6, "type"),
        5,
        "messages.6.type",
        "a message's type is not a string",
        SCENARIO,
    ),
    "gemini toolCalls": (
        "gemini",
        GEMINI,
        "session-bad.json",
        _set("messages", 6, "toolCalls"),
        5,
        "messages.6.toolCalls",
        "expected a list of tool calls",
        SCENARIO,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_refused_value_is_named_by_its_own_line_and_field(run_cli, tmp_path, case):
    importer, source, name, spoil, value, field, message, extra = CASES[case]
    document = json.loads(source.read_text())
    spoil(document)
    bad = tmp_path / name
    line = _write(bad, document, value)
    err = _refused(run_cli, importer, bad, tmp_path, *extra)
    assert err == f"abw: error: {bad}:{line}: {field}: {message}"


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
