"""Drive the real Codex CLI against the fake Responses API and keep the rollouts it writes.

Run it in a private mount namespace with a scratch folder bound over /home/dev, so that the
recordings hold only neutral paths (``npm install @openai/codex@0.171.0`` in SCRATCH first)::

    unshare -m --propagation private bash -c 'mount --bind SCRATCH/home /home/dev &&
        python3 drive.py SCRATCH/node_modules/.bin/codex OUT [SCENARIO...]'

``codex exec`` runs the scenarios, the TUI (tui.py, in a pseudo-terminal) those in TUI_STEPS;
config.toml turns on multi_agent_v2 and the stdio MCP server mcp_server.py. OUT receives every
rollout Codex wrote, requests.jsonl (what the fake was asked) and each TUI run's screen."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
HOME = Path("/home/dev")
SHOP = HOME / "shop"
PORT = 18775
CONFIG = f"""model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:{PORT}/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[features]
multi_agent_v2 = true

[mcp_servers.shopdb]
command = "python3"
args = ["/home/dev/.codex/mcp_server.py"]
"""


def env() -> dict[str, str]:
    """A clean environment: neutral HOME, the fake key, no telemetry."""
    return {
        "HOME": str(HOME),
        "CODEX_HOME": str(HOME / ".codex"),
        "PATH": os.environ["PATH"],
        "FAKE_API_KEY": "fake-key",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "NO_COLOR": "1",
    }


def exec_args(codex: str, *extra: str) -> list[str]:
    """``codex exec`` with the sandbox off (it cannot run in this container)."""
    return [
        codex,
        "exec",
        "--skip-git-repo-check",
        "--sandbox",
        "danger-full-access",
        "-C",
        str(SHOP),
        *extra,
    ]


def run(args: list[str], timeout: float = 60) -> str:
    """Run one codex command; its stdout (the exec --json events, when asked)."""
    done = subprocess.run(args, env=env(), capture_output=True, text=True, timeout=timeout)
    print(" ".join(args[1:4]), "->", done.returncode, done.stderr[-400:], file=sys.stderr)
    return done.stdout


def interrupted(codex: str, prompt: str) -> None:
    """Start a turn whose command sleeps, then send SIGINT as a user's ^C."""
    proc = subprocess.Popen(exec_args(codex, prompt), env=env(), stdout=subprocess.PIPE)
    time.sleep(6)
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    print("interrupted ->", proc.returncode, file=sys.stderr)


def thread_id(stdout: str) -> str:
    """The thread id an exec --json run printed."""
    for line in stdout.splitlines():
        event = json.loads(line)
        if event.get("type") == "thread.started":
            return str(event["thread_id"])
    raise SystemExit("no thread.started event")


def project() -> None:
    """The small made-up project the agent works on, fresh."""
    shutil.rmtree(SHOP, ignore_errors=True)
    (SHOP / "shop").mkdir(parents=True)
    (SHOP / "tests").mkdir()
    (SHOP / "shop" / "__init__.py").write_text("")
    (SHOP / "shop" / "cart.py").write_text("def total(items):\n    return sum(items)\n")
    test = "from shop.cart import total\n\n\ndef test_total():\n    assert total([]) == 0\n"
    (SHOP / "tests" / "test_cart.py").write_text(test)


def main() -> None:
    """Every scenario once (or those named after OUT); the rollouts copied to OUT."""
    codex, out = sys.argv[1], Path(sys.argv[2])
    chosen = sys.argv[3:] or SCENARIOS
    project()
    shutil.rmtree(HOME / ".codex", ignore_errors=True)
    (HOME / ".codex").mkdir(parents=True)
    (HOME / ".codex" / "config.toml").write_text(CONFIG)
    shutil.copy2(HERE / "mcp_server.py", HOME / ".codex" / "mcp_server.py")
    server = subprocess.Popen(
        [sys.executable, str(HERE / "fake_responses.py"), str(PORT), str(out / "requests.jsonl")]
    )
    time.sleep(1)
    try:
        for keyword in chosen:
            if keyword in TUI_STEPS:
                tui = [sys.executable, str(HERE / "tui.py"), codex, str(out), keyword]
                subprocess.run([*tui, *TUI_STEPS[keyword]], timeout=120)
            else:
                run(exec_args(codex, f"[{keyword}] please work on the shop"))
    finally:
        server.terminate()
    for rollout in sorted((HOME / ".codex" / "sessions").rglob("rollout-*.jsonl")):
        shutil.copy2(rollout, out / rollout.name)


MIGRATION = "?Use existing model=>2"  # (the TUI's offer of a newer model, declined)
AGENTS_TIP = "?Agent Command Center=>\\r"  # (a tip the TUI shows once in a while, passed)
#: Interactive scenarios: the TUI's cue and the keys a person answers it with.
TUI_STEPS = {
    "escalate": [MIGRATION, "Would you like=>n"],
    "approve": [MIGRATION, "Would you like=>y", "Would you like=>y"],
    "mcpslow": [MIGRATION, AGENTS_TIP, "Allow the shopdb=>\\r", "~4=>\\x1b"],
    "mcpdeny": [MIGRATION, AGENTS_TIP, "Allow the shopdb=>\\x1b[B\\x1b[B\\x1b[B\\r"],
    "sleepy": [MIGRATION, "background terminal running=>\\x1b"],
}
SCENARIOS = [
    "mcp",
    "spawn",
    "patch",
    "ghost",
    "escalate",
    "approve",
    "sleepy",
    "mcpslow",
    "mcpdeny",
]

if __name__ == "__main__":
    main()
