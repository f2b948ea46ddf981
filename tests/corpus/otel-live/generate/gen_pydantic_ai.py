"""Drive pydantic-ai's own instrumentation (InstrumentationSettings version 6) against the
loopback stub and export each run with opentelemetry-exporter-otlp-json-file.

Version 2 runs one scenario again. Run in a venv with pydantic-ai-slim[openai],
opentelemetry-sdk and opentelemetry-exporter-otlp-json-file: ``python gen_pydantic_ai.py OUT``.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

from fake_openai import FakeOpenAI, neutral_paths
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from pydantic import BaseModel
from pydantic_ai import (
    Agent,
    DeferredToolRequests,
    DeferredToolResults,
    ModelRetry,
    RunContext,
    ToolDenied,
    UsageLimits,
)
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

#: The instrumentation format version (6, the newest; 2 for the deprecated one that
#: pydantic-ai 1.x wrote by default: ``agent run`` / ``running tool`` spans).
VERSION = 6

PROMPT = "CANARY-PROMPT refund order 42 for /home/dev/shop customer"


class Refund(BaseModel):
    order_id: int
    approved: bool


def lookup_order(order_id: int) -> str:
    """Look an order up."""
    return f"CANARY-RESULT order {order_id}: 2 items, paid"


def check_stock(sku: str) -> str:
    """Check the stock of an item."""
    return f"CANARY-STOCK {sku}: 3 left"


def charge_card(order_id: int) -> str:
    """Charge the customer's card."""
    raise RuntimeError(f"CANARY-ERROR card declined for order {order_id}")


def issue_refund(order_id: int) -> str:
    """Refund an order (needs approval)."""
    return f"CANARY-REFUNDED {order_id}"


def _agent(stub: FakeOpenAI, out: Path, **kwargs: object) -> tuple[Agent, TracerProvider]:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path=str(out))))
    model = OpenAIChatModel("gpt-5-mini", provider=OpenAIProvider(base_url=stub.url, api_key="x"))
    settings = InstrumentationSettings(tracer_provider=provider, version=VERSION)
    agent = Agent(model, name="support_agent", **kwargs)
    agent.instrument = settings
    return agent, provider


def parallel_and_raise(out: Path) -> None:
    """Two parallel calls that succeed, then a tool that raises: the run fails."""
    stub = FakeOpenAI(
        [
            {"tools": [("lookup_order", {"order_id": 42}), ("check_stock", {"sku": "A-1"})]},
            {"tools": [("charge_card", {"order_id": 42})]},
        ]
    )
    agent, provider = _agent(stub, out, tools=[lookup_order, check_stock, charge_card])
    with contextlib.suppress(RuntimeError):
        agent.run_sync(PROMPT)
    provider.shutdown()
    stub.close()


def stream_structured(out: Path) -> None:
    """A streamed run with a tool, then structured output through the final_result tool."""
    stub = FakeOpenAI(
        [
            {"tools": [("lookup_order", {"order_id": 42})]},
            {"tools": [("final_result", {"order_id": 42, "approved": True})]},
        ]
    )
    agent, provider = _agent(stub, out, tools=[lookup_order], output_type=Refund)

    async def main() -> None:
        async with agent.run_stream(PROMPT) as result:
            await result.get_output()

    asyncio.run(main())
    provider.shutdown()
    stub.close()


def usage_limit(out: Path) -> None:
    """A model that keeps calling a tool stopped by request_limit=2 (UsageLimitExceeded)."""
    stub = FakeOpenAI([{"tools": [("lookup_order", {"order_id": 42})]}] * 5)
    agent, provider = _agent(stub, out, tools=[lookup_order])
    try:
        agent.run_sync(PROMPT, usage_limits=UsageLimits(request_limit=2))
    except Exception as exc:
        print("usage_limit:", type(exc).__name__)
    provider.shutdown()
    stub.close()


