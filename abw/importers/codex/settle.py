"""Once a rollout is read: the outcome of each call never answered (interrupted or
incomplete), its exit code, polls, output and duration; and the unknown types it skipped."""

from __future__ import annotations

from abw.importers.codex.state import RolloutState
from abw.importers.spans import ms_between


def settle(state: RolloutState) -> None:
    """Outcomes of calls never answered, durations, and poll counts, once the file is read."""
    starts = sorted(state.turn_starts)
    for call in state.order:
        draft = call.draft
        if draft.outcome is None:
            draft.outcome = "interrupted" if _aborted(state, call.line, starts) else "incomplete"
            if call.session is not None and draft.outcome == "incomplete":
                draft.attributes["still_running"] = True
        if call.exit_code is not None:
            draft.attributes["exit_code"] = call.exit_code
        if call.polls:
            draft.attributes["polls"] = call.polls
        if call.poll_errors:
            draft.attributes["poll_errors"] = call.poll_errors
        if call.outputs:
            draft.output = call.outputs[0] if len(call.outputs) == 1 else call.outputs
        if call.explicit_ms is not None:
            draft.duration_ms = call.explicit_ms
            draft.attributes["duration_source"] = call.duration_source or "metadata"
        elif call.saw_wall:
            draft.duration_ms = round(call.wall_seconds * 1000, 3)
            draft.attributes["duration_source"] = "wall_time"
        elif not state.batched:  # (a batch's timestamps are when it was written, not run)
            elapsed = ms_between(draft.started_at, call.last_output_at)
            if elapsed:
                draft.duration_ms = elapsed
                draft.attributes["duration_source"] = "timestamps"
    if state.unknown_types:
        kinds = ", ".join(sorted(state.unknown_types))
        state.options.warn(f"{state.path.name}: skipped unknown record types: {kinds}")
    if state.unknown_items:
        kinds = ", ".join(sorted(state.unknown_items))
        state.options.warn(f"{state.path.name}: skipped unknown response_item types: {kinds}")


def _aborted(state: RolloutState, line: int, starts: list[int]) -> bool:
    """Whether a ``turn_aborted`` falls in the same turn as ``line``."""
    turn_begin = max((s for s in starts if s <= line), default=0)
    turn_end = min((s for s in starts if s > line), default=1 << 60)
    return any(turn_begin <= a < turn_end for a in state.aborts)
