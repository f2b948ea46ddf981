"""Loopback fake of the Gemini API that answers Gemini CLI from a script.

Usage: ``python fake_gemini.py PORT SCRIPT LOG.jsonl``. SCRIPT names a list of
``scripts.SCRIPTS``: the turns, one per ``streamGenerateContent`` request, in order; each turn
is ``{"parts": [...]}`` (Gemini ``Part`` objects: ``text`` / ``functionCall``) or
``{"error": HTTP status}``. Any other model request (``generateContent``: routing, next-speaker,
summaries) gets a short JSON text answer; ``countTokens`` gets a count. Every request is logged.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from scripts import SCRIPTS

MODEL = "gemini-2.5-pro"
USAGE = {"promptTokenCount": 1200, "candidatesTokenCount": 40, "totalTokenCount": 1240}


class Script:
    """The scripted main-chat turns, consumed in order."""

    def __init__(self, name: str, log: str) -> None:
        self.turns: list[dict[str, Any]] = [dict(turn) for turn in SCRIPTS[name]]
        self.log = log

    def next_turn(self) -> dict[str, Any]:
        """The next scripted turn, or a plain closing text when the script is spent."""
        if self.turns:
            turn = self.turns[0]
            if not turn.get("repeat"):
                self.turns.pop(0)
            return turn
        return {"parts": [{"text": "Done."}]}

    def record(self, entry: dict[str, Any]) -> None:
        """Append one request to the log."""
        with open(self.log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")


def chunk(parts: list[dict[str, Any]], finish: bool) -> dict[str, Any]:
    """One GenerateContentResponse holding ``parts``."""
    cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    body: dict[str, Any] = {"candidates": [cand], "modelVersion": MODEL}
    if finish:
        cand["finishReason"] = "STOP"
        body["usageMetadata"] = USAGE
    return body


class Handler(BaseHTTPRequestHandler):
    """Answers the Gemini API routes Gemini CLI calls."""

    script: Script

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def _send_json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        """Model listings and the like: an empty answer."""
        self.script.record({"method": "GET", "path": self.path})
        self._send_json(200, {"models": []})

    def do_POST(self) -> None:
        """Route a model request."""
        length = int(self.headers.get("Content-Length") or 0)
        req = json.loads(self.rfile.read(length) or b"{}")
        self.script.record({"method": "POST", "path": self.path, "body": req})
        if ":countTokens" in self.path:
            self._send_json(200, {"totalTokens": 100})
        elif ":streamGenerateContent" in self.path:
            self._stream(self.script.next_turn())
        elif ":generateContent" in self.path:
            text = json.dumps({"reasoning": "fake", "next_speaker": "user", "model_choice": "pro"})
            self._send_json(200, chunk([{"text": text}], True))
        else:
            self._send_json(404, {"error": {"code": 404, "message": "not found"}})

    def _stream(self, turn: dict[str, Any]) -> None:
        if "error" in turn:
            status = int(turn["error"])
            msg: dict[str, Any] = {"code": status, "message": "fake upstream failure"}
            msg["status"] = "RESOURCE_EXHAUSTED" if status == 429 else "INTERNAL"
            if status == 429:
                msg["message"] = "Quota exceeded for metric: generate_content_requests"
                msg["details"] = [
                    {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}
                ]
            self._send_json(status, {"error": msg})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        parts = turn["parts"]
        for i, part in enumerate(parts):
            body = chunk([part], i == len(parts) - 1)
            self.wfile.write(b"data: " + json.dumps(body).encode() + b"\r\n\r\n")
            self.wfile.flush()


def main() -> None:
    """Serve until killed."""
    port, script, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    Handler.script = Script(script, log)
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
