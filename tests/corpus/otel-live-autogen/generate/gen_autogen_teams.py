"""Drive AutoGen AgentChat teams (``OpenAIChatCompletionClient`` at the loopback stub), traced by
AutoGen's built-in spans, and export each case with opentelemetry-exporter-otlp-json-file:
``python gen_autogen_teams.py OUT_DIR [CASE]`` (each case in a process of its own: AutoGen traces
to the global tracer provider).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.conditions import MaxMessageTermination, TextMentionTermination
from autogen_agentchat.teams import RoundRobinGroupChat, SelectorGroupChat, Swarm
from autogen_core import CancellationToken
from autogen_ext.models.openai import OpenAIChatCompletionClient
from opentelemetry import trace
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

#: The loopback stub: otel-live-more/generate/fake_openai.py (the one gen_autogen.py uses).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "otel-live-more" / "generate"))
from fake_openai import FakeOpenAI, neutral_paths

PROMPT = "CANARY-PROMPT refund order 42 for /home/dev/shop customer"
SECOND = "CANARY-PROMPT2 now refund order 43"

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


async def kill_order(order_id: int) -> str:
    """Export an order: the process is killed meanwhile (SIGKILL, as a CI timeout or the OOM
    killer ends it; the spans that ended are already written, the rest never are)."""
    os.kill(os.getpid(), signal.SIGKILL)
    return f"CANARY-EXPORT {order_id}"


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


def _stop() -> Any:
    return TextMentionTermination("TERMINATE") | MaxMessageTermination(12)


def _pair() -> RoundRobinGroupChat:
    """planner_agent (a stock tool) and billing_agent (order tools), round robin."""
    planner = _agent("planner_agent", [check_stock], max_tool_iterations=3)
    billing = _agent("billing_agent", [lookup_order, charge_card], max_tool_iterations=3)
    return RoundRobinGroupChat([planner, billing], termination_condition=_stop())


async def _one(team: Any, task: str, cancel: bool = False) -> str:
    """One ``team.run``; where ``cancel``, its cancellation token (AgentChat's way to stop a
    team at once) is cancelled while the slow tool runs. AutoGen 0.7.5's ``run`` then never
    returns: its asyncio task is cancelled after a while. (Cancelling only the task, as
    ``asyncio.wait_for``'s timeout does, stops nothing: the team's runtime plays on to its
    termination condition.)"""
    token = CancellationToken()
    job = asyncio.ensure_future(team.run(task=task, cancellation_token=token))
    if cancel:
        while not STARTED.is_set():
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        token.cancel()
        await asyncio.wait([job], timeout=8)
        job.cancel()
    try:
        result = await job
    except BaseException as exc:  # a cancelled or failed run raises
        return f"raised {type(exc).__name__} {exc}"
    return f"{result.stop_reason!r} {result.messages[-1].to_text()[:60]!r}"


def _run(
    out: Path, script: list[dict[str, Any]], drive: Callable[[], Any], console: bool = False
) -> None:
    """Trace ``drive`` into ``out``: OTLP/JSON lines, or where ``console`` the SDK's
    ``ConsoleSpanExporter`` (``ReadableSpan.to_json()`` objects one after another)."""
    global STUB
    provider = TracerProvider()
    sink = out.open("w", encoding="utf-8") if console else None
    exporter = ConsoleSpanExporter(out=sink) if sink else FileSpanExporter(path=str(out))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    STUB = FakeOpenAI(script)
    for line in asyncio.run(drive()):
        print(out.name, "->", line)
    provider.shutdown()
    if sink:
        sink.close()
    STUB.close()
    neutral_paths(out)
    here = f"{Path(__file__).resolve().parent}/".encode()
    out.write_bytes(out.read_bytes().replace(here, b"/home/dev/shop/"))


def two_runs_same_team(out: Path, console: bool = False) -> None:
    """Two ``run`` calls on one RoundRobin team object, each ended by TERMINATE."""
    script = [
        {"tools": [("check_stock", {"sku": "A-1"})]},
        {"text": "CANARY-PLAN stock ok"},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refund approved TERMINATE"},
        {"text": "CANARY-PLAN2 look 43 up"},
        {"tools": [("lookup_order", {"order_id": 43})]},
        {"text": "CANARY-ANSWER2 refund 43 approved TERMINATE"},
    ]

    async def drive() -> list[str]:
        team = _pair()
        return [await _one(team, PROMPT), await _one(team, SECOND)]

    _run(out, script, drive, console)


def console_two_runs(out: Path) -> None:
    """:func:`two_runs_same_team` written by the console exporter."""
    two_runs_same_team(out, console=True)


def two_teams(out: Path) -> None:
    """Two RoundRobin team objects, one run each, one after the other in one process."""
    script = [
        {"text": "CANARY-PLAN look the order up"},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refund approved TERMINATE"},
        {"tools": [("check_stock", {"sku": "B-2"})]},
        {"text": "CANARY-PLAN2 stock ok TERMINATE"},
    ]

    async def drive() -> list[str]:
        return [await _one(_pair(), PROMPT), await _one(_pair(), SECOND)]

    _run(out, script, drive)


def round_robin_tools(out: Path) -> None:
    """Both agents call tools: parallel calls, a tool that raises; MaxMessageTermination ends it."""
    script = [
        {"tools": [("check_stock", {"sku": "A-1"}), ("check_stock", {"sku": "A-2"})]},
        {"text": "CANARY-PLAN both in stock"},
        {"tools": [("lookup_order", {"order_id": 42}), ("charge_card", {"order_id": 42})]},
        {"text": "CANARY-BILL card declined"},
        {"text": "CANARY-PLAN3 try again later"},
    ]

    def build() -> RoundRobinGroupChat:
        planner = _agent("planner_agent", [check_stock], max_tool_iterations=3)
        billing = _agent("billing_agent", [lookup_order, charge_card], max_tool_iterations=3)
        stop = MaxMessageTermination(4)
        return RoundRobinGroupChat([planner, billing], termination_condition=stop)

    async def drive() -> list[str]:
        return [await _one(build(), PROMPT)]

    _run(out, script, drive)


def selector(out: Path) -> None:
    """A SelectorGroupChat: the model picks each speaker (requests of their own), billing calls
    a tool."""
    script = [
        {"text": "billing_agent"},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "planner_agent"},
        {"text": "CANARY-ANSWER refund approved TERMINATE"},
    ]

    def build() -> SelectorGroupChat:
        planner = _agent("planner_agent", [], description="Plans the refund.")
        billing = _agent("billing_agent", [lookup_order], description="Looks orders up.")
        return SelectorGroupChat(
            [planner, billing], model_client=_client(), termination_condition=_stop()
        )

    async def drive() -> list[str]:
        return [await _one(build(), PROMPT)]

    _run(out, script, drive)


def swarm_back_and_forth(out: Path) -> None:
    """A Swarm: triage hands off to billing, billing calls a tool and hands back, triage ends."""
    script = [
        {"tools": [("transfer_to_billing_agent", {})]},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"tools": [("transfer_to_triage_agent", {})]},
        {"text": "CANARY-ANSWER refund approved TERMINATE"},
    ]

    def build() -> Swarm:
        triage = _agent("triage_agent", [], handoffs=["billing_agent"])
        billing = _agent(
            "billing_agent", [lookup_order], handoffs=["triage_agent"], max_tool_iterations=3
        )
        return Swarm([triage, billing], termination_condition=_stop())

    async def drive() -> list[str]:
        return [await _one(build(), PROMPT)]

    _run(out, script, drive)


def max_turns(out: Path) -> None:
    """A RoundRobin team with ``max_turns=3`` and no termination condition, run twice (the
    second run continues where the first stopped)."""
    script = [{"text": f"CANARY-TURN {n}"} for n in range(1, 7)]

    async def drive() -> list[str]:
        planner = _agent("planner_agent", [])
        billing = _agent("billing_agent", [lookup_order])
        team = RoundRobinGroupChat([planner, billing], max_turns=3)
        return [await _one(team, PROMPT), await _one(team, SECOND)]

    _run(out, script, drive)


def cancelled(out: Path) -> None:
    """A RoundRobin team run stopped by its cancellation token while billing's slow tool runs."""
    script = [
        {"text": "CANARY-PLAN export it"},
        {"tools": [("export_order", {"order_id": 42})]},
        {"text": "never"},
    ]

    async def drive() -> list[str]:
        planner = _agent("planner_agent", [])
        billing = _agent("billing_agent", [export_order])
        team = RoundRobinGroupChat([planner, billing], termination_condition=_stop())
        return [await _one(team, PROMPT, cancel=True)]

    _run(out, script, drive)


