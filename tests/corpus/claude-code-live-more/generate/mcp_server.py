"""A tiny stdio MCP server (newline-delimited JSON-RPC): ``lookup`` answers, ``explode``
returns ``isError``."""

from __future__ import annotations

import json
import sys
import time

TOOLS = [
    {
        "name": name,
        "description": f"{name} a price",
        "inputSchema": {"type": "object", "properties": {"sku": {"type": "string"}}},
    }
    for name in ("lookup", "explode", "crash", "slow", "image")
]


def answer(request: dict) -> dict | None:
    """The response to ``request``; None for a notification."""
    method, params = request.get("method"), request.get("params") or {}
    if "id" not in request:
        return None
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "shopdb", "version": "0.1"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call" and params.get("name") == "lookup":
        result = {"content": [{"type": "text", "text": "price of A-1: 3.50"}]}
    elif method == "tools/call" and params.get("name") == "crash":
        sys.exit(3)
    elif method == "tools/call" and params.get("name") == "slow":
        time.sleep(20)
        result = {"content": [{"type": "text", "text": "late"}]}
    elif method == "tools/call" and params.get("name") == "image":
        result = {
            "content": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}],
            "structuredContent": {"sku": "A-1", "price": 3.5},
        }
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "shopdb is down"}], "isError": True}
    else:
        result = {}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    """Serve stdin/stdout until EOF."""
    for line in sys.stdin:
        if line.strip():
            reply = answer(json.loads(line))
            if reply is not None:
                print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
