"""abw — the Agent Behavior Workbench.

Gate AI agents on their behavior: import recorded agent trajectories into privacy-safe
``agent-behavior-trace/v0`` traces, compare a candidate set of runs with a baseline set under a
locked ``behavior-spec/v0`` contract, and get a deterministic verdict with its evidence.

The public API is imported lazily so that ``abw --help`` stays fast::

    from abw import load_traces, Spec, gate, diff
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers read (py.typed); at run time, imported on first use
    from abw.diffing import diff as diff
    from abw.errors import AbwInputError as AbwInputError
    from abw.gating import gate as gate
    from abw.gating import run_gate as run_gate
    from abw.models.contract import Contract as Contract
    from abw.models.report import GateReport as GateReport
    from abw.models.spec import Spec as Spec
    from abw.models.trace import Span as Span
    from abw.models.trace import Trace as Trace
    from abw.models.trajectory import RepresentationTrajectory as RepresentationTrajectory
    from abw.specio import load_spec as load_spec
    from abw.traceio import load_trace as load_trace
    from abw.traceio import load_traces as load_traces
    from abw.traceio import write_trace as write_trace

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
