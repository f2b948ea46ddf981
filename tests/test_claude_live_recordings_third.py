"""``abw import claude`` on a third set of transcripts the real Claude Code 2.1.332 wrote
against a loopback Messages API (tests/corpus/claude-code-live-third/generate/): a Bash output
saved to ``tool-results/``, background shells with TaskStop and Monitor, failing tools, an
automatic compaction, a rewind and a ``/clear``. ``shop`` is the CLI's project folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from abw.hashing import content_hash
from abw.importers.common import final_output_hash
from tests.conftest import CORPUS
from tests.test_realfiles_claude_more import _trace

SHOP = CORPUS / "claude-code-live-third" / "shop"
#: ``-p``: ``seq 1 30000`` (164.9 KB: saved to ``<session>/tool-results/b5p43arq4.txt``, the
#: line holds a wrapper naming it and a 2 KB preview), then a Read of a 56 KB file (inline).
BIG = SHOP / "cf5ede48-0411-424b-940a-bd035cf9682b.jsonl"
SAVED = SHOP / BIG.stem / "tool-results" / "b5p43arq4.txt"
#: ``-p``: an Agent (launched async) whose Bash output (164.9 KB) is saved to the session's
#: ``tool-results/``; the subagent's transcript is under ``<session>/subagents/``.
AGENT_BIG = SHOP / "7478d0c7-fd3a-4466-82ca-0888a5b069ef.jsonl"
#: ``-p``: two background shells, TaskOutput (not available), TaskStop of one (killed) and of
#: an unknown id, Monitor (its events and end arrive as queued notifications).
BACKGROUND = SHOP / "0d6d2e57-ffe1-493f-bb97-636dc7423936.jsonl"
#: ``-p``: WebFetch/WebSearch/Write outside the project (not granted), NotebookEdit before a
#: Read, an image Read, Glob/Grep (not available), an Edit whose old_string is not found.
FAILS = SHOP / "646b6e0f-9ca8-4c1e-9b8a-211ffc1b099a.jsonl"
#: ``-p`` with ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=5``: two Bash calls, then the context is
#: compacted automatically mid-turn and the (tag-less) continuation answers.
COMPACT = SHOP / "12af2205-80f7-482e-9b6d-c3695834ea83.jsonl"
#: Interactive: a Bash call and answer, Esc Esc, rewind to before the prompt (Restore
#: conversation), a new prompt answered after another Bash call.
#: ``-p``: ``seq 1 5000`` and ``seq 1 6000`` (inline), ``seq 1 8000`` (38 KB: saved), then
#: ``seq 1 30000; exit 3`` (a failure: inline, cut).
SIZES = SHOP / "9d360090-abfa-4247-8c27-488a44ab6b40.jsonl"
#: ``-p``: a Monitor whose command exits 4 (its task ends ``failed``) and one that expires with
#: no event; a Bash call while they run.
MONITOR = SHOP / "0c57d844-833d-475f-9d29-0530cc551416.jsonl"
#: ``-p``: WebFetch with no network (the domain check fails), WebSearch (the stub answers).
WEB = SHOP / "d543c69a-2e34-4608-b1aa-023a58c5d2c8.jsonl"
REWIND = SHOP / "a83e49bc-c147-4ced-9957-6efc03de01f5.jsonl"


def _tools(path: Path) -> list[tuple[str, int, str]]:
    return [(s.name, s.source_ref.line, s.outcome) for s in _trace(path).spans if s.type != "llm"]


def _bash_output(path: Path) -> tuple[str | None, str | None]:
    (bash,) = [s for s in _trace(path).spans if s.name == "Bash"]
    return bash.output_hash, bash.attributes.get("output_stored")


def test_a_saved_large_output_hashes_as_the_output_itself():
    """The line's ``<persisted-output>`` wrapper names a per-session path with a random file
    name: its hash differed for the same output in every session. With the saved file beside
    the transcript the output hash is that output's."""
    assert _bash_output(BIG) == (content_hash(SAVED.read_text()), "tool-results")


def test_the_same_large_output_hashes_alike_in_another_session(tmp_path: Path):
    """The same recording under another session id and saved-file name (as a second run of the
    same command writes it): the same output hash, with or without the saved file."""
    other = "0f0f0f0f-1111-4222-8333-444444444444"
    text = BIG.read_text().replace(BIG.stem, other).replace("b5p43arq4", "bq3lngq3h")
    copy = tmp_path / f"{other}.jsonl"
    copy.write_text(text)
    alone = tmp_path / "a" / "b" / "alone" / BIG.name
    alone.parent.mkdir(parents=True)
    shutil.copy(BIG, alone)
    alone_other = alone.with_name(copy.name)
    shutil.copy(copy, alone_other)
    saved = tmp_path / other / "tool-results" / "bq3lngq3h.txt"
    saved.parent.mkdir(parents=True)
    shutil.copy(SAVED, saved)
    assert _bash_output(copy) == _bash_output(BIG)
    preview = _bash_output(alone)
    assert preview == _bash_output(alone_other)
    assert preview[1] == "preview"


