"""Near misses: the real names a misspelt one most nearly spells, for "did you mean …?"
(a spec's keys, values and rule kinds, the tools and fields a gate saw)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: How near a word must come to a real name to be suggested (difflib's ratio).
NEAR = 0.6


def near(word: str, names: Iterable[str], most: int = 3) -> list[str]:
    """Up to ``most`` of ``names`` that ``word`` most nearly spells, best first."""
    import difflib  # (only on the error path: kept out of every command's start-up)

    return difflib.get_close_matches(word, list(names), n=most, cutoff=NEAR)


def nearest(word: str, options: Iterable[Any]) -> str | None:
    """The option ``word`` most nearly spells (:func:`near`; options that are no text are
    passed over), or None."""
    close = near(word, (option for option in options if isinstance(option, str)), 1)
    return close[0] if close else None
