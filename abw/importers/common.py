"""Helpers every importer shares: semantic labels, canonical output fields, argument fields,
run metadata."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, get_args

from abw.cached import cached_property
from abw.errors import AbwInputError
from abw.hashing import content_hash
from abw.reader import parse_json

_JSON_OPEN = re.compile(r"```(?:json)?[^\S\n]*\n")
_INDENTED_CLOSE = re.compile(r"\n[^\S\n]*```")


if TYPE_CHECKING:
    from abw.importers.base import ImportOptions

#: What may be copied from an export into a name, an attribute, an id or a scenario: a plain
#: identifier (no spaces, no quotes, at most 128 characters), never a text.
IDENTIFIER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:/@+-]{0,127}")


#: A model named by the file it was loaded from (local model servers such as llama.cpp and
#: vLLM name a model by its path): absolute, in a home folder, ``./`` or ``../``, on a Windows
#: drive, or holding a backslash.
_MODEL_PATH = re.compile(r"[/~]|\.\.?[/\\]|[A-Za-z]:[/\\]|.*\\", re.DOTALL)


def model_name(model: str) -> str:
    """An llm span's name from the model an export names: the name as it is, unless it is a
    file path, which no trace keeps raw: then ``model-`` and 12 hex digits of the path's
    SHA-256 (the same path, the same name; docs/importers.md)."""
    if _MODEL_PATH.match(model) is None:
        return model
    from abw.hashing import sha256_hex

    return "model-" + sha256_hex(model)[:12]


def identifier(value: Any) -> str | None:
    """``value`` when it is a plain :data:`IDENTIFIER` (a tool, a kind, a model, an id)."""
    return value if isinstance(value, str) and IDENTIFIER.fullmatch(value) else None


def check_scenario_id(scenario_id: str | None) -> None:
    """Refuse a ``--scenario-id`` that is empty or has spaces around it (an unset shell
    variable): its runs would be a scenario of their own, apart from the baseline's."""
    if scenario_id is not None and (not scenario_id or scenario_id != scenario_id.strip()):
        raise AbwInputError(
            f"{scenario_id!r}: empty or with spaces around it (an unset shell variable?); "
            "give the task's id, or leave --scenario-id out",
            field="--scenario-id",
        )


def shown_id(value: Any) -> str:
    """An id read from an export as a warning shows it: :func:`identifier`, else ``?`` (an
    id field may hold anything; a warning goes to CI logs)."""
    return identifier(value) or "?"


