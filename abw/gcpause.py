"""The cyclic garbage collector kept out of allocation-heavy batches.

Loading thousands of traces, gating them and importing a session allocate millions of small,
long-lived, acyclic objects (models, spans, lists); each allocation burst triggers generation
scans that find nothing to free and grow with everything alive, which cost a third of a large
gate (docs/performance.md). Inside :func:`gc_paused` no automatic collection runs; reference
counting still frees everything acyclic at once, and the collector's previous state is restored
on the way out, whatever happens inside.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """No automatic cyclic collection inside; the previous state (enabled or not) after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
