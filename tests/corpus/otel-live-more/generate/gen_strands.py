"""Drive Strands Agents (``OpenAIModel`` at the loopback stub), traced natively, and export
each run with opentelemetry-exporter-otlp-json-file: ``python gen_strands.py OUT_DIR [CASE]``
(each case in a process of its own: Strands traces to the global tracer provider).
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
from opentelemetry import trace
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from strands import Agent, tool
from strands.models.openai import OpenAIModel
from strands.multiagent import Swarm

PROMPT = "CANARY-PROMPT refund order 42 for /home/dev/shop customer"

STUB: FakeOpenAI | None = None

#: Set when the slow tool starts: the run is cancelled then, not after a fixed delay.
STARTED = threading.Event()


@tool
def lookup_order(order_id: int) -> str:
    """Look an order up.

    Args:
        order_id: the order's number.
    """
    return f"CANARY-RESULT order {order_id}: 2 items, paid"


@tool
def check_stock(sku: str) -> str:
    """Check the stock of an item.

    Args:
        sku: the item's code.
    """
    return f"CANARY-STOCK {sku}: 3 left"


@tool
def charge_card(order_id: int) -> str:
    """Charge the customer's card.

    Args:
        order_id: the order's number.
    """
    raise RuntimeError(f"CANARY-ERROR card declined for order {order_id}")


@tool
async def export_order(order_id: int) -> str:
    """Export an order (slow).

    Args:
        order_id: the order's number.
    """
    STARTED.set()
    await asyncio.sleep(5)
    return f"CANARY-EXPORT {order_id}"


@tool
def ask_billing_agent(question: str) -> str:
    """Ask the billing agent.

    Args:
        question: what to ask.
    """
    billing = Agent(
        model=_model(), tools=[lookup_order], name="billing_agent", callback_handler=None
    )
    return str(billing(question))


def _model() -> OpenAIModel:
    assert STUB is not None
    client_args = {"base_url": STUB.url, "api_key": "x", "max_retries": 0}
    return OpenAIModel(client_args=client_args, model_id="gpt-5-mini")


def _agent(tools: list[Any], name: str = "support_agent") -> Agent:
    return Agent(model=_model(), tools=tools, name=name, callback_handler=None)


async def _invoke(target: Any, cancel: float) -> Any:
    task = asyncio.ensure_future(target.invoke_async(PROMPT))
    if cancel:
        while not STARTED.is_set():
            await asyncio.sleep(0.05)
        await asyncio.sleep(cancel)
        task.cancel()
    return await task


def _run(out: Path, script: list[dict[str, Any]], build: Any, cancel: float = 0) -> None:
    global STUB
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path=str(out))))
    trace.set_tracer_provider(provider)
    STUB = FakeOpenAI(script)
    try:
        print(out.name, "->", repr(str(asyncio.run(_invoke(build(), cancel))))[:80])
    except BaseException as exc:  # a cancelled run raises CancelledError
        print(out.name, "raised", type(exc).__name__)
    provider.shutdown()
    STUB.close()
    neutral_paths(out)


def parallel_tool_error(out: Path) -> None:
    """Parallel calls, a tool that raises (Strands reports it to the model), the answer."""
    script = [
        {"tools": [("lookup_order", {"order_id": 42}), ("check_stock", {"sku": "A-1"})]},
        {"tools": [("charge_card", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refund refused"},
    ]
    _run(out, script, lambda: _agent([lookup_order, check_stock, charge_card]))


def sub_agent(out: Path) -> None:
    """An agent as a tool: the tool runs billing_agent, then the answer."""
    script = [
        {"tools": [("ask_billing_agent", {"question": "CANARY-SUB was order 42 paid?"})]},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "CANARY-SUBANSWER yes, paid"},
        {"text": "CANARY-ANSWER refund approved"},
    ]
    _run(out, script, lambda: _agent([ask_billing_agent, lookup_order]))


def api_error(out: Path) -> None:
    """One tool turn, then the model API answers 500."""
    script = [{"tools": [("lookup_order", {"order_id": 42})]}, {"error": 500}]
    _run(out, script, lambda: _agent([lookup_order]))


def cancelled(out: Path) -> None:
    """The run's task cancelled while a slow tool runs."""
    script = [{"tools": [("export_order", {"order_id": 42})]}, {"text": "never"}]
    _run(out, script, lambda: _agent([export_order]), cancel=0.5)


def swarm_handoff(out: Path) -> None:
    """A swarm: triage hands off to billing_agent, which calls a tool and answers."""
    script = [
        {"tools": [("handoff_to_agent", {"agent_name": "billing_agent", "message": "CANARY-HO"})]},
        {"text": "CANARY-HANDED to billing"},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refund approved"},
    ]

    def build() -> Swarm:
        return Swarm([_agent([], "triage_agent"), _agent([lookup_order], "billing_agent")])

    _run(out, script, build)


CASES = {
    "parallel-tool-error": parallel_tool_error,
    "sub-agent": sub_agent,
    "api-error": api_error,
    "cancelled-mid-tool": cancelled,
    "swarm-handoff": swarm_handoff,
}


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    if len(sys.argv) > 2:
        case = sys.argv[2]
        path = out_dir / f"gen__otlp-json__strands-agents-{version('strands-agents')}__{case}.jsonl"
        path.unlink(missing_ok=True)
        CASES[case](path)
        return
    for case in CASES:
        subprocess.run([sys.executable, __file__, sys.argv[1], case], check=True)


if __name__ == "__main__":
    main()
