"""A loopback fake of the OpenAI Responses API for Codex CLI: POST /v1/responses answered with an
SSE stream from a script. The script is chosen by a keyword in the session's first user prompt;
its step is the number of tool outputs after the last user message."""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from scripts import SCRIPTS, Offer

LOG = sys.argv[2] if len(sys.argv) > 2 else None


def _texts(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, list):
        parts = [
            c.get("text", c.get("encrypted_content", "")) for c in content if isinstance(c, dict)
        ]
        return "\n".join(str(p) for p in parts)
    return str(content or "")


def _prompt(item: dict[str, Any]) -> bool:
    """A person's message, or the task a parent agent gave this one (multi-agent v2)."""
    if item.get("type") == "agent_message":
        return "NEW_TASK" in _texts(item)
    user = item.get("type") == "message" and item.get("role") == "user"
    return user and not _texts(item).lstrip().startswith("<")


def _position(items: list[dict[str, Any]]) -> tuple[str, int, int]:
    """(script keyword, user turn index, tool outputs since the last user message)."""
    users = [i for i, item in enumerate(items) if _prompt(item)]
    texts = [_texts(items[i]) for i in users]
    keyword = next((k for k in SCRIPTS for t in texts if f"[{k}]" in t), "plain")
    last = users[-1] if users else 0
    outputs = sum(1 for item in items[last:] if str(item.get("type", "")).endswith("_output"))
    return keyword, len(users) - 1, outputs


def _sse(kind: str, data: dict[str, Any]) -> bytes:
    data = {"type": kind, **data}
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


class Handler(BaseHTTPRequestHandler):
    """One request: log it, answer from the script."""

    def log_message(self, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        body = json.dumps({"models": [], "data": []}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["content-length"])) or b"{}")
        items = request.get("input") or []
        keyword, turn, step = _position(items)
        if items and "CONTEXT CHECKPOINT COMPACTION" in _texts(items[-1]):
            keyword, turn, step = "compact-summary", 0, 0
        if LOG:
            with open(LOG, "a") as log:
                log.write(
                    json.dumps(
                        {
                            "path": self.path,
                            "keyword": keyword,
                            "turn": turn,
                            "step": step,
                            "request": request,
                        }
                    )
                    + "\n"
                )
        answer = SCRIPTS[keyword](turn, step, Offer(request.get("tools") or []))
        if answer.get("http_status"):
            self.send_response(answer["http_status"])
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps({"error": {"message": answer["message"]}}).encode())
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        rid = f"resp_{keyword}_{turn}_{step}"
        self.wfile.write(_sse("response.created", {"response": {"id": rid}}))
        for n, item in enumerate(answer.get("items", [])):
            self.wfile.write(_sse("response.output_item.added", {"output_index": n, "item": item}))
            self.wfile.write(_sse("response.output_item.done", {"output_index": n, "item": item}))
        if answer.get("fail"):
            error = {"code": "server_error", "message": answer["fail"]}
            self.wfile.write(_sse("response.failed", {"response": {"id": rid, "error": error}}))
        else:
            usage = answer.get("usage", {"input_tokens": 1200, "output_tokens": 80})
            usage = {
                "input_tokens": usage["input_tokens"],
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": usage["output_tokens"],
                "output_tokens_details": {"reasoning_tokens": 10},
                "total_tokens": usage["input_tokens"] + usage["output_tokens"],
            }
            self.wfile.write(_sse("response.completed", {"response": {"id": rid, "usage": usage}}))
        self.wfile.flush()


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
