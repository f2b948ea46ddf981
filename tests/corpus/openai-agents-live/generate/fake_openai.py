"""A loopback stub of OpenAI's ``POST /v1/chat/completions`` (plain and streamed) that answers
from a script: each request takes the next reply. A reply is a dict: ``{"text": ...}``,
``{"tools": [(name, arguments_dict), ...]}`` (parallel when several), or ``{"error": status}``.
``POST /v1/responses`` (OpenAI's Responses API, plain and streamed) answers from the same
script. ``POST /v1/traces/ingest`` is the Agents SDK's trace ingest: each body is appended, byte
for byte, as one line to ``ingest`` (a collector of the exporter's uploads).
Copied from tests/corpus/python-agents-live/generate/ and extended with streamed Responses
and the ingest endpoint.
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
                "function": {"name": name, "arguments": _arguments(args)},
            }
            for name, args in reply["tools"]
        ]
        return {"role": "assistant", "content": None, "tool_calls": calls}
    return {"role": "assistant", "content": reply["text"]}


def _arguments(args: Any) -> str:
    """A call's arguments as JSON text; a string is sent as it is (a broken answer)."""
    return args if isinstance(args, str) else json.dumps(args)


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


def _response(reply: dict[str, Any], n: int, model: str) -> dict[str, Any]:
    """A Responses API answer: ``function_call`` items, or one output ``message``."""
    if "tools" in reply:
        output = [
            {
                "type": "function_call",
                "id": f"fc_{n:04d}_{i}",
                "call_id": f"call_{next(_IDS):04d}",
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
                "status": "completed",
            }
            for i, (name, args) in enumerate(reply["tools"])
        ]
    else:
        text = {"type": "output_text", "text": reply["text"], "annotations": []}
        output = [
            {"type": "message", "id": f"msg_{n:04d}", "role": "assistant", "status": "completed"}
            | {"content": [text]}
        ]
    return {
        "id": f"resp_{n:04d}",
        "object": "response",
        "created_at": 1767225600 + n,
        "status": "completed",
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 40 + 10 * n,
            "output_tokens": 12,
            "total_tokens": 52 + 10 * n,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def _response_events(reply: dict[str, Any], n: int, model: str) -> list[dict[str, Any]]:
    """The server-sent events of a streamed Responses API answer."""
    done = _response(reply, n, model)
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**done, "status": "in_progress", "output": []}}
    ]
    for index, item in enumerate(done["output"]):
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": done})
    return [{**event, "sequence_number": i} for i, event in enumerate(events)]


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

    def __init__(self, script: list[dict[str, Any]], ingest: Path, port: int = 0) -> None:
        self.script = list(script)
        self.ingest = ingest
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path.endswith("/traces/ingest"):
                    with stub.lock, stub.ingest.open("ab") as out:
                        out.write(raw + b"\n")
                    self._send(200, {})
                    return
                body = json.loads(raw)
                with stub.lock:
                    stub.requests.append(body)
                    n = len(stub.requests)
                    reply = stub.script.pop(0) if stub.script else {"text": "done"}
                model = body.get("model", "fake-model")
                if "error" in reply:
                    self._send(reply["error"], {"error": {"message": "overloaded", "type": "x"}})
                elif self.path.endswith("/responses") and body.get("stream"):
                    self._stream(_response_events(reply, n, model), done=False)
                elif self.path.endswith("/responses"):
                    self._send(200, _response(reply, n, model))
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

            def _stream(self, chunks: list[dict[str, Any]], done: bool = True) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in chunks:
                    event = f"event: {chunk['type']}\n" if not done else ""
                    self.wfile.write(f"{event}data: {json.dumps(chunk)}\n\n".encode())
                if done:
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
