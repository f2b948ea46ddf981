"""History rewrites in recordings (rewind, rollback, checkpoints): what a behavior gate sees.

A trace holds every step the recording shows the agent took, in recording order, even when the
conversation was later rewound, rolled back or compacted; a message written again under its own
id still replaces its earlier copy, and copies of earlier steps (a checkpoint re-listing
recorded messages, a resumed or forked session's copied history) are not counted twice. The
run's final status and output stay those of the conversation's end.

Gemini CLI (google-gemini/gemini-cli ``packages/core/src/services/chatRecordingService.ts``):
``rewindTo`` appends ``{"$rewindTo": id}``; ``updateMessagesFromHistory`` (after a compression,
an Esc that rolls the prompt back, ``/rewind``, a resume) appends ``{"$set": {"messages": [...]}}``
listing the chat's history: the recorded messages still in it, copies under their ids (their
``content`` the history's parts, tool results possibly masked), new turns under new ids, and no
``info``/``error`` message.
"""

from __future__ import annotations

import json
from pathlib import Path

from abw.importers import get_importer
from abw.importers.base import ImportOptions
from tests.conftest import CORPUS
from tests.importkit import import_trace

GEMINI = CORPUS / "gemini-cli" / "vibecodingtracker__test_conversation_gemini.jsonl"
SECOND_PROMPT = "231038fa-bbfb-4b43-9a30-b8b7fcf54895"  # line 22: the user's second prompt
ANSWER = "0752be32-e23d-4786-bc5f-e06ee1d8a56c"  # line 20: the answer to the first one
REWOUND = "42a121a5-b72a-43e2-9e9d-640b17ea8978"  # line 26: a model message with 2 calls


def _gemini(path: Path) -> tuple[object, list[str]]:
    options = ImportOptions()
    return import_trace("gemini", path, options), options.warnings


def _lines() -> list[str]:
    return GEMINI.read_text(encoding="utf-8").splitlines()


def _write(path: Path, lines: list[str], records: list[dict] = (), at: int | None = None) -> Path:
    """The real recording's ``lines`` with ``records`` inserted before line ``at`` (or last)."""
    added = [json.dumps(r, ensure_ascii=False) for r in records]
    at = len(lines) if at is None else at - 1
    path.write_text("\n".join(lines[:at] + added + lines[at:]) + "\n", encoding="utf-8")
    return path


def _spans(trace) -> list[tuple]:
    return [(s.span_id, s.name, s.outcome, s.input_hash, s.output_hash) for s in trace.spans]


def _messages() -> dict[str, dict]:
    """Each message of the real recording as last written under its id."""
    out: dict[str, dict] = {}
    for line in _lines():
        record = json.loads(line)
        if isinstance(record.get("id"), str):
            out[record["id"]] = record
    return out


def test_gemini_steps_the_session_later_rewound_are_kept_in_recording_order(tmp_path):
    """``/rewind`` to the second prompt (``$rewindTo``, then the checkpoint of the history left),
    then a new prompt and answer: the rewound turn's model message and its 2 calls ran; they
    stay, before what follows, on their own line. The run ends as the conversation does: the
    new answer. (Gemini CLI's loader drops them.)"""
    new = [
        {"$rewindTo": SECOND_PROMPT},
        _checkpoint({SECOND_PROMPT, REWOUND}),  # ``client.setHistory`` of what is left
        {"id": "u-2", "timestamp": "2026-04-10T10:00:00Z", "type": "user", "content": "again"},
        {"id": "g-2", "timestamp": "2026-04-10T10:00:05Z", "type": "gemini", "content": "ok"},
    ]
    (full, _), (trace, warnings) = (
        _gemini(GEMINI),
        _gemini(_write(tmp_path / "session-r.jsonl", _lines()[:26], new)),
    )
    ids = [s.span_id for s in trace.spans]
    assert _spans(trace)[:-1] == _spans(full) and ids[-1] == "g-2"
    assert {s.source_ref.line for s in trace.spans if s.parent_span_id == REWOUND} == {26}
    assert trace.run.final_status == "success"
    assert warnings == ["session-r.jsonl: 3 steps the session later rewound are kept: they ran"]


def test_gemini_a_rewind_at_the_end_keeps_the_steps_but_ends_the_run_before_them(tmp_path):
    """Rewound last (nothing after): the steps stay, and the run ends where the conversation now
    ends, on the first prompt's answer (success, its text), not the cancelled last turn."""
    path = _write(tmp_path / "session-e.jsonl", _lines(), [{"$rewindTo": SECOND_PROMPT}])
    (full, _), (trace, warnings) = _gemini(GEMINI), _gemini(path)
    assert _spans(trace) == _spans(full) and full.run.final_status == "cancelled"
    lines = _lines()[:21]
    (answered, _) = _gemini(_write(tmp_path / "session-a.jsonl", lines))
    assert (trace.run.final_status, trace.run.final_output_hash) == (
        "success",
        answered.run.final_output_hash,
    )
    assert len(warnings) == 1 and "3 steps the session later rewound" in warnings[0]


def _checkpoint(dropped: set[str]) -> dict:
    """``updateMessagesFromHistory``'s checkpoint: the user/gemini messages still in history as
    copies under their ids (content the history's parts, a tool result masked), and a turn new
    to the recording (a tool response turn, ``<id>_response``)."""
    listed = []
    for message_id, message in _messages().items():
        if message["type"] not in ("user", "gemini") or message_id in dropped:
            continue
        copy = {**message, "content": [{"text": "LEAKCHECK masked history"}]}
        if copy.get("toolCalls"):
            masked = {**copy["toolCalls"][0], "result": [{"text": "LEAKCHECK masked"}]}
            copy["toolCalls"] = [masked, *copy["toolCalls"][1:]]
        listed.append(copy)
    response = {"id": f"{ANSWER}_response", "type": "user", "content": [{"text": "LEAKCHECK"}]}
    return {"$set": {"messages": [*listed, response], "lastUpdated": "2026-04-10T10:00:00Z"}}


