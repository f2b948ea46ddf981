"""abw.semantics reads a name pattern once per call, and finds names and retries in C where it
can: the same answers as the definitions (``name == pattern``; with glob, fnmatchcase or the
literal after a leading ``=``; a retry repeats the name and input hash of an earlier failed
span), span by span, and the same through a run's name index (``OrderedSpans``)."""

from __future__ import annotations

import pickle
from fnmatch import fnmatchcase
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from abw.semantics import (
    OrderedSpans,
    attempts,
    errors,
    name_matches,
    order_violations,
    retries,
    successes,
)

TEXT = st.text(alphabet="ab=*?[]!\\\n-", max_size=6)


def _defined(pattern: str, name: str, glob: bool) -> bool:
    if not glob:
        return name == pattern
    return name == pattern[1:] if pattern.startswith("=") else fnmatchcase(name, pattern)


@settings(max_examples=500, deadline=None)
@given(TEXT, st.lists(st.tuples(TEXT, st.sampled_from(["success", "error"])), max_size=6))
def test_name_patterns_match_as_defined(pattern: str, named: list[tuple[str, str]]) -> None:
    spans = [SimpleNamespace(name=name, status=status) for name, status in named]
    indexed = OrderedSpans(spans)  # its index built by the first lookup, read by the rest
    for glob in (False, True):
        for span in spans:
            assert name_matches(pattern, span.name, glob=glob) == _defined(pattern, span.name, glob)
        expected = [s for s in spans if _defined(pattern, s.name, glob)]
        for given_spans in (spans, indexed, indexed):
            assert attempts(given_spans, pattern, glob=glob) == expected
            assert successes(given_spans, pattern, glob=glob) == [
                s for s in expected if s.status == "success"
            ]


ORDERED = st.lists(
    st.tuples(st.sampled_from(["a", "b", "=c", "*"]), st.sampled_from(["success", "error"])),
    max_size=10,
)


@settings(max_examples=300, deadline=None)
@given(ORDERED, st.sampled_from(["a", "b", "=c", "=*", "*", "?"]), st.sampled_from(["a", "*"]))
def test_order_violations_through_the_index(named: list, before: str, after: str) -> None:
    spans = [SimpleNamespace(name=n, status=s, ordinal=i) for i, (n, s) in enumerate(named)]
    indexed = OrderedSpans(spans)
    assert order_violations(indexed, before, after) == order_violations(spans, before, after)
    assert successes(indexed, "a") == successes(spans, "a")
    again = pickle.loads(pickle.dumps(indexed))  # the index stays behind, rebuilt when asked
    assert type(again) is OrderedSpans and again == spans
    assert list(again.named("a")) == [s for s in again if s.name == "a"]


def _defined_retries(spans: list) -> list:
    return [
        s
        for i, s in enumerate(spans)
        if s.input_hash is not None
        and any(
            (e.name, e.input_hash) == (s.name, s.input_hash) and e.status == "error"
            for e in spans[:i]
        )
    ]


SPAN = st.builds(
    SimpleNamespace,
    name=st.sampled_from(["a", "b", "c"]),
    status=st.sampled_from(["success", "error", "cancelled"]),
    input_hash=st.sampled_from([None, "h1", "h2"]),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(SPAN, max_size=12))
def test_retries_are_as_defined(spans: list) -> None:
    assert retries(spans) == _defined_retries(spans)
    assert retries(iter(spans)) == _defined_retries(spans)  # any iterable, read once
    assert retries(spans, errors(spans)) == _defined_retries(spans)  # its errors already found
