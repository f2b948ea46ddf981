"""One read-only pydantic ``fields_set`` shared by the report's many per-run models.

pydantic gives every model instance its own ``__pydantic_fields_set__``: a set of 5 to 9 field
names costs 728 bytes, about half of a report model of one run (a violation, a run status, an
input file). A gate report of 100,000 runs holds over half a million of them, ≈ 0.4 GB of sets
naming the same few fields (docs/performance.md). :func:`shared` gives a model the one shared
set for its names instead. That set only records which fields were given (the report is dumped
with every field, never ``exclude_unset``); it refuses changes, so assigning to a shared model
raises (the report's models are never assigned to: they are copied with ``model_copy``, which
gives the copy a set of its own, as unpickling does).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

M = TypeVar("M")


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