def task_id(document: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    """The task an evaluation's record names: the value of the first of ``keys`` it holds
    (not null) when that is a plain identifier, or a whole number (OpenDevin's gorilla
    ``question_id``: ``1``) written in decimal; else None (a text names no task)."""
    value = next((document[key] for key in keys if document.get(key) is not None), None)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        value = str(value)
    return identifier(value)


def instance_scenario(options: ImportOptions, instance: Any) -> ImportOptions:
    """``options`` with an evaluation's own ``instance_id`` (the benchmark task the run solved,
    a plain identifier) as the run's scenario; ``--scenario-id`` does not override it
    (:func:`warn_instance_scenario`)."""
    task = identifier(instance)
    return options if task is None else replace(options, scenario_id=task)


def warn_instance_scenario(options: ImportOptions, traces: list[Any], file_name: str) -> None:
    """Say once per file that ``--scenario-id`` did not apply to runs with their own instance."""
    if options.scenario_id and any(t.run.scenario_id != options.scenario_id for t in traces):
        options.warn(
            f"{file_name}: an evaluation's instance id is the scenario of its run; "
            "--scenario-id does not override it"
        )


def fenced_spans(
    text: str, opener: re.Pattern[str], closer: re.Pattern[str]
) -> Iterator[tuple[int, str]]:
    """(start, content) of fenced blocks, in order: each opens at a match of ``opener`` (ending
    at its line's newline) and closes at the first later match of ``closer`` (a newline, then
    the closing fence). Linear in ``len(text)``: the closers are found once, and each opener
    looks its closer up by bisection (a lazy ``(.*?)`` regex rescans the rest of the text for
    every opener that has no closer, which took seconds on 100 KB answers)."""
    closers = [(m.start(), m.end()) for m in closer.finditer(text)]
    starts = [start for start, _ in closers]
    position = 0
    while (opened := opener.search(text, position)) is not None:
        index = bisect_left(starts, opened.end())
        if index == len(starts):
            return  # no closer after this opener, so none after any later one either
        newline, end = closers[index]
        yield opened.start(), text[opened.end() : newline]
        position = end


def fenced_blocks(text: str, opener: re.Pattern[str], closer: re.Pattern[str]) -> Iterator[str]:
    """The contents of :func:`fenced_spans`."""
    return (content for _, content in fenced_spans(text, opener, closer))


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


def parse_exported_at(text: str | None) -> str:
    """``--exported-at`` as given when it is an ISO 8601 date and time with its time zone
    (``2026-01-01T00:00:00Z``), what ``source.exported_at`` records; without it: now, UTC."""
    from datetime import UTC, datetime

    from abw.importers.spans import iso

    if text is None:
        return iso(datetime.now(UTC))  # type: ignore[return-value]
    value = text.strip()
    try:
        moment = datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None or "T" not in value.upper():
        raise AbwInputError(
            f"{text!r} is no ISO 8601 date and time with a time zone, such as 2026-01-01T00:00:00Z",
            field="--exported-at",
        )
    return value


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


@dataclass(frozen=True)
class ArgumentField:
    """A tool-input field named for extraction: spans whose name matches the glob ``tool``
    keep the value at ``path`` (dots go into objects) in ``attributes.arguments``."""

    tool: str
    path: str

    @cached_property
    def parts(self) -> tuple[str, ...]:
        return tuple(self.path.split("."))


_ARGUMENT_FIELDS_FLAG = "--argument-fields"


def parse_argument_fields(text: str | None) -> tuple[ArgumentField, ...]:
    """``"Read:limit,mcp__*:query"`` -> argument fields; the last ``:`` splits tool and path.

    The tool is an anchored, case-sensitive glob on the span name (after semantic labels);
    the path is dot-separated keys, none empty. Duplicates are dropped; order is kept.
    """
    if not text:
        return ()
    fields: dict[ArgumentField, None] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        tool, colon, path = item.rpartition(":")
        if not colon or not tool.strip() or not path.strip():
            raise AbwInputError(
                f"{item!r} is not TOOL:field.path (e.g. Read:limit)", field=_ARGUMENT_FIELDS_FLAG
            )
        tool, path = tool.strip(), path.strip()
        if any(not part or part != part.strip() for part in path.split(".")):
            raise AbwInputError(
                f"{item!r}: the field path {path!r} has an empty or space-padded part",
                field=_ARGUMENT_FIELDS_FLAG,
            )
        if any(c.isspace() for c in tool):
            raise AbwInputError(
                f"{item!r}: the tool name {tool!r} contains white space",
                field=_ARGUMENT_FIELDS_FLAG,
            )
        fields[ArgumentField(tool, path)] = None
    return tuple(fields)


_MISSING: Any = object()


def _lookup(document: Any, parts: Iterable[str]) -> Any:
    """The value at a dotted path (each part a key of an object), or ``_MISSING``."""
    value = document
    for part in parts:
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


#: How deeply a kept argument value may nest (a trace must stay writable and readable).
MAX_ARGUMENT_DEPTH = 64


def _depth(value: Any) -> int:
    """Nesting depth of a JSON value (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if level > MAX_ARGUMENT_DEPTH:
            break
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
    return deepest


def extract_arguments(
    fields: tuple[ArgumentField, ...],
    span_name: str,
    tool_input: Any,
    *,
    file: Any = None,
    line: int | None = None,
) -> dict[str, Any] | None:
    """The named fields of one tool call's input, for ``span.attributes.arguments``.

    ``None`` when no field is named for ``span_name`` or the input is not a JSON object (the
    arguments were not extracted: rules see ``unknown``); otherwise a dict field path -> raw
    JSON value, sorted by path, where a named field that is absent is left out. A value nested
    deeper than :data:`MAX_ARGUMENT_DEPTH` is an input error (``file``/``line`` name it).
    """
    if not fields:
        return None
    wanted = sorted(
        {f.path: f for f in fields if fnmatchcase(span_name, f.tool)}.values(), key=lambda f: f.path
    )
    if not wanted or not isinstance(tool_input, dict):
        return None
    kept: dict[str, Any] = {}
    for named in wanted:
        value = _lookup(tool_input, named.parts)
        if value is _MISSING:
            continue
        if _depth(value) > MAX_ARGUMENT_DEPTH:
            raise AbwInputError(
                f"argument field {span_name}:{named.path} nests deeper than "
                f"{MAX_ARGUMENT_DEPTH} levels; name a field inside it",
                file=file,
                line=line,
                field=_ARGUMENT_FIELDS_FLAG,
            )
        kept[named.path] = value
    return kept


def record_kept_arguments(trace: Any) -> Any:
    """Write into ``trace.redaction.kept_fields`` which argument fields a trace discloses:
    ``<span name>:<field path>`` for every field in some span's ``attributes.arguments``."""
    kept = sorted(
        {
            f"{span.name}:{path}"
            for span in trace.spans
            if isinstance((span.attributes or {}).get("arguments"), dict)
            for path in span.attributes["arguments"]
        }
    )
    if kept:
        trace.redaction.kept_fields = kept
    return trace


def _json_object(text: str) -> dict[str, Any] | None:
    candidates = [text.strip(), *fenced_blocks(text, _JSON_OPEN, _INDENTED_CLOSE)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:  # the reader's rules: no duplicate keys, exact integers, no NaN
            value = parse_json(candidate, "the final answer")
        except AbwInputError:
            continue
        if isinstance(value, dict):
            return value
    return None


def holds_field(output: dict[str, Any] | None, name: str) -> bool:
    """Whether a run's ``canonical_output`` holds the ``--output-fields`` name ``name``: as
    a dotted key (:func:`extract_canonical_output`) or nested (behaviorlock)."""
    if not output:
        return False
    return name in output or _lookup(output, name.split(".")) is not _MISSING


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
    found = {name: _lookup(document, name.split(".")) for name in fields}
    return {name: value for name, value in found.items() if value is not _MISSING}


def final_output_hash(final_output: Any) -> str | None:
    """SHA-256 of the final output's canonical JSON; None when there was none."""
    return None if final_output is None else content_hash(final_output)
