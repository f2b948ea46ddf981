"""mini-swe-agent 2.x's Responses API items read as the chat messages they stand for."""

from __future__ import annotations

from typing import Any

from abw.importers.rawio import as_dict, as_list
from abw.importers.spans import ABSENT


def chat_form(message: dict[str, Any]) -> dict[str, Any]:
    """A Responses API item as the chat message it stands for: a ``response`` object is the
    assistant message (its ``output_text`` parts the content, its ``function_call`` items the
    ``tool_calls``), a ``function_call_output`` the ``tool`` message; any other unchanged."""
    if message.get("object") == "response" and "role" not in message:
        items = [as_dict(item) for item in as_list(message.get("output"))]
        calls = [_chat_call(item) for item in items if item.get("type") == "function_call"]
        parts = [p for i in items if i.get("type") == "message" for p in as_list(i.get("content"))]
        response = {"model": message.get("model"), "usage": message.get("usage")}
        extra = {**as_dict(message.get("extra")), "response": response}
        return {"role": "assistant", "content": parts or None, "tool_calls": calls, "extra": extra}
    if message.get("type") == "function_call_output" and "role" not in message:
        reply = {"role": "tool", "tool_call_id": message.get("call_id")}
        return reply | {"content": message.get("output"), "extra": message.get("extra")}
    return message


def _chat_call(item: dict[str, Any]) -> dict[str, Any]:
    """A Responses API ``function_call`` item as a chat ``tool_calls`` entry."""
    function = {"name": item.get("name"), "arguments": item.get("arguments", ABSENT)}
    return {"id": item.get("call_id"), "function": function}
