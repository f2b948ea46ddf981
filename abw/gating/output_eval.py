"""``output_eval``: the explicitly extracted final-answer fields (``run.canonical_output``)."""

from __future__ import annotations

from typing import Any

from abw.gating.common import Finding, RunRule, runs_word
from abw.hashing import canonical_json
from abw.models.spec import OutputEval
from abw.rules.jsonvalue import json_equal
from abw.traceio import TraceFile

#: A run without output fields: usually none was named at import, which extracts only those.
NO_OUTPUT = (
    "the run has no canonical_output: no output field was extracted at import "
    "(name the fields with abw import --output-fields)"
)


def _short(value: Any) -> str:
    text = canonical_json(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _required_fields(fields: list[str]) -> RunRule:
    def evaluate(trace_file: TraceFile) -> Finding | None:
        output = trace_file.trace.run.canonical_output
        if output is None:
            return Finding(NO_OUTPUT)
        missing = [f for f in fields if f not in output]
        return Finding(f"canonical_output lacks {', '.join(missing)}") if missing else None

    return RunRule(
        id="output_eval.required_fields",
        rule="required_fields",
        category="output_eval",
        limits={"required_fields": list(fields)},
        evaluate=evaluate,
        output_fields=tuple(fields),
        passed_message=lambda n: f"Every one of {runs_word(n)} returned all required fields.",
        failed_message=lambda bad, n: f"{bad} of {runs_word(n)} lacked a required output field.",
    )


def _expected(expected: dict[str, Any]) -> RunRule:
    def evaluate(trace_file: TraceFile) -> Finding | None:
        output = trace_file.trace.run.canonical_output
        if output is None:
            return Finding(NO_OUTPUT)
        wrong = []
        for name in sorted(expected):
            if name not in output:
                wrong.append(f"{name} is missing (expected {_short(expected[name])})")
            elif not json_equal(output[name], expected[name]):
                wrong.append(f"{name} is {_short(output[name])}, expected {_short(expected[name])}")
        return Finding("; ".join(wrong)) if wrong else None

    return RunRule(
        id="output_eval.expected",
        rule="expected",
        category="output_eval",
        limits={"expected": dict(sorted(expected.items()))},
        evaluate=evaluate,
        output_fields=tuple(sorted(expected)),
        passed_message=lambda n: (
            f"Every one of {runs_word(n)} returned the expected output fields."
        ),
        failed_message=lambda bad, n: (
            f"{bad} of {runs_word(n)} returned output fields that differ from the expected ones."
        ),
    )


def rules(output: OutputEval) -> list[RunRule]:
    """Output checks the spec asks for (none when it names no fields)."""
    found: list[RunRule] = []
    if output.required_fields:
        found.append(_required_fields(list(output.required_fields)))
    if output.expected:
        found.append(_expected(dict(output.expected)))
    return found
