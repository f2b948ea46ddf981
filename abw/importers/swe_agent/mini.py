"""mini-swe-agent's messages (1.x, 2.x; text-based or tool-calling) as llm and tool spans, and
the refusal of a ``messages`` document with nothing of mini-swe-agent in it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.base import ImportOptions
from abw.importers.common import identifier
from abw.importers.rawio import (
    INPUT_OUTPUT,
    PROMPT_COMPLETION,
    as_dict,
    as_list,
    decode_json_string,
    object_at,
    token_counts,
)
from abw.importers.spans import ABSENT, SHELL_TOOLS, Draft
from abw.importers.swe_agent.blocks import bash_commands
from abw.importers.swe_agent.replies import (
    NEW_TASK,
    answer_call,
    answer_submit,
    content_text,
    interrupt,
    settle,
    stop,
    stop_outcome,
)
from abw.importers.swe_agent.responses import chat_form

#: The roles of mini-swe-agent's messages (``exit`` ends a run: its ``extra.exit_status``).
_MINI_ROLES = frozenset({"system", "user", "assistant", "tool", "exit"})


#: The exception mini-swe-agent raises when a model's answer holds no command it can run (no
#: tool call, unparsable arguments, not exactly one command block).
_FORMAT_ERROR = "FormatError"


def read_mini(
    document: dict[str, Any], options: ImportOptions, path: Path, lines: dict[tuple, int]
) -> tuple[list[Draft], str | None]:
    """mini-swe-agent: each assistant message an llm span, then its ``tool_calls`` (2.x) or its
    one fenced command block (text-based) as tool spans (the package docstring)."""
    drafts: list[Draft] = []
    pending: Draft | None = None  # the fenced command the next user message answers
    unparsed: Draft | None = None  # a text-based turn with no single command (1.x)
    waiting: list[tuple[Any, Draft]] = []  # (tool_call_id, span) of the calls not answered yet
    final_text = None
    model = _config_model(document)
    for index, message in enumerate(document["messages"]):
        if not isinstance(message, dict):
            continue
        message = chat_form(message)
        role, content = message.get("role"), message.get("content")
        text = content_text(content)
        line = lines.get(("messages", index))
        turn, unparsed = unparsed, None
        if role == "assistant":
            name = model or _response_model(message) or "model"
            llm = Draft((index, 0), "llm", name, "ok", output=content)
            llm.line = line
            llm.attributes.update(_tokens(message))
            drafts.append(llm)
            final_text = text or final_text
            calls = _mini_calls(message, (index, line), options, path)
            waiting.extend(calls)
            drafts.extend(draft for _, draft in calls)
            commands = [] if calls else _commands(message, text)
            if len(commands) == 1:
                pending = Draft((index, 1), "tool", "bash", "incomplete", commands[0])
                pending.line = line
                pending.mark_shell(options.labels, commands[0])
                drafts.append(pending)
            elif not calls:
                unparsed = llm  # nothing was run: a reply to it is 1.x's format error
        elif role == "tool":
            answer_call(waiting, message)
        elif role == "exit" or (role == "user" and interrupt(message) == NEW_TASK):
            if pending is not None:  # (2.x text-based: the command that submitted)
                waiting.append((None, pending))
                pending = None
            answer_submit(waiting, message)
        elif role == "user" and (pending or waiting) and (stopped := stop_outcome(message, text)):
            stop(pending, waiting, stopped, message)
            pending = None
        elif role == "user" and interrupt(message) == _FORMAT_ERROR:
            drafts.append(_unparsed_turn((index, 0), message, model, line))
        elif role == "user" and turn is not None and interrupt(message) is None:
            _format_error(turn)
        elif role == "user" and pending is not None:
            settle(pending, content, text, message.get("extra"))
            pending = None
    return drafts, final_text


def _commands(message: dict[str, Any], text: str) -> list[str]:
    """The commands of a text-based answer: those 2.x parsed from it and ran (its
    ``extra.actions``: by the model's ``action_regex``, which other fenced blocks, a
    ```` ```bash ```` example, do not match), else its command blocks (1.x)."""
    actions = as_dict(message.get("extra")).get("actions")
    found = [as_dict(a).get("command") for a in as_list(actions)]
    if found and all(isinstance(command, str) for command in found):
        return found
    return bash_commands(text)


def _format_error(llm: Draft) -> None:
    """Mark a model turn whose answer mini-swe-agent could not run (a ``FormatError``)."""
    llm.outcome = "error"
    llm.attributes["error_type"] = _FORMAT_ERROR


def _unparsed_turn(
    key: tuple[int, int], message: dict[str, Any], model: str | None, line: int | None
) -> Draft:
    """The llm span of a model turn 2.x never recorded as a message: its answer held no command
    it could run, and the ``user`` message of the format error (``extra.interrupt_type:
    FormatError``) stands in its place; the answer is its ``extra.model_response`` (text-based)
    or the content of its ``extra.response`` (2.4+; a Responses API answer's ``output``), when
    recorded."""
    extra = as_dict(message.get("extra"))
    name = model or _response_model(message) or "model"
    answer = extra.get("model_response", ABSENT)
    response = as_dict(extra.get("response"))
    if answer is ABSENT and isinstance(response.get("output"), list):  # Responses API
        answer = response["output"]
    elif answer is ABSENT and response:
        choices = response.get("choices")
        first = as_dict(choices[0]) if isinstance(choices, list) and choices else {}
        answer = as_dict(first.get("message")).get("content", ABSENT)
    llm = Draft(key, "llm", name, None, output=answer)
    llm.line = line
    llm.attributes.update(_tokens(message))
    _format_error(llm)
    return llm


def _config_model(document: dict[str, Any]) -> str | None:
    """The model a mini-swe-agent run was configured with (``info.config.model.model_name``),
    when it is a plain identifier (a span name is never free text)."""
    config = as_dict(as_dict(document.get("info")).get("config"))
    return identifier(as_dict(config.get("model")).get("model_name"))


def _tokens(message: dict[str, Any]) -> dict[str, int]:
    """The token counts of the answer a message records (``extra.response.usage``: 2.x and late
    1.x, such as 1.15 and 1.17; 1.10 and before record none): Chat Completions' keys, then the
    Responses API's."""
    usage = object_at(message, "extra", "response", "usage")
    return token_counts([(usage, PROMPT_COMPLETION), (usage, INPUT_OUTPUT)])


def _response_model(message: dict[str, Any]) -> str | None:
    """The model that wrote an assistant message, by its recorded response (a plain
    identifier)."""
    return identifier(as_dict(as_dict(message.get("extra")).get("response")).get("model"))


def _mini_calls(
    message: dict[str, Any], where: tuple[int, int | None], options: ImportOptions, path: Path
) -> list[tuple[Any, Draft]]:
    """``(tool_call_id, span)`` of each entry of an assistant message's ``tool_calls``; ``where``
    is the message's index and raw line."""
    tool_calls = message.get("tool_calls")
    if not isinstance(tool_calls, list):
        return []
    calls = [call for call in tool_calls if isinstance(call, dict)]
    return [
        (call.get("id"), _call_draft((where[0], 1 + n), call, where[1], options, path))
        for n, call in enumerate(calls)
    ]


def _call_draft(
    key: tuple[int, int], call: dict[str, Any], line: int | None, options: ImportOptions, path: Path
) -> Draft:
    """The tool span of one tool call, ``incomplete`` until a reply settles it: named by its
    function; a shell function (``bash``) is marked as a shell call, its input its ``command``."""
    function = as_dict(call.get("function"))
    name = function.get("name")
    name = name if isinstance(name, str) and name else "tool"
    arguments = decode_json_string(function.get("arguments", ABSENT), path, line)
    command = arguments.get("command") if isinstance(arguments, dict) else None
    shell = name in SHELL_TOOLS
    tool_input = command if shell and isinstance(command, str) else arguments
    draft = Draft(key, "tool", name, "incomplete", tool_input)
    draft.line = line
    if shell:
        draft.mark_shell(options.labels, command)
    if options.argument_fields and arguments is not ABSENT:
        draft.keep_arguments(options.argument_fields, arguments, path)
    return draft


def check_mini(
    document: dict[str, Any], drafts: list[Draft], path: Path, lines: dict[tuple, int], bare: bool
) -> None:
    """Refuse a ``messages`` document with nothing of mini-swe-agent in it: no command or tool
    call, no ``trajectory_format``/``info``, and no messages or one whose role is none of its."""
    fmt = document.get("trajectory_format")
    if any(d.type != "llm" for d in drafts) or isinstance(document.get("info"), dict):
        return
    if isinstance(fmt, str) and fmt.startswith("mini-swe-agent"):
        return
    messages = document["messages"]
    roles = [m.get("role") if isinstance(m, dict) else None for m in messages]
    odd = next(
        (n for n, r in enumerate(roles) if not isinstance(r, str) or r not in _MINI_ROLES), None
    )
    if messages and odd is None:
        return
    what, field = "no messages", "messages"
    if odd is not None:
        what = f"a message whose role is none of {'/'.join(sorted(_MINI_ROLES))}"
        field = f"{'' if bare else 'messages.'}{odd}.role"
    raise AbwInputError(
        f"not a SWE-agent trajectory: no command, no tool call, no mini-swe-agent "
        f"trajectory_format or info, and {what}",
        file=path,
        line=lines.get(("messages", odd)),
        field=field,
    )
