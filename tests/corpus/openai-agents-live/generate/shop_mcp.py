"""A stdio MCP server of the made-up shop: ``lookup_sku`` answers, ``reserve_stock`` raises."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("shop-inventory")


@server.tool()
def lookup_sku(sku: str) -> str:
    """How many of a product are in stock."""
    return f"{sku}: 7 in stock (CANARY-MCP-OUT)"


@server.tool()
def reserve_stock(sku: str, quantity: int) -> str:
    """Reserve units of a product."""
    raise RuntimeError(f"warehouse offline for {sku} (CANARY-MCP-ERR)")


if __name__ == "__main__":
    server.run()
