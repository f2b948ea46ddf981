"""Drive interactive Gemini CLI under a pty: type a prompt, then press keys at set times, quit.

Usage: ``python drive_interactive.py PROMPT KEYS -- gemini-command...`` where KEYS is a
comma-separated list of ``SECONDS:KEY`` (KEY ``esc``, ``enter``, ``down``, ``kill`` — SIGKILL the
CLI, a crash — ``restore`` — type ``/restore <the checkpoint file's name>`` — or literal
text), e.g. ``5:esc`` (Esc while the turn runs) or
``4:down,1:down,1:enter`` (pick an answer in the approval dialog). Environment as for
``run_all.sh``. Prints the end of what the CLI drew.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

CHECKPOINTS = Path("/home/dev/.gemini/tmp/shop/checkpoints")
KEYS = {"esc": b"\x1b", "enter": b"\r", "down": b"\x1b[B", "up": b"\x1b[A"}


def pump(fd: int, seconds: float, out: bytearray) -> None:
    """Read what the CLI draws for ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                out.extend(os.read(fd, 65536))
            except OSError:
                return


def main() -> None:
    """Type the prompt, press the keys, quit with Ctrl-C (three times: one clears the input)."""
    prompt, keys = sys.argv[1], sys.argv[2]
    command = sys.argv[sys.argv.index("--") + 1 :]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    out = bytearray()
    pump(fd, 8, out)
    os.write(fd, prompt.encode())
    pump(fd, 1, out)
    os.write(fd, b"\r")
    for item in filter(None, keys.split(",")):
        wait, key = item.split(":", 1)
        pump(fd, float(wait), out)
        if key == "kill":
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            sys.stdout.write(out.decode(errors="replace")[-4000:])
            return
        if key == "restore":
            key = "/restore " + min(CHECKPOINTS.glob("*.json")).stem
        os.write(fd, KEYS.get(key, key.encode()))
    pump(fd, 3, out)
    for _ in range(3):
        os.write(fd, b"\x03")
        pump(fd, 1.5, out)
    quit_cli(pid, fd, out)
    sys.stdout.write(out.decode(errors="replace")[-4000:])


def quit_cli(pid: int, fd: int, out: bytearray) -> None:
    """Wait for the CLI to quit (older versions may not quit on Ctrl-C: then SIGTERM, SIGKILL)."""
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            os.kill(pid, sig)
        for _ in range(10):
            if os.waitpid(pid, os.WNOHANG)[0]:
                return
            pump(fd, 0.5, out)


if __name__ == "__main__":
    main()
