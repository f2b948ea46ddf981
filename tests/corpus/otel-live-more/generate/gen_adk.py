"""Drive Google ADK (``LiteLlm`` at the loopback stub), traced natively, and export each run
with opentelemetry-exporter-otlp-json-file: ``python gen_adk.py OUT_DIR [CASE]`` (each case in
a process of its own: ADK traces to the global tracer provider).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, neutral_paths
from google.adk.agents import LlmAgent
from google.adk.models.lite_llm import LiteLlm
from google.adk.runners import InMemoryRunner
from google.adk.tools.agent_tool import AgentTool
from google.genai import types
from opentelemetry import trace
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

#: Set (e.g. ``span_only``) to record content on the spans; the file's name then says so.
CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

PROMPT = "CANARY-PROMPT refund order 42 for /home/dev/shop customer"

STUB: FakeOpenAI | None = None


def lookup_order(order_id: int) -> str:
    """Look an order up."""
    return f"CANARY-RESULT order {order_id}: 2 items, paid"


def check_stock(sku: str) -> str:
    """Check the stock of an item."""
    return f"CANARY-STOCK {sku}: 3 left"


def charge_card(order_id: int) -> str:
    """Charge the customer's card."""
    raise RuntimeError(f"CANARY-ERROR card declined for order {order_id}")


def _model() -> LiteLlm:
    assert STUB is not None
    return LiteLlm(model="openai/gpt-5-mini", api_base=STUB.url, api_key="x", num_retries=0)


def _agent(name: str, tools: list[Any], **kwargs: Any) -> LlmAgent:
    return LlmAgent(name=name, model=_model(), instruction="Help.", tools=tools, **kwargs)


async def _invoke(agent: LlmAgent) -> str:
    runner = InMemoryRunner(agent=agent, app_name="shop")
    session = await runner.session_service.create_session(app_name="shop", user_id="dev")
    message = types.Content(role="user", parts=[types.Part(text=PROMPT)])
    last = ""
    async for event in runner.run_async(user_id="dev", session_id=session.id, new_message=message):
        if event.content and event.content.parts and event.content.parts[0].text:
            last = event.content.parts[0].text
    return last


def _run(out: Path, script: list[dict[str, Any]], build: Any) -> None:
    global STUB
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path=str(out))))
    trace.set_tracer_provider(provider)
    STUB = FakeOpenAI(script)
    try:
        print(out.name, "->", repr(asyncio.run(_invoke(build())))[:80])
    except BaseException as exc:  # report what ended the run
        print(out.name, "raised", type(exc).__name__)
    provider.shutdown()
    STUB.close()
    neutral_paths(out)


def parallel_tool_error(out: Path) -> None:
    """Parallel calls, then a tool that raises (ADK lets it end the run)."""
    script = [
        {"tools": [("lookup_order", {"order_id": 42}), ("check_stock", {"sku": "A-1"})]},
        {"tools": [("charge_card", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refund refused"},
    ]
    _run(out, script, lambda: _agent("support_agent", [lookup_order, check_stock, charge_card]))


def sub_agent(out: Path) -> None:
    """An agent as a tool (AgentTool): billing_agent calls a tool and answers."""
    script = [
        {"tools": [("billing_agent", {"request": "CANARY-SUB was order 42 paid?"})]},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "CANARY-SUBANSWER yes, paid"},
        {"text": "CANARY-ANSWER refund approved"},
    ]
    billing = lambda: _agent("billing_agent", [lookup_order], description="Billing.")  # noqa: E731
    _run(out, script, lambda: _agent("support_agent", [AgentTool(agent=billing())]))


def transfer(out: Path) -> None:
    """A transfer to a sub-agent (``transfer_to_agent``), which calls a tool and answers."""
    script = [
        {"tools": [("transfer_to_agent", {"agent_name": "billing_agent"})]},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refund approved"},
    ]
    billing = _agent  # built inside the run, when the stub is up

    def build() -> LlmAgent:
        sub = billing("billing_agent", [lookup_order], description="Billing.")
        return _agent("support_agent", [], sub_agents=[sub])

    _run(out, script, build)


def api_error(out: Path) -> None:
    """One tool turn, then the model API answers 500."""
    script = [{"tools": [("lookup_order", {"order_id": 42})]}, {"error": 500}]
    _run(out, script, lambda: _agent("support_agent", [lookup_order]))


CASES = {
    "parallel-tool-raises": parallel_tool_error,
    "agent-tool": sub_agent,
    "transfer": transfer,
    "api-error": api_error,
}


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    if len(sys.argv) > 2:
        case = sys.argv[2]
        capture = os.environ.get(CAPTURE, "").lower()
        suffix = f"__capture-{capture}" if capture else ""
        path = out_dir / f"gen__otlp-json__google-adk-{version('google-adk')}__{case}{suffix}.jsonl"
        path.unlink(missing_ok=True)
        CASES[case](path)
        return
    for case in CASES:
        subprocess.run([sys.executable, __file__, sys.argv[1], case], check=True)


if __name__ == "__main__":
    main()
