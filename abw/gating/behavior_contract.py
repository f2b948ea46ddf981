"""``behavior_contract``: required tools, forbidden tools and order constraints (hard, per run)."""

from __future__ import annotations

from abw.gating.common import Finding, RunRule, ordinals_text, runs_word
from abw.models.rules import ForbiddenRef
from abw.models.spec import Invariants
from abw.semantics import attempts, literal_pattern, order_violations, successes
from abw.text import noun, plural
from abw.traceio import TraceFile


def _required_tool(index: int, tool: str) -> RunRule:
    def evaluate(trace_file: TraceFile) -> Finding | None:
        if successes(trace_file.ordered_spans, tool):
            return None
        tried = [s.ordinal for s in attempts(trace_file.ordered_spans, tool)]
        if tried:
            return Finding(
                f"{tool} was called {plural(len(tried), 'time')} but never succeeded "
                f"({noun(len(tried), 'ordinal')} {ordinals_text(tried)})",
                tuple(tried),
            )
        return Finding(f"no {tool} span at all")

    return RunRule(
        id=f"behavior_contract.required_tools[{index}]",
        rule="required_tools",
        category="behavior_contract",
        limits={"tool": tool, "requires": "at least one successful span in every run"},
        references=(literal_pattern(tool),),  # an exact name, whatever characters it holds
        evaluate=evaluate,
        passed_message=lambda n: f"Every one of {runs_word(n)} called {tool} successfully.",
        failed_message=lambda bad, n: (
            f"{bad} of {runs_word(n)} never called the required tool {tool} successfully."
        ),
    )


def _forbidden_tool(index: int, tool: str) -> RunRule:
    def evaluate(trace_file: TraceFile) -> Finding | None:
        hits = [s.ordinal for s in attempts(trace_file.ordered_spans, tool)]
        if not hits:
            return None
        return Finding(
            f"forbidden tool {tool} called at {noun(len(hits), 'ordinal')} {ordinals_text(hits)}",
            tuple(hits),
        )

    return RunRule(
        id=f"behavior_contract.forbidden_tools[{index}]",
        rule="forbidden_tools",
        category="behavior_contract",
        limits={"tool": tool, "forbids": "any span of this name, whatever its status"},
        references=(ForbiddenRef((literal_pattern(tool),)),),
        evaluate=evaluate,
        passed_message=lambda n: f"None of {runs_word(n)} called the forbidden tool {tool}.",
        failed_message=lambda bad, n: f"{bad} of {runs_word(n)} called the forbidden tool {tool}.",
    )


def _required_order(index: int, before: str, after: str) -> RunRule:
    def evaluate(trace_file: TraceFile) -> Finding | None:
        spans = trace_file.ordered_spans
        early = order_violations(spans, before, after)
        if not early:
            return None
        first_before = next(iter(successes(spans, before, glob=True)), None)
        where = (
            f"the first successful {before} is at ordinal {first_before.ordinal}"
            if first_before is not None
            else f"there is no successful {before} at all"
        )
        names = sorted({s.name for s in early})
        ordinals = [s.ordinal for s in early]
        message = (
            f"{'/'.join(names)} succeeded at {noun(len(ordinals), 'ordinal')} "
            f"{ordinals_text(ordinals)} before any "
            f"successful {before}; {where}"
        )
        shown = [*ordinals, *([first_before.ordinal] if first_before is not None else [])]
        return Finding(message, tuple(shown))

    return RunRule(
        id=f"behavior_contract.required_order[{index}]",
        rule="required_order",
        category="behavior_contract",
        limits={
            "before": before,
            "after": after,
            "requires": "every successful `after` span has a successful `before` span "
            "at an earlier ordinal",
        },
        references=(before, after),
        evaluate=evaluate,
        passed_message=lambda n: (
            f"In every one of {runs_word(n)}, each successful {after} came after a "
            f"successful {before}."
        ),
        failed_message=lambda bad, n: (
            f"In {bad} of {runs_word(n)}, {after} succeeded before any successful {before}."
        ),
    )


def rules(invariants: Invariants) -> list[RunRule]:
    """The behavior-contract rules of a spec, in spec order."""
    found: list[RunRule] = []
    found += [_required_tool(i, t) for i, t in enumerate(invariants.required_tools)]
    found += [_forbidden_tool(i, t) for i, t in enumerate(invariants.forbidden_tools)]
    found += [
        _required_order(i, c.before, c.after) for i, c in enumerate(invariants.required_order)
    ]
    return found
