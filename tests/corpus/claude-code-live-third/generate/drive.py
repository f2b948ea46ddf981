"""Drive the real Claude Code CLI against ``fake_anthropic.py`` and keep its transcripts: a
Bash output large enough to be stored in ``tool-results/``, background shells with TaskOutput,
TaskStop and Monitor, failing WebFetch/WebSearch/NotebookEdit/Edit/Write, Glob/Grep with no
match, an image Read, an automatic compaction (the stub reports a nearly full context), a second
session in the same folder, Monitor watches that fail or expire, WebFetch without a network, and
(interactive, in a pty) a rewind and a ``/clear``.

Usage: ``python drive.py CLAUDE_BIN SCRATCH OUT`` (as root: each run sees SCRATCH/home mounted
at /home/dev through ``unshare -m``, so the transcripts hold only /home/dev paths). Then run
``tests/corpus/claude-code-live/generate/strip_prompts.py`` over the kept ``.jsonl`` files.
"""

from __future__ import annotations

import base64
import json
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

PORT = 8791
CART = (
    '"""A tiny shopping cart."""\n\n\ndef total(prices):\n    """The sum."""\n'
    "    return sum(prices)\n"
)
TESTS = "from cart import total\n\n\ndef test_total():\n    assert total([0.1, 0.2]) == 0.3\n"
NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "id": "c1",
            "metadata": {},
            "source": ["print(1)"],
            "outputs": [],
            "execution_count": None,
        }
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}
LOGO = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
ENV = {
    "HOME": "/home/dev",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "TERM": "xterm-256color",
    "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{PORT}",
    "ANTHROPIC_API_KEY": "sk-ant-api03-fake-loopback-key-0000000000",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "CLAUDE_CODE_MAX_RETRIES": "0",
    "MCP_TOOL_TIMEOUT": "3000",
}


def reset_shop(scratch: Path) -> None:
    """A fresh made-up project in SCRATCH/home/shop."""
    shop = scratch / "home" / "shop"
    shutil.rmtree(shop, ignore_errors=True)
    shop.mkdir(parents=True)
    (shop / "cart.py").write_text(CART)
    (shop / "test_cart.py").write_text(TESTS)
    (shop / "big.txt").write_text("".join(f"row {n} of the price list\\n" for n in range(2000)))
    (shop / "notes.ipynb").write_text(json.dumps(NOTEBOOK))
    (shop / "logo.png").write_bytes(base64.b64decode(LOGO))


def command(claude: str, scratch: Path, args: list[str]) -> list[str]:
    """The claude command line run inside a private mount of /home/dev."""
    inner = 'mount --bind "$0/home" /home/dev && cd /home/dev/shop && exec "$@"'
    return ["unshare", "-m", "sh", "-c", inner, str(scratch), claude, *args]


def headless(claude: str, scratch: Path, prompt: str, *args: str, **env: str) -> dict:
    """Run ``claude -p PROMPT --output-format json ARGS`` (ENV plus ``env``); its result."""
    argv = command(claude, scratch, ["-p", prompt, "--output-format", "json", *args])
    done = subprocess.run(
        argv, env={**ENV, **env}, capture_output=True, text=True, timeout=180, check=False
    )
    print(prompt[:30], "rc", done.returncode, done.stdout[-300:], done.stderr[-300:])
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        return {}


def killed(claude: str, scratch: Path, prompt: str, seconds: float, *args: str) -> None:
    """Run ``claude -p PROMPT ARGS`` and end it (SIGTERM to its process group) after
    ``seconds``, while its tool call runs."""
    argv = command(claude, scratch, ["-p", prompt, "--output-format", "json", *args])
    proc = subprocess.Popen(argv, env=ENV, start_new_session=True)
    time.sleep(seconds)
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=30)


def _pump(fd: int, seconds: float) -> bytes:
    """Read the pty for ``seconds``."""
    out = b""
    end = time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
    return out


def interactive(claude: str, scratch: Path, keys: list[tuple[float, bytes]], *args: str) -> bytes:
    """Run claude in a pty, typing each ``(wait, bytes)`` in turn; what it showed."""
    pid, fd = pty.fork()
    if pid == 0:
        argv = command(claude, scratch, list(args))
        os.execvpe(argv[0], argv, dict(ENV, IS_SANDBOX="1"))
    screen = b""
    for wait, data in keys:
        screen += _pump(fd, wait)
        os.write(fd, data)
    screen += _pump(fd, 3)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return screen


