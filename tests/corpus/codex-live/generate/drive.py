"""Drive the real Codex CLI against the fake Responses API and keep the rollouts it writes.

Run it in a private mount namespace with a scratch folder bound over /home/dev, so that the
recordings hold only neutral paths (``npm install @openai/codex@0.171.0`` in SCRATCH first)::

    unshare -m --propagation private bash -c 'mount --bind SCRATCH/home /home/dev &&
        python3 drive.py SCRATCH/node_modules/.bin/codex OUT'

OUT receives every rollout Codex wrote and requests.jsonl, what the fake was asked."""

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
PORT = 18765
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
    """Every scenario once; the rollouts copied to the out folder."""
    codex, out = sys.argv[1], Path(sys.argv[2])
    project()
    shutil.rmtree(HOME / ".codex", ignore_errors=True)
    (HOME / ".codex").mkdir(parents=True)
    (HOME / ".codex" / "config.toml").write_text(CONFIG)
    server = subprocess.Popen(
        [sys.executable, str(HERE / "fake_responses.py"), str(PORT), str(out / "requests.jsonl")]
    )
    time.sleep(1)
    try:
        for keyword in ["tools", "fail", "streamfail", "escalate", "poll"]:
            run(exec_args(codex, f"[{keyword}] please work on the shop"))
        run(exec_args(codex, "-c", "model_auto_compact_token_limit=200000", "[compact] count"))
        first = run(exec_args(codex, "--json", "[resume] say turn0"))
        run(exec_args(codex, "resume", thread_id(first), "and now turn1"))
        interrupted(codex, "[sleepy] wait a minute")
    finally:
        server.terminate()
    for rollout in sorted((HOME / ".codex" / "sessions").rglob("rollout-*.jsonl")):
        shutil.copy2(rollout, out / rollout.name)


if __name__ == "__main__":
    main()
