"""Codex threads the user forked, and Gemini CLI calls cancelled while they ran (0.5x on).

Both corpora are GENERATED (no real file of either shape was found in a public repository):
``codex-forks/`` from openai/codex's ``codex-rs/core`` (``InitialHistory::Forked``: the fork's
rollout starts with a copy of the parent's records, the parent's ``session_meta`` first, right
after its own ``session_meta`` naming ``forked_from_id``), ``gemini-cli-cancels/`` from
google-gemini/gemini-cli's ``packages/core/src/scheduler/tool-executor.ts``
(``createCancelledResult``) and ``scheduler/state-manager.ts`` (tests/corpus/PROVENANCE.md,
sections codex-forks and gemini-cli-cancels)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from abw.importers import get_importer
from abw.importers.base import ImportOptions
from tests.conftest import CORPUS
from tests.importkit import import_trace

FORKS = CORPUS / "codex-forks"
PARENT = FORKS / "gen__rollout-2026-05-20T11-00-00-019e2a10-4c3b-7d21-9a8e-1f2e3d4c5b6a.jsonl"
FORK = FORKS / "gen__rollout-2026-05-20T11-30-00-019e2a31-7e5d-7a40-8b2c-3d4e5f6a7b8c.jsonl"
CANCELS = CORPUS / "gemini-cli-cancels" / "gen__session-2026-08-07T09-00-9c2e4b17.jsonl"


def _outcomes() -> dict[str, str]:
    trace = import_trace("gemini", CANCELS)
    return {s.span_id: s.outcome for s in trace.spans if s.type != "llm"}


def test_a_call_cancelled_while_it_ran_is_interrupted_a_declined_one_rejected():
    """``createCancelledResult`` (a call aborted while executing) writes ``[Operation
    Cancelled] User cancelled tool execution.`` or ``… Operation cancelled.`` (no ``Reason:``);
    a declined or queued call is ``[Operation Cancelled] Reason: …``. Every one read rejected."""
    assert _outcomes() == {
        "run_shell_command__1786093205000_0": "interrupted",
        "web_fetch__1786093205000_1": "interrupted",
        "write_file__1786093205000_2": "rejected",
        "read_file__1786093205000_3": "rejected",
    }


def test_the_cancelled_calls_leak_nothing_and_import_the_same_twice():
    (one,) = get_importer("gemini").import_file(CANCELS, ImportOptions())
    (two,) = get_importer("gemini").import_file(CANCELS, ImportOptions())
    text = json.dumps(one.model_dump(mode="json"), sort_keys=True)
    assert "LEAKCHECK" not in text
    assert text == json.dumps(two.model_dump(mode="json"), sort_keys=True)


def _codex(path: Path) -> tuple[object, list[str]]:
    options = ImportOptions()
    return import_trace("codex", path, options), options.warnings


def test_a_user_fork_leaves_out_the_parent_history_it_was_forked_with():
    """``codex fork`` / ``/fork`` writes the parent's records (its first turn here, call
    ``call_parent1``) into the fork's rollout before the fork's own work: read as the fork's
    own spans, a gate saw the parent's work twice, in both runs."""
    fork, warnings = _codex(FORK)
    parent, _ = _codex(PARENT)
    assert [s.span_id for s in fork.spans if s.type == "tool"] == ["call_fork1"]
    assert [s.type for s in fork.spans] == ["llm", "tool", "llm"]
    assert all(s.source_ref.line > 12 for s in fork.spans)  # the copy is lines 2-12
    assert fork.run.trace_id == "019e2a31-7e5d-7a40-8b2c-3d4e5f6a7b8c"
    assert fork.run.final_status == "success"
    assert [s.span_id for s in parent.spans if s.type == "tool"] == ["call_parent1", "call_parent2"]
    assert warnings == []


def test_a_fork_whose_parent_rollout_is_absent_is_kept_whole_with_a_warning(tmp_path):
    """Nothing in the fork's file says where the copy ends (no ordinal, every copied line
    stamped when the fork was made): without the parent's rollout it cannot be told apart."""
    alone = tmp_path / FORK.name
    shutil.copy(FORK, alone)
    fork, warnings = _codex(alone)
    assert [s.span_id for s in fork.spans if s.type == "tool"] == ["call_parent1", "call_fork1"]
    assert len(warnings) == 1 and "could not be told from its own work" in warnings[0]


def test_a_fork_that_does_not_match_its_parent_is_kept_whole_with_a_warning(tmp_path):
    """A parent's rollout that the copy does not start like (here: its first call's output
    rewritten) leaves a copied call after the match: nothing is left out, and it says so."""
    shutil.copy(FORK, tmp_path / FORK.name)
    lines = PARENT.read_text().splitlines(keepends=True)
    lines = [line.replace("Chunk ID: a1b2c3", "Chunk ID: ffffff") for line in lines]
    (tmp_path / PARENT.name).write_text("".join(lines))
    fork, warnings = _codex(tmp_path / FORK.name)
    assert [s.span_id for s in fork.spans if s.type == "tool"] == ["call_parent1", "call_fork1"]
    assert len(warnings) == 1 and "does not match it" in warnings[0]


def test_the_fork_folder_leaks_nothing_and_imports_the_same_twice():
    for path in (PARENT, FORK):
        one, _ = _codex(path)
        two, _ = _codex(path)
        text = json.dumps(one.model_dump(mode="json"), sort_keys=True)
        assert "LEAKCHECK" not in text
        assert text == json.dumps(two.model_dump(mode="json"), sort_keys=True)
