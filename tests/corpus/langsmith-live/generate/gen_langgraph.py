"""Drive LangGraph agents on ``ChatOpenAI`` (the loopback OpenAI stub) traced by the LangSmith
SDK into the loopback LangSmith stub, and save what the SDK sent:
``python gen_langgraph.py OUT_DIR CASE [batch|multipart|zstd]``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

PORT = 18733
MODE = sys.argv[3] if len(sys.argv) > 3 else "multipart"
os.environ.update(
    LANGSMITH_TRACING="true",
    LANGSMITH_ENDPOINT=f"http://127.0.0.1:{PORT}",
    LANGSMITH_API_KEY="lsv2_fake_key",
    LANGSMITH_PROJECT="shop",
    OPENAI_API_KEY="sk-fake",
)

import zstandard  # noqa: E402
from fake_langsmith import FakeLangSmith, split_multipart  # noqa: E402

#: The loopback stub: otel-live-more/generate/fake_openai.py (the file that wrote that folder).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "otel-live-more" / "generate"))
from fake_openai import FakeOpenAI, neutral_paths  # noqa: E402
from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import HumanInTheLoopMiddleware  # noqa: E402
from langchain_core.tools import ToolException, tool  # noqa: E402
from langchain_core.tracers.langchain import wait_for_all_tracers  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.prebuilt import ToolNode, create_react_agent  # noqa: E402
from langgraph.types import Command, interrupt  # noqa: E402
from langsmith import Client  # noqa: E402

PROMPT = "CANARY-PROMPT refund order 42 for /home/dev/shop customer"


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
def reserve_stock(sku: str) -> str:
    """Reserve an item; a ToolException is answered to the model as the tool's error."""
    raise ToolException(f"CANARY-TOOLEXC {sku} is out of stock")


reserve_stock.handle_tool_error = True


@tool
def refund_now(order_id: int) -> str:
    """Refund an order."""
    return f"CANARY-REFUNDED {order_id}"


@tool
def refund(order_id: int) -> str:
    """Refund an order; a person approves it first."""
    answer = interrupt({"question": f"CANARY-ASK refund order {order_id}?"})
    return f"CANARY-REFUND {order_id}: {answer}"


@tool
def ask_billing(question: str) -> str:
    """Ask the billing sub-agent."""
    inner = create_react_agent(model(STUBS[-1], max_retries=0), [lookup_order], name="billing")
    result = inner.invoke({"messages": [("user", question)]})
    return str(result["messages"][-1].content)


STUBS: list[FakeOpenAI] = []


def model(stub: FakeOpenAI, **kwargs: Any) -> ChatOpenAI:
    return ChatOpenAI(model="gpt-4o-mini", base_url=stub.url, api_key="sk-fake", **kwargs)


