"""Input size limits: every file abw reads whole, and every line it reads, has a ceiling.

abw runs in CI on files a stranger can change. A 5 GB sparse file or a single 200 MB line must
end in a clear refusal, not in an out-of-memory kill. The limits are far above real exports
(the largest real Claude Code transcript line in the corpus is a few MB) and are checked
before the bytes are read.
"""

from __future__ import annotations

import os
from pathlib import Path

from abw.errors import AbwInputError

MiB = 1 << 20

MAX_TRACE_BYTES = 256 * MiB  # one agent-behavior-trace/v0 file
MAX_RAW_BYTES = 512 * MiB  # one raw export read whole (JSON document or JSON Lines)
MAX_LINE_BYTES = 64 * MiB  # one line of a JSON Lines export
MAX_TRACE_SPANS = 100_000  # spans in one trace: bounds the memory of loading it
MAX_TRACE_OBJECTS = 8 * MAX_TRACE_SPANS  # JSON objects in one trace file, checked while parsing


def _size(count: int) -> str:
    return f"{count / MiB:.0f} MiB" if count >= MiB else f"{count} bytes"


def too_large(what: str, size: int, limit: int, path: str | Path) -> AbwInputError:
    """The one-line refusal for an input over its limit (in bytes where MiB would read the
    same for both: "1,051,055 bytes, over abw's limit of 1,048,576 bytes")."""
    shown, most = _size(size), _size(limit)
    if shown == most:
        shown, most = f"{size:,} bytes", f"{limit:,} bytes"
    return AbwInputError(
        f"{what} is {shown}, over abw's limit of {most}; refusing to read it", file=path
    )


def read_limited(path: str | Path, limit: int, what: str = "file") -> bytes:
    """The bytes of ``path``, refusing (before reading) anything larger than ``limit``.

    OSErrors (missing file, folder, permission) propagate for the caller to word; special files
    that report no size (``/dev/zero``) are cut off at ``limit + 1`` bytes and refused too.
    Read with the descriptor calls themselves (a buffered file object costs more than the
    read of a 20 KB trace: 11 of 19 µs).
    """
    fd = os.open(path, _READ_FLAGS)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise too_large(what, size, limit, path)
        # ask for the size the file reports, never for the limit (read(limit + 1) allocated
        # 256 MiB per trace); one more byte, and reading on to the end, shows a file that was
        # read short, grew, or reports no size
        data = os.read(fd, size + 1)
        if data and len(data) != size:
            data += _read_up_to(fd, limit + 1 - len(data))
    finally:
        os.close(fd)
    if len(data) > limit:  # a file that grew, or reports no size (/dev/zero): read to the limit
        raise AbwInputError(
            f"{what} holds more than abw's limit of {_size(limit)}; refusing to read it", file=path
        )
    return data


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)  # (O_BINARY: Windows' untranslated read)


def _read_up_to(fd: int, count: int) -> bytes:
    """At most ``count`` more bytes, read in chunks (never one buffer of ``count``)."""
    chunks: list[bytes] = []
    while count > 0 and (chunk := os.read(fd, min(count, MiB))):
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def check_line(line: bytes, path: str | Path, number: int) -> None:
    """Refuse a JSON Lines line longer than :data:`MAX_LINE_BYTES`."""
    if len(line) > MAX_LINE_BYTES:
        error = too_large("the line", len(line), MAX_LINE_BYTES, path)
        error.line = number
        raise error
