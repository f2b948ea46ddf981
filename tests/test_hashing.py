"""Canonical JSON: orjson's fast path writes exactly the defined form (the standard library's
``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)``),
on every value of the real corpus and on generated values (floats, huge integers, non-ASCII,
lone surrogates)."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abw.hashing import (
    ORJSON_OPTIONS,
    canonical_bytes,
    canonical_json,
    content_hash,
    orjson_exact,
    sha256_hex,
)

CORPUS = Path(__file__).parent / "corpus"


def defined(value: Any) -> bytes:
    """The definition (docs/hashing.md), written out independently of abw.hashing."""
    text = json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return text.encode("utf-8", "surrogatepass")


def _corpus_values() -> list[Any]:
    values: list[Any] = []
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix not in (".json", ".jsonl") or not path.is_file():
            continue
        lines = path.read_bytes().splitlines() if path.suffix == ".jsonl" else [path.read_bytes()]
        for line in lines:
            try:
                values.append(json.loads(line))
            except ValueError:
                continue
    return values


def _nested(value: Any) -> list[Any]:
    """The value and every value inside it (importers hash tool inputs, outputs, blocks)."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        found.append(item)
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def test_every_value_of_the_corpus_hashes_as_defined() -> None:
    records = _corpus_values()
    assert len(records) > 1000
    values = [v for record in records for v in _nested(record)]
    fast = [v for v in values if orjson_exact(v)]
    assert len(fast) > 0.9 * len(values)  # the orjson path is the one taken
    for value in values:
        assert canonical_bytes(value) == defined(value)
        assert content_hash(value) == sha256_hex(defined(value))
    for value in fast:  # orjson itself, not a fallback, agrees wherever it writes anything
        try:
            written = orjson.dumps(value, option=ORJSON_OPTIONS)
        except TypeError:  # integers beyond 64 bits (exact ids): the standard library's path
            continue
        assert written == defined(value)


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.text(alphabet=st.characters(exclude_categories=()))  # lone surrogates too
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(st.text(alphabet=st.characters(exclude_categories=())), inner, max_size=6)
    ),
    max_leaves=40,
)
plain_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(), inner, max_size=6),
    max_leaves=40,
)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_generated_values_hash_as_defined(value: Any) -> None:
    assert canonical_bytes(value) == defined(value)
    assert canonical_json(value) == defined(value).decode("utf-8", "surrogatepass")
    assert content_hash(value) == sha256_hex(defined(value))


@settings(max_examples=200, deadline=None)
@given(plain_values)
def test_orjson_writes_float_free_values_as_defined(value: Any) -> None:
    assert orjson_exact(value)
    assert orjson.dumps(value, option=ORJSON_OPTIONS) == defined(value)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_orjson_takes_a_float_only_where_it_writes_repr(value: float) -> None:
    if orjson_exact(value):
        assert orjson.dumps(value) == repr(value).encode()
    assert canonical_bytes([value, {"x": value}]) == defined([value, {"x": value}])


def test_every_code_point_as_a_string_and_a_key() -> None:
    for start in range(0, 0x110000, 0x1000):
        text = "".join(chr(c) for c in range(start, start + 0x1000) if not 0xD800 <= c < 0xE000)
        assert canonical_bytes(text) == defined(text)
        keys = {ch: i for i, ch in enumerate(text)}
        assert canonical_bytes(keys) == defined(keys)


@pytest.mark.parametrize(
    "value",
    [
        1e-05,  # orjson writes 0.00001: such floats take the standard library's path
        [1.5e-07, 1e16, 0.1, -0.0, 1.0],
        2**64,
        -(2**63) - 1,
        {"big": 10**40},
        "\ud800 lone surrogate",
        {"\udfff": 1},
        {1: "int key", 2: "sorted"},
        (1, "tuple", None),
        [
            [
                [
                    [
                        [
                            [
                                [
                                    [
                                        [
                                            [
                                                [
                                                    [
                                                        [
                                                            [
                                                                [
                                                                    [
                                                                        [
                                                                            [
                                                                                [
                                                                                    [
                                                                                        [
                                                                                            [
                                                                                                [
                                                                                                    [
                                                                                                        [
                                                                                                            [
                                                                                                                [
                                                                                                                    [
                                                                                                                        [
                                                                                                                            [
                                                                                                                                [
                                                                                                                                    [
                                                                                                                                        [
                                                                                                                                            [
                                                                                                                                                [
                                                                                                                                                    [
                                                                                                                                                        [
                                                                                                                                                            [
                                                                                                                                                                [
                                                                                                                                                                    [
                                                                                                                                                                        [
                                                                                                                                                                            [
                                                                                                                                                                                [
                                                                                                                                                                                    [
                                                                                                                                                                                        "deep"
                                                                                                                                                                                    ]
                                                                                                                                                                                ]
                                                                                                                                                                            ]
                                                                                                                                                                        ]
                                                                                                                                                                    ]
                                                                                                                                                                ]
                                                                                                                                                            ]
                                                                                                                                                        ]
                                                                                                                                                    ]
                                                                                                                                                ]
                                                                                                                                            ]
                                                                                                                                        ]
                                                                                                                                    ]
                                                                                                                                ]
                                                                                                                            ]
                                                                                                                        ]
                                                                                                                    ]
                                                                                                                ]
                                                                                                            ]
                                                                                                        ]
                                                                                                    ]
                                                                                                ]
                                                                                            ]
                                                                                        ]
                                                                                    ]
                                                                                ]
                                                                            ]
                                                                        ]
                                                                    ]
                                                                ]
                                                            ]
                                                        ]
                                                    ]
                                                ]
                                            ]
                                        ]
                                    ]
                                ]
                            ]
                        ]
                    ]
                ]
            ]
        ],
        [[] for _ in range(3)],
    ],
)
def test_values_orjson_would_write_otherwise(value: Any) -> None:
    assert canonical_bytes(value) == defined(value)
    assert content_hash(value) == sha256_hex(defined(value))


def test_deeper_than_orjson_allows() -> None:
    value: Any = "x"
    for _ in range(300):  # orjson refuses more than 255 levels
        value = [value]
    assert canonical_bytes(value) == defined(value)
    assert content_hash(value) == sha256_hex(defined(value))


@pytest.mark.parametrize("value", [math.nan, [math.inf], {"a": -math.inf}])
def test_nan_and_infinity_are_refused(value: Any) -> None:
    with pytest.raises(ValueError):
        canonical_json(value)
    with pytest.raises(ValueError):
        content_hash(value)


@pytest.mark.parametrize("value", [datetime(2025, 1, 1, tzinfo=UTC), {"a": {1, 2}}, object()])
def test_what_json_cannot_hold_is_refused(value: Any) -> None:
    """orjson would write a datetime; the defined form refuses it, and so does abw."""
    with pytest.raises(TypeError):
        canonical_json(value)
    with pytest.raises(TypeError):
        content_hash(value)


def test_subclasses_are_written_as_the_standard_library_writes_them() -> None:
    from collections import OrderedDict
    from enum import IntEnum

    class Level(IntEnum):
        HIGH = 3

    class Name(str):
        pass

    for value in [OrderedDict([("b", 1), ("a", 2)]), Level.HIGH, {Name("k"): Name("v")}, Name("s")]:
        assert canonical_bytes(value) == defined(value)
        assert content_hash(value) == sha256_hex(defined(value))
