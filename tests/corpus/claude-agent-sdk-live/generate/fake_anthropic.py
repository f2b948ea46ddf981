"""A loopback stub of Anthropic's Messages API (``POST /v1/messages``, streamed and plain) for
driving the real Claude Code CLI.

Each prompt carries a scenario tag such as ``[S-basic]``; the reply is chosen from
``SCRIPTS[tag]`` by how many assistant turns the request already holds. A step is a list of
blocks: ``("text", str)``, ``("thinking", str)``, ``("tool", name, input)``; or
``{"error": status}`` for an API error. Requests without a tag (titles, summaries, warm-ups)
get a short text reply. Every request path is logged to stderr.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "claude-sonnet-4-5-20250929"
_COMPACT = "create a detailed summary of the conversation"
Step = list[tuple[Any, ...]] | dict[str, Any]

SCRIPTS: dict[str, list[Step]] = {
    "S-custom": [
        [
            ("tool", "mcp__shop__price", {"sku": "A-1"}),
            ("tool", "mcp__shop__boom", {"sku": "B-2"}),
        ],
        [("tool", "mcp__shop__stock", {"sku": "C-3"})],
        [("text", "Prices looked up.")],
    ],
    "S-resume": [
        [("tool", "Bash", {"command": "ls *.py", "description": "List Python files"})],
        [("text", "Two Python files.")],
    ],
    "S-perm": [
        [("tool", "Bash", {"command": "rm -rf build", "description": "Clean build"})],
        [("tool", "Bash", {"command": "touch original.txt", "description": "Touch"})],
        [("text", "Permissions handled.")],
    ],
    "S-permstop": [
        [("tool", "Bash", {"command": "rm -rf dist", "description": "Clean dist"})],
        [("text", "Should not get here.")],
    ],
    "S-hook": [
        [
            ("tool", "Bash", {"command": "git push --force", "description": "Push"}),
            ("tool", "Read", {"file_path": "/home/dev/shop/cart.py"}),
        ],
        [("text", "The push was blocked.")],
    ],
    "S-maxturns": [
        [("tool", "Bash", {"command": "echo one", "description": "One"})],
        [("tool", "Bash", {"command": "echo two", "description": "Two"})],
        [("text", "Never reached.")],
    ],
    "S-interrupt": [
        [
            (
                "tool",
                "Bash",
                {"command": "python3 -c 'import time; time.sleep(30)'", "description": "Wait"},
            )
        ],
        [("text", "Waited.")],
    ],
    "S-after": [[("text", "Stopped the wait as asked.")]],
    "S-agents": [
        [
            (
                "tool",
                "Agent",
                {
                    "description": "Review the cart",
                    "prompt": "[S-reviewer] Review cart.py.",
                    "subagent_type": "reviewer",
                },
            )
        ],
        [("text", "The reviewer found no issue.")],
    ],
    "S-reviewer": [
        [("tool", "Read", {"file_path": "/home/dev/shop/cart.py"})],
        [("tool", "Bash", {"command": "python3 -m pytest -q", "description": "Run tests"})],
        [("text", "Reviewed: one failing test.")],
    ],
    "S-settings": [
        [("tool", "Bash", {"command": "curl https://shop.example.com", "description": "Fetch"})],
        [("tool", "Bash", {"command": "exit 3", "description": "Fail"})],
        [("text", "Settings applied.")],
    ],
    "S-apierr": [{"error": 529}],
}


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content or [] if isinstance(b, dict)]


def _tag_at(body: dict[str, Any]) -> tuple[str | None, int]:
    """The tag of the last user message naming one, and that message's index."""
    messages = body.get("messages", [])
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") != "user":
            continue
        for text in _texts(messages[index].get("content")):
            for tag in SCRIPTS:
                if f"[{tag}]" in text:
                    return tag, index
    return None, 0


def scenario(body: dict[str, Any]) -> str | None:
    """The tag of the last user message that names one."""
    return _tag_at(body)[0]


def _pick(body: dict[str, Any]) -> Step:
    tag, index = _tag_at(body)
    last = body.get("messages", [{}])[-1]
    if last.get("role") == "user" and _COMPACT in " ".join(_texts(last.get("content"))):
        return [("text", "<summary>The cart totals were rounded to cents.</summary>")]
    if tag is None or not body.get("tools"):
        return [("text", "Shop session")]
    later = body["messages"][index:]
    turns = sum(1 for m in later if m.get("role") == "assistant")
    steps = SCRIPTS[tag]
    return _fill(steps[min(turns, len(steps) - 1)], _background_ids(later))


