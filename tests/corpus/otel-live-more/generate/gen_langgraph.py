"""Drive LangGraph's ``create_react_agent`` (``ChatOpenAI`` at the loopback stub), traced by
openinference-instrumentation-langchain or by OpenLLMetry's
opentelemetry-instrumentation-langchain, and export each run with
opentelemetry-exporter-otlp-json-file: ``python gen_langgraph.py OUT_DIR
openinference|openllmetry [CASE]``.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from importlib.metadata import version
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, neutral_paths
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.prebuilt import ToolNode, create_react_agent
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

PROMPT = "CANARY-PROMPT refund order 42 for /home/dev/shop customer"

STUB: FakeOpenAI | None = None

#: Set when the slow tool starts: the run is cancelled then, not after a fixed delay.
STARTED = threading.Event()


@tool
def lookup_order(order_id: int) -> str:
    """Look an order up."""
    return f"CANARY-RESULT order {order_id}: 2 items, paid"


@tool
def check_stock(sku: str) -> str:
    """Check the stock of an item."""
    return f"CANARY-STOCK {sku}: 3 left"


@tool
def charge_card(order_id: int) -> str:
    """Charge the customer's card."""
    raise RuntimeError(f"CANARY-ERROR card declined for order {order_id}")


@tool
async def export_order(order_id: int) -> str:
    """Export an order (slow)."""
    STARTED.set()
    await asyncio.sleep(5)
    return f"CANARY-EXPORT {order_id}"


@tool
def ask_billing_agent(question: str) -> str:
    """Ask the billing agent."""
    agent = create_react_agent(_model(), [lookup_order], name="billing_agent")
    result = agent.invoke({"messages": [("user", question)]})
    return result["messages"][-1].content


def _model() -> ChatOpenAI:
    assert STUB is not None
    return ChatOpenAI(model="gpt-5-mini", base_url=STUB.url, api_key="x", max_retries=0)


def _instrument(kind: str, provider: TracerProvider) -> Any:
    if kind == "openinference":
        from openinference.instrumentation.langchain import LangChainInstrumentor

        instrumentor = LangChainInstrumentor()
    else:
        from opentelemetry.instrumentation.langchain import LangchainInstrumentor

        instrumentor = LangchainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    return instrumentor


def _run(out: Path, kind: str, script: list[dict[str, Any]], build: Any, cancel: float = 0) -> None:
    global STUB
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path=str(out))))
    instrumentor = _instrument(kind, provider)
    STUB = FakeOpenAI(script)
    agent = build()
    try:
        result = asyncio.run(_invoke(agent, cancel))
        print(out.name, "->", repr(result["messages"][-1].content)[:80])
    except BaseException as exc:  # a cancelled run raises CancelledError
        print(out.name, "raised", type(exc).__name__)
    instrumentor.uninstrument()
    provider.shutdown()
    STUB.close()
    neutral_paths(out)


async def _invoke(agent: Any, cancel: float) -> Any:
    task = asyncio.ensure_future(agent.ainvoke({"messages": [("user", PROMPT)]}))
    if cancel:
        while not STARTED.is_set():
            await asyncio.sleep(0.05)
        await asyncio.sleep(cancel)
        task.cancel()
    return await task


def _react(tools: list[Any], handle_errors: bool = False) -> Any:
    node = ToolNode(tools, handle_tool_errors=True) if handle_errors else tools
    return lambda: create_react_agent(_model(), node, name="support_agent")


TOOLS = [lookup_order, check_stock, charge_card]


def parallel_handled(out: Path, kind: str) -> None:
    """Parallel calls, then a tool that raises (ToolNode reports it to the model), an answer."""
    script = [
        {"tools": [("lookup_order", {"order_id": 42}), ("check_stock", {"sku": "A-1"})]},
        {"tools": [("charge_card", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refund refused"},
    ]
    _run(out, kind, script, _react(TOOLS, handle_errors=True))


def tool_raises(out: Path, kind: str) -> None:
    """A tool that raises with ToolNode's default handling: the error ends the run."""
    script = [
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"tools": [("charge_card", {"order_id": 42})]},
    ]
    _run(out, kind, script, _react(TOOLS))


def api_error(out: Path, kind: str) -> None:
    """One tool turn, then the model API answers 500."""
    script = [{"tools": [("lookup_order", {"order_id": 42})]}, {"error": 500}]
    _run(out, kind, script, _react(TOOLS))


def sub_agent(out: Path, kind: str) -> None:
    """A tool that runs a second react agent (billing_agent), then the answer."""
    script = [
        {"tools": [("ask_billing_agent", {"question": "CANARY-SUB was order 42 paid?"})]},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "CANARY-SUBANSWER yes, paid"},
        {"text": "CANARY-ANSWER refund approved"},
    ]
    _run(out, kind, script, _react([ask_billing_agent, lookup_order]))


def cancelled(out: Path, kind: str) -> None:
    """The run's task cancelled while a slow tool runs."""
    script = [{"tools": [("export_order", {"order_id": 42})]}, {"text": "never"}]
    _run(out, kind, script, _react([export_order]), cancel=0.5)


CASES = {
    "parallel-tool-error-handled": parallel_handled,
    "tool-raises": tool_raises,
    "api-error": api_error,
    "sub-agent": sub_agent,
    "cancelled-mid-tool": cancelled,
}


def _versions(kind: str) -> str:
    package = {
        "openinference": "openinference-instrumentation-langchain",
        "openllmetry": "opentelemetry-instrumentation-langchain",
    }[kind]
    return f"langgraph-{version('langgraph')}__{kind}-langchain-{version(package)}"


def main() -> None:
    """Each case in a process of its own: OpenLLMetry's instrumentor keeps its first tracer."""
    out_dir, kind = Path(sys.argv[1]), sys.argv[2]
    out_dir.mkdir(parents=True, exist_ok=True)
    if len(sys.argv) > 3:
        case = sys.argv[3]
        path = out_dir / f"gen__otlp-json__{_versions(kind)}__{case}.jsonl"
        path.unlink(missing_ok=True)
        CASES[case](path, kind)
        return
    for case in CASES:
        subprocess.run([sys.executable, __file__, *sys.argv[1:3], case], check=True)


if __name__ == "__main__":
    main()
