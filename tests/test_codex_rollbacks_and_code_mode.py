"""Codex CLI rollouts of newer versions: a rollback at the end of a real multi-turn rollout, and
code mode's ``exec`` scripts, each checked against what the raw file says."""

from __future__ import annotations

import json
from pathlib import Path

from abw.models.trace import Trace
from tests.conftest import CORPUS
from tests.importkit import import_trace

#: A real rollout of many turns, its last three each ending with ``task_complete``.
TURNS = (
    CORPUS
    / "codex"
    / "agentv__rollout-2026-06-18T02-33-46-019ed893-d2a6-7c30-a8b8-5a8a49cfa23e.jsonl"
)


def _import(path: Path) -> Trace:
    return import_trace("codex", path)


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _rollback(num_turns: int) -> str:
    payload = {"type": "thread_rolled_back", "num_turns": num_turns}
    record = {"timestamp": "2026-02-23T12:46:00.000Z", "type": "event_msg", "payload": payload}
    return json.dumps(record, separators=(",", ":"))


def _write(tmp_path: Path, lines: list[str], name: str) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _turn_ends(lines: list[str]) -> list[int]:
    """The 1-based lines of the file's ``task_complete`` events."""
    return [i for i, line in enumerate(lines, 1) if '"type":"task_complete"' in line]


def test_a_trailing_rollback_ends_the_run_where_the_kept_turns_ended(tmp_path: Path) -> None:
    """A ``thread_rolled_back`` as the rollout's last record left the rolled-back turn's status
    and final output as the run's; the conversation ends at the turn before it."""
    lines = _lines(TURNS)
    ends = _turn_ends(lines)
    assert len(ends) >= 3 and ends[-1] == len(lines)
    for turns in (1, 2):
        rolled = _import(_write(tmp_path, [*lines, _rollback(turns)], f"r{turns}.jsonl"))
        kept = _import(_write(tmp_path, lines[: ends[-1 - turns]], f"k{turns}.jsonl"))
        assert rolled.run.final_output_hash == kept.run.final_output_hash
        assert rolled.run.final_status == kept.run.final_status == "success"
        # the rolled-back turns' calls ran: their spans stay
        assert len(rolled.spans) == len(_import(TURNS).spans)
    assert _import(TURNS).run.final_output_hash != rolled.run.final_output_hash


def test_a_rollback_of_an_aborted_turn_restores_the_kept_turns_status(tmp_path: Path) -> None:
    """Rolling back a turn the user interrupted: the run ends as the turn before it ended."""
    lines = _lines(TURNS)
    ends = _turn_ends(lines)
    last = lines[ends[-1] - 1].replace('"type":"task_complete"', '"type":"turn_aborted"')
    aborted = [*lines[: ends[-1] - 1], last]
    path = _write(tmp_path, aborted, "aborted.jsonl")
    assert _import(path).run.final_status == "cancelled"
    rolled = _import(_write(tmp_path, [*aborted, _rollback(1)], "rolled.jsonl"))
    kept = _import(_write(tmp_path, lines[: ends[-2]], "kept.jsonl"))
    assert (rolled.run.final_status, rolled.run.final_output_hash) == (
        "success",
        kept.run.final_output_hash,
    )


def test_a_rollback_then_a_new_turn_ends_with_the_new_turn(tmp_path: Path) -> None:
    """A rollback followed by a new turn: the new turn's end is the run's."""
    lines = _lines(TURNS)
    ends = _turn_ends(lines)
    last_turn = lines[ends[-2] : ends[-1]]
    replay = _write(tmp_path, [*lines, _rollback(1), *last_turn], "replay.jsonl")
    assert _import(replay).run.final_output_hash == _import(TURNS).run.final_output_hash


def _code_mode_rollout(tmp_path: Path) -> Path:
    """A 0.156 rollout in code mode (``history_mode: paginated``, every line numbered): each
    command runs in an ``exec`` script, answered by ``input_text`` parts, shaped as Codex
    writes them: the script's status line, then what it printed (a command result's JSON)."""
    meta = {"id": "01a0e81b-2a8b-7240-b94c-ad2ada7813da", "cli_version": "0.156.1"}
    records: list[tuple[str, dict]] = [
        ("session_meta", {**meta, "originator": "codex_exec", "history_mode": "paginated"}),
        ("event_msg", {"type": "task_started", "turn_id": "t1"}),
        ("turn_context", {"turn_id": "t1", "model": "gpt-5.6"}),
        ("event_msg", {"type": "user_message", "message": "run the tests"}),
    ]
    printed = [
        ("Script completed", {"chunk_id": "7f0905", "exit_code": 1, "output": "FAILED\n"}),
        ("Script failed", "Script error:\nexec_command failed: sandbox denied"),
        ("Script completed", {"chunk_id": "8a1b2c", "exit_code": 0, "output": "ok\n"}),
        ("Script completed", "3 passed\n"),
    ]
    for n, (status, text) in enumerate(printed):
        body = text if isinstance(text, str) else json.dumps(text)
        call = {"type": "custom_tool_call", "call_id": f"c{n}", "name": "exec", "input": "x"}
        head = f"{status}\nWall time 0.{n + 1} seconds\nOutput:\n"
        parts = [{"type": "input_text", "text": head}, {"type": "input_text", "text": body}]
        answer = {"type": "custom_tool_call_output", "call_id": f"c{n}", "output": parts}
        records += [("response_item", call), ("response_item", answer)]
    records.append(("event_msg", {"type": "task_complete", "last_agent_message": "done"}))
    lines = [
        json.dumps(
            {
                "timestamp": f"2026-09-28T13:01:{i:02d}.000Z",
                "ordinal": i,
                "type": kind,
                "payload": payload,
            }
        )
        for i, (kind, payload) in enumerate(records)
    ]
    return _write(tmp_path, lines, "rollout-2026-09-28T13-01-29-01a0e81b.jsonl")


def test_code_mode_exec_scripts_keep_their_commands_outcomes(tmp_path: Path, run_cli) -> None:
    """A code-mode ``exec`` script (0.150+) was always ok: a ``Script failed`` status and a
    printed command result's non-zero ``exit_code`` were not read, nor its wall time."""
    out = tmp_path / "trace.json"
    code, _, err = run_cli("import", "codex", "--input", _code_mode_rollout(tmp_path), "--out", out)
    assert code == 0, err
    spans = [s for s in json.loads(out.read_text())["spans"] if s["type"] == "tool"]
    seen = [(s["outcome"], s["attributes"].get("exit_code"), s["duration_ms"]) for s in spans]
    assert seen == [
        ("error", 1, 100.0),
        ("error", None, 200.0),
        ("ok", 0, 300.0),
        ("ok", None, 400.0),
    ]
