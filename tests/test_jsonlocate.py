"""abw.jsonlocate: the line each element of a top-level array member begins on."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from abw.jsonlocate import element_lines
from tests.jsonkit import element_lines_by_scanning

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
_BLANKS = (" ", "\t", "\r", "\n", "\r\n", "  \n ")


def _laid_out(text: str, rng: random.Random) -> str:
    """``text`` (compact JSON) with JSON whitespace put between tokens at random."""
    out, in_string, escaped = [], False, False
    for char in text:
        out.append(char)
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
            continue
        if char == '"':
            in_string = True
        if char in ",:[]{}" and rng.random() < 0.4:
            out.append(rng.choice(_BLANKS))
    return rng.choice(("", "\n", " ")) + "".join(out) + rng.choice(("", "\n", "\r\n"))


@settings(max_examples=300, deadline=None)
@given(
    before=st.dictionaries(st.text(max_size=6), _VALUES, max_size=3),
    items=st.lists(_VALUES, max_size=6),
    after=st.dictionaries(st.text(max_size=6), _VALUES, max_size=3),
    seed=st.integers(0, 2**32),
)
def test_the_lines_are_the_lines_a_scan_of_each_character_finds(before, items, after, seed):
    document = {**{k: v for k, v in before.items() if k != "spans"}, "spans": items}
    document.update({k: v for k, v in after.items() if k not in document})
    compact = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    rng = random.Random(seed)
    for text in (compact, json.dumps(document, indent=2), _laid_out(compact, rng)):
        assert element_lines(text, "spans") == element_lines_by_scanning(text, "spans")


def test_each_element_is_found_where_it_begins():
    text = '{"a": {"spans": [9]},\n "spans": [\n  {"x": [1,\n 2]}, "s,\\"]",\n\n  [], 3\n]}'
    assert element_lines(text, "spans") == [3, 4, 6, 6]
    assert element_lines('{"spans": []}', "spans") == []
    assert element_lines('{"spans":[1],"spans":[2,\n3]}', "spans") == [1]  # the first member


def test_no_such_array_is_none():
    for text in (
        "[]",
        '"spans"',
        "{}",
        '{"other": [1]}',
        '{"spans": {"a": 1}}',
        '{"spans": "[1, 2]"}',
        '{"spans": [1, 2}',  # not JSON
        '{"spans" [1]}',
        '{"a": 1 "spans": [1]}',
        '{"spans": [1 2]}',
        '{"spans": [' + "[" * 100_000 + "]" * 100_000 + "]}",  # deeper than the scanner goes
        '{"spans": [' + "1" * 5_000 + "]}",  # an integer longer than Python reads
        "",
    ):
        assert element_lines(text, "spans") is None, text[:40]
