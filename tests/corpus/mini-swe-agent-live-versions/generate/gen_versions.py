"""Drive one installed mini-swe-agent release (1.x or 2.x) through the same scenarios against the
loopback stub of tests/corpus/python-agents-live/generate/fake_openai.py and keep the
trajectories it writes, as its own runners write them.

1.x: ``DefaultAgent`` with the release's own CLI config (``mini.yaml``) and ``save_traj``
called as its SWE-bench runner calls it (an exception's name is the exit status). 2.x:
``DefaultAgent(output_path=...)`` with ``mini_textbased.yaml`` (text-based) or ``mini.yaml``
(tool calling). ``LocalEnvironment`` (timeout 2 s) in /home/dev/shop/msw-old: a git repository
holding a committed README.md, cart.py (``total()`` drops the first price) and test_cart.py,
with an uncommitted ``load()`` added to cart.py (the diff the submit prints). Run with the
release's own interpreter, from this folder, with HOME=/home/dev:
``LITELLM_LOCAL_MODEL_COST_MAP=True MSWEA_CONFIGURED=true python gen_versions.py OUT_DIR``.
Free text is marked ``CANARY-TASK`` / ``CANARY-THOUGHT``: no trace may hold it.
"""

from __future__ import annotations

import inspect
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python-agents-live" / "generate"))

from fake_openai import FakeOpenAI, neutral_paths
from minisweagent import __version__
from minisweagent.agents.default import DefaultAgent
from minisweagent.config import builtin_config_dir
from minisweagent.environments.local import LocalEnvironment

SHOP = "/home/dev/shop/msw-old"
TASK = "Fix total() in cart.py: the test in test_cart.py fails (CANARY-TASK)."
CHECK = "python3 -c 'import cart; assert cart.total([100, 250]) == 350, cart.total([100, 250])'"
V2 = __version__.startswith("2.")
#: 1.5 and before end on ``MINI_SWE_AGENT_FINAL_OUTPUT`` only; later releases on this mark.
RELEASE = tuple(int(part) for part in __version__.split(".")[:2])
MARK = (
    "MINI_SWE_AGENT_FINAL_OUTPUT" if RELEASE < (1, 7) else "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
)
#: As the SWE-bench configs submit: the mark, then the diff (its own text says "No such file or
#: directory": the shop's uncommitted ``load()``).
SUBMIT = f"echo {MARK} && git diff"
FENCE = "```"
KIND = "mswea_bash_command" if V2 else "bash"


def block(thought: str, command: str) -> dict[str, str]:
    """A text-based answer: a thought (marked ``CANARY-THOUGHT``: no trace may hold it), then
    one command block of the release's kind."""
    return {"text": f"{thought} CANARY-THOUGHT\n\n{FENCE}{KIND}\n{command}\n{FENCE}"}


#: The same text-based behaviour for every release: ok, exit 1, a timeout, two format errors
#: (no block; two blocks), then the submit.
TEXT_MIXED = [
    block("First the files.", "ls"),
    block("Run the check.", CHECK),
    block("Wait for it.", "sleep 5"),
    {"text": "Let me think about the slice."},
    {"text": f"{FENCE}{KIND}\ncat cart.py\n{FENCE}\nand\n{FENCE}{KIND}\nhead cart.py\n{FENCE}"},
    block("Fix it.", "sed -i 's/prices\\[1:\\]/prices/' cart.py.bak; cat cart.py | wc -l"),
    block("Done.", SUBMIT),
]
#: Two steps, then the step limit (2).
TEXT_LIMIT = [block("Look.", "ls"), block("Read.", "cat cart.py"), block("More.", "wc -l cart.py")]
#: One step, then the API refuses the key (HTTP 401: litellm does not retry it).
TEXT_API_ERROR = [block("Look.", "ls"), {"error": 401}]
#: For the interactive ``mini`` run (drive_interactive.sh): a command the person rejects, one
#: they confirm, one they stop with ^C, a submit they answer with a new task, then the end.
INTERACTIVE = [
    block("Start clean.", "rm -f cart.py"),
    block("Read it.", "cat cart.py"),
    block("Wait.", "sleep 20"),
    block("Done.", SUBMIT),
    block("Count.", "wc -l cart.py"),
    block("Done.", SUBMIT),
]
#: For the interactive run in human mode: the person rejects the command with ``/u`` and types a
#: command of their own, then hands back to the model (``/c``), which submits.
HUMAN_MODE = [block("Start clean.", "rm -f cart.py"), block("Done.", SUBMIT)]
#: 2.x tool calling: parallel calls (exit 0, exit 1), a timeout, a format error, the submit.
TOOLS_MIXED = [
    {"tools": [("bash", {"command": "ls"}), ("bash", {"command": CHECK})]},
    {"tools": [("bash", {"command": "sleep 5"})]},
    {"text": "Let me think about the slice."},
    {"tools": [("bash", {"command": SUBMIT})]},
]


