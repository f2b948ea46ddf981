"""mini-swe-agent's replies settling its calls: exit codes, timeouts, a person's rejection or
^C, the submitting call's ``exit`` message."""

from __future__ import annotations

import re
from typing import Any

from abw.importers.rawio import as_dict
from abw.importers.spans import ABSENT, Draft, exit_outcome
from abw.importers.swe_agent.outcomes import SUBMITTED, observation_outcome

_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")


#: What mini-swe-agent's environments look for in a command's output to submit.
_SUBMIT_MARK = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


#: The submit marks of 1.x: ``MINI_SWE_AGENT_FINAL_OUTPUT`` alone up to 1.5; later releases
#: read both.
_SUBMIT_MARKS = ("MINI_SWE_AGENT_FINAL_OUTPUT", _SUBMIT_MARK)


#: ``extra.exception_info`` of the reply to a call mini-swe-agent did not run (user rejection).
_NOT_EXECUTED = "action was not executed"


#: ``extra.exception_type`` of a command mini-swe-agent's environment killed at its timeout.
_TIMED_OUT = "TimeoutExpired"


#: How mini-swe-agent 1.x's ``timeout_template`` answers a command killed at its timeout (no
#: return code): ``The last command <command>CMD</command> timed out and has been killed.``
_KILLED = ("The last command <command>", "</command> timed out and has been killed.")


#: How mini-swe-agent's interactive agent records a person declining the commands (confirm
#: mode) or stopping a step (^C): 2.x's ``extra.interrupt_type``, and the text 1.x's
#: ``NonTerminatingException`` message opens with (it records no type).
_STOP_OUTCOMES = {"UserRejection": "rejected", "UserInterruption": "interrupted"}


_STOPPED_TEXTS = {
    "UserRejection": "Command not executed.",
    "UserInterruption": "Interrupted by user:",
}


#: ``extra.interrupt_type`` of the new task a person types when the interactive agent submits
#: (``confirm_exit``): the run goes on, the submitting call ran.
NEW_TASK = "UserNewTask"


def stop_outcome(message: dict[str, Any], text: str) -> str | None:
    """``rejected`` when a ``user`` message says the person declined the commands (confirm mode:
    2.x ``extra.interrupt_type: UserRejection``, 1.x ``Command not executed. …``),
    ``interrupted`` when they stopped the step (``UserInterruption``, 1.x ``Interrupted by
    user: …``), else None."""
    kind = interrupt(message)
    if kind is None:
        kind = next((k for k, opening in _STOPPED_TEXTS.items() if text.startswith(opening)), None)
    return _STOP_OUTCOMES.get(kind) if isinstance(kind, str) else None


def stop(
    pending: Draft | None,
    waiting: list[tuple[Any, Draft]],
    outcome: str,
    message: dict[str, Any],
) -> None:
    """Settle the commands a person declined or stopped: the text-based command waiting for
    its reply, and every tool call left unanswered (2.x answers them ``action was not
    executed``)."""
    for draft in [pending] if pending is not None else [d for _, d in waiting]:
        draft.outcome = outcome
        draft.output = message.get("content", ABSENT)
    waiting.clear()


def interrupt(message: dict[str, Any]) -> Any:
    """A 2.x ``user`` message's ``extra.interrupt_type`` (why the agent's flow was broken)."""
    return as_dict(message.get("extra")).get("interrupt_type")


def answer_call(waiting: list[tuple[Any, Draft]], message: dict[str, Any]) -> None:
    """Settle the call a ``tool`` message answers: the one with its ``tool_call_id``, else the
    first unanswered one. A reply saying the call was not run leaves it unanswered."""
    if not waiting or as_dict(message.get("extra")).get("exception_info") == _NOT_EXECUTED:
        return
    call_id = message.get("tool_call_id")
    found = next((n for n, (cid, _) in enumerate(waiting) if cid == call_id), 0)
    _, draft = waiting.pop(found)
    content = message.get("content", ABSENT)
    settle(draft, content, content_text(content), message.get("extra"))


def answer_submit(waiting: list[tuple[Any, Draft]], message: dict[str, Any]) -> None:
    """An ``exit`` message that says ``Submitted``, or the new task a person gave instead of
    letting the run end (``UserNewTask``), answers the call that submitted (its ``tool`` reply
    says it was not executed): the first unanswered call whose command prints the submit mark,
    else the last unanswered one."""
    extra = as_dict(message.get("extra"))
    status = extra.get("exit_status")
    submitted = isinstance(status, str) and status in SUBMITTED
    if not waiting or not (submitted or extra.get("interrupt_type") == NEW_TASK):
        return
    marked = [d for _, d in waiting if isinstance(d.input, str) and _SUBMIT_MARK in d.input]
    draft = marked[0] if marked else waiting[-1][1]
    draft.outcome = "ok"
    waiting[:] = [(cid, d) for cid, d in waiting if d is not draft]


def settle(draft: Draft, content: Any, text: str, extra: Any = None) -> None:
    """A command's outcome from its reply: the exit code 2.x records in ``extra.returncode``
    (the ``mini`` CLI's default config renders the reply as JSON, with no
    ``<returncode>N</returncode>``), else the text's ``<returncode>``, else the fixed failure
    texts. A command the environment killed for running too long timed out: 2.x says so in
    ``extra.exception_type`` (``TimeoutExpired``), 1.x in its reply's first sentence (no code).
    A 1.x command that submitted has no code either (:func:`_submitted`)."""
    draft.output = content
    details = as_dict(extra)
    command = draft.input.strip() if isinstance(draft.input, str) else None
    killed = command is not None and text.startswith(command.join(_KILLED))
    code = details.get("returncode")
    if not isinstance(code, int) or isinstance(code, bool):
        found = None if killed else _RETURNCODE.search(text)  # (a killed command's output)
        code = int(found.group(1)) if found else None
    if code is not None:
        draft.attributes["exit_code"] = code
    if details.get("exception_type") == _TIMED_OUT or killed:
        draft.outcome = "timeout"
    elif code is not None:
        draft.outcome = exit_outcome(code)
    elif _submitted(command):
        draft.outcome = "ok"
    else:
        draft.outcome = observation_outcome(text)


def _submitted(command: str | None) -> bool:
    """1.x text-based: a command that prints a submit mark and whose reply has no return code
    submitted; that reply is no observation but the submission itself (the output after the
    mark: a diff, whose text may say ``No such file or directory``), or the new task a person
    typed instead of letting the run end (``The user added a new task: …``)."""
    return command is not None and any(mark in command for mark in _SUBMIT_MARKS)


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or the ``text`` of its parts (multimodal)."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "".join(
        p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
    )
