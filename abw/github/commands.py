"""Workflow commands printed to stdout: annotations, masks, notices and groups.

Escaping follows ``@actions/core``: data escapes ``%``, CR and LF; properties also ``:`` and ``,``.
Then :func:`abw.text.log_line`, the one log sanitizer, makes control characters and terminal
escapes visible and breaks ``::`` and ``##[``, so nothing inside a command, and no plain line,
can start another command.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TextIO

from abw.text import log_line

LEVELS = ("error", "warning", "notice")


def escape_data(value: str) -> str:
    """Escape a command's message."""
    return log_line(value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(value: str) -> str:
    """Escape a command property value (``file=``, ``title=``, ...)."""
    escaped = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return log_line(escaped.replace(":", "%3A").replace(",", "%2C"))


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

    def error(
        self, message: str, title: str = "abw", file: str | None = None, line: int | None = None
    ) -> None:
        self.emit(annotation("error", message, file=file, line=line, title=title))

    def info(self, message: str) -> None:
        """A plain log line: one line, no command can start anywhere in it."""
        self.emit(log_line(message))
