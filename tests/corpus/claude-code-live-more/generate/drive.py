"""Drive the real Claude Code CLI against ``fake_anthropic.py`` and keep its transcripts:
hooks (``hook.py``, configured in ~/.claude/settings.json), MCP tools (``mcp_server.py``, and a
server that exits at start, via ``--mcp-config``), plan mode, task tools, ``--continue``,
``--fork-session`` and Esc while a reply streams (interactive, in a pty).

Usage: ``python drive.py CLAUDE_BIN SCRATCH OUT`` (as root: each run sees SCRATCH/home mounted
at /home/dev through ``unshare -m``, so the transcripts hold only /home/dev paths). Then run
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
    "MCP_TOOL_TIMEOUT": "3000",
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


HOOKS = {
    "PreToolUse": [
        {
            "matcher": "Bash",
            "hooks": [{"type": "command", "command": "python3 /home/dev/hook.py pre"}],
        }
    ],
    "PostToolUse": [
        {
            "matcher": "*",
            "hooks": [{"type": "command", "command": "python3 /home/dev/hook.py post"}],
        }
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "python3 /home/dev/hook.py stop"}]}],
}
HOOKS2 = {
    "PreToolUse": HOOKS["PreToolUse"],
    "UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": "python3 /home/dev/hook.py prompt"}]}
    ],
}
HOOKS3 = {
    "Stop": [{"hooks": [{"type": "command", "command": "python3 /home/dev/hook.py stop halt"}]}],
}
MCP = {
    "mcpServers": {
        "shopdb": {"command": "python3", "args": ["/home/dev/mcp_server.py"]},
        "broken": {"command": "python3", "args": ["-c", "import sys; sys.exit(1)"]},
    }
}


def settings(scratch: Path, data: dict) -> None:
    """Write the user settings (keeping the TUI's skip-prompt flag)."""
    path = scratch / "home" / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"skipDangerousModePermissionPrompt": True, **data}))


def run_all(claude: str, scratch: Path) -> dict[str, str]:
    """Every scenario; the session id each wrote."""
    ids: dict[str, str] = {}
    here = Path(__file__).parent
    (scratch / "home").mkdir(parents=True, exist_ok=True)
    for name in ("hook.py", "mcp_server.py"):
        shutil.copy(here / name, scratch / "home" / name)
    (scratch / "home" / "mcp.json").write_text(json.dumps(MCP))
    edits = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash"]
    reset_shop(scratch)
    settings(scratch, {"hooks": HOOKS})
    ids["hooks"] = headless(claude, scratch, "[S-hooks] Try the hooks.", *edits)
    settings(scratch, {"hooks": HOOKS2})
    ids["hooks2"] = headless(claude, scratch, "[S-hooks2] Try more hooks.", *edits)
    ids["blocked"] = headless(claude, scratch, "[S-blocked] Do it.", *edits)
    settings(scratch, {"hooks": HOOKS3})
    ids["stophalt"] = headless(claude, scratch, "[S-basic] Read the cart.", *edits)
    settings(scratch, {})
    reset_shop(scratch)
    mcp2 = ["--mcp-config", "/home/dev/mcp.json", "--allowedTools", "mcp__shopdb", "Bash"]
    ids["mcp2"] = headless(claude, scratch, "[S-mcp2] More MCP.", *mcp2)
    reset_shop(scratch)
    mcp = ["--mcp-config", "/home/dev/mcp.json", "--allowedTools", "mcp__shopdb", "Bash"]
    ids["mcp"] = headless(claude, scratch, "[S-mcp] Look up the prices.", *mcp)
    reset_shop(scratch)
    ids["todo"] = headless(claude, scratch, "[S-todo] Track the work.", *edits)
    reset_shop(scratch)
    ids["planp"] = headless(
        claude, scratch, "[S-plan] Plan the rounding.", "--permission-mode", "plan"
    )
    reset_shop(scratch)
    ids["basic"] = headless(claude, scratch, "[S-basic] Read the cart.", *edits)
    ids["continued"] = headless(claude, scratch, "[S-resume] Which files?", "--continue", *edits)
    fork = ["--resume", ids["basic"].get("session_id", ""), "--fork-session", *edits]
    ids["forked"] = headless(claude, scratch, "[S-resume] Which files now?", *fork)
    ids = {k: v.get("session_id", "") for k, v in ids.items()}
    trust(scratch)
    settings(scratch, {})
    skip = "--dangerously-skip-permissions"
    for tag, keys, args in [
        (
            "stream",
            [
                (8, b"[S-stream] Describe the cart.\r"),
                (4, b"\x1b"),
                (3, b"[S-resume] Which files?\r"),
            ],
            [skip],
        ),
        ("subagent", [(8, b"[S-agent2] Ask a slow helper.\r"), (8, b"\x1b")], [skip]),
        ("stream-end", [(8, b"[S-stream] Describe the cart.\r"), (4, b"\x1b")], [skip]),
        ("stream-tool", [(8, b"[S-stream3] List, then explain.\r"), (5, b"\x1b")], [skip]),
        (
            "plan-yes",
            [(8, b"[S-plan] Plan the rounding.\r"), (6, b"\r")],
            ["--permission-mode", "plan"],
        ),
        (
            "plan-no",
            [(8, b"[S-plan] Plan the rounding.\r"), (6, b"\x1b")],
            ["--permission-mode", "plan"],
        ),
    ]:
        reset_shop(scratch)
        before = sessions(scratch)
        interactive(claude, scratch, [*keys, (5, b"/exit\r")], *args)
        ids[tag] = ",".join(sorted(sessions(scratch) - before))
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
