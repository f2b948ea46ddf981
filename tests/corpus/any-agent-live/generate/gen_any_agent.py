"""Write real any-agent 1.18.0 ``AgentTrace`` JSON files (``agent_trace.model_dump_json``, as its
docs save them), and the same spans as OTLP/JSON lines (``<name>.otlp.jsonl``, through
opentelemetry-exporter-otlp-json-file), against the loopback OpenAI stub in ``fake_openai.py``.

Usage: ``python gen_any_agent.py OUT_DIR [FRAMEWORK:SCENARIO ...]`` (default: every case), run
with HOME=/home/dev from /home/dev/shop, in a venv with ``any-agent[all]==1.18.0`` and
``opentelemetry-exporter-otlp-json-file``. Each case
runs in its own process (any-agent wraps a framework once per process). A run that raised
(``AgentRunError``, an ``AgentCancel``) is saved from the exception's ``trace``, as its docs show.
Runs vary (parallel calls race in any-agent's callbacks); tests/corpus/any-agent-live keeps a
selection of one generation's files.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from fake_openai import FakeOpenAI, neutral_paths

PORT = 18289
MODEL = "openai:gpt-4.1-mini"
SHOP = Path("/home/dev/shop")
NOTES = SHOP / "anyagent_notes.txt"
PROMPT = "CANARY-PROMPT: check order A-1 and its stock, then charge the card."
ORDER = ("lookup_order", {"order_id": "A-1"})
STOCK = ("check_stock", {"sku": "SKU-CANARY-9"})
CHARGE = ("charge_card", {"amount_cents": 4200})
NOTES_CALL = ("read_notes", {"name": "anyagent_notes.txt"})


def lookup_order(order_id: str) -> str:
    """Look up an order by its id.

    Args:
        order_id: the order's id.
    """
    return json.dumps({"order_id": order_id, "status": "CANARY-shipped", "sku": "SKU-CANARY-9"})


def check_stock(sku: str) -> str:
    """Return how many items of a SKU are in stock.

    Args:
        sku: the stock keeping unit.
    """
    return f"{sku}: 7 in stock (CANARY-warehouse)"


def charge_card(amount_cents: int) -> str:
    """Charge the customer's card.

    Args:
        amount_cents: the amount in cents.
    """
    raise RuntimeError(f"CANARY-card-declined for {amount_cents}")


def read_notes(name: str) -> str:
    """Read a note file of the shop.

    Args:
        name: the note file's name.
    """
    return (SHOP / name).read_text()


TOOLS = [lookup_order, check_stock, charge_card, read_notes]

#: scenario -> the stub's script (each request takes the next reply).
SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "parallel-tool-raises": [
        {"tools": [ORDER, STOCK]},
        {"tools": [CHARGE]},
        {"text": "CANARY-ANSWER: the card was declined; order A-1 is in stock."},
    ],
    "api-error": [{"tools": [ORDER]}, {"error": 500}, {"error": 500}, {"error": 500}],
    "callback-cancel": [
        {"tools": [ORDER]},
        {"tools": [STOCK]},
        {"tools": [NOTES_CALL]},
        {"text": "never reached"},
    ],
    "structured-output": [
        {"tools": [ORDER]},
        {"text": json.dumps({"order_id": "A-1", "in_stock": True, "note": "CANARY-struct"})},
        {"text": json.dumps({"order_id": "A-1", "in_stock": True, "note": "CANARY-struct"})},
    ],
    "unknown-tool": [
        {"tools": [("delete_orders", {"scope": "CANARY-all"}), ORDER]},
        {"text": "CANARY-ANSWER: no such tool."},
    ],
    "unicode-args": [
        {"tools": [("read_notes", {"name": "anyagent_notes_ü🙂.txt"})]},
        {"text": "CANARY-ANSWER: Grüße 🙂 " + "x" * 5000},
    ],
    "mcp-tool": [
        {"tools": [("shop_echo", {"text": "CANARY-mcp-arg"})]},
        {"tools": [("shop_fail", {"reason": "CANARY-mcp-fail"})]},
        {"text": "CANARY-ANSWER: MCP tools called."},
    ],
}

CASES = [
    "tinyagent:parallel-tool-raises",
    "tinyagent:api-error",
    "tinyagent:callback-cancel",
    "tinyagent:structured-output",
    "tinyagent:mcp-tool",
    "openai:parallel-tool-raises",
    "langchain:parallel-tool-raises",
    "smolagents:parallel-tool-raises",
    "llama_index:parallel-tool-raises",
    "agno:parallel-tool-raises",
    "google:parallel-tool-raises",
    "tinyagent:unknown-tool",
    "tinyagent:unicode-args",
    *(
        f"{framework}:{scenario}"
        for framework in ("openai", "langchain", "smolagents", "llama_index", "agno", "google")
        for scenario in ("api-error", "callback-cancel", "structured-output", "unknown-tool")
    ),
]


def _cancel_after_two_tools() -> Any:
    """A callback as any-agent's docs write one: stop the run after two tool executions."""
    from any_agent.callbacks import Callback, Context
    from any_agent.frameworks.any_agent import AgentCancel

    class ToolLimitReached(AgentCancel):
        pass

    class LimitToolExecutions(Callback):
        def before_tool_execution(self, context: Context, *args: Any, **kwargs: Any) -> Context:
            count = context.shared.get("tools", 0) + 1
            context.shared["tools"] = count
            if count > 2:
                raise ToolLimitReached("CANARY-limit: more than two tool executions")
            return context

    return LimitToolExecutions()


