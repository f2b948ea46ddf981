"""SWE-agent trajectories: the steps of ``trajectory`` (0.x, 1.x), or a demonstration's
``history``, as llm and tool spans."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.base import ImportOptions
from abw.importers.common import identifier
from abw.importers.rawio import as_dict, decode_json_string
from abw.importers.spans import ABSENT, Draft
from abw.importers.swe_agent.outcomes import observation_outcome

#: SWE-agent commands that only read or navigate (file viewer and search tools).
RETRIEVERS = frozenset(
    {
        "open",
        "goto",
        "scroll_up",
        "scroll_down",
        "find_file",
        "search_file",
        "search_dir",
        "filemap",
    }
)


#: Commands of SWE-agent's own tool bundles (everything else is a bash command).
SWE_COMMANDS = RETRIEVERS | frozenset(
    {
        "create",
        "edit",
        "insert",
        "submit",
        "str_replace_editor",
        "view_image",
        "exit_forfeit",
        "skip",
        "forfeit",
    }
)


#: Commands that end the run: a run's ``history`` holds no observation of them.
_TERMINAL = frozenset({"submit", "exit_forfeit", "skip", "forfeit"})


def _tool(command: str) -> str:
    head = command.strip().split(maxsplit=1)
    first = head[0] if head else ""
    return first if first in SWE_COMMANDS else "bash"


def _model(document: dict[str, Any], path: Path, lines: dict[tuple, int]) -> str:
    """The model a SWE-agent run was configured with, a plain identifier: ``agent.model.name``
    of its ``replay_config`` (an object before 1.0; from 1.0 on, that object as a JSON string)
    or ``config``; else ``model``."""
    key = "replay_config" if document.get("replay_config") else "config"
    config = decode_json_string(document.get(key), path, lines.get((key,)))
    name = as_dict(as_dict(as_dict(config).get("agent")).get("model")).get("name")
    return identifier(name) or "model"


def _function_calls(
    document: dict[str, Any], path: Path, lines: dict[tuple, int]
) -> list[tuple[str, str, Any]]:
    """``(action, function name, arguments)`` of each assistant message in ``history`` that made
    exactly one function call, in order (function-calling trajectories only)."""
    calls = []
    history = document.get("history") if isinstance(document.get("history"), list) else []
    for index, message in enumerate(history):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        call = _one_call(message)
        if call is not None and isinstance(message.get("action"), str):
            line = lines.get(("history", index))
            arguments = decode_json_string(call[1], path, line)
            calls.append((message["action"], call[0], arguments))
    return calls


def _one_call(message: dict[str, Any]) -> tuple[str, Any] | None:
    """``(function name, arguments)`` when an assistant message made exactly one function
    call, else None."""
    tool_calls = message.get("tool_calls")
    if not isinstance(tool_calls, list) or len(tool_calls) != 1:
        return None
    function = tool_calls[0].get("function") if isinstance(tool_calls[0], dict) else None
    if not isinstance(function, dict):
        return None
    return str(function.get("name")), function.get("arguments")


def read_steps(
    document: dict[str, Any], options: ImportOptions, path: Path, lines: dict[tuple, int]
) -> tuple[list[Draft], str | None]:
    drafts: list[Draft] = []
    model = _model(document, path, lines)
    calls = _function_calls(document, path, lines) if options.argument_fields else []
    next_call = 0
    info = as_dict(document.get("info"))
    submission = info.get("submission")
    submission = submission if isinstance(submission, str) else None
    for index, step in enumerate(document["trajectory"]):
        if not isinstance(step, dict):
            raise AbwInputError(
                "a step is not an object",
                file=path,
                line=lines.get(("trajectory", index)),
                field=f"trajectory.{index}",
            )
        line = lines.get(("trajectory", index))
        llm = Draft((index, 0), "llm", model, "ok", output=step.get("response", ABSENT))
        llm.line = line
        drafts.append(llm)
        action = step.get("action")
        if not isinstance(action, str) or not action.strip():
            continue
        draft = _action_draft((index, 1), action, line, options)
        draft.output = step.get("observation", ABSENT)
        observation = step.get("observation")
        # the step that submitted shows the submission (SWE-agent's ``handle_submission`` puts
        # the patch in its observation): a diff, whose text may read like an error; it is ok
        submitted = bool(submission) and observation == submission
        draft.outcome = "ok" if submitted else observation_outcome(observation)
        # the next function call made with this step's action, when it called this tool
        found = next((i for i in range(next_call, len(calls)) if calls[i][0] == action), None)
        if found is not None:
            next_call = found + 1
            if calls[found][1] == draft.name:
                draft.keep_arguments(options.argument_fields, calls[found][2], path)
        seconds = step.get("execution_time")
        try:
            if seconds is not None:
                draft.duration_ms = round(float(seconds) * 1000, 3)
        except (TypeError, ValueError, OverflowError):  # an exact integer beyond a double
            pass
        drafts.append(draft)
    return drafts, submission


def _action_draft(
    key: tuple[int, int], action: str, line: int | None, options: ImportOptions
) -> Draft:
    """The tool span of a step's ``action`` (its output and outcome are the caller's to set):
    a SWE-agent command by name, a reader's a retriever span, anything else ``bash``."""
    name = _tool(action)
    draft = Draft(key, "retriever" if name in RETRIEVERS else "tool", name, None, action)
    draft.line = line
    if name == "bash":
        draft.mark_shell(options.labels, action)
    return draft


def read_history(
    document: dict[str, Any], options: ImportOptions, path: Path, lines: dict[tuple, int]
) -> list[Draft]:
    """A trajectory that holds only ``history`` (SWE-agent's demonstrations): each assistant
    message is an llm span, its ``action`` a tool span whose observation is the next ``tool``
    or ``user`` message (``incomplete`` when none follows, but for the command that ended the
    run: ``submit`` and the like are never answered). Messages marked ``is_demo`` (the
    in-context demonstration a run's history starts with) are not the run's own steps."""
    drafts: list[Draft] = []
    model = _model(document, path, lines)
    pending: Draft | None = None
    for index, message in enumerate(document["history"]):
        if not isinstance(message, dict):
            raise AbwInputError(
                "a message is not an object",
                file=path,
                line=lines.get(("history", index)),
                field=f"history.{index}",
            )
        if message.get("is_demo") is True:
            continue
        role = message.get("role")
        line = lines.get(("history", index))
        if role == "assistant":
            llm = Draft((index, 0), "llm", model, "ok", output=message.get("content", ABSENT))
            llm.line = line
            drafts.append(llm)
            pending = None
            action = message.get("action")
            if not isinstance(action, str) or not action.strip():
                continue
            pending = _action_draft((index, 1), action, line, options)
            # a run's history holds no observation of the command that ended it
            pending.outcome = "ok" if pending.name in _TERMINAL else "incomplete"
            call = _one_call(message)
            if call is not None and options.argument_fields and call[0] == pending.name:
                pending.keep_arguments(options.argument_fields, call[1], path)
            drafts.append(pending)
        elif role in ("tool", "user") and pending is not None:
            pending.output = message.get("content", ABSENT)
            pending.outcome = observation_outcome(message.get("content"))
            pending = None
    return drafts
