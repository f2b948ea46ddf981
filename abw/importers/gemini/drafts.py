"""A recording's messages into spans: each ``gemini`` message an llm span (named by its model),
followed by its calls; a message that only holds calls adds them to the previous model turn."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from abw.importers.base import ImportOptions
from abw.importers.gemini.calls import call_drafts
from abw.importers.gemini.messages import calls_holder, history_copy, text
from abw.importers.rawio import as_dict, scalar_text
from abw.importers.spans import Draft, parse_time


def message_drafts(
    messages: list[Any],
    made: set[int],
    owned: set[int],
    options: ImportOptions,
    path: Path,
    line_of: Callable[[tuple[str | int, ...]], int | None],
) -> list[Draft]:
    """The spans of ``messages``, in order; those at the indexes in ``made`` (messages Gemini
    CLI made for its history), the model turns it copied into the history and those in
    ``owned``, a subagent's (:func:`.subagents.subagent_messages`: the session's calls appended
    to one are a turn of their own), are no steps."""
    drafts: list[Draft] = []
    for index, message in enumerate(messages):
        if message.get("type") != "gemini" or index in made or history_copy(message):
            continue
        if index in owned:
            call_drafts(message, index, None, options, path, drafts, line_of, own_turn=True)
            continue
        if calls_holder(messages, index) and drafts:
            parent = next((d.span_id for d in reversed(drafts) if d.type == "llm"), None)
            call_drafts(message, index, parent, options, path, drafts, line_of)
            continue
        when = parse_time(message.get("timestamp"))
        llm = Draft(
            (index, 0),
            "llm",
            scalar_text(message.get("model"), "gemini"),
            "ok",
            output={"content": message.get("content"), "thoughts": message.get("thoughts")},
            span_id=text(message.get("id")),
        )
        llm.started_at = when
        llm.line = line_of(("messages", index))
        tokens = as_dict(message.get("tokens"))
        for source, target in (("input", "input_tokens"), ("output", "output_tokens")):
            if isinstance(tokens.get(source), int):
                llm.attributes[target] = tokens[source]
        drafts.append(llm)
        call_drafts(message, index, llm.span_id, options, path, drafts, line_of)
    return drafts
