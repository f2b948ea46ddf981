"""What a recorded message is: a notice of the CLI's own, a model turn the CLI copied into the
history, a message that only holds calls, a user message that only returns tool results."""

from __future__ import annotations

from typing import Any

#: The messages Gemini CLI records of its own (notices, not the user's or the model's).
NOTICE_TYPES = frozenset({"info", "warning", "error"})
#: The message types Gemini CLI records (a recording with none of them and no sessionId is not one).
MESSAGE_TYPES = frozenset({"user", "gemini", "info", "warning", "error"})


def text(value: Any) -> str | None:
    """``value`` when it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def history_copy(message: dict[str, Any]) -> bool:
    """Whether a ``gemini`` message is a model turn Gemini CLI copied into the recording when it
    set the chat's history (``setHistory``: ``/chat resume`` writes the saved turns again, under
    new ids): its ``Part`` list as content, no ``model``, ``tokens`` null. No model call (every
    answer the model gave is recorded with its model); the turn it copies stays the answer."""
    return (
        message.get("model") is None
        and "tokens" in message
        and message["tokens"] is None
        and isinstance(message.get("content"), list)
        and bool(message["content"])  # (an empty answer the model gave: no parts, no copy)
        and not message.get("toolCalls")
    )


def parts_text(parts: list[Any]) -> str:
    """The answer text of a ``Part`` list (its thoughts left out)."""
    return "".join(
        p["text"]
        for p in parts
        if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
    )


def parts_call(parts: list[Any]) -> bool:
    """Whether a ``Part`` list calls a tool."""
    return any(isinstance(p, dict) and "functionCall" in p for p in parts)


def calls_holder(messages: list[Any], index: int) -> bool:
    """Whether ``messages[index]`` only holds tool calls, no model call: the ``gemini`` message
    Gemini CLI's ``recordToolCalls`` makes when the last message is not the model's (cancelled
    calls recorded after the ``Request cancelled.`` info message): no text, thoughts or tokens."""
    message = messages[index]
    before = messages[index - 1] if index else None
    return (
        isinstance(before, dict)
        and before.get("type") in NOTICE_TYPES
        and bool(message.get("toolCalls"))
        and not message.get("content")
        and not message.get("thoughts")
        and "tokens" not in message
    )


def tool_results(message: dict[str, Any]) -> bool:
    """Whether a ``user`` message only returns tool results (``functionResponse`` parts, which
    0.6x records as a message of its own), no prompt of the user's."""
    content = message.get("content")
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(p, dict) and set(p) == {"functionResponse"} for p in content)
    )