def config(*names: str) -> dict[str, Any]:
    """The first of the release's own config files that exists, as a dict."""
    path = next(
        builtin_config_dir / f"{n}.yaml"
        for n in names
        if (builtin_config_dir / f"{n}.yaml").exists()
    )
    return yaml.safe_load(path.read_text())


def model(textbased: bool, url: str) -> Any:
    """The release's litellm model (2.x: text-based or tool calling) against the stub."""
    kwargs = {"api_base": url, "api_key": "sk-stub", "drop_params": True}
    if not V2:
        from minisweagent.models.litellm_model import LitellmModel

        return LitellmModel(model_name="openai/gpt-4o-mini", model_kwargs=kwargs)
    if textbased:
        from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel as cls
    else:
        from minisweagent.models.litellm_model import LitellmModel as cls
    own = config("mini_textbased" if textbased else "mini").get("model", {})
    fields = {k: v for k, v in own.items() if k not in ("model_kwargs", "model_name")}
    return cls(
        **fields, model_name="openai/gpt-4o-mini", model_kwargs=own.get("model_kwargs", {}) | kwargs
    )


def run(
    name: str, script: list[dict[str, Any]], out: Path, textbased: bool = True, **agent: Any
) -> None:
    """One run of ``script``; its trajectory is ``out/<name>.traj.json``."""
    stub = FakeOpenAI(script)
    path = out / f"{name}.traj.json"
    try:
        own = config("mini_textbased" if textbased else "mini") if V2 else config("mini", "local")
        settings = (
            {k: v for k, v in own["agent"].items() if k != "mode"} | {"cost_limit": 0} | agent
        )
        env = LocalEnvironment(cwd=SHOP, timeout=2)
        llm = model(textbased, stub.url)
        if V2:
            run_v2(DefaultAgent(llm, env, output_path=path, **settings), path, name)
        else:
            run_v1(DefaultAgent(llm, env, **settings), path, name)
    finally:
        stub.close()


def run_v2(agent: DefaultAgent, path: Path, name: str) -> None:
    """2.x saves its trajectory itself, then raises an error that ended the run."""
    try:
        print(name, agent.run(TASK).get("exit_status"))
    except Exception as error:
        print(name, type(error).__name__)
    neutral(path)


def run_v1(agent: DefaultAgent, path: Path, name: str) -> None:
    """As 1.x's SWE-bench runner: an exception's name is the exit status."""
    from minisweagent.run.utils.save import save_traj

    extra = None
    try:
        status, result = agent.run(TASK)
    except Exception as error:
        status, result = type(error).__name__, str(error)
        extra = {"traceback": traceback.format_exc()}
    keywords = {"exit_status": status, "result": result, "extra_info": extra}
    if "print_path" in inspect.signature(save_traj).parameters:
        keywords["print_path"] = False
    save_traj(agent, path, **keywords)
    neutral(path)
    print(name, status)


def neutral(path: Path) -> None:
    """Stack traces name ``/usr/lib/python3.X/`` for this machine's interpreter and venv, and
    ``/home/dev/generate/`` for this folder."""
    neutral_paths(path)
    here = f"{Path(__file__).resolve().parent}/".encode()
    own = f"{sys.prefix}/lib/".encode()
    data = path.read_bytes().replace(own, b"/usr/lib/").replace(here, b"/home/dev/generate/")
    path.write_bytes(data)


def serve(name: str) -> None:
    """Serve one script (by name) until killed; print the stub's base URL and a ``mini`` config
    file (the release's own, pointed at the stub) for drive_interactive.sh."""
    stub = FakeOpenAI(globals()[name])
    own = config("mini_textbased", "mini", "local")
    own.setdefault("model", {})
    own["model"]["model_kwargs"] = own["model"].get("model_kwargs", {}) | {
        "api_base": stub.url,
        "api_key": "sk-stub",
        "drop_params": True,
    }
    own["model"]["model_name"] = "openai/gpt-4o-mini"
    Path(sys.argv[3]).write_text(yaml.safe_dump(own))
    print(stub.url, flush=True)
    while True:
        time.sleep(1)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    run("text-mixed-submit", TEXT_MIXED, out)
    run("text-step-limit", TEXT_LIMIT, out, step_limit=2)
    run("text-api-error", TEXT_API_ERROR, out)
    if V2:
        run("tools-mixed-submit", TOOLS_MIXED, out, textbased=False)


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve(sys.argv[2])
    else:
        main(Path(sys.argv[1]))