def api_error(out: Path) -> None:
    """A tool call, then the API answers 500 on the second request: ModelHTTPError."""
    stub = FakeOpenAI([{"tools": [("lookup_order", {"order_id": 42})]}, {"error": 500}] * 1)
    stub.script += [{"error": 500}] * 5
    agent, provider = _agent(stub, out, tools=[lookup_order])
    try:
        agent.run_sync(PROMPT)
    except Exception as exc:
        print("api_error:", type(exc).__name__)
    provider.shutdown()
    stub.close()


def approval_denied(out: Path) -> None:
    """A tool that needs approval: the run ends deferred; resumed with the call denied."""
    stub = FakeOpenAI(
        [
            {"tools": [("lookup_order", {"order_id": 42}), ("issue_refund", {"order_id": 42})]},
            {"text": "CANARY-ANSWER The refund was not approved."},
        ]
    )
    agent, provider = _agent(stub, out, output_type=[str, DeferredToolRequests])
    agent.tool_plain(lookup_order)
    agent.tool_plain(requires_approval=True)(issue_refund)
    first = agent.run_sync(PROMPT)
    requests = first.output
    assert isinstance(requests, DeferredToolRequests), requests
    results = DeferredToolResults(
        approvals={
            call.tool_call_id: ToolDenied("CANARY-DENIED not allowed")
            for call in requests.approvals
        }
    )
    agent.run_sync(message_history=first.all_messages(), deferred_tool_results=results)
    provider.shutdown()
    stub.close()


def delegation(out: Path) -> None:
    """A tool that runs a second agent (agent delegation), then retries exhausted (ModelRetry)."""
    stub = FakeOpenAI(
        [
            {"tools": [("ask_billing", {"question": "CANARY-SUB refundable?"})]},
            {"tools": [("lookup_order", {"order_id": 42})]},
            {"text": "CANARY-SUB-ANSWER yes"},
            {"tools": [("verify", {"order_id": 42})]},
            {"tools": [("verify", {"order_id": 43})]},
            {"text": "CANARY-ANSWER refunded"},
        ]
    )
    billing, _ = _agent(stub, out, tools=[lookup_order])
    billing.name = "billing_agent"
    agent, provider = _agent(stub, out, retries=1)
    billing.instrument = agent.instrument

    @agent.tool
    async def ask_billing(ctx: RunContext[None], question: str) -> str:
        """Ask the billing agent."""
        result = await billing.run(question, usage=ctx.usage)
        return result.output

    @agent.tool_plain
    def verify(order_id: int) -> str:
        """Verify an order."""
        raise ModelRetry(f"CANARY-RETRY order {order_id} not verifiable")

    try:
        agent.run_sync(PROMPT)
    except Exception as exc:
        print("delegation:", type(exc).__name__)
    provider.shutdown()
    stub.close()


def cancelled(out: Path) -> None:
    """The run's task cancelled while a slow tool runs (a client that went away)."""
    stub = FakeOpenAI(
        [
            {"tools": [("lookup_order", {"order_id": 42})]},
            {"tools": [("export_order", {"order_id": 42})]},
        ]
    )
    agent, provider = _agent(stub, out, tools=[lookup_order])

    @agent.tool_plain
    async def export_order(order_id: int) -> str:
        """Export an order (slow)."""
        await asyncio.sleep(30)
        return f"CANARY-EXPORTED {order_id}"

    async def main() -> None:
        task = asyncio.create_task(agent.run(PROMPT))
        await asyncio.sleep(1)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(main())
    provider.shutdown()
    stub.close()


SCENARIOS = {
    "cancelled-mid-tool": cancelled,
    "delegation-retries-exhausted": delegation,
    "parallel-tool-raises": parallel_and_raise,
    "stream-structured-output": stream_structured,
    "usage-limit-exceeded": usage_limit,
    "api-error": api_error,
    "approval-denied-resumed": approval_denied,
}


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    runs = [(6, name) for name in SCENARIOS] + [(2, "parallel-tool-raises")]
    for VERSION, name in runs:
        target = folder / f"gen__otlp-json__pydantic-ai-2.68.0__v{VERSION}__{name}.jsonl"
        target.unlink(missing_ok=True)
        SCENARIOS[name](target)
        neutral_paths(target)
