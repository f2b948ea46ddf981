"""A call of a subagent: the tools that delegate to one by name, a subagent called by its own
name, the outcome its progress reports, and the messages it recorded into the session's file."""

from __future__ import annotations

import glob
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.gemini.ids import id_time
from abw.importers.gemini.messages import text, tool_results
from abw.importers.gemini.outcomes import response_texts
from abw.importers.rawio import as_dict, load_json, read_raw
from abw.importers.spans import parse_time

#: The tools that call a subagent named in ``args.agent_name``: ``delegate_to_agent`` (0.2x),
#: ``invoke_agent`` (0.6x; 0.3x-0.5x called a subagent by its own name).
DELEGATE_TOOLS = ("delegate_to_agent", "invoke_agent")


#: How a subagent's call returns when the subagent ran to its end (``agents/invocation.ts``,
#: 0.1x on): ``Subagent '<name>' finished.`` then ``Termination Reason: <terminate_reason>``.
FINISHED = re.compile(r"Subagent '([^'\n]+)' finished\.\nTermination Reason: ([A-Z_]+)\n")


def subagent_call(call: dict[str, Any]) -> bool:
    """A call of a subagent by its own name (from 0.1x: ``generalist``, ``cli_help``,
    ``codebase_investigator``, a user's agents): its ``resultDisplay`` is the subagent's progress
    (``isSubagentProgress``), the call names the run it started (``agentId``), or it returned
    the subagent's end (:func:`finished_reason`; before 0.5x its display is text)."""
    display = as_dict(call.get("resultDisplay"))
    return (
        display.get("isSubagentProgress") is True
        or text(call.get("agentId")) is not None
        or finished_reason(call) is not None
    )


def finished_reason(call: dict[str, Any]) -> str | None:
    """The ``terminate_reason`` a subagent's call returned (:data:`FINISHED`), when the output
    names the subagent called (the call's name, or the ``agent_name`` it delegates to)."""
    args = as_dict(call.get("args"))
    called = {text(call.get("name")), text(args.get("agent_name"))}
    for output in response_texts(call.get("result")):
        match = FINISHED.match(output)
        if match and match.group(1) in called:
            return match.group(2)
    return None


def subagent_outcome(call: dict[str, Any]) -> str:
    """The outcome of a subagent's ``success`` call from its progress (or the end it returned,
    :func:`finished_reason`): error when it ends in ``state: error``, or ``completed`` short of
    its goal (``terminateReason`` ``ERROR``,
    ``MAX_TURNS``, ``ERROR_NO_COMPLETE_TASK_CALL``; ``TIMEOUT`` a timeout), else ok."""
    display = as_dict(call.get("resultDisplay"))
    reason = display.get("terminateReason") or finished_reason(call)
    if display.get("state") == "error":
        return "error"
    if isinstance(reason, str) and reason != "GOAL":
        return "timeout" if reason == "TIMEOUT" else "error"
    return "ok"


def subagent_messages(messages: list[Any]) -> set[int]:
    """The indexes of the messages a subagent recorded into the session's own file: before 0.3x
    a subagent's chat recorded itself under the session's id (into the session's file when it
    started in the minute the file is named by). They run from a user message recorded while a
    subagent's call ran (its task: the session sends no prompt while its calls run) to that
    call's end (its ``timestamp``); the session's calls of that turn are appended to the last."""
    runs = subagent_runs(messages)
    owned: set[int] = set()
    for index, message in enumerate(messages):
        if index in owned or not isinstance(message, dict) or message.get("type") != "user":
            continue
        when = parse_time(message.get("timestamp"))
        end = next((e for s, e in runs if when and s < when < e), None)
        if end is None or tool_results(message):
            continue
        for later, record in enumerate(messages[index:], index):
            moment = parse_time(record.get("timestamp")) if isinstance(record, dict) else None
            if moment is None or moment > end:
                break
            owned.add(later)
    return owned


def session_messages(messages: list[Any], ended: list[int], owned: set[int]) -> list[Any]:
    """The messages at ``ended`` the session itself recorded: of those in ``owned``, a
    subagent's (:func:`subagent_messages`), only the session's calls appended to one."""
    return [
        {"type": "gemini", "content": "", "toolCalls": messages[index]["toolCalls"]}
        if index in owned
        else messages[index]
        for index in ended
        if index not in owned or messages[index].get("toolCalls")
    ]


def subagent_runs(messages: list[Any]) -> list[tuple[datetime, datetime]]:
    """When each subagent call of ``messages`` ran: made (its id's time) to its ``timestamp``."""
    runs = []
    for message in messages:
        calls = message.get("toolCalls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict) and (
                call.get("name") in DELEGATE_TOOLS or subagent_call(call)
            ):
                made, ended = id_time(call.get("id")), parse_time(call.get("timestamp"))
                if made is not None and ended is not None:
                    runs.append((made, ended))
    return runs


def subagent_recording(document: Any, path: Path) -> bool:
    """Whether a one-document recording is a subagent's own (before 0.3x its chat recorded
    itself under the session's id, in a file named by the minute it started: no ``kind``): its
    first message, the subagent's task, was recorded while a subagent's call ran in a recording
    of the same session beside it (``session-*-<the id's first 8 characters>.json``)."""
    session = document.get("sessionId") if isinstance(document, dict) else None
    messages = document.get("messages") if isinstance(document, dict) else None
    first = messages[0] if isinstance(messages, list) and messages else None
    if not isinstance(session, str) or not isinstance(first, dict) or first.get("type") != "user":
        return False
    when = parse_time(first.get("timestamp"))
    for sibling in sorted(path.parent.glob(f"*session-*-{glob.escape(session[:8])}.json")):
        try:
            other = load_json(read_raw(sibling), sibling) if sibling != path else None
        except AbwInputError:
            continue
        if isinstance(other, dict) and other.get("sessionId") == session:
            runs = subagent_runs(other.get("messages") or [])
            if when is not None and any(made < when < ended for made, ended in runs):
                return True
    return False