def run_case(case: str) -> None:
    """Run one scenario; its script is the stub's replies."""
    scripts: dict[str, list[dict[str, Any]]] = {
        "parallel": [
            {"tools": [("lookup_order", {"order_id": 42}), ("check_stock", {"sku": "A-1"})]},
            {"text": "CANARY-ANSWER order 42 is paid, A-1 in stock"},
        ],
        "tool_error": [
            {"tools": [("charge_card", {"order_id": 42})]},
            {"text": "CANARY-ANSWER the card was declined"},
        ],
        "api_error": [
            {"tools": [("lookup_order", {"order_id": 42})]},
            {"error": 500},
        ],
        "interrupt": [
            {"tools": [("refund", {"order_id": 42})]},
            {"text": "CANARY-ANSWER refunded"},
        ],
        "tool_handled": [
            {"tools": [("reserve_stock", {"sku": "A-1"}), ("charge_card", {"order_id": 42})]},
            {"text": "CANARY-ANSWER A-1 is out of stock and the card was declined"},
        ],
        "subagent": [
            {"tools": [("ask_billing", {"question": "CANARY-SUB is order 42 paid?"})]},
            {"tools": [("lookup_order", {"order_id": 42})]},
            {"text": "CANARY-SUBANSWER yes, paid"},
            {"text": "CANARY-ANSWER billing says order 42 is paid"},
        ],
        "retry": [
            {"error": 500},
            {"tools": [("lookup_order", {"order_id": 42})]},
            {"error": 503},
            {"text": "CANARY-ANSWER order 42 is paid"},
        ],
        "hitl": [
            {"tools": [("lookup_order", {"order_id": 42}), ("refund_now", {"order_id": 42})]},
            {"text": "CANARY-ANSWER order 42 is paid; the refund was declined"},
        ],
        "stream": [
            {"tools": [("lookup_order", {"order_id": 42})]},
            {"text": "CANARY-ANSWER order 42 is paid"},
        ],
    }
    stub = FakeOpenAI(scripts[case])
    STUBS.append(stub)
    tools = [lookup_order, check_stock, charge_card, refund, ask_billing, reserve_stock]
    if case == "interrupt":
        agent = create_react_agent(model(stub), tools, checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "thread-1"}}
        agent.invoke({"messages": [("user", PROMPT)]}, config)
        agent.invoke(Command(resume="CANARY-APPROVED yes"), config)
    elif case == "tool_handled":  # ToolNode answers the model with the error as a ToolMessage
        agent = create_react_agent(model(stub), ToolNode(tools, handle_tool_errors=True))
        agent.invoke({"messages": [("user", PROMPT)]})
    elif case == "retry":  # each failed request is tried again by with_retry
        retried = model(stub, max_retries=0).bind_tools(tools).with_retry(stop_after_attempt=2)
        agent = create_react_agent(retried, tools)
        agent.invoke({"messages": [("user", PROMPT)]})
    elif case == "hitl":  # langchain's create_agent; a person rejects the gated call
        gated = {"refund_now": True}
        gate = HumanInTheLoopMiddleware(interrupt_on=gated, interrupt_mode="per_call")
        agent = create_agent(
            model(stub), [lookup_order, refund_now], middleware=[gate], checkpointer=InMemorySaver()
        )
        config = {"configurable": {"thread_id": "thread-2"}}
        paused = agent.invoke({"messages": [("user", PROMPT)]}, config, version="v2")
        no = {"type": "reject", "message": "CANARY-NO not without a receipt"}
        agent.invoke(Command(resume={i.id: no for i in paused.interrupts}), config, version="v2")
    elif case == "stream":
        agent = create_react_agent(model(stub, streaming=True), tools)
        for _ in agent.stream({"messages": [("user", PROMPT)]}, stream_mode="messages"):
            pass
    else:
        agent = create_react_agent(model(stub, max_retries=0), tools)
        try:
            agent.invoke({"messages": [("user", PROMPT)]})
        except Exception as error:  # the run ends on it, as the case wants
            print(f"{case}: run raised {type(error).__name__}", file=sys.stderr)
    stub.close()


def main() -> None:
    out, case = Path(sys.argv[1]), sys.argv[2]
    server = FakeLangSmith(PORT, multipart=MODE != "batch", zstd=MODE == "zstd")
    run_case(case)
    wait_for_all_tracers()
    Client().flush()
    bodies = out / f"{case}-{MODE}"
    bodies.mkdir(parents=True, exist_ok=True)
    save(bodies / f"{case}-{MODE}", server.received)
    runs = list(Client().list_runs(project_name="shop"))
    dumps = out / "list_runs"
    dumps.mkdir(exist_ok=True)
    lines = "".join(run.model_dump_json() + "\n" for run in runs)
    (dumps / f"{case}.jsonl").write_text(lines)
    text = json.dumps([run.dict() for run in runs], indent=2, default=str) + "\n"
    (dumps / f"{case}.dicts.json").write_text(text)
    server.close()
    for written in [*bodies.iterdir(), dumps / f"{case}.jsonl", dumps / f"{case}.dicts.json"]:
        neutral_paths(written)  # the interpreter's paths; then this folder's
        here = f"{Path(__file__).resolve().parent}/".encode()
        written.write_bytes(written.read_bytes().replace(here, b"/home/dev/shop/"))


def save(stem: Path, received: list[tuple[str, str, dict[str, str], bytes]]) -> None:
    """Each ingestion request as the SDK sent it: a ``/runs/batch`` body byte for byte, a
    ``/runs/multipart`` body (unpacked when zstd) as its JSON list of parts."""
    sent = [r for r in received if r[0] in ("POST", "PATCH") and r[1].startswith("/runs")]
    for n, (method, path, headers, body) in enumerate(sent, 1):
        print(n, method, path, headers.get("Content-Encoding"), len(body), file=sys.stderr)
        if path.startswith("/runs/multipart"):
            if headers.get("Content-Encoding") == "zstd":
                body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
            parts = split_multipart(body, headers["Content-Type"])
            data = json.dumps(parts, indent=1, ensure_ascii=False).encode() + b"\n"
            Path(f"{stem}-{n}.parts.json").write_bytes(data)
        else:
            Path(f"{stem}-{n}.json").write_bytes(body)


if __name__ == "__main__":
    main()
