"""Drive AutoGen AgentChat (``OpenAIChatCompletionClient`` at the loopback stub), traced by its
built-in GenAI spans, and export each run with opentelemetry-exporter-otlp-json-file:
``python gen_autogen.py OUT_DIR [CASE]`` (each case in a process of its own: AutoGen traces to
the global tracer provider).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from importlib.metadata import version
from pathlib import Path
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.conditions import MaxMessageTermination, TextMentionTermination
from autogen_agentchat.teams import RoundRobinGroupChat, Swarm
from autogen_agentchat.tools import AgentTool
from autogen_core import CancellationToken
from autogen_ext.models.openai import OpenAIChatCompletionClient
from opentelemetry import trace
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

#: The loopback stub: otel-live-more/generate/fake_openai.py (the file that wrote that folder).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "otel-live-more" / "generate"))
from fake_openai import FakeOpenAI, neutral_paths

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


def _client() -> OpenAIChatCompletionClient:
    assert STUB is not None
    return OpenAIChatCompletionClient(
        model="gpt-4o-mini-2024-07-18", base_url=STUB.url, api_key="x", max_retries=0
    )


def _agent(name: str, tools: list[Any], **kwargs: Any) -> AssistantAgent:
    return AssistantAgent(name, model_client=_client(), tools=tools, **kwargs)


async def _invoke(target: Any, cancel: bool) -> Any:
    task = asyncio.ensure_future(target.run(task=PROMPT, cancellation_token=CancellationToken()))
    if cancel:  # the run's task cancelled (as asyncio.wait_for's timeout does)
        while not STARTED.is_set():
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        task.cancel()
    result = await task
    return result.messages[-1].to_text() if hasattr(result, "messages") else result


def _run(out: Path, script: list[dict[str, Any]], build: Any, cancel: bool = False) -> None:
    global STUB
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path=str(out))))
    trace.set_tracer_provider(provider)
    STUB = FakeOpenAI(script)
    try:
        print(out.name, "->", repr(str(asyncio.run(_invoke(build(), cancel))))[:80])
    except BaseException as exc:  # a cancelled or failed run raises
        print(out.name, "raised", type(exc).__name__, exc)
    provider.shutdown()
    STUB.close()
    neutral_paths(out)


def parallel_tool_raises(out: Path) -> None:
    """Parallel calls, a tool that raises (AutoGen reports it to the model), the answer."""
    script = [
        {"tools": [("lookup_order", {"order_id": 42}), ("check_stock", {"sku": "A-1"})]},
        {"tools": [("charge_card", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refund refused"},
    ]
    tools = [lookup_order, check_stock, charge_card]
    _run(out, script, lambda: _agent("support_agent", tools, max_tool_iterations=5))


def api_error(out: Path) -> None:
    """One tool turn, then the model API answers 500."""
    script = [{"tools": [("lookup_order", {"order_id": 42})]}, {"error": 500}]
    _run(out, script, lambda: _agent("support_agent", [lookup_order], max_tool_iterations=5))


def cancelled(out: Path) -> None:
    """The run's task cancelled while a slow tool runs."""
    script = [{"tools": [("export_order", {"order_id": 42})]}, {"text": "never"}]
    _run(out, script, lambda: _agent("support_agent", [export_order]), cancel=True)


def agent_tool(out: Path) -> None:
    """An agent as a tool (``AgentTool``): billing_agent calls a tool and answers."""
    script = [
        {"tools": [("billing_agent", {"task": "CANARY-SUB was order 42 paid?"})]},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "CANARY-SUBANSWER yes, paid"},
        {"text": "CANARY-ANSWER refund approved"},
    ]

    def build() -> AssistantAgent:
        billing = _agent("billing_agent", [lookup_order], reflect_on_tool_use=True)
        return _agent("support_agent", [AgentTool(billing)], reflect_on_tool_use=True)

    _run(out, script, build)


def swarm_handoff(out: Path) -> None:
    """A Swarm team: triage_agent hands off to billing_agent, which calls a tool and answers."""
    script = [
        {"tools": [("transfer_to_billing_agent", {})]},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refund approved TERMINATE"},
    ]

    def build() -> Swarm:
        triage = _agent("triage_agent", [], handoffs=["billing_agent"])
        billing = _agent("billing_agent", [lookup_order], max_tool_iterations=3)
        stop = TextMentionTermination("TERMINATE") | MaxMessageTermination(10)
        return Swarm([triage, billing], termination_condition=stop)

    _run(out, script, build)


def round_robin(out: Path) -> None:
    """A round-robin team of two agents, the second calls a tool."""
    script = [
        {"text": "CANARY-PLAN look the order up"},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refund approved TERMINATE"},
    ]

    def build() -> RoundRobinGroupChat:
        planner = _agent("planner_agent", [])
        billing = _agent("billing_agent", [lookup_order], max_tool_iterations=3)
        stop = TextMentionTermination("TERMINATE") | MaxMessageTermination(10)
        return RoundRobinGroupChat([planner, billing], termination_condition=stop)

    _run(out, script, build)


CASES = {
    "parallel-tool-raises": parallel_tool_raises,
    "api-error": api_error,
    "cancelled-mid-tool": cancelled,
    "agent-tool": agent_tool,
    "swarm-handoff": swarm_handoff,
    "round-robin": round_robin,
}


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    if len(sys.argv) > 2:
        case = sys.argv[2]
        name = f"gen__otlp-json__autogen-agentchat-{version('autogen-agentchat')}__{case}.jsonl"
        path = out_dir / name
        path.unlink(missing_ok=True)
        CASES[case](path)
        return
    for case in CASES:
        subprocess.run([sys.executable, __file__, sys.argv[1], case], check=True)


if __name__ == "__main__":
    main()
