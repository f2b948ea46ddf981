"""LangSmith runs written by the real SDK (langsmith 0.15.1) for LangGraph agents on a loopback
model: the ingestion bodies it sent (``/runs/batch``, ``/runs/multipart`` plain and zstd) and
the same runs listed back with ``Client().list_runs`` (tests/corpus/langsmith-live, generated
by its ``generate/`` scripts). Every test runs ``abw import`` through the CLI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS
from tests.importkit import cli_import, cli_import_one

LIVE = CORPUS / "langsmith-live"
DUMPS = LIVE / "list_runs"

#: Each scenario's bodies folder, and its steps: (type, name, outcome, parent's step or None)
STEPS: dict[str, tuple[str, list[tuple[str, str, str, int | None]]]] = {
    "parallel": (
        "parallel-multipart",
        [
            ("llm", "gpt-4o-mini", "ok", None),
            ("tool", "lookup_order", "ok", None),
            ("tool", "check_stock", "ok", None),
            ("llm", "gpt-4o-mini", "ok", None),
        ],
    ),
    "tool_error": (
        "tool_error-multipart",
        [("llm", "gpt-4o-mini", "ok", None), ("tool", "charge_card", "error", None)],
    ),
    "tool_handled": (
        "tool_handled-batch",
        [
            ("llm", "gpt-4o-mini", "ok", None),
            ("tool", "reserve_stock", "error", None),
            ("tool", "charge_card", "error", None),
            ("llm", "gpt-4o-mini", "ok", None),
        ],
    ),
    "api_error": (
        "api_error-zstd",
        [
            ("llm", "gpt-4o-mini", "ok", None),
            ("tool", "lookup_order", "ok", None),
            ("llm", "gpt-4o-mini", "error", None),
        ],
    ),
    "subagent": (
        "subagent-multipart",
        [
            ("llm", "gpt-4o-mini", "ok", None),
            ("tool", "ask_billing", "ok", None),
            ("llm", "gpt-4o-mini", "ok", 1),
            ("tool", "lookup_order", "ok", 1),
            ("llm", "gpt-4o-mini", "ok", 1),
            ("llm", "gpt-4o-mini", "ok", None),
        ],
    ),
    "retry": (
        "retry-batch",
        [
            ("llm", "gpt-4o-mini", "error", None),
            ("llm", "gpt-4o-mini", "ok", None),
            ("tool", "lookup_order", "ok", None),
            ("llm", "gpt-4o-mini", "error", None),
            ("llm", "gpt-4o-mini", "ok", None),
        ],
    ),
    "stream": (
        "stream-multipart",
        [
            ("llm", "gpt-4o-mini", "ok", None),
            ("tool", "lookup_order", "ok", None),
            ("llm", "gpt-4o-mini", "ok", None),
        ],
    ),
}
FINAL = {"tool_error": "error", "api_error": "error"}


def _steps(trace: dict[str, Any]) -> list[tuple[str, str, str, int | None]]:
    ordinal = {s["span_id"]: s["ordinal"] for s in trace["spans"]}
    return [
        (s["type"], s["name"], s["outcome"], ordinal.get(s.get("parent_span_id")))
        for s in trace["spans"]
    ]


def _without_source(trace: dict[str, Any]) -> dict[str, Any]:
    """The trace less what names the file it came from (its name, hash and export time)."""
    spans = [{k: v for k, v in s.items() if k != "source_ref"} for s in trace["spans"]]
    return {**trace, "spans": spans, "source": None}


@pytest.mark.parametrize("case", sorted(STEPS))
def test_steps_and_end_as_the_sdk_recorded_them(run_cli, tmp_path: Path, case: str) -> None:
    """Each scenario's bodies folder gives one trace, step by step as the agent ran, and the
    runs listed back give the same trace; nothing of the content reaches it."""
    folder, steps = STEPS[case]
    (from_bodies,), _ = cli_import(run_cli, "langsmith", LIVE / folder, tmp_path / "b")
    dump = DUMPS / f"{case}.jsonl"
    from_dump = cli_import_one(run_cli, "langsmith", dump, tmp_path / "d.json", "-q")
    assert _steps(from_bodies) == steps
    assert from_bodies["run"]["final_status"] == FINAL.get(case, "success")
    assert _without_source(from_bodies) == _without_source(from_dump)
    for trace in (from_bodies, from_dump):
        written = str(trace)
        assert "CANARY" not in written and "/home/dev" not in written


def test_a_tool_error_handed_to_the_model_is_an_error(run_cli, tmp_path: Path) -> None:
    """A ToolException answered to the model (``handle_tool_error``) ends the tool run without
    an error; its answer is a ToolMessage with ``status: error`` — it failed, not ok."""
    source = LIVE / "tool_handled-batch" / "tool_handled-batch-1.json"
    trace = cli_import_one(run_cli, "langsmith", source, tmp_path / "t.json", "-q")
    (reserve,) = [s for s in trace["spans"] if s["name"] == "reserve_stock"]
    assert (reserve["outcome"], reserve["status"]) == ("error", "error")
    assert "error_type" not in reserve["attributes"]  # no exception class was recorded


def test_interrupt_pauses_the_run_and_resume_is_a_trace_of_its_own(run_cli, tmp_path: Path) -> None:
    """``interrupt()`` stops the graph for a person's answer (GraphInterrupt on the tool run,
    the root ends with no error): the call has no result yet and the run did not finish; the
    ``Command(resume=...)`` trace runs the call again and answers."""
    source = LIVE / "interrupt-zstd" / "interrupt-zstd-1.parts.json"
    (paused, resumed), _ = cli_import(run_cli, "langsmith", source, tmp_path / "i", "-q")
    assert _steps(paused) == [
        ("llm", "gpt-4o-mini", "ok", None),
        ("tool", "refund", "incomplete", None),
    ]
    assert paused["spans"][1]["attributes"]["error_type"] == "GraphInterrupt"
    assert paused["run"]["final_status"] == "unknown"
    assert _steps(resumed) == [("tool", "refund", "ok", None), ("llm", "gpt-4o-mini", "ok", None)]
    assert resumed["run"]["final_status"] == "success"


def test_a_sub_agents_steps_are_children_of_its_tool_call(run_cli, tmp_path: Path) -> None:
    """The billing agent run inside the ``ask_billing`` tool: its model calls and tool calls
    belong to that call (through the chain runs between them), not to the top level."""
    source = LIVE / "subagent-multipart" / "subagent-multipart-1.parts.json"
    trace = cli_import_one(run_cli, "langsmith", source, tmp_path / "s.json", "-q")
    ask = trace["spans"][1]
    assert ask["name"] == "ask_billing"
    assert [s.get("parent_span_id") for s in trace["spans"][2:5]] == [ask["span_id"]] * 3


def test_a_run_the_sdk_sent_in_several_bodies_is_one_trace(run_cli, tmp_path: Path) -> None:
    """The SDK sends a run's post when it starts and its patch when it ends, in whichever
    body is flushed then: the folder's three bodies are one trace (was three with one trace
    id, one judged success by a child run standing in for the missing root)."""
    traces, err = cli_import(run_cli, "langsmith", LIVE / "retry-batch", tmp_path / "r")
    assert err == "abw: wrote 1 trace to " + str(tmp_path / "r") + "\n"
    (trace,) = traces
    assert len(trace["spans"]) == 5 and trace["run"]["final_status"] == "success"
    first = cli_import_one(
        run_cli, "langsmith", LIVE / "retry-batch" / "retry-batch-1.json", tmp_path / "1.json"
    )
    assert _without_source(first) == _without_source(trace)  # its later bodies read with it


def test_a_later_body_on_its_own_says_so_and_claims_no_end(run_cli, tmp_path: Path) -> None:
    """The middle body alone holds neither the root's post nor its patch: imported on its own
    with a warning, and its end is unknown (no child run stands for the root)."""
    source = LIVE / "retry-batch" / "retry-batch-2.json"
    (trace,), err = cli_import(run_cli, "langsmith", source, tmp_path / "m.json")
    assert "retry-batch-2.json: its runs continue traces that retry-batch-1.json begins" in err
    assert trace["run"]["final_status"] == "unknown"
    assert [s["name"] for s in trace["spans"]] == [
        "gpt-4o-mini",
        "lookup_order",
        "gpt-4o-mini",
    ]


def test_runs_listed_twice_in_a_folder_are_one_trace(run_cli, tmp_path: Path) -> None:
    """The same run dumped twice (``run.dict()`` JSON and ``model_dump_json`` lines) in one
    folder: the later file holds no trace of its own and is read with the first."""
    folder = tmp_path / "dumps"
    folder.mkdir()
    for name in ("parallel.dicts.json", "parallel.jsonl"):
        (folder / name).write_bytes((DUMPS / name).read_bytes())
    traces, _ = cli_import(run_cli, "langsmith", folder, tmp_path / "o", "-q")
    assert len(traces) == 1


def test_create_agent_calls_a_person_held_back_are_steps(run_cli, tmp_path: Path) -> None:
    """langchain's ``create_agent`` with HumanInTheLoopMiddleware (per call): the gated call
    never reaches a tool run — its ``HumanInTheLoopMiddleware.wrap_tool_call`` run is the call,
    paused for the person (GraphInterrupt) in the first trace and rejected by them (the
    ToolMessage of a ``reject`` decision) in the resumed one; neither left a step."""
    source = LIVE / "hitl-multipart" / "hitl-multipart-1.parts.json"
    (paused, resumed), _ = cli_import(run_cli, "langsmith", source, tmp_path / "h", "-q")
    assert _steps(paused) == [
        ("llm", "gpt-4o-mini", "ok", None),
        ("tool", "lookup_order", "ok", None),
        ("tool", "refund_now", "incomplete", None),
    ]
    assert paused["run"]["final_status"] == "unknown"
    assert _steps(resumed) == [
        ("tool", "refund_now", "rejected", None),
        ("llm", "gpt-4o-mini", "ok", None),
    ]
    assert resumed["spans"][0]["status"] == "cancelled"
    assert resumed["run"]["final_status"] == "success"
    dump = cli_import(run_cli, "langsmith", DUMPS / "hitl.jsonl", tmp_path / "d", "-q")[0]
    assert list(map(_without_source, dump)) == [_without_source(paused), _without_source(resumed)]
    assert "CANARY" not in str(dump)
