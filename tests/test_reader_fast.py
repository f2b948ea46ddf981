"""The reader's fast path (orjson, accepted only where proven) gives the exact reader's value or
its very error for the same bytes: generated JSON texts with repeated keys, whitespace before
colons, strings holding ``":``, integers of any size, floats, non-ASCII and nesting, and every
file of the corpus."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abw import reader
from abw.errors import AbwInputError
from tests.conftest import CORPUS
from tests.fuzzkit import typed

SETTINGS = settings(
    max_examples=600,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _outcome(parse: Any, data: bytes | str, **kwargs: Any) -> tuple[str, Any]:
    try:
        return "value", typed(parse(data, "x.json", **kwargs))
    except AbwInputError as exc:
        return "error", (type(exc).__name__, exc.one_line())


def _exact(data: bytes | str, file: str, **kwargs: Any) -> Any:
    options = {"max_objects": None, "what": "it", "first_line": None, **kwargs}
    return reader._parse_exact(data, file, **options)


def _same(data: bytes | str, **kwargs: Any) -> tuple[str, Any]:
    fast = _outcome(reader.parse_json, data, **kwargs)
    assert fast == _outcome(_exact, data, **kwargs), data
    return fast


# ---------------------------------------------------------------- generated JSON texts

WHITESPACE = st.sampled_from(["", "", " ", "\n", "\t", " \r\n "])
NUMBERS = st.one_of(
    st.integers(min_value=-(2**64), max_value=2**64).map(str),
    st.integers(min_value=-(2**200), max_value=2**200).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: f"{f:.17e}"),
    st.sampled_from(
        [
            "-0", "-0.0", "1e5", "1E+2", "0.1", "1e400", "-1e400", "1e-400", "NaN", "Infinity",
            "-Infinity", "9" * 5000, "18446744073709551615", "18446744073709551616",
            "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "1180591620717411303425", "1180591620717411303424", "01", "1.", "-",
        ]
    ),
)  # fmt: skip
STRINGS = st.one_of(
    st.text(max_size=12).map(lambda s: json.dumps(s, ensure_ascii=False)),
    st.text(max_size=12).map(json.dumps),
    st.sampled_from(
        ['"\\":"', '": x"', '" :"', '"\\ud800"', '"\\\\"', '"a\\\\\\":"', '"é"', '"\\u00e9"']
    ),
)
KEYS = st.one_of(
    st.sampled_from(['"a"', '"b"', '"\\u0061"', '"\\":"', '"c\\\\"', '": "', '"é"']),
    st.text(max_size=3).map(json.dumps),
)
LEAVES = st.one_of(NUMBERS, STRINGS, st.sampled_from(["true", "false", "null"]))


def _containers(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    arrays = st.lists(st.tuples(WHITESPACE, children, WHITESPACE), max_size=5).map(
        lambda items: "[" + ",".join(a + v + b for a, v, b in items) + "]"
    )
    members = st.tuples(WHITESPACE, KEYS, WHITESPACE, WHITESPACE, children)
    objects = st.lists(members, max_size=5).map(
        lambda items: "{" + ",".join(f"{a}{k}{b}:{c}{v}" for a, k, b, c, v in items) + "}"
    )
    return arrays | objects


DOCUMENTS = st.recursive(LEAVES, _containers, max_leaves=30)


@SETTINGS
@given(text=DOCUMENTS, padding=WHITESPACE)
def test_fast_and_exact_paths_agree_on_generated_json(text, padding):
    document = padding + text + padding
    kind, _ = _same(document.encode("utf-8", "surrogatepass"))
    assert _same(document) == _same(document.encode("utf-8", "surrogatepass"))
    if kind == "value":
        _same(document.encode(), max_objects=2, what="the trace")


@SETTINGS
@given(text=DOCUMENTS, data=st.data())
def test_fast_and_exact_paths_agree_on_damaged_json(text, data):
    raw = bytearray(text.encode("utf-8", "surrogatepass"))
    if raw:
        index = data.draw(st.integers(0, len(raw) - 1))
        how = data.draw(st.sampled_from(["cut", "flip", "insert"]))
        if how == "cut":
            raw = raw[:index]
        elif how == "flip":
            raw[index] = data.draw(st.sampled_from(b'"\\:,{}[] \xff0e-'))
        else:
            raw[index:index] = data.draw(st.sampled_from([b'"a":1,', b"\n", b'\\"', b":"]))
    _same(bytes(raw))


@SETTINGS
@given(document=DOCUMENTS)
def test_a_json_lines_record_names_its_file_line(document):
    fast = _outcome(reader.parse_json, document.encode(), first_line=40)
    assert fast == _outcome(_exact, document.encode(), first_line=40)
    try:
        reader.parse_json(document.encode(), "x.jsonl", first_line=40)
    except AbwInputError as exc:
        assert "\n" not in exc.one_line()
        assert exc.line is None or exc.line >= 40


# ---------------------------------------------------------------- the screens themselves


@pytest.mark.parametrize(
    "text",
    [
        '{"a" :1,"a":2}',  # whitespace before the colon
        '{"a":1,"\\u0061":2}',  # one key written two ways
        '{"t":"x\\": y","a":1,"a":2}',  # an escaped quote before a colon inside a string
        '{"a":{"b":1,"b":1}}',
        '[{"a":1},{"a":1,"a":1}]',
        "-9223372036854775809",  # orjson: -9.223372036854776e18, inside the float range
        "[18446744073709551616]",
        '{"n":1180591620717411303425}',
        '{"x":1e400}',
        '{"x":NaN}',
    ],
)
def test_what_orjson_would_read_wrongly_takes_the_exact_path(text):
    proven, _ = reader._fast(text.encode(), None)
    assert not proven
    _same(text.encode())


def test_a_big_integer_is_exact_and_a_duplicate_names_both_lines():
    assert reader.parse_json(b"[-9223372036854775809]", "x.json") == [-(2**63) - 1]
    with pytest.raises(AbwInputError) as caught:
        reader.parse_json(b'{\n"a": 1,\n"a" : 2\n}', "x.json", first_line=10)
    assert caught.value.one_line() == 'x.json:12: a: duplicate key "a" (lines 11 and 12)'


def test_too_many_objects_are_refused_on_the_fast_path_too():
    with pytest.raises(AbwInputError, match="more than 2 JSON objects"):
        reader.parse_json(b"[{},{},{}]", "t.json", max_objects=2, what="the trace")
    assert reader.parse_json(b"[{},{}]", "t.json", max_objects=2) == [{}, {}]


def test_nesting_the_exact_reader_cannot_follow_is_its_error():
    deep = "[" * 5000 + "]" * 5000
    assert _same(deep)[0] == "error"
    assert _same("[" * 300 + "]" * 300)[0] == "value"


# ---------------------------------------------------------------- the corpus


def _corpus_texts() -> list[tuple[str, bytes]]:
    texts = []
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or path.suffix in {".md", ".yaml", ".yml", ".txt"}:
            continue
        raw = path.read_bytes()
        if path.suffix == ".jsonl":
            texts += [(f"{path.name}:{n}", line) for n, line in enumerate(raw.split(b"\n"), 1)]
        else:
            texts.append((path.name, raw))
    return texts


def test_fast_and_exact_paths_agree_on_every_corpus_file():
    texts = _corpus_texts()
    assert len(texts) > 5000
    for where, raw in texts:
        if raw.strip():
            assert _outcome(reader.parse_json, raw) == _outcome(_exact, raw), where


def test_claude_code_and_codex_lines_take_the_fast_path():
    """They are written exactly as orjson writes them back (compact), so none needs the
    standard library: the import's speed rests on this."""
    for folder in ("claude-code", "codex"):
        for path in sorted((CORPUS / folder).glob("*.jsonl")):
            for line in path.read_bytes().splitlines():
                if line.strip():
                    assert reader._fast(line, None)[0], path.name


def test_a_key_holding_an_escaped_line_break_is_named_on_one_line():
    """The field of an error is the key path; a key "\\n" must not break the one line (a key
    that is no plain name is shown as ``…``: a tool's keys are its content)."""
    with pytest.raises(AbwInputError) as caught:
        reader.parse_json(b'{"\\\\n": 1, "\\n": {"x": NaN}}', "x.json")
    assert caught.value.one_line() == "x.json:1: \u2026.x: NaN is not a JSON number"
