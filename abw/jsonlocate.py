"""Where values begin in a JSON text, however it is laid out.

:func:`value_lines` maps the location of every value up to a depth (``("messages", 3,
"toolCalls", 0)``) to the line it begins on, in one scan of the bytes with a tokenizing regex:
``source_ref.line`` for exports that are one (often pretty-printed) JSON document.
:func:`value_line` is the line of one location, or of the deepest value on the way there:
where an error found in a parsed document is, in its text.

:func:`element_lines` gives the line on which each element of an array member of the top-level
object begins: a trace's spans, for the lines that violations, SARIF results and annotations
point at. It reads the text with the standard library's C scanner, one member or element at a
time (``raw_decode`` gives where each value ends), so its cost is about one ``json.loads`` of
the text, and it needs no knowledge of the layout.
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


def _member_start(text: str, key: str) -> int:
    """Where the value of the top-level member ``key`` begins."""
    at = _skip(text, 0)
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


# A string literal (raw newlines cannot occur in one), a structural character, a newline, or
# a run of scalar characters (numbers, true/false/null).
_TOKEN = re.compile(rb'"(?:[^"\\\n]|\\.)*"|[{}\[\]:,]|\n|[^"{}\[\]:,\s]+')

Location = tuple[str | int, ...]


def value_lines(raw: bytes, max_depth: int) -> dict[Location, int]:
    """``{location: line}`` for every value at most ``max_depth`` levels deep (the document is
    ``()``). Only the document's structure is read, never its content. A malformed document
    gives whatever was found before the fault (its reader has refused or parsed it already)."""
    lines: dict[Location, int] = {}
    line = 1
    # per open container: [is_object, current key or index]
    stack: list[list] = []
    path: list[str | int] = []
    expect_value = True
    for match in _TOKEN.finditer(raw.removeprefix(b"\xef\xbb\xbf")):
        token = match.group()
        if token == b"\n":
            line += 1
            continue
        if token in (b"}", b"]"):
            if stack:
                stack.pop()
                if path and len(path) > len(stack):
                    path.pop()
            expect_value = False
            continue
        if token == b",":
            if stack and not stack[-1][0]:  # next array element
                stack[-1][1] += 1
                path[-1] = stack[-1][1]
                expect_value = True
            elif stack:
                expect_value = False  # an object key comes next
            continue
        if token == b":":
            expect_value = True
            continue
        if stack and stack[-1][0] and not expect_value:  # an object key
            key = token[1:-1]
            name = key.decode("utf-8", "replace") if b"\\" not in key else _escaped(token)
            stack[-1][1] = name
            if len(path) == len(stack):
                path[-1] = name
            else:
                path.append(name)
            continue
        # a value starts here
        if len(path) <= max_depth:
            lines.setdefault(tuple(path), line)
        expect_value = False
        if token in (b"{", b"["):
            is_object = token == b"{"
            stack.append([is_object, 0])
            if not is_object:
                path.append(0)
                expect_value = True
    return lines


def _escaped(token: bytes) -> str:
    """An object key written with escapes, as the key it is."""
    try:
        return json.loads(token)  # type: ignore[no-any-return]
    except ValueError:  # (a malformed document: found before the fault)
        return token[1:-1].decode("utf-8", "replace")


def value_line(text: bytes | str, location: Sequence[str | int]) -> int | None:
    """The line on which the value at ``location`` (member names and item indexes, as an
    error names a field) begins; where the location goes on past what the text holds (a
    missing member), the line of the deepest value on the way there."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    lines = value_lines(raw, len(location))
    for depth in range(len(location), -1, -1):
        line = lines.get(tuple(location[:depth]))
        if line is not None:
            return line
    return None