def killed_mid_turn(out: Path) -> None:
    """A RoundRobin team run whose process is killed in billing's turn, after one of its tools
    ran, while the next runs: the turn's agent span and its trace's root are never written."""
    script = [
        {"tools": [("check_stock", {"sku": "A-1"})]},
        {"text": "CANARY-PLAN stock ok"},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"tools": [("kill_order", {"order_id": 42})]},
        {"text": "never"},
    ]

    async def drive() -> list[str]:
        planner = _agent("planner_agent", [check_stock], max_tool_iterations=3)
        billing = _agent("billing_agent", [lookup_order, kill_order], max_tool_iterations=3)
        team = RoundRobinGroupChat([planner, billing], termination_condition=_stop())
        return [await _one(team, PROMPT)]

    _run(out, script, drive)


def api_error(out: Path) -> None:
    """A RoundRobin team run whose second agent's model request answers 500."""
    script = [
        {"tools": [("check_stock", {"sku": "A-1"})]},
        {"text": "CANARY-PLAN stock ok"},
        {"error": 500},
    ]

    async def drive() -> list[str]:
        return [await _one(_pair(), PROMPT)]

    _run(out, script, drive)


CASES = {
    "two-runs-same-team": two_runs_same_team,
    "console-two-runs": console_two_runs,
    "two-teams": two_teams,
    "round-robin-tools": round_robin_tools,
    "selector": selector,
    "swarm-back-and-forth": swarm_back_and_forth,
    "max-turns-twice": max_turns,
    "cancelled": cancelled,
    "killed-mid-turn": killed_mid_turn,
    "api-error": api_error,
}


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    if len(sys.argv) > 2:
        case = sys.argv[2]
        console = case.startswith("console")  # pretty-printed objects, not JSON lines
        encoding, suffix = ("otel-console", "json") if console else ("otlp-json", "jsonl")
        name = f"gen__{encoding}__autogen-agentchat-{version('autogen-agentchat')}__{case}.{suffix}"
        path = out_dir / name
        path.unlink(missing_ok=True)
        CASES[case](path)
        return
    for case in CASES:  # killed-mid-turn's process ends by its SIGKILL
        done = subprocess.run([sys.executable, __file__, sys.argv[1], case], check=False)
        if done.returncode != (-signal.SIGKILL if case == "killed-mid-turn" else 0):
            raise SystemExit(f"{case}: exit status {done.returncode}")


if __name__ == "__main__":
    main()
