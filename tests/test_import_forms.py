"""Forms the import writes for every span, each written by a faster route than the standard
one it stands for: the same text, on generated values."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hashing import json_values

from abw.importers.spans import iso
from abw.traceio import _dumps


def strftime_form(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@settings(max_examples=500, deadline=None)
@given(
    moment=st.datetimes(
        min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
    ),
    offset=st.integers(-23 * 60, 23 * 60),
)
def test_iso_is_the_strftime_form(moment: datetime, offset: int) -> None:
    assert iso(moment) == strftime_form(moment)
    shifted = moment.astimezone(timezone(timedelta(minutes=offset)))
    assert iso(shifted) == strftime_form(shifted)


@pytest.mark.parametrize(
    "moment",
    [
        datetime(999, 12, 31, 23, 59, 59, tzinfo=UTC),  # strftime: no leading zero in the year
        datetime(1, 1, 1, tzinfo=UTC),
        datetime(1000, 1, 1, tzinfo=UTC),
        datetime(2025, 9, 25, 1, 22, 20, 83000, tzinfo=UTC),
        datetime(2025, 9, 25, 1, 22, 20),  # naive: local time, as astimezone reads it
    ],
)
def test_iso_at_the_edges(moment: datetime) -> None:
    assert iso(moment) == strftime_form(moment)
    assert iso(None) is None


def stdlib_form(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_span_lines_are_the_json_dumps_form(value: Any) -> None:
    assert _dumps(value) == stdlib_form(value)


@pytest.mark.parametrize("value", [float("nan"), [float("inf")], {"a": object()}, {(1,): 2}])
def test_span_lines_refuse_what_json_dumps_refuses(value: Any) -> None:
    with pytest.raises((ValueError, TypeError)) as expected:
        stdlib_form(value)
    with pytest.raises(expected.type, match=re.escape(str(expected.value))):
        _dumps(value)
