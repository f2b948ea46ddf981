"""Read ``behavior-spec/v0`` YAML through abw.reader (no aliases, custom tags or duplicate
keys); unknown keys are rejected."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from abw.documents import Source
from abw.errors import AbwInputError, from_validation_error, not_utf8, require_schema_version
from abw.hashing import sha256_hex
from abw.models import SPEC_SCHEMA
from abw.reader import read_bytes
from abw.yamlreader import parse_yaml

if TYPE_CHECKING:
    from abw.models.spec import Spec

MAX_SPEC_BYTES = 1 << 20


def parse_yaml_text(text: str, file: str | Path) -> Any:
    """Parse one spec-sized YAML document with abw's one reader (abw.reader)."""
    return parse_yaml(text, file, max_bytes=MAX_SPEC_BYTES)


def spec_from_document(document: Any, file: str | Path, text: str | None = None) -> Any:
    """The :class:`~abw.models.spec.Spec` of a parsed document, under every rule a spec obeys;
    ``text`` (the YAML) lets errors name their line. The gate and ``abw validate`` call this."""
    from pydantic import ValidationError

    from abw.models.spec import Spec

    def line_of(location: tuple[str | int, ...]) -> int | None:
        from abw.yamllocate import value_line

        return None if text is None else value_line(text, location)

    if not isinstance(document, dict):
        raise AbwInputError("a spec must be a mapping with schema_version", file=file)
    require_schema_version(document, SPEC_SCHEMA, file=file, line_of=line_of)
    try:
        return Spec.model_validate(document)
    except ValidationError as exc:
        raise from_validation_error(
            exc,
            file=file,
            unknown_key=_UNKNOWN_KEY,
            line_of=line_of,
            document=document,
            yaml=True,
        ) from None


_UNKNOWN_KEY = "unknown key (specs fail closed)"


def spec_from_text(text: str, file: str | Path) -> Any:
    """The :class:`~abw.models.spec.Spec` of a spec's YAML text, read as from ``file``."""
    return spec_from_document(parse_yaml_text(text, file), file, text)


def read_spec_source(path: str | Path) -> Source:
    """A spec file as the gate reads it, whatever its suffix: YAML (a JSON spec is YAML too),
    at most :data:`MAX_SPEC_BYTES`; not yet validated as a spec."""
    spec_path = Path(path)
    raw = read_bytes(spec_path, MAX_SPEC_BYTES, "the spec file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise not_utf8(exc, raw, spec_path) from None
    return Source(spec_path, raw, parse_yaml_text(text, spec_path), yaml=True)


def load_spec(path: str | Path) -> tuple[Spec, str]:
    """Load and validate a spec file; returns ``(Spec, sha256 of its bytes)``."""
    source = read_spec_source(path)
    text = source.raw.decode("utf-8")
    return spec_from_document(source.document, source.path, text), sha256_hex(source.raw)
