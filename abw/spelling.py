"""Near misses: the real names a misspelt one most nearly spells, for "did you mean …?"
(a spec's keys, values and rule kinds, the tools and fields a gate saw)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Any

from abw.text import INVISIBLE

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


#: Shorter names are left alone: two real tools (``ls``, ``rm``) are often one edit apart.
TYPO_MIN = 4


def one_typo_from(word: str, names: Iterable[str]) -> list[str]:
    """The ``names`` other than ``word`` that it misspells by one typo: a letter left out,
    added, changed, or two neighbours swapped, or only case and separators (``_``, ``-``,
    ``.``, spaces) differ. Sorted; none for words under :data:`TYPO_MIN` characters."""
    if len(word) < TYPO_MIN:
        return []
    folded = _fold(word)
    return sorted({n for n in names if n != word and (_one_edit(word, n) or _fold(n) == folded)})


def _fold(name: str) -> str:
    return "".join(c for c in name.casefold() if c not in "_-. ")


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` (not equal) are one insertion, deletion, substitution or swap
    of neighbours apart."""
    if abs(len(a) - len(b)) > 1:
        return False
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    a, b = a[start:], b[start:]
    if len(a) == len(b):
        return a[1:] == b[1:] or (len(a) >= 2 and a[0] == b[1] and a[1] == b[0] and a[2:] == b[2:])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return long[1:] == short


#: Invisible characters a name can hold unseen: removed before names are compared.
_INVISIBLE = dict.fromkeys(map(ord, INVISIBLE))
#: Letters of other scripts that show as Latin ones (Cyrillic and Greek look-alikes).
_LOOK_ALIKES = str.maketrans(
    "аеорсухіјѕԁԛԝАВЕКМНОРСТХІЈЅοαρνκτυχιΑΒΕΗΙΚΜΝΟΡΤΥΧΖ",
    "aeopcyxijsdqwABEKMHOPCTXIJSoapvktuxiABEHIKMNOPTYXZ",
)
#: Text that separates words in a name no tool has: spaces, commas, semicolons, pipes.
_SEPARATORS = re.compile(r"[\s,;|]+")
#: What only a regular expression holds (abw's names are globs or exact names).
_REGEX_SIGNS = re.compile(r"^\^|\$$|\.[*+?]|\\[dwsb.]|[+{}()|]")


def _shown(word: str) -> str:
    """``word`` as it shows: invisible characters left out, look-alike letters as Latin."""
    return word.translate(_INVISIBLE).translate(_LOOK_ALIKES)


def meant_by(word: str, names: Collection[str], glob: bool = False) -> tuple[list[str], str]:
    """The ``names`` that ``word`` — a name (or, with ``glob``, a glob) that matches none of
    them — was likely written for, and how it misses them (a phrase): one typo
    (:func:`one_typo_from`); invisible or look-alike characters; other words beside a name
    (a YAML line folded into the item above, a missing comma); a regular expression. None
    found: ``([], "")``."""
    if not glob:
        if close := one_typo_from(word, names):
            return close, "one typo away"
        shown = _shown(word)
        if shown != word and (close := sorted({n for n in names if _shown(n) == shown})):
            return close, "which it shows as (it holds invisible or look-alike characters)"
        words = [w for w in _SEPARATORS.split(word) if w and w != "-"]
        if len(words) > 1 and (close := sorted(set(words).intersection(names))):
            return close, "which it holds among other words (a folded line, a missing comma?)"
    if _REGEX_SIGNS.search(word):
        try:
            pattern = re.compile(word)
        except re.error:
            return [], ""
        if close := sorted(n for n in names if pattern.fullmatch(n)):
            return close, "which it matches read as a regular expression (names are globs)"
    return [], ""
