"""gc_paused: no automatic collection inside, the collector's state restored after."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from abw.gcpause import gc_paused

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "refund-policy"


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_paused_inside_and_restored_after(collector_on: None) -> None:
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block restores the outer block's state
    assert gc.isenabled()


def test_restored_after_an_error(collector_on: None) -> None:
    with pytest.raises(ZeroDivisionError), gc_paused():
        1 / 0  # noqa: B018
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled(collector_on: None) -> None:
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_loading_traces_leaves_the_collector_as_it_was(collector_on: None) -> None:
    from abw.traceio import load_traces

    assert load_traces(EXAMPLE / "traces" / "baseline")
    assert gc.isenabled()
