"""Byte-stable, human-readable JSON text: sorted keys, two-space indent, trailing newline.

Defined as the standard library's ``json.dumps(value, indent=2, sort_keys=True,
ensure_ascii=False, allow_nan=False) + "\\n"`` (what gate reports have always been). Written by
orjson where it gives the same bytes (:func:`abw.hashing.orjson_exact`; the standard library's
indented encoder runs in Python and took 6 % of a large gate), by the standard library
otherwise.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from abw.hashing import ORJSON_OPTIONS, orjson_exact

_INDENTED = ORJSON_OPTIONS | orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE


def indented_json_bytes(value: Any) -> bytes:
    """:func:`indented_json` as UTF-8 bytes (lone surrogates as WTF-8), without the str."""
    if orjson_exact(value):
        try:
            return orjson.dumps(value, option=_INDENTED)
        except TypeError:  # beyond 64 bits, lone surrogates, non-str keys, deep nesting
            pass
    return _stdlib(value).encode("utf-8", "surrogatepass")


def indented_json(value: Any) -> str:
    """``value`` as sorted, two-space-indented JSON text ending in a newline."""
    if orjson_exact(value):
        try:
            return orjson.dumps(value, option=_INDENTED).decode()
        except TypeError:  # beyond 64 bits, lone surrogates, non-str keys, deep nesting
            pass
    return _stdlib(value)


def _stdlib(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
