"""Drive the real Claude Code CLI against ``fake_anthropic.py`` and keep its transcripts.

Usage: ``python drive.py CLAUDE_BIN SCRATCH OUT`` (as root: each run sees SCRATCH/home mounted
at /home/dev through ``unshare -m``, so the transcripts hold only /home/dev paths).
"""

from __future__ import annotations

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

PORT = 8765
CART = (
    '"""A tiny shopping cart."""\n\n\ndef total(prices):\n    """The sum."""\n'
    "    return sum(prices)\n"
)
TESTS = "from cart import total\n\n\ndef test_total():\n    assert total([0.1, 0.2]) == 0.3\n"
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
}


def reset_shop(scratch: Path) -> None:
    """A fresh made-up project in SCRATCH/home/shop."""
    shop = scratch / "home" / "shop"
    shutil.rmtree(shop, ignore_errors=True)
    shop.mkdir(parents=True)
    (shop / "cart.py").write_text(CART)
    (shop / "test_cart.py").write_text(TESTS)


def command(claude: str, scratch: Path, args: list[str]) -> list[str]:
    """The claude command line run inside a private mount of /home/dev."""
    inner = 'mount --bind "$0/home" /home/dev && cd /home/dev/shop && exec "$@"'
    return ["unshare", "-m", "sh", "-c", inner, str(scratch), claude, *args]


def headless(claude: str, scratch: Path, prompt: str, *args: str) -> dict:
    """Run ``claude -p PROMPT --output-format json ARGS``; its result record."""
    argv = command(claude, scratch, ["-p", prompt, "--output-format", "json", *args])
    done = subprocess.run(argv, env=ENV, capture_output=True, text=True, timeout=180, check=False)
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


def interactive(claude: str, scratch: Path, keys: list[tuple[float, bytes]], *args: str) -> None:
    """Run claude in a pty, typing each ``(wait, bytes)`` in turn."""
    pid, fd = pty.fork()
    if pid == 0:
        argv = command(claude, scratch, list(args))
        os.execvpe(argv[0], argv, dict(ENV, IS_SANDBOX="1"))
    for wait, data in keys:
        _pump(fd, wait)
        os.write(fd, data)
    _pump(fd, 3)
    os.kill(pid, 9)
    os.waitpid(pid, 0)


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


def run_all(claude: str, scratch: Path) -> dict[str, str]:
    """Every scenario; the session id each wrote."""
    ids: dict[str, str] = {}
    edits = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash"]
    for tag, prompt, args in [
        ("basic", "[S-basic] Round the cart totals to cents.", edits),
        (
            "denied",
            "[S-denied] Clean the build and leave a note.",
            ["--permission-mode", "default"],
        ),
        ("agent", "[S-agent] Ask a helper to count the cart lines.", edits),
        ("apierror", "[S-apierror] List the files.", edits),
        ("background", "[S-background] Start the job in the background.", edits),
        ("maxturns", "[S-basic] Round the cart totals to cents.", ["--max-turns", "2", *edits]),
    ]:
        reset_shop(scratch)
        ids[tag] = headless(claude, scratch, prompt, *args).get("session_id", "")
    reset_shop(scratch)
    rules = [
        "Read(//home/dev/shop/cart.py)",
        "Write(//home/dev/shop/notes.txt)",
        "Bash(rm -rf build)",
    ]
    settings = scratch / "home" / ".claude" / "settings.json"
    settings.write_text(json.dumps({"permissions": {"deny": rules}}))
    prompt = "[S-denied] Clean the build and leave a note."
    ids["rules"] = headless(claude, scratch, prompt, "--permission-mode", "acceptEdits")
    ids["rules"] = ids["rules"].get("session_id", "")
    settings.unlink()
    reset_shop(scratch)
    resume = ["--resume", ids["basic"], *edits]
    ids["resumed"] = headless(claude, scratch, "[S-resume] Which files are there?", *resume)
    ids["resumed"] = ids["resumed"].get("session_id", "")
    headless(claude, scratch, "/compact", "--resume", ids["basic"])
    reset_shop(scratch)
    before = sessions(scratch)
    killed(claude, scratch, "[S-slow] Wait for the build.", 5, *edits)
    (ids["killed"],) = sessions(scratch) - before
    headless(claude, scratch, "[S-resume] Which files?", "--resume", ids["killed"], *edits)
    trust(scratch)
    reset_shop(scratch)
    keys = [(8, b"[S-slow] Wait for the build.\r"), (5, b"\x1b"), (3, b"[S-resume] Which files?\r")]
    interactive(claude, scratch, [*keys, (5, b"/exit\r")], "--dangerously-skip-permissions")
    reset_shop(scratch)
    keys = [(8, b"[S-denied] Clean the build and leave a note.\r"), (5, b"\x1b")]
    interactive(claude, scratch, [*keys, (3, b"/exit\r")], "--permission-mode", "default")
    reset_shop(scratch)
    keys = [(8, b"[S-slow2] Two steps please.\r"), (5, b"\x1b")]
    interactive(claude, scratch, [*keys, (3, b"/exit\r")], "--dangerously-skip-permissions")
    return ids


def main() -> None:
    """Start the stub, run every scenario, copy the project folder to OUT."""
    claude, scratch, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    shutil.rmtree(scratch / "home", ignore_errors=True)
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
