"""Workflow commands printed to stdout: annotations, masks, notices and groups.

Escaping follows ``@actions/core``: data escapes ``%``, CR and LF; properties also ``:`` and ``,``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from typing import TextIO

LEVELS = ("error", "warning", "notice")


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _visible(value: str) -> str:
    """Other control characters (ANSI escapes, NUL, BEL) shown as ``%XX``, never sent raw."""
    return _CONTROL.sub(lambda m: f"%{ord(m.group()):02X}", value)


def escape_data(value: str) -> str:
    """Escape a command's message."""
    return _visible(value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(value: str) -> str:
    """Escape a command property value (``file=``, ``title=``, ...)."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, properties: Mapping[str, object] | None = None) -> str:
    """``::name key=value,...::message`` with everything escaped; empty properties are left out."""
    props = ",".join(
        f"{key}={escape_property(str(value))}"
        for key, value in (properties or {}).items()
        if value is not None and value != ""
    )
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def annotation(
    level: str,
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    end_line: int | None = None,
    title: str | None = None,
) -> str:
    """An ``::error``/``::warning``/``::notice`` annotation command."""
    if level not in LEVELS:
        raise ValueError(f"unknown annotation level {level!r}")
    props = {"file": file, "line": line, "endLine": end_line, "title": title}
    return command(level, message, props)


def add_mask(value: str) -> str:
    """``::add-mask::value``: the runner hides ``value`` in every later log line."""
    return command("add-mask", value)


class Console:
    """Prints workflow commands to one stream (stdout, which the runner parses)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def emit(self, line: str) -> None:
        print(line, file=self.stream, flush=True)

    def mask(self, secret: str) -> None:
        if secret:
            self.emit(add_mask(secret))

    def notice(self, message: str, title: str = "abw") -> None:
        self.emit(annotation("notice", message, title=title))

    def warning(self, message: str, title: str = "abw") -> None:
        self.emit(annotation("warning", message, title=title))

    def error(self, message: str, title: str = "abw") -> None:
        self.emit(annotation("error", message, title=title))

    def info(self, message: str) -> None:
        """A plain log line; any ``::`` at its start cannot start a command."""
        text = _visible(" ".join(message.splitlines()))
        self.emit(text if not text.startswith("::") else " " + text)
