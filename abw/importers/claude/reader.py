"""Stream a Claude Code JSONL file: one record per line, with one-line errors.

The file is read in blocks (never whole, and never a line over :data:`MAX_LINE_BYTES`), its
SHA-256 is computed on the way, and every problem names the file and the raw line. Each line
is read under the rules of :func:`abw.reader.parse_json` (a repeated key is an error naming the
line, integers stay exact). A last line without a newline that is no JSON text is a session
still being written: it is skipped with a warning.

The lines of a block are read together (:func:`abw.reader.compact_objects`): where every
line is byte for byte orjson's compact rendering of its value, those values are the exact
reader's (the reader's own fast-path proof, for a whole block in a few C calls); any other
block is read line by line by :func:`abw.reader.parse_json`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.rawio import BOM
from abw.limits import MAX_LINE_BYTES, check_line
from abw.reader import MalformedJson, compact_objects, parse_json

#: Bytes read at a time; the lines they complete are read together.
BLOCK_BYTES = 1 << 20
#: Claude Code's log of the prompts typed (``~/.claude/history.jsonl``): no session
PROMPT_LOG = "history.jsonl"


def is_warmup_prompt(text: object) -> bool:
    """The first user message of a cache warm-up sidechain (Claude Code 2.0.x pre-warming its
    cache): just ``Warmup``. Such a sidechain is no agent work."""
    return isinstance(text, str) and text.strip() == "Warmup"


class JsonlReader:
    """Iterate ``(line number, record)``; ``sha256`` and ``lines`` are complete afterwards."""

    def __init__(self, path: Path, warn: Callable[[str], None]) -> None:
        self.path = path
        self.warn = warn
        self.sha256 = ""
        self.lines = 0
        self.records = 0
        self.cut_off = False  # its last line was cut off mid-write (skipped)

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        try:
            handle = open(self.path, "rb")  # noqa: SIM115 - closed in finally
        except FileNotFoundError:
            raise AbwInputError("no such file", file=self.path) from None
        except IsADirectoryError:
            raise AbwInputError("expected a file, found a folder", file=self.path) from None
        except OSError as exc:
            raise AbwInputError(f"cannot read: {exc.strerror}", file=self.path) from None
        digest = hashlib.sha256()
        try:
            line_no = 0
            head: list[bytes] = []  # the start of a line that no block so far has ended
            held = 0  # bytes in head
            while block := handle.read(BLOCK_BYTES):
                digest.update(block)
                lines = block.split(b"\n")
                if len(lines) == 1:  # no line break: the line goes on in the next block
                    head.append(block)
                    held += len(block)
                    if held > MAX_LINE_BYTES:
                        check_line(b"".join(head)[: MAX_LINE_BYTES + 1], self.path, line_no + 1)
                    continue
                if head:
                    lines[0] = b"".join([*head, lines[0]])
                rest = lines.pop()  # after the last line break: b"" or the start of a line
                head, held = ([rest], len(rest)) if rest else ([], 0)
                yield from self._lines(lines, line_no)
                line_no += len(lines)
            if head:  # a last line without a line break
                line_no += 1
                yield from self._line(b"".join(head), line_no)
            self.lines = line_no
        finally:
            handle.close()
        self.sha256 = digest.hexdigest()

    def _lines(self, lines: list[bytes], before: int) -> Iterator[tuple[int, dict[str, Any]]]:
        """The records of whole lines (their line breaks removed) after line ``before``."""
        if max(map(len, lines)) < MAX_LINE_BYTES:  # with its line break, none is too long
            text = lines
            if before == 0 and lines[0].startswith(BOM):
                text = [lines[0].removeprefix(BOM), *lines[1:]]
            values = compact_objects(text)
            if values is not None:
                self.records += len(values)
                yield from zip(range(before + 1, before + 1 + len(values)), values, strict=True)
                return
        for number, line in enumerate(lines, before + 1):
            yield from self._line(line + b"\n", number)

    def _line(self, raw: bytes, line_no: int) -> Iterator[tuple[int, dict[str, Any]]]:
        """The record of one line (with its line break, if it has one), read by parse_json."""
        check_line(raw[: MAX_LINE_BYTES + 1], self.path, line_no)  # as read line by line
        if line_no == 1:
            raw = raw.removeprefix(BOM)
        if raw.isspace() or not raw:  # blank (isspace stops at the first other byte)
            return
        try:
            record = parse_json(raw, self.path, first_line=line_no)
        except MalformedJson as exc:
            if not raw.endswith(b"\n"):
                self.cut_off = True
                self.warn(
                    f"{self.path.name}:{line_no}: skipped a cut-off last line "
                    "(session still being written?)"
                )
                return
            if line_no == 1 and raw.strip() in (b"{", b"["):
                raise AbwInputError(
                    "not a Claude Code transcript: one JSON document laid out over many lines, "
                    "not JSON Lines (a JSON object on each line)",
                    file=self.path,
                    line=line_no,
                ) from None
            raise AbwInputError(exc.message, file=self.path, line=line_no) from None
        if not isinstance(record, dict):
            raise AbwInputError(
                "not a Claude Code transcript: a line is not a JSON object",
                file=self.path,
                line=line_no,
            )
        self.records += 1
        yield line_no, record
