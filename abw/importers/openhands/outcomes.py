"""What an observation says of its tool call (ok, error, timeout, rejected), and what an
agent state or execution status says of the run (V0 and V1)."""

from __future__ import annotations

from typing import Any

from abw.importers.rawio import as_dict
from abw.importers.spans import Draft, ms_between

STATE_STATUS = {
    "finished": "success",
    "awaiting_user_input": "success",
    "error": "error",
    "stopped": "cancelled",
    "paused": "cancelled",
    "rejected": "cancelled",
}


#: The ``error_id`` of the error the V0 controller answers the call in flight with when it
#: stops (the stop button, the session closed) or fails (a runtime crash).
_NOT_EXECUTED = "AGENT_ERROR$ERROR_ACTION_NOT_EXECUTED"


#: V1 conversation execution statuses, as V0's agent states.
V1_STATUS = {"finished": "success", "error": "error", "stuck": "error", "paused": "cancelled"}


def not_executed(event: dict[str, Any]) -> str | None:
    """Whether an error observation is the one the controller wrote for the call in flight
    when it stopped or failed (``_reset``; its ``error_id`` since 2025-04:
    ``..._NOT_EXECUTED``, from 2025-08 ``..._NOT_EXECUTED_STOPPED`` or
    ``..._NOT_EXECUTED_ERROR``): ``"stopped"`` when the id says the stop did it (no state
    event needed: trajectory files and evaluation histories hold none), ``"cut"`` when only a
    following ``stopped`` state can tell, else None."""
    error_id = as_dict(event.get("extras")).get("error_id")
    if not isinstance(error_id, str) or not error_id.startswith(_NOT_EXECUTED):
        return None
    return "stopped" if error_id == _NOT_EXECUTED + "_STOPPED" else "cut"


def stopped(cut: list[Draft], state: Any) -> None:
    """A V0 agent state change: when the agent is stopped (the stop button, the session
    closed), the calls just answered "not executed" (:func:`not_executed`) were cut short by
    it: interrupted, as V1's ``AgentErrorEvent`` before an ``InterruptEvent``."""
    if state == "stopped":
        for draft in cut:
            draft.outcome = "interrupted"
    cut.clear()


def _timed_out(code: Any, suffix: Any) -> bool:
    """A command the shell gave up waiting for: exit ``-1``, "no new output" or "timed out"."""
    text = str(suffix)
    return code == -1 and ("no new output" in text or "timed out" in text)


def observe(draft: Draft, event: dict[str, Any], observation: str, when: Any) -> None:
    extras = as_dict(event.get("extras"))
    metadata = as_dict(extras.get("metadata"))
    code = exit_code(extras)  # (before 2025 ``extras.exit_code``; since, its ``metadata``'s)
    failed = event.get("success") is False or extras.get("error") is True  # (a failed browse)
    draft.output = {"content": event.get("content"), "observation": observation}
    draft.duration_ms = ms_between(draft.started_at, when)
    if isinstance(code, int) and not isinstance(code, bool):
        draft.attributes["exit_code"] = code
    if observation == "error":
        draft.outcome = "error"
    elif observation == "user_rejected":
        draft.outcome = "rejected"
    elif isinstance(code, int) and _timed_out(code, metadata.get("suffix")):
        draft.outcome = "timeout"
    elif (isinstance(code, int) and code != 0) or failed:
        draft.outcome = "error"
    else:
        draft.outcome = "ok"


def exit_code(observation: dict[str, Any]) -> int | None:
    """A command's exit code: the observation's own, else its ``metadata``'s."""
    for value in (
        observation.get("exit_code"),
        as_dict(observation.get("metadata")).get("exit_code"),
    ):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def v1_outcome(observation: dict[str, Any], code: int | None) -> str:
    """The outcome of a tool call from its V1 observation (V0's rules)."""
    error = observation.get("error")
    if observation.get("is_error") is True or error is True:
        return "error"
    if isinstance(error, str) and error.strip():
        return "error"
    suffix = as_dict(observation.get("metadata")).get("suffix")
    if observation.get("timeout") is True or _timed_out(code, suffix):
        return "timeout"
    return "error" if code not in (None, 0) else "ok"
