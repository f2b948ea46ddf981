"""A path as a person or a program gives it (an option, an MCP argument, a pytest marker):
what makes it name no file abw should read or write."""

from __future__ import annotations

from abw.errors import AbwInputError


def path_problem(text: str) -> str | None:
    """Why ``text`` is refused as a path, or None: empty (``Path("")`` is the working folder,
    so an unset variable would read or write there), holding a NUL (no file name can), or not
    UTF-8 text (POSIX allows any bytes, but a report naming it could not be read back)."""
    if not text:
        return "empty path (an unset variable?): give a file or folder"
    if "\x00" in text:
        return "a path cannot hold a NUL character"
    if not text.isascii():
        from abw.reader import lone_surrogate

        if lone_surrogate(text) is not None:
            return "the path is not UTF-8 text; rename it"
    return None


def check_paths(**paths: object) -> None:
    """Raise AbwInputError for the first of ``paths`` (field name -> given path; None and
    non-text values are left to their readers) :func:`path_problem` refuses, naming it."""
    for field, value in paths.items():
        problem = path_problem(value) if isinstance(value, str) else None
        if problem is not None:
            raise AbwInputError(problem, field=field)
