"""Validate any of the five document kinds; the kind is read from ``schema_version``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.models import SPEC_SCHEMA, TRACE_SCHEMA
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
    """Parse a JSON or YAML document (YAML for .yaml/.yml) with abw's one reader."""
    from abw.limits import MAX_TRACE_BYTES
    from abw.reader import read_document

    return read_document(path, MAX_TRACE_BYTES, "the document")


def validate_document(document: Any, file: str) -> list[Problem]:
    """Every problem of one parsed document against the schema its ``schema_version`` names."""
    import jsonschema

    if not isinstance(document, dict):
        return [Problem(file, "$", "expected an object with a schema_version")]
    schema_id = document.get("schema_version")
    if not isinstance(schema_id, str) or schema_id not in KINDS:
        known = ", ".join(sorted(KINDS))
        return [Problem(file, "$.schema_version", f"unknown schema {schema_id!r} (known: {known})")]
    validator = jsonschema.Draft202012Validator(json_schema(schema_id))
    errors = sorted(
        validator.iter_errors(document), key=lambda e: [str(p) for p in e.absolute_path]
    )
    problems = [Problem(file, json_path(e.absolute_path), e.message) for e in errors]
    return problems or _loader_problems(document, schema_id, file)


def _loader_problems(document: dict[str, Any], schema_id: str, file: str) -> list[Problem]:
    """What the loader of this kind refuses beyond its JSON Schema (repeated span ordinals,
    the span limit, a spec's cross-field rules): one loader, one set of rules, for the gate,
    ``fingerprint``, ``abw validate`` and the MCP tool alike."""
    from pydantic import ValidationError

    from abw.errors import from_validation_error

    try:
        if schema_id == TRACE_SCHEMA:
            from abw.traceio import trace_from_document

            trace_from_document(document, file)
        elif schema_id == SPEC_SCHEMA:
            from abw.specio import spec_from_document

            spec_from_document(document, file)
        else:
            try:
                KINDS[schema_id].model().model_validate(document)
            except ValidationError as exc:
                raise from_validation_error(exc, file=file) from None
    except AbwInputError as exc:
        parts = [int(p) if p.isdigit() else p for p in (exc.field or "").split(".") if p]
        path = json_path(parts)
        return [Problem(file, path, exc.message)]
    return []


def validate_file(path: Path) -> list[Problem]:
    return validate_document(load_document(path), str(path))
