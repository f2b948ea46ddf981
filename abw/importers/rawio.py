"""Read raw exports: bytes, one JSON document, or JSON Lines, with one-line errors.

Every JSON text of an export, a JSON string embedded in one included, is read by
:func:`abw.reader.parse_json` under abw's one set of rules (docs/reliability.md): a repeated key
is an error naming its lines, integers stay exact however long, NaN and Infinity are refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, overload

from abw.errors import AbwInputError
from abw.limits import MAX_RAW_BYTES, check_line, read_limited
from abw.reader import DuplicateKey, MalformedJson, parse_json

#: The UTF-8 byte-order mark some Windows tools write before JSON.
BOM = b"\xef\xbb\xbf"


def read_raw(path: Path) -> bytes:
    """The bytes of a raw export; a missing or unreadable file is an input error."""
    try:
        return read_limited(path, MAX_RAW_BYTES, "the export")
    except FileNotFoundError:
        raise AbwInputError("no such file", file=path) from None
    except IsADirectoryError:
        raise AbwInputError("expected a file, found a folder", file=path) from None
    except OSError as exc:
        raise AbwInputError(f"cannot read: {exc.strerror}", file=path) from None


def json_body(raw: bytes, path: Path) -> bytes:
    """``raw`` without a UTF-8 byte-order mark; an empty or blank file is an input error."""
    raw = raw.removeprefix(BOM)
    if not raw.strip():
        raise AbwInputError("the file is empty", file=path)
    return raw


def load_json(raw: bytes, path: Path) -> Any:
    """One JSON document; invalid or refused JSON is an input error naming its line."""
    return parse_json(json_body(raw, path), path)


def jsonl_records(
    raw: bytes, path: Path, warnings: list[str] | None = None
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of a JSON Lines file.

    A cut-off last line (a file still being written: no line break after it, and not JSON at
    all) is skipped with a warning; invalid JSON anywhere else (a line that was written whole,
    its line break after it, and is broken all the same), and JSON the rules refuse on any line
    (a repeated key), is an input error naming the line.
    """
    lines = raw.removeprefix(BOM).split(b"\n")
    last = len(lines) - 1 if lines[-1].strip() else -1  # a last line without its line break
    for index, line in enumerate(lines):
        check_line(line, path, index + 1)
        if not line.strip():
            continue
        try:
            value = parse_json(line, path, first_line=index + 1)
        except MalformedJson:
            if index == last and index > 0 and warnings is not None:
                warnings.append(f"{path.name}:{index + 1}: skipped a cut-off last line")
                continue
            raise
        yield index + 1, value


def cut_off(raw: bytes) -> bool:
    """Whether a JSON Lines recording's last line was cut off mid-write (no line break after
    it, and no JSON: :func:`jsonl_records` skips it): a session killed or still being written,
    a disk full. What it held is lost — a record with calls among it, or more — so a run the
    file records alone cannot be known to have ended well."""
    tail = raw.rsplit(b"\n", 1)[-1]
    if not tail.strip() or b"\n" not in raw:  # (a one-line file is refused, never skipped)
        return False
    try:
        parse_json(tail, "-")
    except MalformedJson:
        return True
    except AbwInputError:  # (refused JSON is an error where it is read, not a cut)
        return False
    return False


def decode_json_string(value: Any, file: str | Path | None = None, line: int | None = None) -> Any:
    """``value`` parsed when it is a string holding JSON (a tool call's arguments, a tool's
    output, a model's answer), else ``value`` unchanged.

    It is read under the rules of the file itself (integers stay exact). A string that is no
    JSON under them — not JSON at all, or holding NaN (which Python's ``json.dumps`` prints), a
    number beyond a double — stays a string, as it always did. One that repeats a key is
    refused, naming ``file`` and the ``line`` of the record that holds it: which of the two
    values a tool received, or which exit code it reported, is not for abw to guess."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return parse_json(value, file or "the export")
        except DuplicateKey as exc:
            message = f"in a JSON string of the record: {exc.message}"
            raise AbwInputError(message, file=file, line=line, field=exc.field) from None
        except AbwInputError:
            return value
    return value


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else ``{}``: a wrong-typed container is skipped."""
    return value if isinstance(value, dict) else {}


@overload
def scalar_text(value: Any, default: str) -> str: ...
@overload
def scalar_text(value: Any, default: None = None) -> str | None: ...
def scalar_text(value: Any, default: str | None = None) -> str | None:
    """A name or an id read from an export: ``value`` when it is text, a number or a boolean
    written as text; ``default`` when it is empty, null, or an object or array (the text of a
    container would copy content into the trace where only a name belongs)."""
    if not value or isinstance(value, dict | list):
        return default
    return value if isinstance(value, str) else str(value)


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a JSON array, else ``[]``: a wrong-typed container is skipped."""
    return value if isinstance(value, list) else []


def object_at(value: Any, *keys: str) -> dict[str, Any]:
    """The JSON object at ``keys`` below ``value``, else ``{}`` (a step that is no object)."""
    for key in keys:
        value = as_dict(value).get(key)
    return as_dict(value)


#: The keys of a model answer's token counts: Chat Completions' (``usage.prompt_tokens``), and
#: the Responses API's, LangChain's ``usage_metadata`` and the agent SDKs' (``input_tokens``).
PROMPT_COMPLETION = ("prompt_tokens", "completion_tokens")
INPUT_OUTPUT = ("input_tokens", "output_tokens")


def token_counts(places: Iterable[tuple[Any, tuple[str, str]]]) -> dict[str, int]:
    """An llm span's ``input_tokens``/``output_tokens``: each from the first of ``places``
    (an object, and its input and output count keys) that holds it as an integer (never a
    bool, a float or a text); none where no place does."""
    counts: dict[str, int] = {}
    for usage, keys in places:
        for key, name in zip(keys, INPUT_OUTPUT, strict=True):
            count = as_dict(usage).get(key)
            if isinstance(count, int) and not isinstance(count, bool):
                counts.setdefault(name, count)
    return counts


def _holds(value: Any, keys: list[str]) -> bool:
    if isinstance(value, list):
        return any(_holds(item, keys) for item in value)
    if not keys:
        return value not in (None, "", [], {})
    return isinstance(value, dict) and keys[0] in value and _holds(value[keys[0]], keys[1:])


def held_fields(document: Any, fields: dict[str, str] | tuple[str, ...]) -> list[str]:
    """The names of ``fields`` the input actually holds, for ``redaction.removed_fields``.

    ``fields`` maps a name to a dotted path (a tuple: each name is its own path); lists on the
    way are looked through (``trajectory.action``: some step has an action). Only a non-empty
    value counts: an absent, null or empty field held no content to remove.
    """
    paths = fields if isinstance(fields, dict) else {name: name for name in fields}
    return sorted(name for name, path in paths.items() if _holds(document, path.split(".")))
