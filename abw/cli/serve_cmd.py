"""``abw serve``: the MCP server over stdio."""

from __future__ import annotations

import click


@click.command()
def serve() -> int:
    """Serve abw's tools (validate, gate, explain, fingerprint, render), schemas, the refund
    example and the gate-agent-upgrade prompt over MCP on stdin/stdout."""
    from abw.mcp_server import serve as run_server

    run_server()
    return 0
