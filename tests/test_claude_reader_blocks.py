"""The Claude Code reader reads a file in blocks and proves whole blocks of lines at once; what
it gives is exactly what reading the file line by line with :func:`abw.reader.parse_json` gives:
the same records and line numbers, the same warnings, the same error on the same line, the
same SHA-256, wherever the lines fall against the blocks (blocks and the line limit are made
small here, so that lines cross and exceed them)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import abw.limits
from abw import reader as exact_reader
from abw.errors import AbwInputError
from abw.importers.claude import reader
from abw.importers.rawio import BOM
from abw.limits import check_line
from tests.conftest import CORPUS
from tests.fuzzkit import typed

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def line_by_line(path: Path, limit: int) -> tuple[list[tuple[int, Any]], list[str], str, int]:
    """The reading the block reader must equal: one bounded ``readline`` and one
    :func:`abw.reader.parse_json` per line."""
    records, warnings, digest, number = [], [], hashlib.sha256(), 0
    with open(path, "rb") as handle:
        while raw := handle.readline(limit + 1):
            number += 1
            check_line(raw, path, number)
            digest.update(raw)
            if number == 1:
                raw = raw.removeprefix(BOM)
            if raw.isspace() or not raw:
                continue
            try:
                record = exact_reader.parse_json(raw, path, first_line=number)
            except exact_reader.MalformedJson as exc:
                if not raw.endswith(b"\n"):
                    warnings.append(f"{path.name}:{number}: skipped a cut-off last line")
                    continue
                raise AbwInputError(exc.message, file=path, line=number) from None
            if not isinstance(record, dict):
                message = "not a Claude Code transcript: a line is not a JSON object"
                raise AbwInputError(message, file=path, line=number)
            records.append((number, typed(record)))
    return records, warnings, digest.hexdigest(), number


def by_blocks(path: Path) -> tuple[list[tuple[int, Any]], list[str], str, int]:
    warnings: list[str] = []
    jsonl = reader.JsonlReader(path, warnings.append)
    records = [(number, typed(record)) for number, record in jsonl]
    warnings = [w.removesuffix(" (session still being written?)") for w in warnings]
    assert jsonl.records == len(records)
    return records, warnings, jsonl.sha256, jsonl.lines


def outcome(read: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "read", read(*args)
    except AbwInputError as exc:
        return "error", exc.one_line()


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> int:
    """Blocks of 64 bytes and lines of at most 200 bytes."""
    monkeypatch.setattr(reader, "BLOCK_BYTES", 64)
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 200)
    monkeypatch.setattr(abw.limits, "MAX_LINE_BYTES", 200)
    return 200


RECORDS = st.dictionaries(
    st.sampled_from(["type", "uuid", "x", "é"]),
    st.one_of(st.integers(-(2**70), 2**70), st.text(max_size=30), st.floats(allow_nan=False)),
    max_size=4,
)
LINES = st.one_of(
    RECORDS.map(lambda r: json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode()),
    RECORDS.map(lambda r: json.dumps(r).encode()),  # spaces: not orjson's own rendering
    st.sampled_from(
        [
            b"",
            b"   ",
            b'{"a":1,"a":2}',
            b'{"a":18446744073709551616}',
            b'{"a":1e400}',
            b'{"a":NaN}',
            b"[1,2]",
            b'"text"',
            b'{"a":"\xff"}',
            b'{"a":"\\ud800"}',
            b'{"cut":',
            b'{"a":1}\r',
            BOM + b'{"a":1}',
            b'{"x":"' + b"y" * 150 + b'"}',
            b'{"x":"' + b"y" * 191 + b'"}',  # 199 bytes: with its line break, at the limit
            b'{"x":"' + b"y" * 192 + b'"}',  # 200 bytes: with its line break, over it
            b'{"x":"' + b"y" * 193 + b'"}',
            b'{"x":"' + b"y" * 194 + b'"}',
            b'{"x":"' + b"y" * 300 + b'"}',
        ]
    ),
)


@SETTINGS
@given(lines=st.lists(LINES, max_size=12), bom=st.booleans(), newline=st.booleans())
def test_blocks_read_as_lines_do(tmp_path_factory, small, lines, bom, newline):
    path = tmp_path_factory.mktemp("blocks") / "s.jsonl"
    path.write_bytes((BOM if bom else b"") + b"\n".join(lines) + (b"\n" if newline else b""))
    assert outcome(by_blocks, path) == outcome(line_by_line, path, small)


def test_a_line_over_the_limit_is_named_as_line_by_line(tmp_path, small):
    path = tmp_path / "s.jsonl"
    for tail in (b"\n", b""):  # ended by a line break in a later block, or by the file
        path.write_bytes(b'{"a":1}\n' + b"z" * 1000 + tail)
        error = outcome(by_blocks, path)
        assert error == outcome(line_by_line, path, small)
        assert error[0] == "error" and ":2:" in error[1] and "over abw's limit" in error[1]


def test_a_bom_is_taken_once(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(BOM + BOM + b'{"type":"user"}\n')
    assert outcome(by_blocks, path) == outcome(line_by_line, path, abw.limits.MAX_LINE_BYTES)
    assert outcome(by_blocks, path)[0] == "error"


@pytest.mark.parametrize("path", sorted((CORPUS / "claude-code").glob("*.jsonl")), ids=str)
def test_corpus_sessions_read_as_lines_do(path):
    assert by_blocks(path) == line_by_line(path, abw.limits.MAX_LINE_BYTES)


def test_claude_code_blocks_are_proven_whole():
    lines = (CORPUS / "claude-code" / "spotter__tool_heavy.jsonl").read_bytes().splitlines()
    records = exact_reader.compact_objects(lines)
    assert records is not None
    assert records == [exact_reader._parse_exact(line, "x", max_objects=None, what="it",
                                                 first_line=None) for line in lines]  # fmt: skip


@pytest.mark.parametrize(
    "line",
    [
        b'{"a":1,"a":2}',  # a repeated key: orjson keeps the last
        b'{"a":18446744073709551616}',  # orjson reads a float
        b'{"a": 1}',  # not orjson's rendering (the line-by-line path decides)
        b"[1]",  # no object
        b"",  # blank
        b'{"a":1}\r',
    ],
)
def test_a_block_with_any_unproven_line_is_not_proven(line):
    assert exact_reader.compact_objects([b'{"type":"user"}', line]) is None
