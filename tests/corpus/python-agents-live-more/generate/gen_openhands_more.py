"""Drive the OpenHands agent SDK 1.58.2 (a LocalConversation, terminal and file editor tools)
against the loopback stub in fake_openai.py, for what tests/corpus/python-agents-live/ lacks:
a ``think`` call and a model switched mid-conversation (``switch_llm``), and a context
condenser that summarises. Each conversation is persisted under OUT_DIR/<name>/<id>/.

Run with the SDK's own interpreter, from this folder, with HOME=/home/dev:
``python gen_openhands_more.py /home/dev/oh-conv-more``. The agent works in /home/dev/shop.
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

from openhands.sdk import LLM, Agent, Conversation, Tool
from openhands.sdk.context.condenser import LLMSummarizingCondenser
from openhands.tools.file_editor import FileEditorTool
from openhands.tools.terminal import TerminalTool
from pydantic import SecretStr

#: The loopback stub: python-agents-live/generate/fake_openai.py (the file that wrote that folder).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python-agents-live" / "generate"))
from fake_openai import FakeOpenAI

SHOP = "/home/dev/shop"
TASK = "Fix total() in cart.py: the test in test_cart.py fails."


def terminal(command: str) -> tuple[str, dict[str, Any]]:
    """A call of the terminal tool running ``command``."""
    return ("terminal", {"command": command, "is_input": False})


SWITCH_FIRST = [
    {"tools": [("think", {"thought": "total() probably drops an item."})]},
    {"tools": [terminal("ls")]},
    {"text": "cart.py and test_cart.py are there."},
]
SWITCH_SECOND = [
    {"tools": [terminal("cat cart.py")]},
    {"tools": [("finish", {"message": "total() skips the first price."})]},
]
CONDENSED = [
    {"tools": [terminal("ls")]},
    {"tools": [terminal("cat cart.py")]},
    {"tools": [terminal("cat test_cart.py")]},
    {"text": "Summary: the agent listed and read the files."},  # the condenser's call
    {"tools": [terminal("grep -n total cart.py")]},
    {"tools": [("finish", {"message": "total() skips the first price."})]},
]


def llm(model: str, stub: FakeOpenAI, usage_id: str = "agent") -> LLM:
    return LLM(
        model=model,
        base_url=stub.url,
        api_key=SecretStr("sk-stub"),
        usage_id=usage_id,
        num_retries=0,
    )


def conversation(name: str, agent: Agent, out: Path) -> Any:
    return Conversation(
        agent=agent,
        workspace=SHOP,
        persistence_dir=str(out / name),
        conversation_id=uuid.uuid4(),
        visualizer=None,
    )


def tools() -> list[Tool]:
    return [Tool(name=TerminalTool.name), Tool(name=FileEditorTool.name)]


def switched(name: str, usage_id: str, out: Path) -> None:
    """A think call, an answer, then the person switches the model (to an LLM registered as
    ``usage_id``: a profile's ``profile:<name>``, or the agent's own ``agent``) and asks again."""
    stub = FakeOpenAI(SWITCH_FIRST + SWITCH_SECOND)
    agent = Agent(llm=llm("openai/gpt-4o-mini", stub), tools=tools())
    chat = conversation(name, agent, out)
    chat.send_message(TASK)
    chat.run()
    chat.switch_llm(llm("openai/gpt-4.1", stub, usage_id=usage_id))
    chat.send_message("Now look at cart.py, please.")
    chat.run()
    stub.close()


def switched_profile_run(out: Path) -> None:
    switched("think-switch-profile", "profile:fast", out)


def switched_same_usage_run(out: Path) -> None:
    switched("think-switch-llm-same-usage", "agent", out)


def condensed_run(out: Path) -> None:
    """A condenser that summarises once the history holds more than six events."""
    stub = FakeOpenAI(CONDENSED)
    condenser = LLMSummarizingCondenser(
        llm=llm("openai/gpt-4o-mini", stub, usage_id="condenser"), max_size=6, keep_first=1
    )
    agent = Agent(llm=llm("openai/gpt-4o-mini", stub), tools=tools(), condenser=condenser)
    chat = conversation("condenser", agent, out)
    chat.send_message(TASK)
    chat.run()
    stub.close()


def main(out: Path) -> None:
    for run in (switched_profile_run, switched_same_usage_run, condensed_run):
        try:
            run(out)
        except Exception as error:  # the run ends on an error its events record
            print(run.__name__, type(error).__name__, error)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
