"""Plain values out of a rollout's JSON fields: a non-empty string, an integer, a number."""

from __future__ import annotations

import re
from typing import Any


def nonempty_str(value: Any) -> str | None:
    """``value`` when it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def as_int(value: Any) -> int | None:
    """An integer, or a string of one (an exit code); anything else (a boolean, a float) is None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        return int(value)
    return None


def as_float(value: Any) -> float | None:
    """A number as a float (seconds); a boolean, a string or one beyond a double is None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError:  # an exact integer beyond a double: no duration
            return None
    return None


def duration_ms(value: Any) -> float | None:
    """A Rust ``Duration`` as Codex writes it, ``{"secs": S, "nanos": N}``, in milliseconds
    (three decimals); anything else is None."""
    if not isinstance(value, dict):
        return None
    secs, nanos = as_float(value.get("secs")), as_float(value.get("nanos"))
    return None if secs is None else round(secs * 1000 + (nanos or 0) / 1e6, 3)


#: A client's name (:func:`plain_name`)
_CLIENT_NAME = re.compile(
    r"(?=.{1,64}$)[A-Za-z0-9][A-Za-z0-9_.-]*(?: [A-Za-z0-9][A-Za-z0-9_.-]*){0,2}"
)


def plain_name(value: Any) -> str | None:
    """``value`` when it names a client: up to three words of letters, digits, ``_``, ``.``
    and ``-``, each starting with a letter or digit, one space between them, at most 64
    characters (``codex_exec``, ``Codex Desktop``), else None: nothing else of a rollout is
    kept raw (a path, a command or a sentence is no name)."""
    text = nonempty_str(value)
    return text if text is not None and _CLIENT_NAME.fullmatch(text) else None