def _background_ids(messages: list[dict[str, Any]]) -> list[str]:
    """The ids of background tasks the tool results so far name, in order."""
    found: list[str] = []
    for m in messages:
        for block in m.get("content") if isinstance(m.get("content"), list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                text = json.dumps(block.get("content"))
                found += re.findall(r"with ID: (\w+)", text)
    return found


def _fill(step: Step, ids: list[str]) -> Step:
    """``step`` with ``$BG<n>`` in tool inputs replaced by the n-th background task id."""
    if isinstance(step, dict):
        return step
    out = []
    for part in step:
        if part[0] == "tool":
            raw = json.dumps(part[2])
            for n, ident in enumerate(ids):
                raw = raw.replace(f"$BG{n}", ident)
            part = ("tool", part[1], json.loads(raw))
        out.append(part)
    return out


def _block(part: tuple[Any, ...], key: str, i: int) -> dict[str, Any]:
    if part[0] in ("text", "slowtext"):
        return {"type": "text", "text": part[1], "slow": part[0] == "slowtext"}
    if part[0] == "thinking":
        return {"type": "thinking", "thinking": part[1], "signature": "c2ln" + key[:8]}
    ident = "toolu_01" + hashlib.sha256(f"{key}{i}".encode()).hexdigest()[:22]
    return {"type": "tool_use", "id": ident, "name": part[1], "input": part[2]}


def message(step: list[tuple[Any, ...]], key: str, model: str = MODEL) -> dict[str, Any]:
    """A whole assistant message for ``step``."""
    used = [p[1] for p in step if p[0] == "usage"]
    step = [p for p in step if p[0] != "usage"]
    content = [_block(p, key, i) for i, p in enumerate(step)]
    stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
    return {
        "id": "msg_01" + key[:22],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": used[0] if used else 120,
            "output_tokens": 30,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def _deltas(block: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    kind = block["type"]
    if kind == "text":
        words = block["text"].split(" ") if block.get("slow") else [block["text"]]
        return {"type": "text", "text": ""}, [
            {"type": "text_delta", "text": w + " " * (len(words) > 1)} for w in words
        ]
    if kind == "thinking":
        return {"type": "thinking", "thinking": "", "signature": ""}, [
            {"type": "thinking_delta", "thinking": block["thinking"]},
            {"type": "signature_delta", "signature": block["signature"]},
        ]
    raw = json.dumps(block["input"], ensure_ascii=False)
    half = len(raw) // 2
    start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
    return start, [
        {"type": "input_json_delta", "partial_json": p} for p in (raw[:half], raw[half:])
    ]


def sse_events(msg: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The SSE events that stream ``msg``."""
    head = dict(msg, content=[], stop_reason=None)
    head["usage"] = dict(msg["usage"], output_tokens=1)
    events = [("message_start", {"type": "message_start", "message": head})]
    for i, block in enumerate(msg["content"]):
        start, deltas = _deltas(block)
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": start},
            )
        )
        events += [
            ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d})
            for d in deltas
        ]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": msg["usage"]["output_tokens"]},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


class Handler(BaseHTTPRequestHandler):
    """Answers the Messages API and the few side endpoints Claude Code calls."""

    def log_message(self, fmt: str, *args: Any) -> None:
        sys.stderr.write(f"{self.command} {self.path}\n")

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._json(
            200,
            {"data": [{"type": "model", "id": MODEL, "display_name": "Sonnet"}], "has_more": False},
        )

    def do_HEAD(self) -> None:
        self._json(200, {})

    def do_POST(self) -> None:
        size = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(size)
        body = json.loads(raw or b"{}")
        if "count_tokens" in self.path:
            self._json(200, {"input_tokens": 100})
            return
        if not self.path.startswith("/v1/messages"):
            self._json(200, {})
            return
        step = _pick(body)
        names = sorted(t.get("name", "") for t in body.get("tools") or [])
        sys.stderr.write(f"  tools={names}\n")
        sys.stderr.write(f"  tag={scenario(body)} msgs={len(body.get('messages', []))}\n")
        if isinstance(step, dict):
            kind = "overloaded_error" if step["error"] == 529 else "invalid_request_error"
            self._json(
                step["error"],
                {"type": "error", "error": {"type": kind, "message": "scripted failure"}},
            )
            return
        key = hashlib.sha256(raw).hexdigest()
        msg = message(step, key, body.get("model") or MODEL)
        events = sse_events(msg)
        if not body.get("stream"):
            for block in msg["content"]:
                block.pop("slow", None)
            self._json(200, msg)
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        slow = any(b.pop("slow", False) for b in msg["content"])
        for event, data in events:
            if slow and event == "content_block_delta":
                time.sleep(0.5)
                self.wfile.flush()
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()


def main() -> None:
    """Serve on 127.0.0.1:PORT (argv[1])."""
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8766
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
