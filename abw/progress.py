"""A tiny progress bar on stderr for long imports and gates.

It draws only when stderr is a terminal, ``--quiet`` is not given and ``ABW_NO_PROGRESS`` is not
set, so logs, CI output and captured stderr never contain it. It redraws at most ten times a
second and erases itself when done. No dependency beyond the standard library.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import IO, TypeVar

T = TypeVar("T")

_WIDTH = 24
_INTERVAL_S = 0.1


def progress_enabled(stream: IO[str] | None = None, *, quiet: bool = False) -> bool:
    """True when a bar should be drawn on ``stream`` (default stderr)."""
    if quiet or os.environ.get("ABW_NO_PROGRESS"):
        return False
    stream = stream if stream is not None else sys.stderr
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class Progress:
    """Counts work done out of ``total`` and draws ``label [####    ] done/total``."""

    def __init__(
        self,
        total: int,
        label: str,
        *,
        quiet: bool = False,
        stream: IO[str] | None = None,
        enabled: bool | None = None,
    ) -> None:
        self.total = max(0, int(total))
        self.label = label
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = progress_enabled(self.stream, quiet=quiet) if enabled is None else enabled
        self._last_draw = 0.0
        self._drawn = False

    def advance(self, count: int = 1) -> None:
        """Record ``count`` more units of work; redraws when enough time has passed."""
        self.done += count
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last_draw >= _INTERVAL_S or self.done >= self.total:
            self._last_draw = now
            self._draw()

    def line(self) -> str:
        """The text of the bar as it would be drawn now."""
        if self.total:
            fraction = min(1.0, self.done / self.total)
            filled = int(fraction * _WIDTH)
            bar = "#" * filled + " " * (_WIDTH - filled)
            return f"{self.label} [{bar}] {self.done}/{self.total} {fraction:4.0%}"
        return f"{self.label} {self.done}"

    def _draw(self) -> None:
        global _shown
        try:
            self.stream.write("\r" + self.line() + "\x1b[K")
            self.stream.flush()
            self._drawn = True
            _shown = self
        except (OSError, ValueError):
            self.enabled = False

    def write_line(self, text: str) -> None:
        """Print ``text`` on its own line above the bar (plainly when no bar is drawn)."""
        if not self.enabled:
            print(text, file=self.stream, flush=True)
            return
        try:
            self.stream.write("\r\x1b[K" + text + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False
            return
        self._draw()

    def close(self) -> None:
        """Erase the bar so the next message starts on a clean line."""
        global _shown
        if self.enabled and self._drawn:
            try:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
            except (OSError, ValueError):
                pass
        self.enabled = False
        if _shown is self:
            _shown = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: The bar on the terminal now, if any: an error line erases it first (:func:`erase`), though
#: the loop that drew it has not ended (a generator held by the error's traceback).
_shown: Progress | None = None


def erase() -> None:
    """Erase the bar on the terminal, if any, so that a line printed now starts clean."""
    if _shown is not None:
        _shown.close()


def track(
    items: Iterable[T],
    label: str,
    *,
    total: int | None = None,
    quiet: bool = False,
    stream: IO[str] | None = None,
) -> Iterator[T]:
    """Yield ``items`` while drawing a bar; ``total`` defaults to ``len(items)`` when it has one.
    The bar is erased when the loop ends or its consumer closes it, and when producing an item
    fails (``track(map(load, paths), ..., total=len(paths))``: the error leaves the loop)."""
    if total is None:
        total = len(items) if hasattr(items, "__len__") else 0  # type: ignore[arg-type]
    with Progress(total, label, quiet=quiet, stream=stream) as bar:
        for item in items:
            yield item
            bar.advance()
