"""abw — the Agent Behavior Workbench.

Gate AI agents on their behavior: import recorded agent trajectories into privacy-safe
``agent-behavior-trace/v0`` traces, compare a candidate set of runs with a baseline set under a
locked ``behavior-spec/v0`` contract, and get a deterministic verdict with its evidence.

The public API is imported lazily so that ``abw --help`` stays fast::

    from abw import load_traces, Spec, gate, diff
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# name -> "module:attribute"; resolved on first access (PEP 562).
_LAZY: dict[str, str] = {
    "Trace": "abw.models.trace:Trace",
    "Span": "abw.models.trace:Span",
    "Spec": "abw.models.spec:Spec",
    "GateReport": "abw.models.report:GateReport",
    "Contract": "abw.models.contract:Contract",
    "RepresentationTrajectory": "abw.models.trajectory:RepresentationTrajectory",
    "load_trace": "abw.traceio:load_trace",
    "load_traces": "abw.traceio:load_traces",
    "write_trace": "abw.traceio:write_trace",
    "load_spec": "abw.specio:load_spec",
    "gate": "abw.gating:gate",
    "run_gate": "abw.gating:run_gate",
    "diff": "abw.diffing:diff",
    "AbwInputError": "abw.errors:AbwInputError",
}

__all__ = ["__version__", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'abw' has no attribute {name!r}")
    module_name, attribute = target.split(":")
    value = getattr(importlib.import_module(module_name), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
