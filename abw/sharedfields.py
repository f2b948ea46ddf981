"""What the report's many per-run models share: one read-only pydantic ``fields_set`` per set
of field names, and (for the summaries that arrive from workers) one copy of each repeated value.

pydantic gives every model instance its own ``__pydantic_fields_set__``: a set of 5 to 9 field
names costs 728 bytes, about half of a report model of one run (a violation, a run status, an
input file). A gate report of 100,000 runs holds over half a million of them, ≈ 0.4 GB of sets
naming the same few fields (docs/performance.md). :func:`shared` gives a model the one shared
set for its names instead. That set only records which fields were given (the report is dumped
with every field, never ``exclude_unset``); it refuses changes, so assigning to a shared model
raises (the report's models are never assigned to: they are copied with ``model_copy``, which
gives the copy a set of its own, as unpickling does).

Each batch of summaries unpickled from a worker has its own copies of what many runs repeat: the
tool names and the paths of the divergences (a nearest baseline path, the variants many runs
take, their common prefixes), the messages, the nearest baseline's trace id, the empty span-name
set. A :class:`ValuePool` gives each equal value one copy while the driver merges them: the
report's models only read these values, never change them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from functools import cache
from types import UnionType
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

M = TypeVar("M")
V = TypeVar("V")
_object_setattr = object.__setattr__


class SharedFieldsSet(set[str]):
    """A ``fields_set`` shared by many models, so it refuses changes (pydantic adds a field's
    name to it on assignment, which would mark the field set on every model sharing it). It
    must stay a ``set``: pydantic-core rejects a frozenset there."""

    __slots__ = ()

    def _refuse(self, *args: Any) -> Any:
        raise TypeError("a report model with a shared fields_set is read-only (abw.sharedfields)")

    add = update = discard = remove = pop = clear = _refuse
    __ior__ = __iand__ = __isub__ = __ixor__ = _refuse
    intersection_update = difference_update = symmetric_difference_update = _refuse

    def __copy__(self) -> set[str]:  # model_copy(update=...) then owns a set it may change
        return set(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> set[str]:
        return set(self)

    def __reduce__(self) -> tuple[Any, ...]:  # unpickled (a worker's summaries): shared again
        return shared_set, (tuple(sorted(self)),)


_SETS: dict[frozenset[str], SharedFieldsSet] = {}


def shared_set(names: Iterable[str]) -> SharedFieldsSet:
    """The one shared set of these field names."""
    key = frozenset(names)
    found = _SETS.get(key)
    if found is None:
        found = _SETS[key] = SharedFieldsSet(key)
    return found


def shared(model: M) -> M:
    """``model`` with the shared ``fields_set`` for its names (the model itself, returned)."""
    names = model.__pydantic_fields_set__  # type: ignore[attr-defined]
    object.__setattr__(model, "__pydantic_fields_set__", shared_set(names))
    return model


_PLAIN = (str, int, float, bool, type(None))


@cache
def plain_model(model_type: type) -> bool:
    """Whether ``model_type``'s state is its ``__dict__`` of plain JSON values alone, which is
    also its JSON-mode dump, value for value: every field a string, integer, float, boolean,
    None, a literal of those, a list of those or one of those or None, with no alias,
    serializer, validator, metadata but bounds (``ge=0``), computed, private or extra field and
    no post-init (pydantic keeps every field, defaults included, in ``__dict__``)."""
    from annotated_types import BaseMetadata

    def plain(annotation: Any) -> bool:
        origin = get_origin(annotation)
        if origin is Literal:
            return all(type(arg) in _PLAIN for arg in get_args(annotation))
        if origin is list or origin is UnionType or origin is Union:
            return all(plain(arg) for arg in get_args(annotation))
        return annotation in _PLAIN

    decorators = model_type.__pydantic_decorators__  # type: ignore[attr-defined]
    return (
        model_type.model_config.get("extra") != "allow"  # type: ignore[attr-defined]
        and not model_type.model_computed_fields  # type: ignore[attr-defined]
        and not model_type.__private_attributes__  # type: ignore[attr-defined]
        and not model_type.__pydantic_post_init__  # type: ignore[attr-defined]
        and not model_type.__pydantic_root_model__  # type: ignore[attr-defined]
        and not (decorators.field_serializers or decorators.model_serializers)
        and not (decorators.field_validators or decorators.model_validators)
        and all(
            plain(info.annotation)
            and info.alias is None
            and info.serialization_alias is None
            and not info.exclude
            and all(isinstance(item, BaseMetadata) for item in info.metadata)
            for info in model_type.model_fields.values()  # type: ignore[attr-defined]
        )
    )


def built(model_type: type[M], values: dict[str, Any]) -> M:
    """A :func:`plain_model` of ``model_type`` holding ``values`` — every one of its fields,
    abw's own values of the field's type (a run row of the report: counts, flags and the
    validated runs' ids and paths) — with the shared ``fields_set``, without validating them
    again: what pydantic's ``model_construct`` does, in a microsecond instead of three (a gate
    report of 10,000 runs builds 32,000 rows)."""
    fields_set = _all_fields(model_type)
    if values.keys() != fields_set:
        raise TypeError(f"{model_type.__name__} is not built from {sorted(values)}")
    model = model_type.__new__(model_type)  # type: ignore[call-overload]
    _object_setattr(model, "__dict__", values)
    _object_setattr(model, "__pydantic_fields_set__", fields_set)
    _object_setattr(model, "__pydantic_extra__", None)
    _object_setattr(model, "__pydantic_private__", None)
    return model  # type: ignore[no-any-return]


@cache
def _all_fields(model_type: type) -> SharedFieldsSet:
    """The shared set of every field of a :func:`plain_model` type (TypeError for another)."""
    if not plain_model(model_type):
        raise TypeError(f"{model_type.__name__} is not a plain model: it is validated")
    return shared_set(model_type.model_fields)  # type: ignore[attr-defined]


class ValuePool:
    """One copy of each equal string, frozenset or list (of strings or of ints) given to it."""

    __slots__ = ("_lists", "_values")

    def __init__(self) -> None:
        self._values: dict[Any, Any] = {}
        self._lists: dict[tuple[Any, ...], list[Any]] = {}

    def value(self, value: V) -> V:
        """The pool's copy of a string or a frozenset of strings (``None`` as is)."""
        if value is None:
            return value
        return self._values.setdefault(value, value)  # type: ignore[no-any-return]

    def items(self, values: list[V]) -> list[V]:
        """The pool's copy of a list of strings or of ints (its strings interned). Never
        changed by whoever holds it: every model that had an equal list now holds this one."""
        key = tuple(values)
        found = self._lists.get(key)
        if found is None:
            strings = bool(values) and isinstance(values[0], str)
            found = self._lists[key] = list(map(sys.intern, values)) if strings else values
        return found

    def fields(self, model: Any, names: tuple[str, ...], lists: tuple[str, ...] = ()) -> None:
        """Give ``model``'s string fields ``names`` and list fields ``lists`` the pool's copies
        (in place, as its fields, never through assignment, which a shared fields_set refuses)."""
        data = model.__dict__
        for name in names:
            data[name] = self.value(data[name])
        for name in lists:
            data[name] = self.items(data[name])