def sessions(scratch: Path) -> set[str]:
    """The ids of the sessions written so far."""
    folder = scratch / "home" / ".claude" / "projects" / "-home-dev-shop"
    return {path.stem for path in folder.glob("*.jsonl")}


def trust(scratch: Path) -> None:
    """Mark onboarding done and the project trusted so the TUI opens straight to its prompt."""
    path = scratch / "home" / ".claude.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data.update(hasCompletedOnboarding=True, theme="dark", bypassPermissionsModeAccepted=True)
    key = ENV["ANTHROPIC_API_KEY"][-20:]
    data["customApiKeyResponses"] = {"approved": [key], "rejected": []}
    project = data.setdefault("projects", {}).setdefault("/home/dev/shop", {})
    project.update(hasTrustDialogAccepted=True, hasCompletedProjectOnboarding=True)
    path.write_text(json.dumps(data))
    settings = scratch / "home" / ".claude" / "settings.json"
    settings.write_text(json.dumps({"skipDangerousModePermissionPrompt": True}))


def settings(scratch: Path, data: dict) -> None:
    """Write the user settings (keeping the TUI's skip-prompt flag)."""
    path = scratch / "home" / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"skipDangerousModePermissionPrompt": True, **data}))


def headless_runs(claude: str, scratch: Path) -> dict[str, dict]:
    """The headless scenarios; each one's result record."""
    ids: dict[str, dict] = {}
    edits = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash", "TaskStop", "Monitor"]
    reset_shop(scratch)
    ids["big"] = headless(claude, scratch, "[S-big] Count far.", *edits)
    ids["sizes"] = headless(claude, scratch, "[S-sizes] Count.", *edits)
    ids["monitor"] = headless(claude, scratch, "[S-monitor] Watch.", *edits)
    ids["agentbig"] = headless(claude, scratch, "[S-agentbig] Delegate.", *edits)
    web = [*edits, "WebFetch", "WebSearch"]
    ids["web"] = headless(claude, scratch, "[S-web] Look online.", *web)
    ids["bg"] = headless(claude, scratch, "[S-bg] Work in the background.", *edits)
    reset_shop(scratch)
    ids["fail"] = headless(claude, scratch, "[S-fail] Try the other tools.", *edits)
    reset_shop(scratch)
    ids["compact"] = headless(
        claude, scratch, "[S-compact] Work a lot.", *edits, CLAUDE_AUTOCOMPACT_PCT_OVERRIDE="5"
    )
    ids["second"] = headless(claude, scratch, "[S-basic] Read the cart.", *edits)
    return ids


def run_all(claude: str, scratch: Path) -> dict[str, str]:
    """Every scenario; the session id each wrote."""
    (scratch / "home").mkdir(parents=True, exist_ok=True)
    ids = {k: v.get("session_id", "") for k, v in headless_runs(claude, scratch).items()}
    trust(scratch)
    settings(scratch, {})
    skip = "--dangerously-skip-permissions"
    for tag, keys in [
        (
            "rewind",
            [
                (8, b"[S-rewind] Write a file.\r"),
                (6, b"\x1b"),
                (0.5, b"\x1b"),
                (3, b"\x1b[A"),
                (2, b"\r"),
                (3, b"\r"),
                (3, b"\x15[S-after] Now list.\r"),
            ],
        ),
        (
            "clear",
            [
                (8, b"[S-rewind] Write a file.\r"),
                (6, b"/clear\r"),
                (4, b"[S-after] Now list.\r"),
            ],
        ),
    ]:
        reset_shop(scratch)
        before = sessions(scratch)
        screen = interactive(claude, scratch, [*keys, (6, b"/exit\r")], skip)
        (scratch / f"screen-{tag}.txt").write_bytes(screen)
        ids[tag] = ",".join(sorted(sessions(scratch) - before))
    return ids


def main() -> None:
    """Start the stub, run every scenario, copy the project folder to OUT."""
    claude, scratch, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    shutil.rmtree(scratch / "home", ignore_errors=True)
    (scratch / "home").mkdir(parents=True)
    server = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("fake_anthropic.py")), str(PORT)],
        stderr=(scratch / "server.log").open("w"),
    )
    time.sleep(1)
    try:
        print(json.dumps(run_all(claude, scratch), indent=1))
    finally:
        server.terminate()
    shutil.copytree(scratch / "home" / ".claude" / "projects", out, dirs_exist_ok=True)


if __name__ == "__main__":
    main()
