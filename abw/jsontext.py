"""Byte-stable, human-readable JSON text: sorted keys, two-space indent, trailing newline.

Defined as the standard library's ``json.dumps(value, indent=2, sort_keys=True,
ensure_ascii=False, allow_nan=False) + "\\n"`` (what gate reports have always been). Written by
orjson where it gives the same bytes (:func:`abw.hashing.proven_json_bytes`; the standard library's
indented encoder runs in Python and took 6 % of a large gate), by the standard library
otherwise.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from abw.hashing import ORJSON_OPTIONS, proven_json_bytes

_INDENTED = ORJSON_OPTIONS | orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE


def indented_json_bytes(value: Any, *, float_free: bool = False) -> bytes:
    """:func:`indented_json` as UTF-8 bytes (lone surrogates as WTF-8), without the str
    (``float_free``: as :func:`abw.hashing.proven_json_bytes`)."""
    return proven_json_bytes(value, _INDENTED, _stdlib, float_free=float_free)


def indented_json(value: Any) -> str:
    """``value`` as sorted, two-space-indented JSON text ending in a newline."""
    return indented_json_bytes(value).decode("utf-8", "surrogatepass")


def _stdlib(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
