"""Real Codex CLI and Gemini CLI files of newer versions than the rest of the corpus, imported
and checked against what the raw file itself says (tests/corpus/PROVENANCE.md names them)."""

from __future__ import annotations

import json
from pathlib import Path

from abw.importers import get_importer
from abw.importers.base import ImportOptions
from abw.importers.common import parse_argument_fields
from tests.conftest import CORPUS

#: Codex 0.140.0 (codex-tui), one session as saved mid-turn by the tool that committed it: three
#: ``tool_search_call``s, two compactions, a test run that failed on a test's own timeout.
CODEX = CORPUS / "codex"
CODEX_0140 = (
    CODEX / "agentv__rollout-2026-06-18T07-23-13-019ed99c-d00d-7613-b2e7-d2f512f78afd.jsonl"
)


def _import(name: str, path: Path, **kwargs):
    (trace,) = get_importer(name).import_file(path, ImportOptions(**kwargs))
    return trace


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_codex_tool_search_is_a_retriever_call_between_two_model_requests():
    """A ``tool_search_call`` and its ``tool_search_output`` were skipped: the search was no span,
    and the model requests before and after it were read as one llm span."""
    trace = _import("codex", CODEX_0140)
    searches = [
        (s.type, s.outcome, s.source_ref.line) for s in trace.path() if s.name == "tool_search"
    ]
    assert searches == [("retriever", "ok", 15), ("retriever", "ok", 19), ("retriever", "ok", 704)]
    # Codex writes one token_count event with usage after each model request; a compaction's
    # request (the ``compacted`` record) is a memory span, not an llm span.
    records = _records(CODEX_0140)
    requests = sum(
        1
        for r in records
        if r["type"] == "event_msg"
        and r["payload"].get("type") == "token_count"
        and r["payload"].get("info")
    )
    compactions = sum(1 for r in records if r["type"] == "compacted")
    assert (requests, compactions) == (219, 2)
    assert len([s for s in trace.spans if s.type == "llm"]) == requests - compactions
    removed = set(trace.redaction.removed_fields)
    assert {"tool_search_call.arguments", "tool_search_output.tools"} <= removed
    assert "turn_context.workspace_roots" in removed  # (0.140 lists the workspace's paths)


def test_codex_tool_search_arguments_are_argument_fields():
    """``--argument-fields tool_search:limit`` reads the search's ``arguments`` object."""
    options = {"argument_fields": parse_argument_fields("tool_search:limit")}
    trace = _import("codex", CODEX_0140, **options)
    limits = [s.attributes.get("arguments") for s in trace.spans if s.name == "tool_search"]
    assert limits == [{"limit": 8}, {"limit": 20}, {"limit": 8}]


def test_codex_a_command_whose_own_output_says_timed_out_failed_it_did_not_time_out():
    """``bun test`` exited 1 after 19 s, its output reporting "this test timed out after 5000ms":
    the command failed (error), Codex did not stop it (timeout); "timed out" anywhere in the
    first 400 characters of the output made it a timeout."""
    trace = _import("codex", CODEX_0140)
    (span,) = [s for s in trace.path() if s.source_ref.line == 528]
    (output,) = [
        r["payload"]["output"]
        for r in _records(CODEX_0140)
        if r["payload"].get("call_id") == span.span_id and r["payload"].get("output")
    ]
    assert "Process exited with code 1" in output and "this test timed out" in output[:400]
    assert (span.name, span.outcome, span.attributes["exit_code"]) == ("exec_command", "error", 1)
