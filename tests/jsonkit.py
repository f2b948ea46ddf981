"""A second reading of where values begin in a JSON text, character by character: the
definition that :mod:`abw.jsonlocate` (and a trace's span lines) are checked against."""

from __future__ import annotations

import json


def element_lines_by_scanning(text: str, key: str) -> list[int]:
    """The 1-based line on which each element of the array that ``text``'s top-level object
    holds under ``key`` begins (``text`` is valid JSON; [] when there is no such array)."""
    line, depth, member, last_string = 1, 0, None, None
    in_string = escaped = inside = expect_element = done = False
    chars: list[str] = []
    starts: list[int] = []
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string, last_string = False, json.loads('"' + "".join(chars) + '"')
                continue
            chars.append(char)
            continue
        if char == "\n":
            line += 1
        if char in " \t\r\n":
            continue
        if inside and depth == 2 and expect_element and char != "]":
            starts.append(line)
            expect_element = False
        if char == '"':
            in_string, chars = True, []
        elif char == ":" and depth == 1:
            member = last_string
        elif char == "," and inside and depth == 2:
            expect_element = True
        elif char in "{[":
            depth += 1
            if char == "[" and depth == 2 and member == key and not done:
                inside = expect_element = done = True
        elif char in "}]":
            if depth == 2:
                inside = False
            depth -= 1
    return starts
