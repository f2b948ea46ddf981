"""Loopback fake of the Gemini API that answers any Gemini CLI version from a script.

Usage: ``python fake_gemini.py PORT SCRIPT LOG.jsonl``. SCRIPT names a list of
``scripts.SCRIPTS``: the turns, one per ``streamGenerateContent`` request, in order; each turn
is ``{"parts": [...]}`` (Gemini ``Part`` objects: ``text`` / ``functionCall``) or
``{"error": HTTP status}``. Older versions name some tool arguments differently
(``absolute_path``, absolute, for ``file_path``; ``path`` for ``dir_path``) and call subagents
differently (``invoke_agent``, ``delegate_to_agent``, or the subagent by its own name): a call is
fitted to the tools the request declares (:func:`fit_call`). Any other model request
(``generateContent``) gets a short JSON text answer; ``countTokens`` gets a count. Every
request is logged.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from scripts import SCRIPTS

MODEL = "gemini-2.5-pro"
USAGE = {"promptTokenCount": 1200, "candidatesTokenCount": 40, "totalTokenCount": 1240}
#: An argument name -> the names older versions gave it.
ALIASES = {"file_path": ("absolute_path", "path"), "dir_path": ("path", "absolute_path")}
#: The subagents a version may offer by their own name, first found is called.
SUBAGENTS = ("generalist", "codebase_investigator")
PROJECT = "/home/dev/shop/"


class Script:
    """The scripted main-chat turns, consumed in order."""

    def __init__(self, name: str, log: str) -> None:
        self.turns: list[dict[str, Any]] = [dict(turn) for turn in SCRIPTS[name]]
        self.log = log

    def next_turn(self) -> dict[str, Any]:
        """The next scripted turn, or a plain closing text when the script is spent."""
        if self.turns:
            return self.turns.pop(0)
        return {"parts": [{"text": "Done."}]}

    def record(self, entry: dict[str, Any]) -> None:
        """Append one request to the log."""
        with open(self.log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")


def declared(request: dict[str, Any]) -> dict[str, set[str]]:
    """The tools a request declares -> their parameter names."""
    tools: dict[str, set[str]] = {}
    for group in request.get("tools") or []:
        for decl in group.get("functionDeclarations") or []:
            schema = decl.get("parametersJsonSchema") or decl.get("parameters") or {}
            tools[decl.get("name", "")] = set((schema.get("properties") or {}).keys())
    return tools


def fit_subagent(args: dict[str, Any], tools: dict[str, set[str]]) -> tuple[str, dict[str, Any]]:
    """A subagent call as this version makes it: ``invoke_agent`` / ``delegate_to_agent`` with
    ``agent_name``, else the subagent called by its own name with its one text parameter."""
    if "invoke_agent" in tools:
        return "invoke_agent", args
    if "delegate_to_agent" in tools:  # (0.2x: its agents, codebase_investigator among them)
        return "delegate_to_agent", {
            "agent_name": "codebase_investigator",
            "objective": args["prompt"],
        }
    for agent in SUBAGENTS:
        if agent in tools:
            params = sorted(tools[agent]) or ["prompt"]
            key = "prompt" if "prompt" in params else params[0]
            return agent, {key: args["prompt"]}
    return "invoke_agent", args


def fit_call(call: dict[str, Any], tools: dict[str, set[str]]) -> dict[str, Any]:
    """``call`` with its argument names fitted to the tool this version declares."""
    name, args = call["name"], dict(call.get("args") or {})
    if name == "invoke_agent":
        name, args = fit_subagent(args, tools)
    params = tools.get(name)
    if params:
        for key in list(args):
            if key not in params:
                alias = next((a for a in ALIASES.get(key, ()) if a in params), None)
                if alias:
                    args[alias] = args.pop(key)
                if alias == "absolute_path" and not args[alias].startswith("/"):
                    args[alias] = PROJECT + args[alias]  # (those versions want it absolute)
    return {"name": name, "args": args}


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
            self._stream(self.script.next_turn(), declared(req))
        elif ":generateContent" in self.path:
            text = json.dumps({"reasoning": "fake", "next_speaker": "user", "model_choice": "pro"})
            self._send_json(200, chunk([{"text": text}], True))
        else:
            self._send_json(404, {"error": {"code": 404, "message": "not found"}})

    def _stream(self, turn: dict[str, Any], tools: dict[str, set[str]]) -> None:
        if "error" in turn:
            status = int(turn["error"])
            msg = {"code": status, "message": "fake upstream failure", "status": "INTERNAL"}
            self._send_json(status, {"error": msg})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        parts = [
            {"functionCall": fit_call(p["functionCall"], tools)} if "functionCall" in p else p
            for p in turn["parts"]
        ]
        self.script.record({"answer": parts})
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
