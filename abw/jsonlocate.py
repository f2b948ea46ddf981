"""Where values begin in a JSON text, however it is laid out.

:func:`element_lines` gives the line on which each element of an array member of the top-level
object begins: a trace's spans, for the lines that violations, SARIF results and annotations
point at. :func:`value_line` gives the line of the value at a location (``spans``, 3,
``status``): where an error found in a parsed document is, in its text. Both read the text
with the standard library's C scanner, one member or element at a time (``raw_decode`` gives
where each value ends), so their cost is about one ``json.loads`` of the text, and they need no
knowledge of the layout.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

_BLANK = re.compile(r"[ \t\n\r]*")  # JSON's whitespace
_SCAN = json.JSONDecoder().raw_decode  # one value from an index: (value, index after it)


class _NotThere(Exception):
    """The text is not an object with such an array member."""


def element_lines(text: str, key: str) -> list[int] | None:
    """The 1-based line on which each element of the array that ``text``'s top-level object
    holds under ``key`` begins, in order; None when ``text`` is no JSON object with an array
    under ``key`` (the first such member, when a key repeats)."""
    try:
        starts = _element_starts(text, _member_start(text, key))
    except (_NotThere, ValueError, RecursionError):  # (JSONDecodeError is a ValueError)
        return None
    lines, line, offset = [], 1, 0
    for start in starts:
        line += text.count("\n", offset, start)
        lines.append(line)
        offset = start
    return lines


def _skip(text: str, at: int) -> int:
    return _BLANK.match(text, at).end()  # type: ignore[union-attr]  # (it matches "" too)


def value_line(text: str, location: Sequence[str | int]) -> int | None:
    """The 1-based line on which the value at ``location`` (member names and element
    indexes, from the top) begins in the JSON text; where the location goes on past what the
    text holds (a missing member), the line of the deepest value it holds. None when ``text``
    is no JSON text."""
    try:
        at = _skip(text, 0)
        _SCAN(text, at)  # a JSON text at all
        for part in location:
            if isinstance(part, str) and text[at : at + 1] == "{":
                at = _member_at(text, at, part)
            elif isinstance(part, int) and text[at : at + 1] == "[":
                starts = _element_starts(text, at)
                if not 0 <= part < len(starts):
                    break
                at = starts[part]
            else:
                break
    except (ValueError, RecursionError):  # (JSONDecodeError is a ValueError)
        return None
    except _NotThere:
        pass
    return text.count("\n", 0, at) + 1


def _member_start(text: str, key: str) -> int:
    """Where the value of the top-level member ``key`` begins."""
    return _member_at(text, _skip(text, 0), key)


def _member_at(text: str, at: int, key: str) -> int:
    """Where the value of the member ``key`` of the object that begins at ``at`` begins."""
    if text[at : at + 1] != "{":
        raise _NotThere
    at = _skip(text, at + 1)
    while text[at : at + 1] == '"':
        name, at = _SCAN(text, at)
        at = _skip(text, at)
        if text[at : at + 1] != ":":
            raise _NotThere
        at = _skip(text, at + 1)
        if name == key:
            return at
        _, at = _SCAN(text, at)
        at = _skip(text, at)
        if text[at : at + 1] != ",":
            raise _NotThere
        at = _skip(text, at + 1)
    raise _NotThere


def _element_starts(text: str, at: int) -> list[int]:
    """Where each element of the array that begins at ``at`` begins."""
    if text[at : at + 1] != "[":
        raise _NotThere
    starts: list[int] = []
    at = _skip(text, at + 1)
    if text[at : at + 1] == "]":
        return starts
    while True:
        starts.append(at)
        _, at = _SCAN(text, at)
        at = _skip(text, at)
        mark = text[at : at + 1]
        if mark == "]":
            return starts
        if mark != ",":
            raise _NotThere
        at = _skip(text, at + 1)
