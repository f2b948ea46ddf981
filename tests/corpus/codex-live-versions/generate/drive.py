"""Drive OLDER releases of the real Codex CLI against the fake Responses API; keep their rollouts.

Install each release in a folder of its own (``npm install @openai/codex@0.47.0`` in
SCRATCH/v0.47.0), then run in a private mount namespace with a scratch folder bound over
/home/dev, so that the recordings hold only neutral paths::

    unshare -m --propagation private bash -c 'mount --bind SCRATCH/home /home/dev &&
        python3 drive.py SCRATCH/v0.47.0/node_modules/.bin/codex 0.47.0 gpt-5-codex OUT'

Each scenario is one ``codex exec`` (the model named is the one that release offered its usual
tools for), or, named ``tui-SCENARIO``, the interactive TUI in a pseudo-terminal (tui.py) with
the keys of TUI_STEPS; config.toml adds the stdio MCP server
codex-live-more/generate/mcp_server.py. OUT receives each rollout as
SCENARIO-VERSION__<rollout name> and VERSION__requests.jsonl (what the fake was asked)."""

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
#: The stdio MCP server that wrote codex-live-more's MCP cases, used here unchanged.
MCP_SERVER = HERE.parent.parent / "codex-live-more" / "generate" / "mcp_server.py"
HOME = Path("/home/dev")
SHOP = HOME / "shop"
CODEX_HOME = HOME / ".codex-old"
PORT = 19555
CONFIG = f"""model = "{{model}}"
model_provider = "fake"
approval_policy = "never"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:{PORT}/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[mcp_servers.shopdb]
command = "python3"
args = ["{CODEX_HOME}/mcp_server.py"]
tool_timeout_sec = 10
"""


def env() -> dict[str, str]:
    """A clean environment: neutral HOME, the fake key, no telemetry."""
    return {
        "HOME": str(HOME),
        "CODEX_HOME": str(CODEX_HOME),
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


def run(args: list[str], timeout: float = 90) -> str:
    """Run one codex command; its stdout (the exec --json events, when asked). One that hangs
    (0.20 retries a failing API for minutes) is killed with the binary the npm wrapper started."""
    proc = subprocess.Popen(
        args,
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        print(" ".join(args[1:4]), "-> timed out", file=sys.stderr)
        return ""
    print(" ".join(args[1:4]), "->", proc.returncode, err[-400:], file=sys.stderr)
    return out


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
        event = json.loads(line) if line.startswith("{") else {}
        if event.get("type") == "thread.started":
            return str(event["thread_id"])
        if "session_id" in (event.get("msg") or {}):  # (releases before thread.started)
            return str(event["msg"]["session_id"])
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


def rollouts() -> set[Path]:
    """Every rollout written so far."""
    return set((CODEX_HOME / "sessions").rglob("rollout-*.jsonl"))


def keep(out: Path, version: str, keyword: str, before: set[Path]) -> None:
    """Copy the rollouts the last scenario wrote, named by scenario and version."""
    for rollout in sorted(rollouts() - before):
        shutil.copy2(rollout, out / f"{keyword}-{version}__{rollout.name}")


def scenario(codex: str, keyword: str, out: Path) -> None:
    """One scenario: a plain exec, a resumed one, or an interrupted one."""
    if keyword == "resume":
        first = run(exec_args(codex, "--json", "[resume] say turn0"))
        try:
            run(exec_args(codex, "resume", thread_id(first), "and now turn1"))
        except (SystemExit, json.JSONDecodeError) as error:
            print("resume not possible:", error, file=sys.stderr)
    elif keyword == "sleepy":
        interrupted(codex, "[sleepy] wait a minute")
    elif keyword.startswith("tui-"):
        scenario = keyword.removeprefix("tui-")
        tui = [sys.executable, str(HERE / "tui.py"), codex, str(out), scenario]
        subprocess.run([*tui, *TUI_STEPS[scenario]], timeout=120)
    else:
        run(exec_args(codex, f"[{keyword}] please work on the shop"))


def main() -> None:
    """Every scenario once (or those named after OUT) with one release."""
    codex, version, model, out = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
    chosen = sys.argv[5:] or SCENARIOS
    project()
    shutil.rmtree(CODEX_HOME, ignore_errors=True)
    CODEX_HOME.mkdir(parents=True)
    (CODEX_HOME / "config.toml").write_text(CONFIG.replace("{model}", model))
    shutil.copy2(MCP_SERVER, CODEX_HOME / "mcp_server.py")
    log = str(out / f"{version}__requests.jsonl")
    server = subprocess.Popen([sys.executable, str(HERE / "fake_responses.py"), str(PORT), log])
    time.sleep(1)
    try:
        for keyword in chosen:
            before = rollouts()
            scenario(codex, keyword, out)
            keep(out, version, keyword, before)
    finally:
        server.terminate()


SCENARIOS = ["tools", "fail", "streamfail", "escalate", "ghost", "mcp", "resume", "sleepy"]
#: Interactive scenarios: the TUI's cue and the keys a person answers it with (tui.py).
TUI_STEPS = {
    "escalate": ["Would you like=>\\x1b"],  # (Esc: "No, and tell Codex what to do differently")
    "sleepy": ["~7=>\\x1b"],  # (Esc while ``sleep 60`` runs)
}

if __name__ == "__main__":
    main()
