"""A small stdio MCP server (FastMCP) with one tool that answers and one that raises."""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP

server = FastMCP("shop")


@server.tool()
def shop_echo(text: str) -> str:
    """Echo a text back."""
    return f"echo: {text}"


@server.tool()
def shop_fail(reason: str) -> str:
    """Always fail."""
    raise ValueError(f"shop_fail refused: {reason}")


if __name__ == "__main__":
    server.run()
