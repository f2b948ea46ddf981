"""Drive the interactive Codex TUI in a pseudo-terminal: a person answering prompts by keys.

Run inside the same private mount namespace as drive.py, after it wrote the config::

    python3 tui.py CODEX OUT KEYWORD KEYS...

KEYS are sent one by one, each after the screen showed its cue: ``cue=>keys`` (``\\r`` for
Enter, ``\\x1b`` for Esc, ``\\x03`` for ^C; ``?cue`` for a prompt that may not come, ``~N``
to wait N seconds); what the TUI drew goes to OUT/KEYWORD.screen."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time
from pathlib import Path

from drive import SHOP, env

ANSI = re.compile(
    rb"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[=>()][0-9A-B]?"
)


REPLIES = {
    b"\x1b[6n": b"\x1b[1;1R",
    b"\x1b]10;?": b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\",
    b"\x1b]11;?": b"\x1b]11;rgb:0000/0000/0000\x1b\\",
    b"\x1b[c": b"\x1b[?62;22c",
    b"\x1b[?u": b"\x1b[?0u",
}


def read_for(fd: int, seconds: float, screen: bytearray) -> None:
    """Collect what the TUI draws for a while."""
    end = time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            screen.extend(chunk)
            for query, reply in REPLIES.items():  # the terminal queries the TUI makes
                if query in chunk:
                    os.write(fd, reply)


def wait_for(fd: int, cue: str, screen: bytearray, start: int, timeout: float) -> int | None:
    """Wait until the plain text drawn since ``start`` holds the cue; where the screen then
    ends (None when it never came)."""
    end = time.time() + timeout
    while time.time() < end:
        read_for(fd, 0.3, screen)
        text = ANSI.sub(b"", bytes(screen[start:])).decode(errors="replace")
        if cue in text.replace(" ", ""):
            return len(screen)
    return None


def main() -> None:
    """Start the TUI with the prompt, then each cue=>keys step; Ctrl-C twice to leave."""
    codex, out, keyword, steps = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4:]
    args = [codex, "-C", str(SHOP), "-s", "workspace-write", "-a", "on-request"]
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(codex, [*args, f"[{keyword}] please work on the shop"], env())
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    screen = bytearray()
    mark = 0  # where the screen stood when the last cue was seen
    for step in steps:
        cue, _, keys = step.partition("=>")
        if cue.startswith("~"):  # (``~N``: just wait N seconds)
            read_for(fd, float(cue[1:]), screen)
            os.write(fd, keys.encode().decode("unicode_escape").encode())
            continue
        optional = cue.startswith("?")  # (a prompt the TUI shows only once: skipped if absent)
        cue = cue.removeprefix("?")
        found = wait_for(fd, cue.replace(" ", ""), screen, mark, 8 if optional else 40)
        print(f"{keyword}: {cue!r} {'seen' if found else 'NOT seen'}", file=sys.stderr)
        mark = found or mark
        if found or not optional:
            os.write(fd, keys.encode().decode("unicode_escape").encode())
    read_for(fd, 3, screen)
    for _ in range(2):
        os.write(fd, b"\x03")
        read_for(fd, 1, screen)
    (out / f"{keyword}.screen").write_bytes(bytes(screen))
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
