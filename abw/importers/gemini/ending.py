"""The run's end: its final status and answer, from the messages the conversation ends with."""

from __future__ import annotations

from typing import Any

from abw.importers.gemini.messages import (
    calls_holder,
    history_copy,
    parts_call,
    parts_text,
    tool_results,
)
from abw.importers.gemini.outcomes import any_cancelled

#: The info message Gemini CLI records when the user cancels the turn in flight (Esc).
CANCELLED = "Request cancelled."
#: How the info message Gemini CLI records when a turn would pass ``model.maxSessionTurns`` opens
#: (``handleMaxSessionTurnsEvent``): the CLI stopped the run at its limit.
MAX_TURNS = "The session has reached the maximum number of turns"


def run_end(messages: list[Any]) -> tuple[str, str | None]:
    """The run's final status and answer, from the messages the conversation ends with: error
    after an ``error`` message or the max-session-turns notice, cancelled after ``Request
    cancelled.`` or a model message one of whose calls was cancelled (the CLI returns no
    cancelled call to the model: the user stopped the turn, and 0.6x records no notice when
    another call of it had finished), success after a model message calling no tool, else
    unknown; the answer is the last model text."""
    final_status, final_text = "unknown", None
    for index, message in enumerate(messages):
        kind = message.get("type")
        if (kind == "user" and tool_results(message)) or calls_holder(messages, index):
            continue  # what the turn's calls returned, after it ended: not a new turn
        if kind == "user":
            final_status = "unknown"
        elif kind == "error":
            final_status = "error"
        elif kind == "info" and message.get("content") == CANCELLED:
            final_status = "cancelled"  # the user pressed Esc: the turn was cancelled
        elif kind == "info" and str(message.get("content")).startswith(MAX_TURNS):
            final_status = "error"  # (as a Claude Code ``--max-turns`` stop)
        elif kind == "gemini":
            content, calls = message.get("content"), bool(message.get("toolCalls"))
            if history_copy(message):
                content, calls = parts_text(content), parts_call(content)
            has_text = isinstance(content, str) and bool(content.strip())
            answered = has_text or message.get("thoughts")
            if has_text:
                final_text = content
            # a model message with no text, no thoughts and no calls stood for calls that never
            # finished: Gemini CLI records a turn's calls once they complete (killed before)
            final_status = "unknown" if calls or not answered else "success"
            if any_cancelled(message):
                final_status = "cancelled"
    return final_status, final_text