def test_a_subagents_saved_output_is_found_from_its_own_transcript():
    bash = [s for s in _trace(AGENT_BIG).spans if s.name == "Bash"]
    assert [(s.source_ref.file, s.attributes.get("output_stored")) for s in bash] == [
        ("agent-a36d6c5791e6f7521.jsonl", "tool-results"),
        (AGENT_BIG.name, None),
    ]
    assert bash[0].output_hash == _bash_output(BIG)[0]


def test_outputs_below_and_above_the_storage_limit():
    """Only the 38 KB output is saved (the whole file hashed); the failed call's output stays
    inline and is an error."""
    trace = _trace(SIZES)
    saved = SIZES.parent / SIZES.stem / "tool-results" / "bkeeth69n.txt"
    bash = [
        (s.outcome, s.output_hash, s.attributes.get("output_stored"))
        for s in trace.spans
        if s.name == "Bash"
    ]
    assert [b[0] for b in bash] == ["ok", "ok", "ok", "error"]
    assert bash[2][1:] == (content_hash(saved.read_text()), "tool-results")
    assert [b[2] for b in bash] == [None, None, "tool-results", None]


def test_a_monitor_whose_command_failed_is_an_error():
    """Monitor runs its command as a background task (``toolUseResult.taskId``); the task's
    notification says ``failed`` (exit 4). The call read ``ok`` as if the watch had gone well;
    the one that expired with no event stays ``ok``."""
    spans = [s for s in _trace(MONITOR).spans if s.name == "Monitor"]
    assert [(s.outcome, s.attributes.get("background_status")) for s in spans] == [
        ("error", "failed"),
        ("ok", None),
    ]


def test_web_fetch_without_a_network_is_an_error():
    assert _tools(WEB) == [("WebFetch", 19, "error"), ("WebSearch", 20, "ok")]


def test_background_shells_killed_and_monitor():
    trace = _trace(BACKGROUND)
    assert _tools(BACKGROUND) == [
        ("Bash", 19, "ok"),
        ("Bash", 20, "interrupted"),
        ("Bash", 27, "ok"),
        ("TaskOutput", 36, "error"),
        ("TaskStop", 40, "ok"),
        ("TaskStop", 43, "error"),
        ("Monitor", 49, "ok"),
        ("Bash", 52, "ok"),
    ]
    assert trace.run.final_output_hash == final_output_hash("Background work done.")


def test_failing_and_refused_tools():
    assert _tools(FAILS) == [
        ("WebFetch", 19, "denied"),
        ("WebSearch", 21, "denied"),
        ("NotebookEdit", 30, "error"),
        ("Read", 32, "ok"),
        ("Glob", 37, "error"),
        ("Grep", 39, "error"),
        ("Edit", 45, "error"),
        ("Write", 49, "denied"),
    ]


def test_steps_before_a_compaction_and_a_rewind_are_kept():
    compacted = _trace(COMPACT)
    assert [(s.type, s.source_ref.line) for s in compacted.spans if s.type != "llm"] == [
        ("tool", 21),
        ("tool", 25),
        ("memory", 31),
    ]
    assert compacted.run.final_status == "success"
    assert _tools(REWIND) == [("Bash", 21, "ok"), ("Bash", 47, "ok")]
    rewound = _trace(REWIND)
    assert rewound.run.final_output_hash == final_output_hash("Listed after.")


def test_nothing_raw_of_the_recordings_reaches_the_traces():
    for path in (BIG, BACKGROUND, FAILS, WEB):
        text = _trace(path).model_dump_json()
        for raw in ("seq 1 30000", "29999", "b5p43arq4", "shop.example.com", "secret-z"):
            assert raw not in text


def test_a_saved_output_named_by_a_way_out_of_the_session_is_not_read(tmp_path):
    """A wrapper naming ``../tool-results/x`` read a file outside the session's folder (the
    name check let ``..`` through): only plain names under the session's own store count."""
    from abw.importers.claude.persisted import output_hash

    (tmp_path / "project" / "abc").mkdir(parents=True)
    (tmp_path / "tool-results").mkdir()
    (tmp_path / "tool-results" / "x.txt").write_text("outside the project")
    transcript = tmp_path / "project" / "abc.jsonl"
    wrapper = (
        "<persisted-output>\nOutput too large. Full output saved to: "
        "/home/dev/.claude/projects/p/../tool-results/x.txt\n\nPreview:\nout\n</persisted-output>"
    )
    _, stored = output_hash(wrapper, transcript)
    assert stored == "preview"
