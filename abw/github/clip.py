"""The one last-resort cut of Markdown for GitHub's size limits, in characters or UTF-8 bytes.

The renderer already cuts a long report between its blocks for the room it is given
(abw.render.markdown); this cut is for whatever still does not fit (a fallback text, a caller's
Markdown). It cuts at a line, closes what the kept part left open (a fenced code block, then
every ``<details>``), and says so, so whatever GitHub shows after it (the rest of a comment, the
next step's summary) is not swallowed into a code block or a folded section. The check-run
summary and the comment body count characters; the step summary counts bytes.
"""

from __future__ import annotations

import re
from typing import Literal

Unit = Literal["chars", "bytes"]

#: A line that opens or closes a fenced code block (CommonMark: up to three spaces of indent).
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_DETAILS = re.compile(r"<(/?)details(?=[\s>])", re.IGNORECASE)


def size(text: str, unit: Unit = "chars") -> int:
    """``text``'s length as the limit counts it."""
    return len(text.encode("utf-8")) if unit == "bytes" else len(text)


def cut_utf8(text: str, limit_bytes: int) -> str:
    """The longest prefix of ``text`` whose UTF-8 encoding fits ``limit_bytes``."""
    data = text.encode("utf-8")
    if len(data) <= limit_bytes:
        return text
    return data[: max(limit_bytes, 0)].decode("utf-8", errors="ignore")


def prefix(text: str, room: int, unit: Unit = "chars") -> str:
    """The longest prefix of ``text`` of at most ``room`` (in ``unit``)."""
    return cut_utf8(text, room) if unit == "bytes" else text[: max(room, 0)]


def _open_blocks(text: str) -> tuple[str | None, int]:
    """(the fence a code block still open at the end of ``text`` needs, the number of
    ``<details>`` still open). Only fence *lines* count: backticks inside a line (a tool name
    in a ``<summary>``) open nothing; ``<details>`` tags inside a code block are code."""
    fence: str | None = None
    details = 0
    for line in text.split("\n"):
        found = _FENCE.match(line)
        if found:
            mark = found.group(1)
            if fence is None:
                fence = mark
                continue
            if mark[0] == fence[0] and len(mark) >= len(fence) and not line[found.end() :].strip():
                fence = None
                continue
        if fence is None:
            for tag in _DETAILS.finditer(line):
                details = max(details - 1, 0) if tag.group(1) else details + 1
    return fence, details


def closers(text: str) -> str:
    """What closes the blocks ``text`` leaves open: its fence first, then each ``<details>``
    (after a blank line, so it is an HTML block and not part of a table or paragraph)."""
    fence, details = _open_blocks(text)
    return (f"\n{fence}" if fence else "") + "\n\n</details>" * details


def clip_markdown(text: str, limit: int, note: str, unit: Unit = "chars") -> str:
    """``text`` when it fits ``limit``; else its longest line-prefix that fits with what closes
    its open blocks and ``note`` after it; "" when not even those fit. Never over ``limit``."""
    if size(text, unit) <= limit:
        return text
    room = limit - size(note, unit)
    keep = room
    while keep >= 0:
        head = prefix(text, keep, unit)
        cut = head.rfind("\n")
        head = head[:cut] if cut > 0 else ""
        tail = closers(head)
        if size(head + tail, unit) <= room:
            return head + tail + note
        keep = min(size(head, unit) - 1, room - size(tail, unit))  # a line less at least
    return ""
