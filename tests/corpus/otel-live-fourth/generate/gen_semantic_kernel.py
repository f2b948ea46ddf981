"""Drive a Semantic Kernel ``ChatCompletionAgent`` (``OpenAIChatCompletion`` at the loopback
stub), traced by its GenAI spans with
``SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE=true``, and export each run
with opentelemetry-exporter-otlp-json-file: ``python gen_semantic_kernel.py OUT_DIR [CASE]``
(each case in a process of its own).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from importlib.metadata import version
from pathlib import Path
from typing import Any

os.environ["SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE"] = "true"

from openai import AsyncOpenAI
from opentelemetry import trace
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from semantic_kernel.agents import ChatCompletionAgent
from semantic_kernel.connectors.ai.open_ai import OpenAIChatCompletion
from semantic_kernel.functions import kernel_function

#: The loopback stub: otel-live-more/generate/fake_openai.py (the file that wrote that folder).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "otel-live-more" / "generate"))
from fake_openai import FakeOpenAI, neutral_paths

#: Set when the slow tool starts: the run is cancelled then, not after a fixed delay.
STARTED = threading.Event()

PROMPT = "CANARY-PROMPT refund order 42 for /home/dev/shop customer"


class Shop:
    """The agent's plugin: two tools that answer, one that raises."""

    @kernel_function
    def lookup_order(self, order_id: int) -> str:
        """Look an order up."""
        return f"CANARY-RESULT order {order_id}: 2 items, paid"

    @kernel_function
    def check_stock(self, sku: str) -> str:
        """Check the stock of an item."""
        return f"CANARY-STOCK {sku}: 3 left"

    @kernel_function
    async def export_order(self, order_id: int) -> str:
        """Export an order (slow)."""
        STARTED.set()
        await asyncio.sleep(5)
        return f"CANARY-EXPORT {order_id}"

    @kernel_function
    def charge_card(self, order_id: int) -> str:
        """Charge the customer's card."""
        raise RuntimeError(f"CANARY-ERROR card declined for order {order_id}")


async def _invoke(stub: FakeOpenAI, cancel: bool) -> str:
    client = AsyncOpenAI(base_url=stub.url, api_key="x", max_retries=0)
    service = OpenAIChatCompletion(ai_model_id="gpt-4o-mini", async_client=client)
    agent = ChatCompletionAgent(service=service, name="support_agent", plugins=[Shop()])
    task = asyncio.ensure_future(agent.get_response(messages=PROMPT))
    if cancel:  # the run's task cancelled while the slow tool runs
        while not STARTED.is_set():
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        task.cancel()
    return str(await task)


def _run(out: Path, script: list[dict[str, Any]], cancel: bool = False) -> None:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path=str(out))))
    trace.set_tracer_provider(provider)
    stub = FakeOpenAI(script)
    try:
        print(out.name, "->", asyncio.run(_invoke(stub, cancel)))
    except BaseException as exc:  # a cancelled or failed run raises
        print(out.name, "raised", type(exc).__name__)
    provider.shutdown()
    stub.close()
    neutral_paths(out)


def parallel_tool_raises(out: Path) -> None:
    """Parallel calls, a tool that raises (reported to the model), the answer."""
    lookup = ("Shop-lookup_order", {"order_id": 42})
    script = [
        {"tools": [lookup, ("Shop-check_stock", {"sku": "A-1"})]},
        {"tools": [("Shop-charge_card", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refund refused"},
    ]
    _run(out, script)


def api_error(out: Path) -> None:
    """One tool turn, then the model API answers 500."""
    _run(out, [{"tools": [("Shop-lookup_order", {"order_id": 42})]}, {"error": 500}])


def cancelled(out: Path) -> None:
    """The run's task cancelled while a slow tool runs."""
    _run(out, [{"tools": [("Shop-export_order", {"order_id": 42})]}, {"text": "never"}], True)


CASES = {
    "parallel-tool-raises": parallel_tool_raises,
    "api-error": api_error,
    "cancelled-mid-tool": cancelled,
}


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    if len(sys.argv) > 2:
        case = sys.argv[2]
        name = f"gen__otlp-json__semantic-kernel-{version('semantic-kernel')}__{case}.jsonl"
        path = out_dir / name
        path.unlink(missing_ok=True)
        CASES[case](path)
        return
    for case in CASES:
        subprocess.run([sys.executable, __file__, sys.argv[1], case], check=True)


if __name__ == "__main__":
    main()