def _config(framework: str, scenario: str, url: str) -> Any:
    from any_agent import AgentConfig
    from any_agent.config import MCPStdio
    from pydantic import BaseModel

    class OrderCheck(BaseModel):
        order_id: str
        in_stock: bool
        note: str

    tools: list[Any] = list(TOOLS)
    if scenario == "mcp-tool":
        server = str(Path(__file__).parent / "mcp_server.py")
        tools = [MCPStdio(command=sys.executable, args=[server], tools=["shop_echo", "shop_fail"])]
    extra: dict[str, Any] = {}
    if scenario == "callback-cancel":
        from any_agent.callbacks import get_default_callbacks

        extra["callbacks"] = [_cancel_after_two_tools(), *get_default_callbacks()]
    if scenario == "structured-output":
        extra["output_type"] = OrderCheck
    return AgentConfig(
        model_id=MODEL,
        api_base=url,
        api_key="sk-fake-loopback",
        name="shop_agent",
        instructions="CANARY-INSTRUCTIONS: use the tools.",
        tools=tools,
        **extra,
    )


async def _run_case(framework: str, scenario: str, out: Path) -> None:
    from any_agent import AgentFramework, AnyAgent

    stub = FakeOpenAI(SCRIPTS[scenario], port=PORT)
    otlp = out.with_suffix(".otlp.jsonl")
    provider = _export_otlp(otlp)
    try:
        config = _config(framework, scenario, stub.url)
        agent = await AnyAgent.create_async(AgentFramework.from_string(framework), config)
        try:
            trace = await agent.run_async(PROMPT)
        except Exception as exc:  # AgentRunError, an AgentCancel: the trace so far
            print(f"{framework}:{scenario}: {type(exc).__name__}: {exc}", file=sys.stderr)
            trace = exc.trace  # type: ignore[attr-defined]
        out.write_text(trace.model_dump_json(indent=2))
    finally:
        stub.close()
        provider.force_flush()
    for path in (out, otlp):
        neutral_paths(path)
        _neutral_venv(path)


def _export_otlp(path: Path) -> Any:
    """The same spans exported as OTLP/JSON lines, the way any-agent's docs add an exporter:
    a span processor on the global tracer provider it sets up."""
    from any_agent import tracing  # noqa: F401  (sets the global TracerProvider)
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.json.file import FileSpanExporter
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = trace.get_tracer_provider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path=str(path))))
    return provider


def _neutral_venv(path: Path) -> None:
    """Rewrite the venv's and this folder's paths in stack traces to ``/home/dev/.venv/`` and
    ``/home/dev/shop/`` (the recording names no path of the generating machine)."""
    text = path.read_text()
    text = text.replace(f"{sys.prefix}/", "/home/dev/.venv/")
    path.write_text(text.replace(f"{Path(__file__).parent}/", "/home/dev/shop/"))


def main(argv: list[str]) -> None:
    out_dir = Path(argv[0]).resolve()
    cases = argv[1:] or CASES
    NOTES.write_text("CANARY-NOTES: ship before noon.\n")
    NOTES.with_name("anyagent_notes_ü🙂.txt").write_text("CANARY-NOTES: Grüße 🙂\n")
    if len(cases) == 1:
        framework, scenario = cases[0].split(":")
        out = out_dir / f"gen__any-agent-1.18.0__{framework}__{scenario}.json"
        asyncio.run(_run_case(framework, scenario, out))
        return
    env = {**os.environ, "ANY_AGENT_DISABLE_TELEMETRY": "1"}
    for case in cases:
        subprocess.run([sys.executable, __file__, str(out_dir), case], env=env, check=False)


if __name__ == "__main__":
    main(sys.argv[1:])
