"""Gate-report JSON text: orjson where it is proven to give the standard library's bytes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import REPO
from hypothesis import given, settings
from test_hashing import json_values

from abw.gating import report_bytes, report_document, report_json, run_gate
from abw.jsontext import indented_json, indented_json_bytes

EXAMPLE = REPO / "examples" / "refund-policy"


def defined(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


@pytest.mark.parametrize("candidate", ["good", "regressed", "small"])
def test_example_reports_are_the_defined_bytes(candidate: str) -> None:
    report = run_gate(
        EXAMPLE / "traces" / "baseline",
        EXAMPLE / "traces" / candidate,
        EXAMPLE / "behavior.yaml",
    )
    assert report_json(report) == defined(report_document(report))
    assert report_bytes(report) == report_json(report).encode()


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_generated_values_are_the_defined_bytes(value: Any) -> None:
    assert indented_json(value) == defined(value)
    assert indented_json_bytes(value) == defined(value).encode("utf-8", "surrogatepass")


@pytest.mark.parametrize(
    "value", [{}, [], {"a": {}, "b": []}, {"x": [1e-05, 0.5, 2**65]}, [[[{"k": "\ud800"}]]]]
)
def test_edges_are_the_defined_bytes(value: Any) -> None:
    assert indented_json(value) == defined(value)
    assert indented_json_bytes(value) == defined(value).encode("utf-8", "surrogatepass")


def test_nan_is_refused() -> None:
    with pytest.raises(ValueError):
        indented_json({"x": float("nan")})
