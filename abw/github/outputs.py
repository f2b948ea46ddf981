"""Step outputs (``$GITHUB_OUTPUT``) and the job summary (``$GITHUB_STEP_SUMMARY``).

Outputs use the heredoc form with a random ``ghadelimiter_<uuid4>`` delimiter, like the toolkit;
a value that contains the delimiter is refused. The summary is capped at 1 MiB per step, beyond
which GitHub drops the upload.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Mapping
from pathlib import Path

from abw.github.clip import clip_markdown

#: GitHub fails a step summary upload above 1 MiB (bytes).
SUMMARY_LIMIT_BYTES = 1024 * 1024


def format_output(name: str, value: str, delimiter: str | None = None) -> str:
    """One ``name<<delimiter`` block for ``$GITHUB_OUTPUT``."""
    delimiter = delimiter or f"ghadelimiter_{uuid.uuid4()}"
    if delimiter in name or delimiter in value:
        raise ValueError(f"output {name!r} contains the delimiter")
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def append_whole(path: str | Path, text: str) -> None:
    """Append ``text`` to a runner file all or nothing: on a failed write (a full disk) the
    file is cut back to its old length, so the runner never reads half a heredoc block."""
    data = text.encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        start = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
            raise
    finally:
        os.close(fd)


def write_outputs(path: str | Path | None, outputs: Mapping[str, str]) -> bool:
    """Append every output to the ``$GITHUB_OUTPUT`` file; False when there is no such file."""
    if not path:
        return False
    append_whole(path, "".join(format_output(name, value) for name, value in outputs.items()))
    return True


def fit_summary(
    markdown: str, limit_bytes: int = SUMMARY_LIMIT_BYTES, link: str | None = None
) -> str:
    """The summary within ``limit_bytes``: cut at a line, closing the fence and the
    ``<details>`` it left open (the next step's summary follows it), with a note;
    :func:`abw.github.clip.clip_markdown` in bytes. Nothing at all when not even the note fits."""
    where = f" The full report: {link}" if link else " The full report is in the output folder."
    note = f"\n\n> **Truncated** to fit GitHub's 1 MiB step-summary limit.{where}\n"
    return clip_markdown(markdown, limit_bytes, note, "bytes")


def summary_room(path: str | Path | None) -> int:
    """The bytes of the 1 MiB step summary that the earlier writes of this step left."""
    if not path:
        return SUMMARY_LIMIT_BYTES
    target = Path(path)
    used = target.stat().st_size if target.exists() else 0
    return max(SUMMARY_LIMIT_BYTES - used, 0)


def write_summary(path: str | Path | None, markdown: str, link: str | None = None) -> bool:
    """Append the Markdown report to ``$GITHUB_STEP_SUMMARY`` (≤ 1 MiB); False if unset."""
    if not path:
        return False
    text = fit_summary(markdown, summary_room(path), link=link)
    if text:
        append_whole(path, text)
    return True
