"""Tool outputs Claude Code 2.1.x keeps outside the transcript.

A result too large for the line is saved to ``<session>/tool-results/<name>`` beside the
transcript; the line holds a ``<persisted-output>`` wrapper naming that file (a per-session path
and a random name) and a 2 KB preview. The output hash is the saved output's when the file is
there; else the wrapper's without its path, so the same output hashes the same in every session.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any

from abw.errors import AbwInputError
from abw.hashing import content_hash
from abw.importers.claude.outcomes import result_text
from abw.limits import MAX_RAW_BYTES, read_limited

PERSISTED_TAG = "<persisted-output>"
_SAVED = re.compile(r"(Full output saved to: )(\S+)")
_NAME = re.compile(r"[\w.-]+")
_STORE = "tool-results"


def _wrapper(content: Any) -> str | None:
    """The ``<persisted-output>`` text ``content`` is (a string or one text block), or None."""
    text = content if isinstance(content, str) else None
    if isinstance(content, list) and len(content) == 1:
        text = result_text(content)
    if text is not None and text.lstrip().startswith(PERSISTED_TAG):
        return text
    return None


def _saved_file(wrapper: str, transcript: Path) -> Path | None:
    """The saved output the wrapper names, found beside ``transcript`` (a session's transcript,
    or a subagent's under ``<session>/subagents/``), or None."""
    match = _SAVED.search(wrapper)
    if match is None:
        return None
    parts = PurePosixPath(match.group(2)).parts[-3:]
    if len(parts) != 3 or parts[1] != _STORE:
        return None
    if not all(_NAME.fullmatch(p) and p not in (".", "..") for p in parts):
        return None  # (a plain name each: never a way out of the session's folder)
    for base in (transcript.parent, *transcript.parent.parents[:2]):
        candidate = base.joinpath(*parts)
        if candidate.is_file():
            return candidate
    return None


def output_hash(content: Any, transcript: Path) -> tuple[str, str | None]:
    """The hash of a ``tool_result``'s output and, for a persisted one, where it was read:
    ``tool-results`` (the whole saved output) or ``preview`` (the wrapper, path left out)."""
    wrapper = _wrapper(content)
    if wrapper is None:
        return content_hash(content), None
    saved = _saved_file(wrapper, transcript)
    if saved is not None:
        try:
            data = read_limited(saved, MAX_RAW_BYTES, "saved tool output")
            return content_hash(data.decode("utf-8", "replace")), _STORE
        except (OSError, AbwInputError):  # unreadable, or over the limit: the preview's hash
            pass
    return content_hash(_SAVED.sub(r"\1-", wrapper)), "preview"
