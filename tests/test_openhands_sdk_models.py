"""OpenHands SDK 1.58.2 conversations name their model calls by the model that made them.

The events of a V1 conversation name no model; its ``base_state.json`` does: the agent's
``agent.llm.model`` and, per response id, ``stats.usage_to_metrics.<usage_id>.token_usages``.
The recordings are the SDK's own (tests/corpus/python-agents-live/ and
python-agents-live-more/, generate/gen_openhands_more.py), imported as they are or edited here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from tests.importkit import cli_written

FINISH = CORPUS / "python-agents-live" / "openhands-sdk-1.58.2__terminal-finish"
MORE = CORPUS / "python-agents-live-more"
PROFILE = MORE / "openhands-sdk-1.58.2__think-switch-profile"
SAME_USAGE = MORE / "openhands-sdk-1.58.2__think-switch-llm-same-usage"
CONDENSER = MORE / "openhands-sdk-1.58.2__condenser"
MODEL, SWITCHED = "openai/gpt-4o-mini", "openai/gpt-4.1"
#: Free text of the recordings no trace may hold.
RAW = ("cart.py", "/home/dev", "Summary:", "total()", "sk-stub", "127.0.0.1")


@pytest.fixture
def imported(run_cli, tmp_path):
    """A conversation imported with the real CLI: its trace."""

    def run(folder: Path) -> dict:
        out = tmp_path / "out"
        shutil.rmtree(out, ignore_errors=True)
        (trace_file,), _ = cli_written(run_cli, "openhands", folder, out)
        text = trace_file.read_text()
        assert not [raw for raw in RAW if raw in text]
        return json.loads(text)

    return run


def _llm_names(trace: dict) -> list[str]:
    return [s["name"] for s in trace["spans"] if s["type"] == "llm"]


def _edited(folder: Path, tmp_path: Path, change) -> Path:
    """A copy of ``folder`` whose ``base_state.json`` ``change`` edited."""
    copy = tmp_path / "conv"
    shutil.copytree(folder, copy)
    state_file = copy / "base_state.json"
    state = json.loads(state_file.read_text())
    change(state)
    state_file.write_text(json.dumps(state))
    return copy


def test_a_conversation_names_its_model_calls_by_its_agents_model(imported):
    assert _llm_names(imported(FINISH)) == [MODEL] * 5


def test_a_model_change_between_runs_is_seen(imported, tmp_path):
    """A candidate run on another model differs from its baseline in its llm span names."""

    def other_model(state: dict) -> None:
        state["agent"]["llm"]["model"] = "anthropic/claude-sonnet-4-5"

    assert (
        _llm_names(imported(_edited(FINISH, tmp_path, other_model)))
        == ["anthropic/claude-sonnet-4-5"] * 5
    )


def test_a_model_switched_to_another_usage_id_names_each_response(imported):
    """``switch_llm`` to a profile's LLM (its own usage id): the responses before it are the
    first model's (its usage records say so), those after it the agent's new model; the
    ``think`` call is a tool call like any."""
    trace = imported(PROFILE)
    assert _llm_names(trace) == [MODEL] * 3 + [SWITCHED] * 2
    tools = [(s["name"], s["outcome"]) for s in trace["spans"] if s["type"] == "tool"]
    assert tools == [("think", "ok"), ("terminal", "ok"), ("terminal", "ok"), ("finish", "ok")]
    assert trace["run"]["final_status"] == "success"


def test_a_model_switched_under_the_same_usage_id_is_named_by_the_agents_model(imported):
    """Under the agent's own usage id the SDK keeps the first model's name on every usage
    record: they are not read, the agent's model names every call (it cannot tell which)."""
    assert _llm_names(imported(SAME_USAGE)) == [SWITCHED] * 5


def test_a_condensation_is_a_compaction_and_its_model_call_no_llm_span(imported):
    trace = imported(CONDENSER)
    steps = [(s["type"], s["name"]) for s in trace["spans"]]
    assert steps.count(("llm", MODEL)) == 5
    (compaction,) = [s for s in trace["spans"] if s["type"] == "memory"]
    assert compaction["attributes"] == {"forgotten_events": 7, "trigger": "auto"}
    assert steps.index(("memory", "compaction")) == 6


def test_a_model_name_that_is_no_identifier_or_a_placeholder_names_no_span(imported, tmp_path):
    def odd(state: dict) -> None:
        state["agent"]["llm"]["model"] = "acp-managed"
        for usage in state["stats"]["usage_to_metrics"]["agent"]["token_usages"]:
            usage["model"] = "my model /home/dev/secret"

    assert _llm_names(imported(_edited(PROFILE, tmp_path, odd))) == ["llm"] * 5


def test_usage_records_that_are_odd_are_passed_by(imported, tmp_path):
    """Usage records that are no objects, or a response id that is no string, name nothing."""

    def odd(state: dict) -> None:
        metrics = state["stats"]["usage_to_metrics"]["agent"]  # (the model switched from)
        metrics["token_usages"] = [None, 3, {"response_id": 7, "model": "x"}, ["resp_1"]]

    assert _llm_names(imported(_edited(PROFILE, tmp_path, odd))) == [SWITCHED] * 5