def test_gemini_a_checkpoint_neither_drops_the_steps_it_leaves_out_nor_counts_copies(tmp_path):
    """An Esc rolls the prompt back (``agentHistory.rollback``) and writes a checkpoint without
    it, before the ``Request cancelled.`` info: the rolled-back turn's 3 steps ran and stay; the
    copies it lists are no new steps and do not replace the recorded ones (a masked result, the
    history's parts as content); the run still ends cancelled."""
    record = _checkpoint({SECOND_PROMPT, REWOUND})
    path = _write(tmp_path / "session-c.jsonl", _lines(), [record], at=27)
    (full, _), (trace, warnings) = _gemini(GEMINI), _gemini(path)
    assert _spans(trace) == _spans(full)
    assert [s.source_ref.line for s in trace.spans] == [s.source_ref.line for s in full.spans]
    assert (trace.run.final_status, trace.run.final_output_hash) == (
        full.run.final_status,
        full.run.final_output_hash,
    )
    assert warnings == [
        "session-c.jsonl: 3 steps a later checkpoint left out (compressed or rolled back) "
        "are kept: they ran"
    ]
    assert "LEAKCHECK" not in json.dumps(trace.model_dump(mode="json"))


def test_gemini_a_checkpoint_that_keeps_everything_changes_nothing(tmp_path):
    """A resume or a compression that lists every recorded message (copies) adds no step and no
    warning: the trace is that of the recording without it."""
    path = _write(tmp_path / "session-k.jsonl", _lines(), [_checkpoint(set())], at=27)
    (full, _), (trace, warnings) = _gemini(GEMINI), _gemini(path)
    assert _spans(trace) == _spans(full) and warnings == []


CODEX = (
    CORPUS
    / "codex"
    / "codemie__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
)


def test_codex_a_turn_rolled_back_keeps_its_calls(tmp_path):
    """``thread_rolled_back`` (``Op::ThreadRollback``: the TUI's backtrack, ``/undo``'s thread
    rewind) leaves the turns it drops in the rollout; Codex's own reconstruction skips them, the
    trace does not: every call of the turn rolled back stays, with nothing counted twice."""
    lines = CODEX.read_text(encoding="utf-8").splitlines()
    when = json.loads(lines[19])["timestamp"]
    rollback = {"timestamp": when, "type": "event_msg"}
    rollback["payload"] = {"type": "thread_rolled_back", "num_turns": 1}
    path = _write(tmp_path / CODEX.name, lines, [rollback], at=41)  # in the second turn
    options = ImportOptions()
    (full,) = get_importer("codex").import_file(CODEX, ImportOptions())
    (trace,) = get_importer("codex").import_file(path, options)
    assert _spans(trace) == _spans(full) and len(full.spans) == 117
    assert trace.run.final_status == full.run.final_status and options.warnings == []


CLAUDE = CORPUS / "claude-code" / "spotter__short.jsonl"


def test_claude_a_rewound_branch_keeps_the_steps_of_the_branch_left(tmp_path):
    """``/rewind`` (Esc Esc) to the first prompt and a new prompt: Claude Code writes the new
    branch with ``parentUuid`` pointing back before that prompt, leaving the old branch in the
    file. The old branch's model call and its 2 declined calls ran: they stay, before the new
    branch's answer; the run ends as the new branch does."""
    lines = CLAUDE.read_text(encoding="utf-8").splitlines()
    prompt, answer = json.loads(lines[3]), json.loads(lines[6])
    user = {**prompt, "uuid": "b-user", "message": {"role": "user", "content": "try again"}}
    reply = {**answer, "uuid": "b-reply", "parentUuid": "b-user", "requestId": "req_b"}
    reply["message"] = {
        **answer["message"],
        "id": "msg_b",
        "content": [{"type": "text", "text": "ok"}],
    }
    (full,) = get_importer("claude").import_file(CLAUDE, ImportOptions())
    (trace,) = get_importer("claude").import_file(
        _write(tmp_path / "s.jsonl", lines, [user, reply]), ImportOptions()
    )
    assert _spans(trace)[:-1] == _spans(full) and len(trace.spans) == len(full.spans) + 1
    assert (full.run.final_status, trace.run.final_status) == ("cancelled", "success")


def test_claude_steps_before_a_compaction_are_kept(tmp_path):
    """A ``compact_boundary`` (line 158) replaces the model's context with a summary; the 35
    calls before it ran and stay: one tool span for each of the 48 ``tool_use`` ids."""
    path = CORPUS / "claude-code" / "codemie__session-624a4a58.jsonl"
    (trace,) = get_importer("claude").import_file(path, ImportOptions())
    uses = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        message = json.loads(line).get("message")
        content = message.get("content") if isinstance(message, dict) else None
        uses |= {
            b["id"] for b in content or [] if isinstance(b, dict) and b.get("type") == "tool_use"
        }
    tools = [s for s in trace.spans if s.type not in ("llm", "memory")]
    assert len(uses) == len(tools) == 48
    assert [s.name for s in trace.spans if s.type == "memory"] == ["compaction"]
