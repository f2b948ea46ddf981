"""Gate-report JSON text: orjson where it is proven to give the standard library's bytes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st
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


FLOAT_FREE = st.recursive(  # any integer (beyond 64 bits too) and any text (lone surrogates too)
    st.none() | st.booleans() | st.integers() | st.text(alphabet=st.characters(codec=None)),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(FLOAT_FREE)
def test_float_free_values_written_without_the_walk_are_the_defined_bytes(value: Any) -> None:
    assert indented_json_bytes(value, float_free=True) == defined(value).encode(
        "utf-8", "surrogatepass"
    )


def _report_models() -> list[type]:
    from pydantic import BaseModel

    from abw.models import report

    return [
        model
        for model in vars(report).values()
        if isinstance(model, type) and issubclass(model, BaseModel) and model is not BaseModel
    ]


def _may_hold_a_float(schema: Any) -> bool:
    """By the model's own JSON Schema: a number, or a subschema that admits any value."""
    if isinstance(schema, list):
        return any(map(_may_hold_a_float, schema))
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "number" or (
        isinstance(schema.get("type"), list) and "number" in schema["type"]
    ):
        return True
    for key in ("properties", "$defs"):
        if any(map(_may_hold_a_float, schema.get(key, {}).values())):
            return True
    for key in ("items", "additionalProperties", "anyOf", "oneOf", "allOf", "prefixItems"):
        if key in schema and (schema[key] is True or _may_hold_a_float(schema[key])):
            return True
    typed = {"type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const", "properties"}
    return not typed & set(schema)  # {} or a description alone: any value


@pytest.mark.parametrize("model", _report_models(), ids=lambda m: m.__name__)
def test_a_report_model_written_without_the_float_walk_holds_no_float_by_its_schema(model):
    """The report writer skips abw.hashing.orjson_exact's walk for models that cannot hold a
    float (abw.gating._float_free); their JSON Schemas, generated from the same models, agree."""
    from abw.gating import _float_free

    if _float_free(model):
        assert not _may_hold_a_float(model.model_json_schema(mode="serialization")), model
