"""Rules on the calls themselves: an allowlist, every call has a result, confident claims.

Three-valued like every rule (:mod:`abw.rules.temporal`): a span whose result was not
recorded decides nothing it could decide either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from abw.rules.arguments import extracted_arguments
from abw.rules.jsonvalue import is_number
from abw.rules.outcome import RuleOutcome, Tri, combine, label, matches, span_matches

Span = Any  # abw.models.trace.Span
_ABSENT = object()


def tool_allowlist(path: Sequence[Span], tools: Sequence[Any], types: Sequence[str]) -> RuleOutcome:
    """Every span of ``types`` matches one of ``tools``."""
    violated: list[int] = []
    unknown: list[int] = []
    for span in path:
        if span.type not in types:
            continue
        hits = [_allows(p, span) for p in tools]
        if True not in hits:
            (unknown if None in hits else violated).append(span.ordinal)
    names = sorted({s.name for s in path if s.ordinal in set(violated)})
    listed = ", ".join(label(t) for t in tools)
    return combine(
        violated,
        unknown,
        f"every {'/'.join(types)} span is on the allowlist ({listed})",
        f"{', '.join(names)} is not on the allowlist ({listed})",
        f"whether some calls are on the allowlist depends on unrecorded results ({listed})",
    )


def _allows(pattern: Any, span: Span) -> Tri:
    """Whether an allowlist entry allows ``span``: a plain glob names spans of every type the
    list governs, ``llm`` too (elsewhere a plain glob never reads an llm span, so an
    allowlist governing llm spans could allow none of them: every run FAILed)."""
    if isinstance(pattern, str) and span.type == "llm":  # (a plain glob: its name only)
        return matches(pattern, span.name)
    return span_matches(pattern, span)


def has_result(span: Span) -> bool:
    """A result was recorded: a known status, or an output (status unknown but answered)."""
    return span.status != "unknown" or span.output_hash is not None


def result_required(path: Sequence[Span], tool: Any, final_status: str) -> RuleOutcome:
    """Every span matching ``tool`` has a recorded result.

    A missing result is a violation when the recording is complete (the run has a final
    status, or the importer marked the span ``incomplete``); when the run's final status is
    ``unknown`` too, the recording may have been cut off before the result: ``unknown``.
    """
    violated: list[int] = []
    unknown: list[int] = []
    for span in path:
        if span_matches(tool, span) is not True or has_result(span):
            continue
        ended = final_status != "unknown" or span.outcome == "incomplete"
        (violated if ended else unknown).append(span.ordinal)
    name = label(tool)
    return combine(
        violated,
        unknown,
        f"every {name} call has a recorded result",
        f"a call of {name} has no result, though the run ended",
        f"a call of {name} has no result and the recording may be cut off (final status unknown)",
    )


def confidence(
    path: Sequence[Span], tool: Any, field: str, threshold: float, evidence: Any
) -> RuleOutcome:
    """Each ``tool`` span whose extracted ``field`` is at least ``threshold`` has an earlier
    successful ``evidence`` span. A call without that field claims nothing; one whose
    arguments were not extracted, or hold a non-number there, is ``unknown``."""
    violated: list[int] = []
    unknown: list[int] = []
    proven = maybe_proven = False  # a successful / unrecorded evidence span so far
    for span in path:
        if span_matches(tool, span) is True:
            arguments = extracted_arguments(span)
            value = None if arguments is None else arguments.get(field, _ABSENT)
            if value is _ABSENT or (is_number(value) and value < threshold):
                pass  # no claim, or not a confident one
            elif not is_number(value):
                unknown.append(span.ordinal)
            elif not proven:
                (unknown if maybe_proven else violated).append(span.ordinal)
        found = span_matches(evidence, span, ("success",))
        proven = proven or found is True
        maybe_proven = maybe_proven or found is None
    name, proof = label(tool), label(evidence)
    return combine(
        violated,
        unknown,
        f"every {name} with {field} >= {threshold:g} had an earlier successful {proof}",
        f"{name} claimed {field} >= {threshold:g} with no earlier successful {proof}",
        f"whether each {name} with {field} >= {threshold:g} had an earlier successful {proof} "
        "is not recorded",
    )
