"""A tiny stdio MCP server for the recordings: ``lookup`` answers, ``fail`` returns an error
result (``isError``), ``crash`` kills the server mid-call. JSON-RPC, one message a line."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

TOOLS = [
    {
        "name": name,
        "description": text,
        "inputSchema": {"type": "object", "properties": {"item": {"type": "string"}}},
    }
    for name, text in (
        ("lookup", "Look up an item's stock."),
        ("fail", "Always fails."),
        ("crash", "Crashes the server."),
    )
]


def answer(request: dict[str, Any]) -> dict[str, Any] | None:
    """The result of one request (None for a notification)."""
    method = request.get("method")
    if method == "initialize":
        return {
            "protocolVersion": request["params"].get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "shopdb", "version": "1.0.0"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        name = request["params"]["name"]
        item = request["params"].get("arguments", {}).get("item", "?")
        if name == "crash":
            os._exit(1)
        if name == "fail":
            return {"content": [{"type": "text", "text": f"no such item: {item}"}], "isError": True}
        return {"content": [{"type": "text", "text": f"{item}: 3 in stock"}]}
    return {} if "id" in request else None


def main() -> None:
    """Serve requests from stdin until it closes."""
    for line in sys.stdin:
        request = json.loads(line)
        result = answer(request)
        if "id" in request and result is not None:
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": result}
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
