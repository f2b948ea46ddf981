"""Drive openai-agents 0.24.0 against the loopback stub and keep what its default
``BackendSpanExporter`` uploads: ``python gen_agents.py SCENARIO OUT.jsonl`` (run from
/home/dev/shop, HOME=/home/dev). Each POST body to ``/v1/traces/ingest`` is one line of OUT."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from agents import (
    Agent,
    GuardrailFunctionOutput,
    OpenAIChatCompletionsModel,
    Runner,
    SQLiteSession,
    custom_span,
    flush_traces,
    function_tool,
    output_guardrail,
    set_default_openai_client,
    trace,
)
from agents.mcp import MCPServerStdio
from agents.tracing import processors
from fake_openai import FakeOpenAI
from openai import AsyncOpenAI

PORT = 18502
HERE = Path(__file__).resolve().parent
#: The scenarios' own files in the project folder (the tools read them).
FILES = {
    "oai_notes.md": "# Shop notes\nA small shop. CANARY-README\n",
    "oai_policy.md": "Refunds within 30 days. CANARY-POLICY\n",
    "oai_shop.py": "CART = []  # CANARY-SRC\n",
}


@function_tool
def read_file(path: str) -> str:
    """Read a file of the project."""
    return Path(path).read_text()


@function_tool
def run_shell(command: str) -> str:
    """Run a shell command; a non-zero exit raises."""
    done = subprocess.run(command, shell=True, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout


@function_tool
async def run_tests(suite: str) -> str:
    """Run a slow test suite."""
    await asyncio.sleep(30)
    return f"{suite}: passed"


@function_tool(needs_approval=True)
def issue_refund(order_id: str, amount: float) -> str:
    """Refund an order (a person approves each refund)."""
    return f"refunded {amount} on {order_id} (CANARY-REFUND-OUT)"


@output_guardrail
async def no_secrets(ctx: Any, agent: Agent, output: Any) -> GuardrailFunctionOutput:
    return GuardrailFunctionOutput(output_info={}, tripwire_triggered="SECRET" in str(output))


def chat(client: AsyncOpenAI) -> OpenAIChatCompletionsModel:
    return OpenAIChatCompletionsModel(model="gpt-4.1-mini", openai_client=client)


async def streamed_cancel(client: AsyncOpenAI) -> None:
    """Responses model, streamed: parallel calls (one command fails), then a slow tool the
    caller cancels while it runs."""
    agent = Agent(name="shop_dev", model="gpt-4.1", tools=[read_file, run_shell, run_tests])
    result = Runner.run_streamed(agent, "CANARY-PROMPT check the shop and run the tests")
    async for event in result.stream_events():
        item = getattr(event, "item", None)
        raw = getattr(item, "raw_item", None)
        if (
            getattr(item, "type", "") == "tool_call_item"
            and getattr(raw, "name", "") == "run_tests"
        ):
            await asyncio.sleep(0.5)
            result.cancel()


async def handoffs_as_tool(client: AsyncOpenAI) -> None:
    """Chat Completions, streamed: triage hands off to billing, billing to refunds; refunds asks
    an agent used as a tool (which calls a tool of its own), then answers."""
    checker = Agent(name="policy_checker", model=chat(client), tools=[read_file])
    refunds = Agent(
        name="refunds",
        model=chat(client),
        tools=[checker.as_tool("check_policy", "Check the refund policy.")],
    )
    billing = Agent(name="billing", model=chat(client), handoffs=[refunds])
    triage = Agent(name="triage", model=chat(client), handoffs=[billing])
    result = Runner.run_streamed(triage, "CANARY-PROMPT I want my money back for order 42")
    async for _ in result.stream_events():
        pass


async def mcp_stdio(client: AsyncOpenAI) -> None:
    """Responses model with a stdio MCP server: one tool answers, one raises."""
    params = {"command": sys.executable, "args": [str(HERE / "shop_mcp.py")]}
    async with MCPServerStdio(params=params, name="shop-inventory") as server:
        agent = Agent(name="stock_keeper", model="gpt-4.1", mcp_servers=[server])
        await Runner.run(agent, "CANARY-PROMPT reserve two mugs")


async def max_turns_streamed(client: AsyncOpenAI) -> None:
    """Responses model, streamed, a model that keeps calling: max_turns=2 is exceeded."""
    agent = Agent(name="looper", model="gpt-4.1", tools=[read_file])
    result = Runner.run_streamed(agent, "CANARY-PROMPT read forever", max_turns=2)
    async for _ in result.stream_events():
        pass


async def guardrail_and_error(client: AsyncOpenAI) -> None:
    """Two runs in one trace: an output guardrail trips; then the model API fails (HTTP 500
    after the client's retries)."""
    with trace("Shop checks"):
        agent = Agent(name="writer", model="gpt-4.1", output_guardrails=[no_secrets])
        try:
            await Runner.run(agent, "CANARY-PROMPT write the config")
        except Exception as exc:
            print(type(exc).__name__)
    agent = Agent(name="writer", model="gpt-4.1")
    await Runner.run(agent, "CANARY-PROMPT try again")


async def session_two_runs(client: AsyncOpenAI) -> None:
    """Chat Completions: one conversation over two Runner.run calls with a Session, each ended
    with flush_traces() (as a web handler does per request): one upload per run."""
    session = SQLiteSession("conv_shop_1")
    agent = Agent(name="assistant", model=chat(client), tools=[read_file])
    for prompt in ("CANARY-PROMPT what is in oai_notes.md", "CANARY-PROMPT and in oai_shop.py"):
        with trace("Shop chat", group_id="conv_shop_1"):
            await Runner.run(agent, prompt, session=session)
        flush_traces()


async def approvals(client: AsyncOpenAI) -> None:
    """Responses model: two refunds need approval; one is approved, one rejected, and the
    run resumes from its state; the traces are flushed while it waits for the person."""
    agent = Agent(name="refunder", model="gpt-4.1", tools=[issue_refund])
    result = await Runner.run(agent, "CANARY-PROMPT refund orders 42 and 43")
    flush_traces()
    state = result.to_state()
    for item in result.interruptions:
        if "42" in str(item.arguments):
            state.approve(item)
        else:
            state.reject(item)
    await Runner.run(agent, state)


async def trace_two_runs(client: AsyncOpenAI) -> None:
    """One trace() around two runs and a custom span: a planner, then an executor."""
    planner = Agent(name="planner", model="gpt-4.1")
    executor = Agent(name="executor", model="gpt-4.1", tools=[run_shell])
    with trace("Shop release", metadata={"ticket": "CANARY-META"}):
        plan = await Runner.run(planner, "CANARY-PROMPT plan the release")
        with custom_span("release_step", {"note": "CANARY-CUSTOM"}):
            await Runner.run(executor, plan.final_output)


SCENARIOS = {
    "streamed-cancel": (
        streamed_cancel,
        [
            {
                "tools": [
                    ("read_file", {"path": "oai_notes.md"}),
                    ("run_shell", {"command": "false"}),
                ]
            },
            {"tools": [("run_tests", {"suite": "unit"})]},
        ],
    ),
    "handoffs-as-tool": (
        handoffs_as_tool,
        [
            {"tools": [("transfer_to_billing", {})]},
            {"tools": [("transfer_to_refunds", {})]},
            {"tools": [("check_policy", {"input": "order 42 CANARY-ASK"})]},
            {"tools": [("read_file", {"path": "oai_policy.md"})]},
            {"text": "Refunds within 30 days. CANARY-CHECKER"},
            {"text": "Your refund for order 42 is approved. CANARY-FINAL"},
        ],
    ),
    "mcp-stdio": (
        mcp_stdio,
        [
            {
                "tools": [
                    ("lookup_sku", {"sku": "MUG-1"}),
                    ("reserve_stock", {"sku": "MUG-1", "quantity": 2}),
                ]
            },
            {"text": "Reservation failed; 7 mugs are in stock. CANARY-FINAL"},
        ],
    ),
    "max-turns-streamed": (
        max_turns_streamed,
        [{"tools": [("read_file", {"path": "oai_notes.md"})]}] * 3,
    ),
    "guardrail-then-api-error": (
        guardrail_and_error,
        [{"text": "password=SECRET CANARY-FINAL"}] + [{"error": 500}] * 4,
    ),
    "session-two-runs": (
        session_two_runs,
        [
            {"tools": [("read_file", {"path": "oai_notes.md"})]},
            {"text": "README says: a shop. CANARY-FINAL-1"},
            {"tools": [("read_file", {"path": "oai_shop.py"})]},
            {"text": "shop.py holds the cart. CANARY-FINAL-2"},
        ],
    ),
    "approvals": (
        approvals,
        [
            {
                "tools": [
                    ("issue_refund", {"order_id": "42", "amount": 9.5}),
                    ("issue_refund", {"order_id": "43", "amount": 120}),
                ]
            },
            {"text": "Refunded 42; 43 was declined. CANARY-FINAL"},
        ],
    ),
    "trace-two-runs": (
        trace_two_runs,
        [
            {"text": "run: echo CANARY-PLAN"},
            {"tools": [("run_shell", {"command": "echo released"})]},
            {"text": "Released. CANARY-FINAL"},
        ],
    ),
}


def main() -> None:
    name, out = sys.argv[1], Path(sys.argv[2])
    run, script = SCENARIOS[name]
    out.unlink(missing_ok=True)
    for file, text in FILES.items():
        Path(file).write_text(text)
    stub = FakeOpenAI(script, out, PORT)
    os.environ["OPENAI_API_KEY"] = "sk-loopback"
    client = AsyncOpenAI(base_url=stub.url, api_key="sk-loopback", max_retries=2)
    set_default_openai_client(client)
    processors.default_exporter().endpoint = f"{stub.url}/traces/ingest"
    try:
        asyncio.run(run(client))
    except Exception as exc:  # the run's own failure is part of the recording
        print(f"{name}: {type(exc).__name__}")
    processors.default_processor().force_flush()
    stub.close()


if __name__ == "__main__":
    main()
