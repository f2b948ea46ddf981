"""Canonical JSON and SHA-256: the one redaction primitive.

Every piece of content that leaves an importer (prompts, tool inputs and outputs, paths,
commands) is reduced to :func:`content_hash` of its canonical JSON form. What that form is,
exactly (docs/hashing.md): the text Python's ``json.dumps(value, sort_keys=True,
separators=(",", ":"), ensure_ascii=False, allow_nan=False)`` writes, encoded as UTF-8 (lone
surrogates as their three-byte WTF-8 form). That is

- objects with their keys sorted by code point, no whitespace anywhere;
- strings raw (no ``\\uXXXX`` for non-ASCII), escaping only ``"``, ``\\`` and the control
  characters below U+0020 (``\\b \\f \\n \\r \\t`` short, the rest ``\\u00xx``);
- integers in exact decimal, however large; floats as Python's ``repr`` (shortest round trip:
  ``0.1``, ``1.0``, ``1e-05``, ``1e+16``); NaN and infinities refused (``ValueError``).

It is RFC 8785 (JCS) for every value whose numbers are integers of at most 2**53 in magnitude
and whose object keys do not mix characters above U+FFFF with U+E000-U+FFFF (JCS sorts keys by
UTF-16 code units and writes numbers as ECMAScript does); abw keeps its own form so that no
hash it ever wrote changes.

One implementation, two encoders: a value made only of exact ``dict``/``list``/``tuple``/
``str``/``int``/``bool``/``None`` and floats that orjson writes as their ``repr`` (the common
case: :func:`orjson_exact`) is encoded by orjson, which writes those byte for byte as above
(``tests/test_hashing.py`` proves it on the corpus and on generated values); anything else
(other floats, integers beyond 64 bits, lone surrogates, subclasses, non-string keys) goes
through the standard library's encoder, which defines the form.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

ORJSON_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
)


def orjson_exact(value: Any) -> bool:
    """Whether orjson writes ``value`` exactly as the standard library's encoder does: it holds
    only exact ``dict``/``list``/``tuple``/``str``/``int``/``bool``/``None`` and floats whose
    orjson text is their ``repr`` (orjson writes ``1e-05`` as ``0.00001``, NaN as ``null``).

    orjson checks the rest itself: with :data:`ORJSON_OPTIONS` it refuses (``TypeError``)
    integers beyond 64 bits, lone surrogates, keys that are not exact ``str`` and nesting deeper
    than 255 levels, and the caller then falls back to the standard library."""
    if type(value) is str:  # (most values hashed are)
        return True
    stack = [value]
    pop, push = stack.pop, stack.extend
    dumps, text_of = orjson.dumps, float.__repr__
    while stack:
        item = pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is dict:
            push(item.values())
        elif kind is list or kind is tuple:
            push(item)
        elif kind is not float or dumps(item) != text_of(item).encode():
            return False
    return True


def _stdlib(value: Any) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def proven_json_bytes(
    value: Any, option: int, stdlib: Callable[[Any], str], *, float_free: bool = False
) -> bytes:
    """``stdlib(value)`` as UTF-8 bytes (lone surrogates as WTF-8), written by orjson with
    ``option`` where :func:`orjson_exact` proves the bytes are the same. ``float_free``: the
    caller knows ``value`` is made of exact ``dict``/``list``/``str``/``int``/``bool``/``None``
    alone (a model's JSON-mode dump whose fields hold no float), which the walk would only
    confirm; orjson's own refusals (integers beyond 64 bits, lone surrogates) still fall back."""
    if float_free or orjson_exact(value):
        try:
            return orjson.dumps(value, option=option)
        except TypeError:  # beyond 64 bits, lone surrogates, non-str keys, deep nesting
            pass
    return stdlib(value).encode("utf-8", "surrogatepass")


def canonical_bytes(value: Any) -> bytes:
    """The UTF-8 bytes of :func:`canonical_json` (what :func:`content_hash` hashes)."""
    return proven_json_bytes(value, ORJSON_OPTIONS, _stdlib)


def canonical_json(value: Any) -> str:
    """JSON with sorted keys, no insignificant whitespace and no NaN: equal values, equal text
    (the exact form: this module's docstring)."""
    return canonical_bytes(value).decode("utf-8", "surrogatepass")


def sha256_hex(data: bytes | str) -> str:
    """Hex SHA-256 of bytes, or of a string encoded as UTF-8."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def content_hash(value: Any) -> str:
    """SHA-256 of the canonical JSON of ``value``; ``None`` hashes like JSON ``null``."""
    return hashlib.sha256(canonical_bytes(value)).hexdigest()


def file_sha256(path: str | Path, chunk_size: int = 1 << 20) -> str:
    """SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def numbers_by_value(value: Any) -> Any:
    """``value`` with every integral float written as the integer it equals (``1.0`` -> ``1``,
    exactly: ``int(1e20) == 1e20``), so that values equal under JSON's number semantics have
    one :func:`canonical_json` text (``true`` and ``1`` stay apart). Fingerprints and value keys
    hash this form; content hashes keep the value as written."""
    kind = type(value)
    if kind is float:
        return int(value) if value.is_integer() else value
    if kind is list or kind is tuple:
        return [numbers_by_value(v) for v in value]
    if kind is dict:
        return {k: numbers_by_value(v) for k, v in value.items()}
    return value
