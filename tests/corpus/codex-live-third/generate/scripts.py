"""What the fake model answers: per script keyword, per user turn and step."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def msg(text: str) -> dict[str, Any]:
    """An assistant message item."""
    return {
        "type": "message",
        "role": "assistant",
        "id": "msg_x",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def reasoning(text: str) -> dict[str, Any]:
    """A reasoning item with a summary."""
    return {
        "type": "reasoning",
        "id": "rs_x",
        "summary": [{"type": "summary_text", "text": text}],
    }


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A function call item."""
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": json.dumps(arguments),
    }


def ex(call_id: str, cmd: str, **extra: Any) -> dict[str, Any]:
    """An exec_command call."""
    return call(call_id, "exec_command", {"cmd": cmd, "workdir": "/home/dev/shop", **extra})


def web(call_id: str, status: str, query: str) -> dict[str, Any]:
    """A server-side web_search_call item (the fake has no network either)."""
    action = {"type": "search", "query": query}
    return {"type": "web_search_call", "id": f"ws_{call_id}", "status": status, "action": action}


def websearch(turn: int, step: int) -> dict[str, Any]:
    """A search that completed and one that failed, a command, then an answer."""
    if step == 0:
        return {
            "items": [
                web("a", "completed", "python sum of prices"),
                web("b", "failed", "shop secret pricing"),
                ex("call_w", "echo searched"),
            ]
        }
    return {"items": [msg("Searched the web.")]}


def image(turn: int, step: int) -> dict[str, Any]:
    """view_image of the project's logo, of a missing file, then an answer."""
    if step == 0:
        return {"items": [call("call_img", "view_image", {"path": "/home/dev/shop/logo.png"})]}
    if step == 1:
        return {"items": [call("call_noimg", "view_image", {"path": "/home/dev/shop/gone.png"})]}
    return {"items": [msg("The logo is a red square.")]}


def schema(turn: int, step: int) -> dict[str, Any]:
    """A command, then a final answer shaped by --output-schema."""
    if step == 0:
        return {"items": [ex("call_s", "ls shop")]}
    return {"items": [msg(json.dumps({"files": ["cart.py"], "ok": True}))]}


def longout(turn: int, step: int) -> dict[str, Any]:
    """A command whose output is far past the model's output limit."""
    if step == 0:
        return {"items": [ex("call_long", "seq 1 60000; echo secret-tail-marker")]}
    return {"items": [msg("That was long.")]}


def readonly(turn: int, step: int) -> dict[str, Any]:
    """A write the read-only sandbox refuses, then a read it allows."""
    if step == 0:
        return {"items": [ex("call_write", "touch shop/new.py")]}
    if step == 1:
        return {"items": [ex("call_read", "cat shop/cart.py")]}
    return {"items": [msg("The sandbox is read-only.")]}


def rmforce(turn: int, step: int) -> dict[str, Any]:
    """A read, then an ``rm -f`` Codex's command policy refuses under approval "never"."""
    if step == 0:
        return {"items": [ex("call_ls", "ls")]}
    if step == 1:
        return {"items": [ex("call_rm", "rm -f shop/__init__.py")]}
    return {"items": [msg("Done.")]}


def resume(turn: int, step: int) -> dict[str, Any]:
    """Turn N: one command and an answer."""
    if step == 0:
        return {"items": [ex(f"call_r{turn}", f"echo turn{turn}")]}
    return {"items": [msg(f"Done with turn {turn}.")]}


def plain(turn: int, step: int) -> dict[str, Any]:
    """Any other prompt: a plain answer."""
    return {"items": [msg("Hello from the fake model.")]}


def compact_summary(turn: int, step: int) -> dict[str, Any]:
    """The summary a compaction asks for."""
    return {"items": [msg("Summary: the user asked for work on the shop.")]}


SCRIPTS: dict[str, Callable[[int, int], dict[str, Any]]] = {
    "websearch": websearch,
    "image": image,
    "schema": schema,
    "longout": longout,
    "readonly": readonly,
    "rmforce": rmforce,
    "tuiresume": resume,
    "resume": resume,
    "undo": resume,
    "tuicompact": resume,
    "jsonexec": schema,
    "plain": plain,
    "compact-summary": compact_summary,
}
