"""Drive the Claude Agent SDK (Python) against ``fake_anthropic.py`` and keep the transcripts
the real Claude Code CLI wrote for it.

Usage: ``python drive.py SDK_PYTHON CLAUDE_BIN SCRATCH OUT`` (as root: ``sessions.py`` runs
with SCRATCH/home mounted at /home/dev through ``unshare -m``, so the transcripts hold only
/home/dev paths). Then run ``tests/corpus/claude-code-live/generate/strip_prompts.py`` over the
kept ``.jsonl`` files.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

PORT = 8766
HERE = Path(__file__).resolve().parent
CART = '"""A tiny shopping cart."""\n\n\ndef total(prices):\n    return sum(prices)\n'
TESTS = "from cart import total\n\n\ndef test_total():\n    assert total([0.1, 0.2]) == 0.3\n"
ENV = {
    "HOME": "/home/dev",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{PORT}",
    "ANTHROPIC_API_KEY": "sk-ant-api03-fake-loopback-key-0000000000",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "CLAUDE_CODE_MAX_RETRIES": "0",
}
SETTINGS = {"permissions": {"deny": ["Bash(curl:*)"], "allow": ["Bash(exit:*)"]}}


def setup(scratch: Path) -> None:
    """A fresh home with a made-up project whose settings deny curl."""
    shutil.rmtree(scratch, ignore_errors=True)
    shop = scratch / "home" / "shop"
    (shop / ".claude").mkdir(parents=True)
    (shop / "cart.py").write_text(CART)
    (shop / "test_cart.py").write_text(TESTS)
    (shop / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    shutil.copy(HERE / "sessions.py", scratch / "home" / "sessions.py")
    project = {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
    state = {"hasCompletedOnboarding": True, "projects": {"/home/dev/shop": project}}
    (scratch / "home" / ".claude.json").write_text(json.dumps(state))


def main() -> None:
    """Serve, run every session, copy the transcripts to OUT."""
    python, claude, scratch, out = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
    setup(scratch)
    server = subprocess.Popen([sys.executable, str(HERE / "fake_anthropic.py"), str(PORT)])
    time.sleep(1)
    inner = 'mount --bind "$0/home" /home/dev && cd /home/dev/shop && exec "$@"'
    argv = ["unshare", "-m", "sh", "-c", inner, str(scratch), python, "/home/dev/sessions.py"]
    try:
        subprocess.run([*argv, claude], env=ENV, timeout=900, check=False)
    finally:
        server.terminate()
    projects = scratch / "home" / ".claude" / "projects" / "-home-dev-shop"
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(projects.rglob("*.jsonl")):
        target = out / path.relative_to(projects)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)


if __name__ == "__main__":
    main()
