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
from typing import Any, TypeVar

M = TypeVar("M")
V = TypeVar("V")


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
