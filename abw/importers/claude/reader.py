"""Stream a Claude Code JSONL file: one record per line, with one-line errors.

The file is read line by line (never whole), its SHA-256 is computed on the way, and every
problem names the file and the raw line. Each line is read by :func:`abw.reader.parse_json` (a
repeated key is an error naming the line, integers stay exact). A last line without a newline
that is no JSON text is a session still being written: it is skipped with a warning.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.rawio import BOM
from abw.limits import MAX_LINE_BYTES, check_line
from abw.reader import MalformedJson, parse_json


def _utf8_problem(raw: bytes) -> str | None:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"invalid UTF-8 (byte {exc.start + 1} of the line)"
    return None


class JsonlReader:
    """Iterate ``(line number, record)``; ``sha256`` and ``lines`` are complete afterwards."""

    def __init__(self, path: Path, warn: Callable[[str], None]) -> None:
        self.path = path
        self.warn = warn
        self.sha256 = ""
        self.lines = 0
        self.records = 0

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        digest = hashlib.sha256()
        try:
            handle = open(self.path, "rb")  # noqa: SIM115 - closed in finally
        except FileNotFoundError:
            raise AbwInputError("no such file", file=self.path) from None
        except IsADirectoryError:
            raise AbwInputError("expected a file, found a folder", file=self.path) from None
        except OSError as exc:
            raise AbwInputError(f"cannot read: {exc.strerror}", file=self.path) from None
        try:
            line_no = 0
            readline, update = handle.readline, digest.update
            while raw := readline(MAX_LINE_BYTES + 1):  # bounded: no 5 GB line
                line_no += 1
                if len(raw) > MAX_LINE_BYTES:
                    check_line(raw, self.path, line_no)
                update(raw)
                if line_no == 1:
                    raw = raw.removeprefix(BOM)
                if raw.isspace() or not raw:  # blank (isspace stops at the first other byte)
                    continue
                try:
                    record = parse_json(raw, self.path, first_line=line_no)
                except MalformedJson as exc:
                    if not raw.endswith(b"\n"):
                        self.warn(
                            f"{self.path.name}:{line_no}: skipped a cut-off last line "
                            "(session still being written?)"
                        )
                        continue
                    problem = _utf8_problem(raw) or exc.message
                    raise AbwInputError(problem, file=self.path, line=line_no) from None
                if not isinstance(record, dict):
                    raise AbwInputError(
                        "not a Claude Code transcript: a line is not a JSON object",
                        file=self.path,
                        line=line_no,
                    )
                self.records += 1
                yield line_no, record
            self.lines = line_no
        finally:
            handle.close()
        self.sha256 = digest.hexdigest()
