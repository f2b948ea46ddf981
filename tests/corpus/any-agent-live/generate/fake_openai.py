"""A loopback stub of OpenAI's ``POST /v1/chat/completions`` (plain and streamed) that answers
from a script: each request takes the next reply. A reply is a dict: ``{"text": ...}``,
``{"tools": [(name, arguments_dict), ...]}`` (parallel when several), or ``{"error": status}``.
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

_IDS = itertools.count(1)


def _message(reply: dict[str, Any]) -> dict[str, Any]:
    if "tools" in reply:
        calls = [
            {
                "id": f"call_{next(_IDS):04d}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for name, args in reply["tools"]
        ]
        return {"role": "assistant", "content": None, "tool_calls": calls}
    return {"role": "assistant", "content": reply["text"]}


def _usage(n: int) -> dict[str, int]:
    return {"prompt_tokens": 40 + 10 * n, "completion_tokens": 12, "total_tokens": 52 + 10 * n}


def _completion(reply: dict[str, Any], n: int, model: str) -> dict[str, Any]:
    message = _message(reply)
    finish = "tool_calls" if "tools" in reply else "stop"
    return {
        "id": f"chatcmpl-{n:04d}",
        "object": "chat.completion",
        "created": 1767225600 + n,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": _usage(n),
    }


def _chunks(reply: dict[str, Any], n: int, model: str) -> list[dict[str, Any]]:
    base = {"id": f"chatcmpl-{n:04d}", "object": "chat.completion.chunk", "created": 1767225600 + n}
    base["model"] = model
    message = _message(reply)
    if "tool_calls" in message:
        delta: dict[str, Any] = {
            "role": "assistant",
            "tool_calls": [{"index": i, **c} for i, c in enumerate(message["tool_calls"])],
        }
        finish = "tool_calls"
    else:
        delta = {"role": "assistant", "content": message["content"]}
        finish = "stop"
    return [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        {**base, "choices": [], "usage": _usage(n)},
    ]


class FakeOpenAI:
    """Serve ``script`` on 127.0.0.1; ``url`` is the base URL (``.../v1``)."""

    def __init__(self, script: list[dict[str, Any]], port: int = 0) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                n = len(stub.requests)
                reply = stub.script.pop(0) if stub.script else {"text": "done"}
                model = body.get("model", "fake-model")
                if "error" in reply:
                    self._send(reply["error"], {"error": {"message": "overloaded", "type": "x"}})
                elif body.get("stream"):
                    self._stream(_chunks(reply, n, model))
                else:
                    self._send(200, _completion(reply, n, model))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, chunks: list[dict[str, Any]]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in chunks:
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

        return Handler

    def close(self) -> None:
        self.server.shutdown()


def neutral_paths(path: Path) -> None:
    """Rewrite the interpreter's own library path in stack traces to ``/usr/lib/python3.X/``
    (the recording then names no path of the generating machine beyond ``/home/dev``)."""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    own = f"{sys.base_prefix}/lib/{version}/".encode()
    path.write_bytes(path.read_bytes().replace(own, f"/usr/lib/{version}/".encode()))
