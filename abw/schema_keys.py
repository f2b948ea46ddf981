"""What a document's JSON Schema accepts at a place in that document: the keys of the object
there, the values of an enum there, the tags of a discriminated union there. The schema is
walked along the document itself, so a union is followed to the member the document's value
is (a rule's ``kind``, a matcher given as an object rather than a glob). Errors use it to
name the key, value or kind a typo meant (:func:`abw.spelling.nearest`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Schema = dict[str, Any]

#: The JSON types of Python values as parsed from JSON or YAML (bool before int: a subclass)
_JSON_TYPES: tuple[tuple[type, tuple[str, ...]], ...] = (
    (bool, ("boolean",)),
    (int, ("integer", "number")),
    (float, ("number",)),
    (str, ("string",)),
    (list, ("array",)),
    (dict, ("object",)),
    (type(None), ("null",)),
)


def schema_for(document: Any) -> Schema | None:
    """The JSON Schema of the kind the document's ``schema_version`` names, or None."""
    from abw.models.registry import KINDS, json_schema

    kind = document.get("schema_version") if isinstance(document, dict) else None
    return json_schema(kind) if isinstance(kind, str) and kind in KINDS else None


def node_at(schema: Schema, document: Any, location: Sequence[str | int]) -> Schema | None:
    """The schema of the value at ``location`` (member names and item indexes) in
    ``document``, each union resolved to the member that value is; None where the schema
    says nothing of that place."""
    node: Schema | None = _member(schema, schema, document)
    value = document
    for part in location:
        if node is None:
            return None
        node = _member(schema, _child(node, part), value := _item(value, part))
    return node


def keys_at(schema: Schema, document: Any, location: Sequence[str | int]) -> list[str]:
    """The keys the object schema at ``location`` names (none where it is no object)."""
    node = node_at(schema, document, location)
    return list(node.get("properties", {})) if node is not None else []


def values_at(schema: Schema, document: Any, location: Sequence[str | int]) -> list[Any]:
    """The values allowed at ``location`` when they are an enumeration (``enum``/``const``,
    of every member of a union of them), else none."""
    node = node_at(schema, document, location)
    return [] if node is None else _values(schema, node)


def tags_at(
    schema: Schema, document: Any, location: Sequence[str | int]
) -> tuple[str, list[str]] | None:
    """(the tag's key, the tags) of the discriminated union at ``location``, or None."""
    union = (
        _child(node_at(schema, document, location[:-1]) or {}, location[-1]) if location else schema
    )
    found = _resolve(schema, union or {}).get("discriminator")
    if not isinstance(found, dict):
        return None
    return found["propertyName"], sorted(found.get("mapping", {}))


def _item(value: Any, part: str | int) -> Any:
    """``value[part]`` when it holds that key or index, else None."""
    if isinstance(value, dict):
        return value.get(part)
    if isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
        return value[part]
    return None


def _child(node: Schema, part: str | int) -> Schema | None:
    """The schema of member ``part`` (a key of an object, an index of an array)."""
    if isinstance(part, int):
        items = node.get("items")
        return items if isinstance(items, dict) else None
    found = node.get("properties", {}).get(part)
    if found is None and isinstance(node.get("additionalProperties"), dict):
        found = node["additionalProperties"]
    return found


def _resolve(root: Schema, node: Schema) -> Schema:
    """``node`` with its local ``$ref`` (``#/$defs/Name``) followed."""
    seen = 0
    while isinstance(node.get("$ref"), str) and seen < 32:
        ref = node["$ref"].removeprefix("#/").split("/")
        target: Any = root
        for name in ref:
            target = target.get(name, {}) if isinstance(target, dict) else {}
        node, seen = target, seen + 1
    return node


def _member(root: Schema, node: Schema | None, value: Any) -> Schema | None:
    """``node`` resolved: a discriminated union to the member the value's tag names, another
    union to its first member of the value's JSON type; a union no member fits stays as is."""
    if node is None:
        return None
    node = _resolve(root, node)
    discriminator = node.get("discriminator")
    if isinstance(discriminator, dict):  # an unknown tag names no member: none is guessed
        tag = value.get(discriminator.get("propertyName")) if isinstance(value, dict) else None
        ref = discriminator.get("mapping", {}).get(tag)
        return _resolve(root, {"$ref": ref}) if isinstance(ref, str) else node
    members = node.get("oneOf") or node.get("anyOf")
    if isinstance(members, list):
        for member in members:
            resolved = _resolve(root, member)
            if _fits(resolved, value):
                return _member(root, resolved, value)
    return node


def _fits(node: Schema, value: Any) -> bool:
    """Whether ``value``'s JSON type is one ``node`` takes (a node naming no type takes any)."""
    types = next((names for kind, names in _JSON_TYPES if isinstance(value, kind)), ())
    declared = node.get("type", "object" if "properties" in node else None)
    if declared is None:
        return True
    declared = [declared] if isinstance(declared, str) else declared
    return any(name in declared for name in types)


def _values(root: Schema, node: Schema) -> list[Any]:
    """The ``enum``/``const`` values of ``node``, or of every member of its union."""
    if "enum" in node:
        return list(node["enum"])
    if "const" in node:
        return [node["const"]]
    members = node.get("oneOf") or node.get("anyOf") or []
    return [v for member in members for v in _values(root, _resolve(root, member))]
