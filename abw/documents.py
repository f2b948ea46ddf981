"""A JSON or YAML document read whole, by its suffix (``.yaml``/``.yml``: YAML), under the
one set of rules of :mod:`abw.reader` (JSON) and :mod:`abw.yamlreader` (YAML, imported only
for a YAML document): contracts, gate reports, latent summaries, what ``abw validate`` reads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abw import jsonlocate
from abw.errors import not_utf8
from abw.limits import MAX_TRACE_BYTES
from abw.reader import parse_json, read_bytes


def is_yaml(path: str | Path) -> bool:
    return Path(path).suffix.lower() in {".yaml", ".yml"}


@dataclass(frozen=True)
class Source:
    """A document as read: its path, its bytes and its value, read once (a digest of ``raw``
    is of the bytes validated)."""

    path: Path
    raw: bytes
    document: Any
    yaml: bool | None = None  # read as YAML whatever its suffix (a spec); None: by its suffix

    def line_of(self, location: Sequence[str | int]) -> int | None:
        """The line of the value at ``location`` (member names and item indexes, as an error
        names a field) in this document's text."""
        if is_yaml(self.path) if self.yaml is None else self.yaml:
            from abw import yamllocate

            return yamllocate.value_line(self.raw.decode("utf-8", "surrogatepass"), location)
        return jsonlocate.value_line(self.raw, location)


def read_source(
    path: str | Path, limit: int = MAX_TRACE_BYTES, what: str = "the document"
) -> Source:
    """Read and parse a JSON file, or YAML for ``.yaml``/``.yml``, keeping its bytes (for
    their digest, and for the lines errors name); at most ``limit`` bytes (a trace's limit by
    default)."""
    raw = read_bytes(path, limit, what)
    if is_yaml(path):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise not_utf8(exc, raw, path) from None
        from abw.yamlreader import parse_yaml

        return Source(Path(path), raw, parse_yaml(text, path))
    return Source(Path(path), raw, parse_json(raw, path, unicode_text=True))
