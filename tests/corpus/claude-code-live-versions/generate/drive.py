"""Drive an older Claude Code CLI against ``fake_anthropic_old.py`` and keep its transcripts.

Usage: ``python drive.py CLAUDE_BIN SCRATCH OUT [GROUP ...]`` (groups: ``print``, ``esc``,
``more``, ``bg``, ``rules``; all when none; as root: each run sees SCRATCH/home mounted at
/home/dev through ``unshare -m``, so the transcripts hold only /home/dev paths). The same
scenarios on every version: tool success and failure, a non-zero exit, parallel calls, a
refused permission, a Task/Agent sub-agent, an API error, ``--resume``, a SIGTERM while a tool
runs and Esc while a tool runs (interactive, in a pty). Then run
``tests/corpus/claude-code-live/generate/strip_prompts.py`` over the kept ``.jsonl`` files.
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

PORT = 19181
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
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_MAX_RETRIES": "0",
}
EDITS = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash"]


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


def headless(claude: str, scratch: Path, prompt: str, *args: str) -> str:
    """Run ``claude -p PROMPT --output-format json ARGS``; the session id it reports."""
    argv = command(claude, scratch, ["-p", prompt, "--output-format", "json", *args])
    done = subprocess.run(argv, env=ENV, capture_output=True, text=True, timeout=180, check=False)
    print(prompt[:30], "rc", done.returncode, done.stdout[-300:], done.stderr[-300:])
    try:
        return str(json.loads(done.stdout).get("session_id", ""))
    except (json.JSONDecodeError, AttributeError):
        return ""


def killed(claude: str, scratch: Path, prompt: str, seconds: float, *args: str) -> None:
    """Run ``claude -p PROMPT ARGS`` and SIGTERM its process group after ``seconds``."""
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
    """Run claude in a pty, typing each ``(wait, bytes)`` in turn; what the screen showed."""
    pid, fd = pty.fork()
    if pid == 0:
        argv = command(claude, scratch, list(args))
        os.execvpe(argv[0], argv, dict(ENV, IS_SANDBOX="1"))
    screen = b""
    for wait, data in keys:
        screen += _pump(fd, wait)
        if len(data) > 1 and data.endswith(b"\r"):  # typed, then Enter: not a paste
            os.write(fd, data[:-1])
            screen += _pump(fd, 1)
            data = b"\r"
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
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"skipDangerousModePermissionPrompt": True}))


def print_mode(claude: str, scratch: Path) -> dict[str, str]:
    """The ``-p`` scenarios; the session id each wrote."""
    ids: dict[str, str] = {}
    for tag, prompt, args in [
        ("basic", "[S-basic] Round the cart totals to cents.", EDITS),
        (
            "denied",
            "[S-denied] Clean the build and leave a note.",
            ["--permission-mode", "default"],
        ),
        ("agent", "[S-agent] Ask a helper to count the cart lines.", EDITS),
        ("apierror", "[S-apierror] List the files.", EDITS),
    ]:
        reset_shop(scratch)
        ids[tag] = headless(claude, scratch, prompt, *args)
    reset_shop(scratch)
    resume = ["--resume", ids["basic"], *EDITS]
    ids["resumed"] = headless(claude, scratch, "[S-resume] Which files are there?", *resume)
    reset_shop(scratch)
    before = sessions(scratch)
    killed(claude, scratch, "[S-slow] Wait for the build.", 8, *EDITS)
    ids["killed"] = ",".join(sessions(scratch) - before)
    return ids


def esc(claude: str, scratch: Path) -> dict[str, str]:
    """Interactive: Esc while a Bash call runs, then a second prompt; the session ids written."""
    trust(scratch)
    reset_shop(scratch)
    before = sessions(scratch)
    keys = [(10, b"[S-slow] Wait for the build.\r"), (6, b"\x1b")]
    keys += [(4, b"[S-resume] Which files?\r"), (6, b"/exit\r")]
    screen = interactive(claude, scratch, keys, "--dangerously-skip-permissions")
    (scratch / "esc-screen.txt").write_bytes(screen)
    return {"esc": ",".join(sessions(scratch) - before)}


def more(claude: str, scratch: Path) -> dict[str, str]:
    """A background Bash that exits 4, ``--max-turns``, ``/compact``, and interactive: Esc at a
    permission prompt, Esc during the first of two Bash calls of one message, Esc after a running
    Bash call printed a line."""
    ids: dict[str, str] = {}
    reset_shop(scratch)
    prompt = "[S-background] Start the job in the background."
    ids["background"] = headless(claude, scratch, prompt, *EDITS)
    reset_shop(scratch)
    prompt = "[S-basic] Round the cart totals to cents."
    ids["maxturns"] = headless(claude, scratch, prompt, "--max-turns", "2", *EDITS)
    headless(claude, scratch, "/compact", "--resume", ids["maxturns"])
    trust(scratch)
    for tag, prompt, args in [
        ("esc_prompt", b"[S-denied] Clean the build.\r", ["--permission-mode", "default"]),
        ("esc_parallel", b"[S-slow2] Two steps please.\r", ["--dangerously-skip-permissions"]),
        ("esc_output", b"[S-slowout] Print and wait.\r", ["--dangerously-skip-permissions"]),
    ]:
        reset_shop(scratch)
        before = sessions(scratch)
        keys = [(10, prompt), (6, b"\x1b"), (3, b"/exit\r")]
        interactive(claude, scratch, keys, *args)
        ids[tag] = ",".join(sessions(scratch) - before)
    return ids


def background_interactive(claude: str, scratch: Path) -> dict[str, str]:
    """Interactive: a background Bash that exits 4; its notification arrives as a user line."""
    trust(scratch)
    reset_shop(scratch)
    before = sessions(scratch)
    keys = [(10, b"[S-background] Start the job in the background.\r"), (15, b"/exit\r")]
    interactive(claude, scratch, keys, "--dangerously-skip-permissions")
    return {"bg_interactive": ",".join(sessions(scratch) - before)}


def rules(claude: str, scratch: Path) -> dict[str, str]:
    """``-p`` with deny rules in ~/.claude/settings.json for the Bash, Write and Read calls;
    then a sub-agent run in the background."""
    reset_shop(scratch)
    deny = [
        "Read(//home/dev/shop/cart.py)",
        "Write(//home/dev/shop/notes.txt)",
        "Bash(rm -rf build)",
    ]
    settings = scratch / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"deny": deny}}))
    prompt = "[S-denied] Clean the build and leave a note."
    ids = {"rules": headless(claude, scratch, prompt, "--permission-mode", "acceptEdits")}
    settings.unlink()
    reset_shop(scratch)
    prompt = "[S-asyncagent] Ask a helper in the background."
    ids["async_agent"] = headless(claude, scratch, prompt, *EDITS)
    return ids


def run_all(claude: str, scratch: Path, only: set[str]) -> dict[str, str]:
    """The scenario groups named in ``only`` (``print``, ``esc``, ``more``, ``bg``,
    ``rules``; all when empty)."""
    ids: dict[str, str] = {}
    if not only or "print" in only:
        ids.update(print_mode(claude, scratch))
    if not only or "esc" in only:
        ids.update(esc(claude, scratch))
    if not only or "more" in only:
        ids.update(more(claude, scratch))
    if not only or "bg" in only:
        ids.update(background_interactive(claude, scratch))
    if not only or "rules" in only:
        ids.update(rules(claude, scratch))
    return ids


def main() -> None:
    """Start the stub, run the scenario groups of argv[4:] (all when none), copy the project
    folder to OUT. A fresh SCRATCH/home when ``print`` runs."""
    claude, scratch, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    only = set(sys.argv[4:])
    if "print" in only or not only:
        shutil.rmtree(scratch / "home", ignore_errors=True)
    scratch.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("fake_anthropic_old.py")), str(PORT)],
        stderr=(scratch / "server.log").open("w"),
    )
    time.sleep(1)
    try:
        ids = run_all(claude, scratch, only)
        print(json.dumps(ids, indent=1))
        (scratch / "ids.json").write_text(json.dumps(ids, indent=1))
    finally:
        server.terminate()
    shutil.copytree(scratch / "home" / ".claude" / "projects", out, dirs_exist_ok=True)


if __name__ == "__main__":
    main()
