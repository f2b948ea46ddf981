"""Helpers every importer shares: semantic labels, canonical output fields, run metadata."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any, get_args

from abw.errors import AbwInputError
from abw.hashing import content_hash

_FENCED_JSON = re.compile(r"```(?:json)?\s*\n(.*?)\n\s*```", re.DOTALL)


@dataclass(frozen=True)
class Label:
    """A semantic label: a command that mentions ``name`` becomes a span called ``name``."""

    name: str
    span_type: str = "tool"

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(self.name)}(?![A-Za-z0-9_])")

    def matches(self, text: str) -> bool:
        return bool(self.pattern.search(text))


def parse_labels(text: str | None) -> tuple[Label, ...]:
    """``"policy_check:guardrail,refund_commit"`` -> labels; the type defaults to ``tool``."""
    from abw.models.trace import SpanType

    if not text:
        return ()
    allowed = get_args(SpanType)
    labels = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, _, span_type = item.partition(":")
        span_type = span_type or "tool"
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+", name):
            raise AbwInputError(
                f"label {name!r} may hold only letters, digits, _ . -", field="--bash-tool-labels"
            )
        if span_type not in allowed:
            raise AbwInputError(
                f"label type {span_type!r} is not one of {', '.join(allowed)}",
                field="--bash-tool-labels",
            )
        labels.append(Label(name, span_type))
    return tuple(labels)


def match_label(labels: tuple[Label, ...], command: str) -> Label | None:
    """The first label whose name the command mentions as a whole word."""
    return next((label for label in labels if label.matches(command)), None)


def parse_output_fields(text: str | None) -> tuple[str, ...]:
    """``"fraud_check_passed,refund.amount"`` -> field paths (dots go into objects)."""
    if not text:
        return ()
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _json_object(text: str) -> dict[str, Any] | None:
    candidates = [text.strip(), *(m.group(1) for m in _FENCED_JSON.finditer(text))]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def extract_canonical_output(
    final_text: str | None, fields: tuple[str, ...]
) -> dict[str, Any] | None:
    """Keep only the named fields of a final answer that is (or contains) a JSON object.

    A named field that is absent is left out; nothing else of the answer is kept.
    """
    if not fields or not final_text:
        return None
    document = _json_object(final_text)
    if document is None:
        return None
    kept: dict[str, Any] = {}
    for name in fields:
        value: Any = document
        for part in name.split("."):
            if not isinstance(value, dict) or part not in value:
                break
            value = value[part]
        else:
            kept[name] = value
    return kept


def final_output_hash(final_output: Any) -> str | None:
    """SHA-256 of the final output's canonical JSON; None when there was none."""
    return None if final_output is None else content_hash(final_output)
