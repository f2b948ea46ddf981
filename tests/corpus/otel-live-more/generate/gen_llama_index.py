"""Drive LlamaIndex agents (``OpenAI`` LLM at the loopback stub), traced by
openinference-instrumentation-llama-index, and export each run with
opentelemetry-exporter-otlp-json-file: ``python gen_llama_index.py OUT_DIR [CASE]``.
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
from llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent
from llama_index.llms.openai import OpenAI
from openinference.instrumentation.llama_index import LlamaIndexInstrumentor
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

PROMPT = "CANARY-PROMPT refund order 42 for /home/dev/shop customer"

STUB: FakeOpenAI | None = None

#: Set when the slow tool starts: the run is cancelled then, not after a fixed delay.
STARTED = threading.Event()


def lookup_order(order_id: int) -> str:
    """Look an order up."""
    return f"CANARY-RESULT order {order_id}: 2 items, paid"


def check_stock(sku: str) -> str:
    """Check the stock of an item."""
    return f"CANARY-STOCK {sku}: 3 left"


def charge_card(order_id: int) -> str:
    """Charge the customer's card."""
    raise RuntimeError(f"CANARY-ERROR card declined for order {order_id}")


async def export_order(order_id: int) -> str:
    """Export an order (slow)."""
    STARTED.set()
    await asyncio.sleep(5)
    return f"CANARY-EXPORT {order_id}"


def _llm() -> OpenAI:
    assert STUB is not None
    return OpenAI(model="gpt-4o-mini", api_base=STUB.url, api_key="x", max_retries=0)


def _agent(name: str, tools: list[Any], **kwargs: Any) -> FunctionAgent:
    return FunctionAgent(name=name, description=name, tools=tools, llm=_llm(), **kwargs)


async def _invoke(workflow: Any, cancel: float) -> Any:
    handler = workflow.run(user_msg=PROMPT)
    if cancel:
        while not STARTED.is_set():
            await asyncio.sleep(0.05)
        await asyncio.sleep(cancel)
        await handler.cancel_run()
    return await handler


def _run(out: Path, script: list[dict[str, Any]], build: Any, cancel: float = 0) -> None:
    global STUB
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path=str(out))))
    instrumentor = LlamaIndexInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    STUB = FakeOpenAI(script)
    try:
        print(out.name, "->", repr(str(asyncio.run(_invoke(build(), cancel))))[:80])
    except BaseException as exc:  # report what ended the run
        print(out.name, "raised", type(exc).__name__)
    instrumentor.uninstrument()
    provider.shutdown()
    STUB.close()
    neutral_paths(out)


def parallel_tool_error(out: Path) -> None:
    """Parallel calls, a tool that raises (reported to the model), the answer."""
    script = [
        {"tools": [("lookup_order", {"order_id": 42}), ("check_stock", {"sku": "A-1"})]},
        {"tools": [("charge_card", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refund refused"},
    ]
    _run(out, script, lambda: _agent("support_agent", [lookup_order, check_stock, charge_card]))


def handoff(out: Path) -> None:
    """An AgentWorkflow: support_agent hands off to billing_agent, which answers."""
    script = [
        {"tools": [("handoff", {"to_agent": "billing_agent", "reason": "CANARY-HO"})]},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refund approved"},
    ]

    def build() -> AgentWorkflow:
        support = _agent("support_agent", [], can_handoff_to=["billing_agent"])
        billing = _agent("billing_agent", [lookup_order])
        return AgentWorkflow(agents=[support, billing], root_agent="support_agent")

    _run(out, script, build)


def api_error(out: Path) -> None:
    """One tool turn, then the model API answers 500."""
    script = [{"tools": [("lookup_order", {"order_id": 42})]}, {"error": 500}]
    _run(out, script, lambda: _agent("support_agent", [lookup_order]))


def cancelled(out: Path) -> None:
    """The run cancelled (``cancel_run``) while a slow tool runs."""
    script = [{"tools": [("export_order", {"order_id": 42})]}, {"text": "never"}]
    _run(out, script, lambda: _agent("support_agent", [export_order]), cancel=0.5)


CASES = {
    "parallel-tool-error": parallel_tool_error,
    "handoff": handoff,
    "api-error": api_error,
    "cancelled-mid-tool": cancelled,
}


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    if len(sys.argv) > 2:
        case = sys.argv[2]
        versions = (
            f"llama-index-{version('llama-index-core')}__openinference-llama-index-"
            f"{version('openinference-instrumentation-llama-index')}"
        )
        path = out_dir / f"gen__otlp-json__{versions}__{case}.jsonl"
        path.unlink(missing_ok=True)
        CASES[case](path)
        return
    for case in CASES:
        subprocess.run([sys.executable, __file__, sys.argv[1], case], check=True)


if __name__ == "__main__":
    main()
