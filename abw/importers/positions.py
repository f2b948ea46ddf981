"""Where the values of one JSON document start in the raw file: ``source_ref.line`` for formats
that are a single (often pretty-printed) JSON document rather than JSON Lines.

:func:`value_lines` scans the bytes once, with a tokenizing regex (no second parse), and maps
the path of every value up to a depth (``("messages", 3, "toolCalls", 0)``) to the 1-based
line its first character is on. Only the document's structure is read, never its content.
"""

from __future__ import annotations

import re

# A string literal (raw newlines cannot occur in one), a structural character, a newline, or
# a run of scalar characters (numbers, true/false/null).
_TOKEN = re.compile(rb'"(?:[^"\\\n]|\\.)*"|[{}\[\]:,]|\n|[^"{}\[\]:,\s]+')

Path = tuple[str | int, ...]


def value_lines(raw: bytes, max_depth: int) -> dict[Path, int]:
    """``{path: line}`` for every value at most ``max_depth`` levels deep (the document is
    ``()``). Object keys are decoded only when they are plain (no escapes); a malformed
    document gives whatever was found before the fault (the importer has parsed it already)."""
    lines: dict[Path, int] = {}
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
            name = key.decode("utf-8", "replace") if b"\\" not in key else key.decode("latin-1")
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
