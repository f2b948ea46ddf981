"""The one mapping from an exception to a one-line message and an exit code.

The CLI (abw.cli.run) and the Action (abw.github.main) both end here. Bad input and
operating-system failures (a missing or unreadable file, a folder where a file was meant, a
read-only folder, a full disk, a closed pipe) become one line naming the file; anything else is
an "internal error" line (``ABW_DEBUG=1`` shows the traceback). Once a command has reached a
verdict (:func:`verdict_reached`), a later failure — writing a report, printing to a closed
stdout, publishing — is reported but the exit code stays the verdict's.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any, TextIO

from abw import progress
from abw.errors import AbwInputError, os_input_error
from abw.text import log_line
from abw.verdicts import EXIT_INVALID

_reached: list[int] = []


def reset() -> None:
    """Forget any verdict (a new command starts)."""
    _reached.clear()


def verdict_reached(code: int) -> int:
    """Record the exit code of the verdict a command reached; returns it."""
    _reached[:] = [code]
    return code


def reached() -> int | None:
    """The exit code of the verdict reached so far, if any."""
    return _reached[0] if _reached else None


class Terminated(BaseException):
    """SIGTERM arrived: unwinds like an exception, so ``finally`` blocks clean up."""


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block ends, then act as they would have (the first
    of them): for a short step that must finish once begun (moving an import's staged traces
    into place, writing a run ``abw sample`` recorded). Outside the main thread, where no
    handler can be set, nothing is held."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []

    def hold(signum: int, frame: Any) -> None:
        arrived.append(signum)

    held = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.signal(signum, hold) for signum in held}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if arrived:
            handler = previous[arrived[0]]
            if callable(handler):
                handler(arrived[0], None)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), arrived[0])


def closed_pipe(exc: BaseException) -> bool:
    """True for writing to a reader that has gone (``abw gate ... | head``)."""
    return isinstance(exc, OSError) and exc.errno == errno.EPIPE


def one_line(exc: BaseException) -> str:
    """The single line a person reads for ``exc``."""
    if isinstance(exc, AbwInputError):
        return exc.one_line()
    if isinstance(exc, OSError):
        if exc.filename is None and exc.errno in (errno.EPIPE, errno.ENOSPC, errno.EIO):
            return os_input_error(exc).one_line().replace("cannot write", "cannot write output")
        return os_input_error(exc).one_line()
    if isinstance(exc, MemoryError):
        return "out of memory"
    from abw.text import exception_words

    return f"internal error: {exception_words(exc)} (set ABW_DEBUG=1 for details)"


def exit_code(exc: BaseException) -> int:
    """The verdict's exit code when one was reached, else 2 (invalid input or usage)."""
    code = reached()
    return EXIT_INVALID if code is None else code


def raise_each(failures: list[AbwInputError]) -> None:
    """Each of ``failures`` (outputs that could not be written, each costing no other) as its
    line: every one but the last printed here, the last raised for the command's own end."""
    for failure in failures[:-1]:
        report(failure)
    if failures:
        raise failures[-1]


def report(exc: BaseException, prog_name: str = "abw", stream: TextIO | None = None) -> int:
    """Print ``exc`` as one line on stderr (nothing for a closed stdout pipe); its exit code."""
    if closed_pipe(exc):
        silence_stdout()
    else:
        progress.erase()  # (a bar an error stopped in mid-loop)
        line = one_line(exc)
        prefix = "" if line.startswith("internal error") else "error: "
        print(log_line(f"{prog_name}: {prefix}{line}"), file=stream or sys.stderr, flush=True)
    return exit_code(exc)


class _ClosedOutput(io.TextIOBase):
    """``sys.stdout`` of a process started without one (``abw gate ... >&-``): a write fails as
    on a closed descriptor, so it is one line and the verdict's exit code stays (a full disk's
    handling)."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


def open_standard_streams() -> None:
    """Give each standard stream the process started without (``<&-``, ``>&-``, ``2>&-``)
    /dev/null as its descriptor, so that no file abw opens takes that number (where a child
    process or a late write would land); then stdin reads nothing, stderr swallows its lines
    and stdout refuses writes (:class:`_ClosedOutput`). Python leaves such a stream None, on
    which printing an error or flushing at exit raised (exit 1, read as FAIL)."""
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        if getattr(sys, name) is not None:
            continue
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        stream = (
            _ClosedOutput() if fd == 1 else os.fdopen(fd, "r" if fd == 0 else "w", closefd=False)
        )
        setattr(sys, name, stream)


def silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush cannot fail again (which
    would print a traceback-like warning and change the exit status to 120)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def flush_stdout(prog_name: str = "abw") -> int | None:
    """Flush stdout before exiting; a failure (full disk, closed pipe) is reported in one line
    and returns the exit code to use, else None."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError) as exc:
        code = report(exc, prog_name) if isinstance(exc, OSError) else exit_code(exc)
        silence_stdout()
        return code
    return None
