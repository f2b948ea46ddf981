"""Read ``behavior-spec/v0`` YAML safely: no aliases, no custom tags, unknown keys rejected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from abw.errors import AbwInputError, from_validation_error, require_schema_version
from abw.hashing import sha256_hex
from abw.limits import read_limited

MAX_SPEC_BYTES = 1 << 20


class _NoAliasLoader(yaml.SafeLoader):
    """SafeLoader that refuses anchors/aliases (no billion-laughs expansion)."""

    def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.constructor.ConstructorError(
                None, None, "YAML aliases are not allowed in abw documents", event.start_mark
            )
        return super().compose_node(parent, index)


MAX_DEPTH = 64


def _check_depth(text: str, file: str | Path) -> None:
    """Refuse deep nesting first, with libyaml's linear-time parser when it is there: the pure
    Python scanner is quadratic in nesting depth (``[[[[...`` of 1 MB took seconds)."""
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is None:
        return
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                message = f"invalid YAML: nested deeper than {MAX_DEPTH} levels"
                raise AbwInputError(message, file=file)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def parse_yaml_text(text: str, file: str | Path) -> Any:
    """Parse one YAML document; any problem becomes an :class:`AbwInputError` with its line."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_SPEC_BYTES:
        raise AbwInputError(f"larger than {MAX_SPEC_BYTES} bytes", file=file)
    try:
        _check_depth(text, file)
        return yaml.load(text, Loader=_NoAliasLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise AbwInputError(f"invalid YAML: {exc.problem or exc}", file=file, line=line) from None
    except yaml.YAMLError as exc:
        raise AbwInputError(f"invalid YAML: {exc}", file=file) from None
    except RecursionError:
        raise AbwInputError("invalid YAML: nested too deeply", file=file) from None
    except ValueError as exc:  # e.g. an integer longer than Python's 4300-digit limit
        raise AbwInputError(f"invalid YAML: {exc}", file=file) from None


def _key_line(text: str, key: str) -> int | None:
    """First line where ``key:`` appears; good enough to point a person at a field."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().lstrip("- ").startswith(f"{key}:"):
            return number
    return None


def load_spec(path: str | Path) -> tuple[Any, str]:
    """Load and validate a spec file; returns ``(Spec, sha256 of its bytes)``."""
    from pydantic import ValidationError

    from abw.models.spec import Spec

    spec_path = Path(path)
    try:
        raw = read_limited(spec_path, MAX_SPEC_BYTES, "the spec file")
    except (FileNotFoundError, IsADirectoryError):
        raise AbwInputError("spec file not found", file=spec_path) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AbwInputError(f"not valid UTF-8 at byte {exc.start}", file=spec_path) from None
    document = parse_yaml_text(text, spec_path)
    if not isinstance(document, dict):
        raise AbwInputError("a spec must be a mapping with schema_version", file=spec_path)
    line = _key_line(text, "schema_version")
    require_schema_version(document, "behavior-spec/v0", file=spec_path, line=line)
    try:
        spec = Spec.model_validate(document)
    except ValidationError as exc:
        raise from_validation_error(
            exc,
            file=spec_path,
            unknown_key="unknown key (specs fail closed)",
            line_of=lambda key: _key_line(text, key),
        ) from None
    return spec, sha256_hex(raw)
