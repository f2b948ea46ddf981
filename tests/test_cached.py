"""abw.cached.cached_property: computed once per instance, then read as a plain attribute."""

from __future__ import annotations

from abw.cached import cached_property


class _Counted:
    calls = 0

    def __init__(self, base: int) -> None:
        self.base = base

    @cached_property
    def doubled(self) -> int:
        """Twice the base."""
        _Counted.calls += 1
        return 2 * self.base


def test_computed_once_per_instance() -> None:
    _Counted.calls = 0
    a, b = _Counted(1), _Counted(5)
    assert (a.doubled, a.doubled, b.doubled, b.doubled) == (2, 2, 10, 10)
    assert _Counted.calls == 2
    assert a.__dict__["doubled"] == 2  # stored on the instance, shadowing the descriptor


def test_the_class_attribute_is_the_descriptor_with_its_doc() -> None:
    descriptor = _Counted.__dict__["doubled"]
    assert _Counted.doubled is descriptor
    assert descriptor.__doc__ == "Twice the base." and descriptor.name == "doubled"


def test_an_assigned_value_wins() -> None:
    item = _Counted(3)
    item.doubled = 7
    assert item.doubled == 7
