"""Drive the OpenHands agent SDK (a LocalConversation with the terminal and file editor tools)
against the loopback stub in fake_openai.py; it persists each conversation's event store
(``base_state.json``, ``events/event-*.json``) under OUT_DIR/<name>/<conversation id>/.

Run with the SDK's own interpreter, from this folder, with HOME=/home/dev:
``python gen_openhands.py OUT_DIR``. The agent works in /home/dev/shop.
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI
from openhands.sdk import LLM, Agent, Conversation, Tool
from openhands.sdk.security.confirmation_policy import AlwaysConfirm
from openhands.tools.file_editor import FileEditorTool
from openhands.tools.terminal import TerminalTool
from pydantic import SecretStr

SHOP = "/home/dev/shop"
TASK = "Fix total() in cart.py: the test in test_cart.py fails."
CHECK = "python3 -c 'import cart; assert cart.total([100, 250]) == 350'"


def terminal(command: str) -> tuple[str, dict[str, Any]]:
    """A call of the terminal tool running ``command``."""
    return ("terminal", {"command": command, "is_input": False})


FINISH = [
    {"tools": [terminal("ls")]},
    {"tools": [terminal(CHECK)]},
    {
        "tools": [
            ("file_editor", {"command": "view", "path": f"{SHOP}/cart.py"}),
            terminal("wc -l cart.py"),
        ]
    },
    {"tools": [("file_editor", {"command": "view", "path": f"{SHOP}/missing.py"})]},
    {"tools": [("finish", {"message": "total() skips the first price; see cart.py line 6."})]},
]
MAX_ITERATIONS = [
    {"tools": [terminal("ls")]},
    {"tools": [terminal("cat cart.py")]},
    {"tools": [terminal("cat test_cart.py")]},
]
REJECTED = [
    {"tools": [terminal("rm -f cart.py")]},
    {"text": "Understood: I will not delete cart.py."},
]

RESUMED_API_ERROR = [
    {"tools": [("finish", {"message": "Looked at it."})]},
    {"error": 500},
]


def conversation(name: str, stub: FakeOpenAI, out: Path, **kwargs: Any) -> Any:
    """A local conversation persisted under ``out/<name>``, its model the stub."""
    llm = LLM(
        model="openai/gpt-4o-mini",
        base_url=stub.url,
        api_key=SecretStr("sk-stub"),
        usage_id="agent",
        num_retries=0,
    )
    tools = [Tool(name=TerminalTool.name), Tool(name=FileEditorTool.name)]
    agent = Agent(llm=llm, tools=tools)
    return Conversation(
        agent=agent,
        workspace=SHOP,
        persistence_dir=str(out / name),
        conversation_id=uuid.uuid4(),
        visualizer=None,
        **kwargs,
    )


def finish_run(out: Path) -> None:
    stub = FakeOpenAI(FINISH)
    chat = conversation("terminal-finish", stub, out)
    chat.send_message(TASK)
    chat.run()
    stub.close()


def max_iterations_run(out: Path) -> None:
    stub = FakeOpenAI(MAX_ITERATIONS)
    chat = conversation("max-iterations", stub, out, max_iteration_per_run=2)
    chat.send_message(TASK)
    chat.run()
    stub.close()


def rejected_run(out: Path) -> None:
    stub = FakeOpenAI(REJECTED)
    chat = conversation("confirmation-rejected", stub, out)
    chat.set_confirmation_policy(AlwaysConfirm())
    chat.send_message(TASK)
    chat.run()  # stops waiting for the confirmation of the rm
    chat.reject_pending_actions("Do not delete files.")
    chat.run()
    stub.close()


def resumed_api_error_run(out: Path) -> None:
    """A finished conversation the person sets going again; the model's API then fails."""
    stub = FakeOpenAI(RESUMED_API_ERROR)
    chat = conversation("resumed-api-error", stub, out)
    chat.send_message(TASK)
    chat.run()
    chat.send_message("Now also fix it, please.")
    try:
        chat.run()
    finally:
        stub.close()


def main(out: Path) -> None:
    for run in (finish_run, max_iterations_run, rejected_run, resumed_api_error_run):
        try:
            run(out)
        except Exception as error:  # the run ends on an error its events record
            print(run.__name__, type(error).__name__, error)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
