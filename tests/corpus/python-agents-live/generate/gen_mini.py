"""Drive mini-swe-agent (its Python API: DefaultAgent, LocalEnvironment, the litellm models)
against the loopback stub in fake_openai.py and keep the trajectories it writes.

Run with mini-swe-agent's own interpreter, from this folder, with HOME=/home/dev:
``MSWEA_COST_TRACKING=ignore_errors python gen_mini.py OUT_DIR``. The task runs in
/home/dev/shop (a small made-up project; create it first).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml
from fake_openai import FakeOpenAI
from minisweagent.agents.default import DefaultAgent
from minisweagent.config import get_config_path
from minisweagent.environments.local import LocalEnvironment
from minisweagent.models.litellm_model import LitellmModel
from minisweagent.models.litellm_response_model import LitellmResponseModel
from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel

SHOP = "/home/dev/shop"
TASK = "Fix total() in cart.py: the test in test_cart.py fails."
SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
CHECK = "python3 -c 'import cart; assert cart.total([100, 250]) == 350, cart.total([100, 250])'"

PARALLEL_LIMIT = [
    {"tools": [("bash", {"command": "ls"}), ("bash", {"command": CHECK})]},
    {"tools": [("bash", {"command": "sleep 5"})]},
    {"tools": [("bash", {"command": "grep -n prices cart.py"})]},
]
RESPONSES_SUBMIT = [
    {"tools": [("bash", {"command": "cat cart.py"}), ("bash", {"command": CHECK})]},
    {"text": "The slice drops the first price; I will fix it."},
    {"tools": [("bash", {"command": "sed -i 's/prices\\[1:\\]/prices/' cart.py.bak"})]},
    {"tools": [("bash", {"command": "git diff --stat"}), ("bash", {"command": SUBMIT})]},
]
REPEATED_FORMAT = [
    {"tools": [("bash", {"command": "head -3 cart.py"})]},
    {"text": "Let me think about this."},
    {"tools": [("bash", '{"command": "cat cart')]},
    {"tools": [("python", {"code": "print(1)"})]},
]

FENCE = "```"
TEXTBASED = [
    {"text": f"First the files.\n\n{FENCE}mswea_bash_command\nls\n{FENCE}"},
    {
        "text": f"You could run\n{FENCE}bash\ncat README.md\n{FENCE}\nor\n{FENCE}bash\n"
        f"head README.md\n{FENCE}\nbut the cart matters:\n\n"
        f"{FENCE}mswea_bash_command\ncat cart.py\n{FENCE}"
    },
    {"text": f"Run the check:\n{FENCE}bash\n{CHECK}\n{FENCE}"},
    {"text": f"Checking.\n\n{FENCE}mswea_bash_command\n{CHECK}\n{FENCE}"},
    {"text": f"Done.\n\n{FENCE}mswea_bash_command\n{SUBMIT}\n{FENCE}"},
]

#: For the interactive ``mini`` run (drive_mini_interactive.sh): a call the person rejects, one
#: they confirm, one they stop with ^C, a submit they answer with a new task, then the end.
INTERACTIVE = [
    {"tools": [("bash", {"command": "rm -f cart.py"})]},
    {"tools": [("bash", {"command": "cat cart.py"})]},
    {"tools": [("bash", {"command": "sleep 20"})]},
    {"tools": [("bash", {"command": SUBMIT})]},
    {"tools": [("bash", {"command": "wc -l cart.py"})]},
    {"tools": [("bash", {"command": SUBMIT})]},
]

#: For the interactive run in human mode: the person rejects the call with ``/u`` and types a
#: command of their own, then hands back to the model (``/c``), which submits.
HUMAN_MODE = [
    {"tools": [("bash", {"command": "rm -f cart.py"})]},
    {"tools": [("bash", {"command": SUBMIT})]},
]


def config(name: str, section: str) -> dict[str, Any]:
    """One section of one of mini-swe-agent's own config files (``mini``, ``mini_textbased``)."""
    return yaml.safe_load(get_config_path(name).read_text())[section]


def agent_config(name: str = "mini", **overrides: Any) -> dict[str, Any]:
    """The ``agent`` section of a ``mini`` CLI config, with ``overrides`` (no cost limit)."""
    agent = {k: v for k, v in config(name, "agent").items() if k != "mode"}
    return {**agent, "cost_limit": 0, **overrides}


def run(
    name: str, model_class: type, script: list[dict[str, Any]], out: Path, **agent: Any
) -> None:
    """One run of ``script`` with ``model_class``; its trajectory is ``out/<name>.traj.json``.
    A text-based model takes the ``mini_textbased`` config's model and agent sections."""
    stub = FakeOpenAI(script)
    textbased = model_class is LitellmTextbasedModel
    own = config("mini_textbased", "model") if textbased else {}
    try:
        model = model_class(
            **{k: v for k, v in own.items() if k != "model_kwargs"},
            model_kwargs=own.get("model_kwargs", {}),
            model_name="openai/gpt-4o-mini",
            cost_tracking="ignore_errors",
        )
        model.config.model_kwargs |= {"api_base": stub.url, "api_key": "sk-stub"}
        model.config.model_kwargs["drop_params"] = True
        if textbased:
            agent = agent_config("mini_textbased", **agent)
        env = LocalEnvironment(cwd=SHOP, timeout=2)
        path = out / f"{name}.traj.json"
        agent = agent if textbased else agent_config(**agent)
        runner = DefaultAgent(model, env, output_path=path, **agent)
        try:
            print(name, runner.run(TASK).get("exit_status"))
        except Exception as error:  # the run ends on an error the trajectory records
            print(name, type(error).__name__)
    finally:
        stub.close()


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    run("toolcalls-parallel-step-limit", LitellmModel, PARALLEL_LIMIT, out, step_limit=3)
    run("responses-api-submit", LitellmResponseModel, RESPONSES_SUBMIT, out)
    run("repeated-format-error", LitellmModel, REPEATED_FORMAT, out)
    run("textbased-example-blocks", LitellmTextbasedModel, TEXTBASED, out)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
