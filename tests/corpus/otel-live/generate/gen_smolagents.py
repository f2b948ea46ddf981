"""Drive smolagents (OpenAIServerModel at the loopback stub), traced by
openinference-instrumentation-smolagents, and export each run with
opentelemetry-exporter-otlp-json-file: ``python gen_smolagents.py OUT_DIR``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, neutral_paths
from openinference.instrumentation.smolagents import SmolagentsInstrumentor
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from smolagents import CodeAgent, OpenAIServerModel, ToolCallingAgent, tool

PROMPT = "CANARY-PROMPT refund order 42 for /home/dev/shop customer"


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


TOOLS = [lookup_order, check_stock, charge_card]


def _run(out: Path, script: list[dict[str, Any]], agent_class: type, **kwargs: Any) -> None:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path=str(out))))
    instrumentor = SmolagentsInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    stub = FakeOpenAI(script)
    model = OpenAIServerModel(model_id="gpt-5-mini", api_base=stub.url, api_key="x")
    agent = agent_class(tools=TOOLS, model=model, name="support_agent", **kwargs)
    try:
        print(out.name, "->", repr(agent.run(PROMPT))[:80])
    except Exception as exc:
        print(out.name, "raised", type(exc).__name__)
    instrumentor.uninstrument()
    provider.shutdown()
    stub.close()


def tool_calling(out: Path) -> None:
    """Parallel calls, a tool that raises (smolagents reports it to the model), final_answer."""
    _run(
        out,
        [
            {"tools": [("lookup_order", {"order_id": 42}), ("check_stock", {"sku": "A-1"})]},
            {"tools": [("charge_card", {"order_id": 42})]},
            {"tools": [("final_answer", {"answer": "CANARY-ANSWER refund refused"})]},
        ],
        ToolCallingAgent,
    )


def max_steps(out: Path) -> None:
    """A model that never answers, stopped by max_steps=2 (smolagents then asks for an answer)."""
    _run(
        out,
        [{"tools": [("lookup_order", {"order_id": 42})]}] * 2 + [{"text": "CANARY-ANSWER gave up"}],
        ToolCallingAgent,
        max_steps=2,
    )


def code_agent(out: Path) -> None:
    """A CodeAgent: a code step calling a tool, then a step whose code raises, then the answer."""
    steps = [
        "Thought: look it up.\n<code>\nprint(lookup_order(order_id=42))\n</code>",
        "Thought: charge.\n<code>\ncharge_card(order_id=42)\n</code>",
        'Thought: done.\n<code>\nfinal_answer("CANARY-ANSWER refund refused")\n</code>',
    ]
    _run(out, [{"text": text} for text in steps], CodeAgent)


def api_error(out: Path) -> None:
    """The API answers 500 to every request: the run raises."""
    _run(out, [{"error": 500}] * 10, ToolCallingAgent)


def managed_agent(out: Path) -> None:
    """A manager whose managed agent (a sub-agent called as a tool) runs a tool."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path=str(out))))
    instrumentor = SmolagentsInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    stub = FakeOpenAI(
        [
            {"tools": [("billing_agent", {"task": "CANARY-SUB refundable?"})]},
            {"tools": [("lookup_order", {"order_id": 42})]},
            {"tools": [("final_answer", {"answer": "CANARY-SUB-ANSWER yes"})]},
            {"tools": [("final_answer", {"answer": "CANARY-ANSWER refunded"})]},
        ]
    )
    model = OpenAIServerModel(model_id="gpt-5-mini", api_base=stub.url, api_key="x")
    billing = ToolCallingAgent(
        tools=TOOLS, model=model, name="billing_agent", description="Answers billing questions."
    )
    manager = ToolCallingAgent(
        tools=[], model=model, name="support_agent", managed_agents=[billing]
    )
    print(out.name, "->", repr(manager.run(PROMPT))[:80])
    instrumentor.uninstrument()
    provider.shutdown()
    stub.close()


def late_api_error(out: Path) -> None:
    """Two steps with tools, then the API answers 500: the run raises, and OpenInference never
    ends (so never exports) the agent span."""
    _run(
        out,
        [
            {"tools": [("lookup_order", {"order_id": 42})]},
            {"tools": [("check_stock", {"sku": "A-1"})]},
        ]
        + [{"error": 500}] * 5,
        ToolCallingAgent,
    )


SCENARIOS = {
    "late-api-error": late_api_error,
    "managed-agent": managed_agent,
    "tool-calling-parallel-error": tool_calling,
    "max-steps": max_steps,
    "code-agent": code_agent,
    "api-error": api_error,
}


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    for name, scenario in SCENARIOS.items():
        target = folder / f"gen__otlp-json__smolagents-1.26.0__openinference-0.1.43__{name}.jsonl"
        target.unlink(missing_ok=True)
        scenario(target)
        neutral_paths(target)
