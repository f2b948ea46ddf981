"""JSON values: structural equality with JSON's number semantics, RFC 6901 pointers, display."""

from __future__ import annotations

import re
from typing import Any

from abw.hashing import canonical_json, numbers_by_value

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*", re.ASCII)

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<missing>"})()


def is_number(value: Any) -> bool:
    """A JSON number: int or float, never bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def json_equal(left: Any, right: Any) -> bool:
    """Structural equality: 1 == 1.0, but true != 1 and "1" != 1; key order ignored."""
    if is_number(left) and is_number(right):
        return left == right
    if type(left) is not type(right) and not (is_number(left) and is_number(right)):
        return False
    if isinstance(left, list):
        return len(left) == len(right) and all(
            json_equal(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    return left == right


def json_key(value: Any) -> str:
    """A hashable key with the same equality as :func:`json_equal`: the canonical JSON of its
    numbers by value (1.0 and 1 alike; big integers exact)."""
    return canonical_json(numbers_by_value(value))


def parse_pointer(pointer: str) -> list[str]:
    """RFC 6901: ``""`` is the whole document; ``/a~1b/~0c`` -> ``["a/b", "~c"]``."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"a JSON Pointer starts with '/': {pointer!r}")
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")]


def resolve(document: Any, pointer: str) -> Any:
    """The value at ``pointer``, or :data:`MISSING` when it does not resolve."""
    value = document
    for token in parse_pointer(pointer):
        if isinstance(value, dict):
            if token not in value:
                return MISSING
            value = value[token]
        elif isinstance(value, list):
            if not _ARRAY_INDEX.fullmatch(token):  # RFC 6901: ASCII digits, no leading zero
                return MISSING
            index = int(token)
            if index >= len(value):
                return MISSING
            value = value[index]
        else:
            return MISSING
    return value


def show(value: Any, limit: int = 80) -> str:
    """Short display text of a JSON value for messages."""
    if value is MISSING:
        return "<missing>"
    text = canonical_json(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
