"""A ``gemini`` message's ``toolCalls`` into spans: each call's type (tool, retriever, memory,
handoff), outcome, shell command and exit code, arguments and times."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.base import ImportOptions
from abw.importers.gemini.ids import call_order, id_time, later_turns
from abw.importers.gemini.messages import text
from abw.importers.gemini.outcomes import STATUS, cancelled_running, exit_code, shell_timed_out
from abw.importers.gemini.subagents import DELEGATE_TOOLS, subagent_call, subagent_outcome
from abw.importers.rawio import scalar_text
from abw.importers.spans import ABSENT, Draft, exit_outcome, ms_between, parse_time

#: The shell tools: their command is marked, their exit code read from the output.
SHELL_TOOLS = {"run_shell_command", "shell"}
#: Typed like the Claude importer types its equivalents (Read/Grep/WebFetch, TodoWrite).
RETRIEVER_TOOLS = {
    "read_file",
    "read_many_files",
    "list_directory",
    "glob",
    "search_file_content",
    "grep",
    "web_fetch",
    "google_web_search",
}
MEMORY_TOOLS = {"write_todos", "save_memory"}


def call_drafts(
    message: dict[str, Any],
    index: int,
    parent: str | None,
    options: ImportOptions,
    path: Path,
    drafts: list[Draft],
    line_of: Callable[[tuple[str | int, ...]], int | None],
    own_turn: bool = False,
) -> None:
    """Append the spans of a ``gemini`` message's ``toolCalls``, children of ``parent``, or,
    with ``own_turn`` (calls appended to a message not of their turn), of an llm span of their
    own turn."""
    calls = message.get("toolCalls")
    if calls is not None and not isinstance(calls, list):
        raise AbwInputError(
            "expected a list of tool calls",
            file=path,
            line=line_of(("messages", index, "toolCalls")),
            field=f"messages.{index}.toolCalls",
        )
    calls = calls or []
    order = call_order(calls)
    opened = later_turns(calls, order) | ({min(order)} if own_turn and calls else set())
    parents = {}  # the place of each call opening a later turn -> that turn's llm span
    for offset, (position, call) in enumerate(zip(order, calls, strict=True)):
        if position in opened:
            turn = turn_draft(message, index, position, call)
            turn.line = line_of(("messages", index, "toolCalls", offset))
            drafts.append(turn)
            parents[position] = turn.span_id
    for offset, (position, call) in enumerate(zip(order, calls, strict=True)):
        if isinstance(call, dict):
            opener = max((place for place in parents if place <= position), default=None)
            draft = call_draft(call, index, position, parents.get(opener, parent), options, path)
            draft.line = line_of(("messages", index, "toolCalls", offset))
            drafts.append(draft)


def turn_draft(message: dict[str, Any], index: int, position: int, call: dict[str, Any]) -> Draft:
    """The llm span of a later model turn whose calls older versions appended to ``message``
    (:func:`.ids.later_turns`), placed before ``call``, the first it made: a model call of the
    message's model, started when it made that call; its text and tokens were not recorded."""
    turn = Draft(
        (index, position - 1, 1),
        "llm",
        scalar_text(message.get("model"), "gemini"),
        "ok",
        span_id=f"{text(message.get('id')) or index}#{position}",
    )
    turn.started_at = id_time(call.get("id"))
    return turn


def call_draft(
    call: dict[str, Any],
    index: int,
    position: int,
    parent: str | None,
    options: ImportOptions,
    path: Path,
) -> Draft:
    """The span of one call, at ``position`` among its message's calls, child of ``parent``."""
    name = scalar_text(call.get("name"), "tool")
    args = call.get("args", ABSENT)
    outcome = STATUS.get(str(call.get("status")), "incomplete")
    if outcome == "rejected" and (cancelled_running(call.get("result")) or subagent_call(call)):
        outcome = "interrupted"  # it ran and the user cut it short
    draft = Draft(
        (index, position),
        "tool",
        name,
        outcome,
        args,
        call.get("result", ABSENT),
        span_id=text(call.get("id")),
        parent_span_id=parent,
    )
    if name in RETRIEVER_TOOLS:
        draft.type = "retriever"
    elif name in MEMORY_TOOLS:
        draft.type = "memory"
    if name in DELEGATE_TOOLS or subagent_call(call):
        draft.type = "handoff"  # (a subagent called by its own name is the tool)
        draft.attributes["tool"] = name
        agent = args.get("agent_name") if isinstance(args, dict) else None
        if name in DELEGATE_TOOLS and isinstance(agent, str) and agent:
            draft.name = agent
        if outcome == "ok":  # its call "succeeded" in returning the failure
            draft.outcome = subagent_outcome(call)
    if name in SHELL_TOOLS and isinstance(args, dict):
        draft.mark_shell(options.labels, args.get("command"))
    if name in SHELL_TOOLS and outcome == "ok":
        code = exit_code(call.get("result"))
        if code is not None:
            draft.attributes["exit_code"] = code
            draft.outcome = exit_outcome(code)
        elif shell_timed_out(call.get("result")):
            draft.outcome = "timeout"
    draft.keep_arguments(options.argument_fields, args, path)
    ended = parse_time(call.get("timestamp"))
    started = id_time(call.get("id"))
    draft.started_at = started or ended
    if started is not None:
        draft.duration_ms = ms_between(started, ended)
        draft.attributes["duration_source"] = "id_epoch_ms"
    return draft
