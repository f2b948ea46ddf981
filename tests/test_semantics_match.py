"""abw.semantics reads a name pattern once per call: the same answers as the definition
(``name == pattern``; with glob, fnmatchcase or the literal after a leading ``=``) per span."""

from __future__ import annotations

from fnmatch import fnmatchcase
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from abw.semantics import attempts, name_matches, successes

TEXT = st.text(alphabet="ab=*?[]!\\\n-", max_size=6)


def _defined(pattern: str, name: str, glob: bool) -> bool:
    if not glob:
        return name == pattern
    return name == pattern[1:] if pattern.startswith("=") else fnmatchcase(name, pattern)


@settings(max_examples=500, deadline=None)
@given(TEXT, st.lists(st.tuples(TEXT, st.sampled_from(["success", "error"])), max_size=6))
def test_name_patterns_match_as_defined(pattern: str, named: list[tuple[str, str]]) -> None:
    spans = [SimpleNamespace(name=name, status=status) for name, status in named]
    for glob in (False, True):
        for span in spans:
            assert name_matches(pattern, span.name, glob=glob) == _defined(pattern, span.name, glob)
        expected = [s for s in spans if _defined(pattern, s.name, glob)]
        assert attempts(spans, pattern, glob=glob) == expected
        assert successes(spans, pattern, glob=glob) == [
            s for s in expected if s.status == "success"
        ]
