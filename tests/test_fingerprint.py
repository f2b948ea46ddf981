"""Behavior fingerprints: equal across two imports of the same real run, different when one
tool moves, and exactly the documented inclusion and exclusion lists."""

from __future__ import annotations

import json

import pytest

from abw.fingerprint import behavior_document, fingerprint
from abw.traceio import load_trace, write_trace
from tests.conftest import CORPUS
from tests.rules_kit import span, trace

SESSION = CORPUS / "claude-code" / "agentcmd__full-session-four.jsonl"


@pytest.fixture
def two_imports(tmp_path, run_cli):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    code, _, _ = run_cli("import", "claude", "--input", SESSION, "--out", first)
    assert code == 0
    code, _, _ = run_cli(
        "import",
        "claude",
        "--input",
        SESSION,
        "--out",
        second,
        "--scenario-id",
        "other",
        "--environment",
        "ci",
    )
    assert code == 0
    return first, second


def test_two_imports_of_the_same_run_have_one_fingerprint(two_imports, run_cli):
    first, second = two_imports
    assert first.read_bytes() != second.read_bytes()  # export time and labels differ
    code, out, _ = run_cli("fingerprint", first, second)
    assert code == 0
    (hash_a, file_a), (hash_b, file_b) = (line.split("  ") for line in out.splitlines())
    assert hash_a == hash_b and len(hash_a) == 64
    assert (file_a, file_b) == (str(first), str(second))
    assert fingerprint(load_trace(first).trace, with_content=True) == fingerprint(
        load_trace(second).trace, with_content=True
    )


def test_moving_one_tool_changes_the_fingerprint(two_imports, tmp_path):
    trace_model = load_trace(two_imports[0]).trace
    spans = sorted(trace_model.spans, key=lambda s: s.ordinal)
    tools = [i for i, s in enumerate(spans) if s.type != "llm"]
    # move the first tool call to just after the second one (a different tool)
    first, second = tools[0], next(i for i in tools if spans[i].name != spans[tools[0]].name)
    moved = spans[:first] + spans[first + 1 : second + 1] + [spans[first]] + spans[second + 1 :]
    renumbered = [s.model_copy(update={"ordinal": n}) for n, s in enumerate(moved)]
    other = trace_model.model_copy(update={"spans": renumbered})
    write_trace(other, tmp_path / "moved.json")
    assert sorted(s.name for s in other.spans) == sorted(s.name for s in trace_model.spans)
    assert fingerprint(load_trace(tmp_path / "moved.json").trace) != fingerprint(trace_model)


BASE = trace("lookup", span("refund_commit", "error"), "notify", output={"decision": "ok"})


def _changed(**updates):
    """A copy of BASE with one span (index 1) or the run updated."""
    run_updates = updates.pop("run", {})
    spans = list(BASE.spans)
    spans[1] = spans[1].model_copy(update=updates)
    return BASE.model_copy(update={"spans": spans, "run": BASE.run.model_copy(update=run_updates)})


@pytest.mark.parametrize(
    "updates",
    [
        {"span_id": "zz"},
        {"ordinal": 1},  # unchanged position
        {"started_at": "2030-01-01T00:00:00Z", "duration_ms": 12.5},
        {"input_hash": "f" * 64, "output_hash": "e" * 64},
        {"attributes": {"exit_code": 3, "duration_source": "timestamps"}},
        {"source_ref": {"file": "x.jsonl", "line": 9}},
        {"run": {"trace_id": "other", "scenario_id": "s2", "environment": "ci"}},
        {"run": {"final_output_hash": "d" * 64}},
    ],
)
def test_excluded_fields_do_not_change_it(updates):
    assert fingerprint(_changed(**updates)) == fingerprint(BASE)


def test_ordinal_numbers_do_not_count_only_their_order():
    shifted = BASE.model_copy(
        update={"spans": [s.model_copy(update={"ordinal": 10 + 2 * s.ordinal}) for s in BASE.spans]}
    )
    assert fingerprint(shifted) == fingerprint(BASE)
    assert fingerprint(_changed(ordinal=7)) != fingerprint(BASE)  # now last


@pytest.mark.parametrize(
    "updates",
    [
        {"name": "refund_issue"},
        {"status": "success"},
        {"type": "guardrail"},
        {"outcome": "denied"},
        {"attributes": {"arguments": {"amount": 40}}},
        {"parent_span_id": "s0"},
        {"run": {"final_status": "error"}},
        {"run": {"canonical_output": {"decision": "no"}}},
    ],
)
def test_included_fields_change_it(updates):
    assert fingerprint(_changed(**updates)) != fingerprint(BASE)


def test_content_hashes_count_only_when_asked():
    other = _changed(input_hash="f" * 64)
    assert fingerprint(other, with_content=True) != fingerprint(BASE, with_content=True)
    assert fingerprint(BASE, with_content=True) != fingerprint(BASE)
    assert behavior_document(BASE)["spans"][1] == {
        "type": "tool",
        "name": "refund_commit",
        "status": "error",
    }


def test_cli_json_and_bad_input(tmp_path, run_cli):
    path = tmp_path / "t.json"
    write_trace(BASE, path)
    code, out, _ = run_cli("fingerprint", "--format", "json", path)
    assert code == 0
    assert json.loads(out) == [
        {"file": str(path), "trace_id": "t1", "fingerprint": fingerprint(BASE)}
    ]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run_cli("fingerprint", bad)
    assert code == 2 and str(bad) in err and "Traceback" not in err


def test_cli_expands_folders(two_imports, run_cli):
    folder = two_imports[0].parent
    code, out, _ = run_cli("fingerprint", folder)
    assert code == 0
    lines = out.splitlines()
    assert [line.split("  ")[1] for line in lines] == [
        str(folder / "a.json"),
        str(folder / "b.json"),
    ]
    assert len({line.split("  ")[0] for line in lines}) == 1
