"""Validate any of the five document kinds; the kind is read from ``schema_version``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.models.registry import KINDS, json_schema


@dataclass(frozen=True)
class Problem:
    file: str
    path: str  # JSON path, e.g. $.spans[3].status
    message: str

    def one_line(self) -> str:
        return f"{self.file}: {self.path}: {self.message}"


def json_path(parts: Any) -> str:
    """``['spans', 3, 'status']`` -> ``$.spans[3].status``."""
    text = "$"
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def load_document(path: Path) -> Any:
    """Parse a JSON or YAML document (YAML for .yaml/.yml), safely."""
    from abw.limits import MAX_TRACE_BYTES, read_limited
    from abw.specio import parse_yaml_text

    try:
        text = read_limited(path, MAX_TRACE_BYTES, "the document").decode("utf-8")
    except FileNotFoundError:
        raise AbwInputError("no such file", file=path) from None
    except IsADirectoryError:
        raise AbwInputError("expected a file, found a folder", file=path) from None
    except UnicodeDecodeError as exc:
        raise AbwInputError(f"not valid UTF-8 at byte {exc.start}", file=path) from None
    if path.suffix.lower() in {".yaml", ".yml"}:
        return parse_yaml_text(text, path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise AbwInputError(f"invalid JSON: {exc.msg}", file=path, line=exc.lineno) from None
    except RecursionError:
        raise AbwInputError("invalid JSON: nested too deeply", file=path) from None
    except ValueError as exc:  # e.g. an integer longer than Python's 4300-digit limit
        raise AbwInputError(f"invalid JSON: {exc}", file=path) from None


def validate_document(document: Any, file: str) -> list[Problem]:
    """Every problem of one parsed document against the schema its ``schema_version`` names."""
    import jsonschema

    if not isinstance(document, dict):
        return [Problem(file, "$", "expected an object with a schema_version")]
    schema_id = document.get("schema_version")
    if schema_id not in KINDS:
        known = ", ".join(sorted(KINDS))
        return [Problem(file, "$.schema_version", f"unknown schema {schema_id!r} (known: {known})")]
    validator = jsonschema.Draft202012Validator(json_schema(schema_id))
    errors = sorted(
        validator.iter_errors(document), key=lambda e: [str(p) for p in e.absolute_path]
    )
    return [Problem(file, json_path(e.absolute_path), e.message) for e in errors]


def validate_file(path: Path) -> list[Problem]:
    return validate_document(load_document(path), str(path))
