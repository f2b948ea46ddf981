"""A tiny stdio MCP server for Codex: ``lookup`` answers, ``broken`` returns an error result,
``crash`` kills the server mid-call, ``slow`` takes 30 seconds (to be interrupted)."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

TOOLS = [
    {
        "name": name,
        "description": text,
        "inputSchema": {"type": "object", "properties": {"sku": {"type": "string"}}},
    }
    for name, text in [
        ("lookup", "Look up a product by SKU."),
        ("broken", "Always fails."),
        ("crash", "Crashes the server."),
        ("slow", "Takes half a minute."),
    ]
]


def answer(request: dict[str, Any]) -> dict[str, Any] | None:
    """The result of one JSON-RPC request (None for a notification)."""
    method = request.get("method")
    if "id" not in request:
        return None
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": request["params"].get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "shopdb", "version": "0.1.0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        name = request["params"]["name"]
        if name == "crash":
            os._exit(3)
        if name == "slow":
            time.sleep(30)
        text = "price: 12.50 EUR" if name == "lookup" else "database is locked"
        result = {"content": [{"type": "text", "text": text}], "isError": name == "broken"}
    else:
        return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no"}}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    """Serve requests line by line on stdin/stdout."""
    for line in sys.stdin:
        if line.strip():
            reply = answer(json.loads(line))
            if reply is not None:
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
