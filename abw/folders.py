"""Files under a folder, never through a symlink that leads out of it.

A folder of traces or trajectories comes from a pull request: a symlink inside it
(``traces/x.json -> /etc/...``, or a linked subfolder) must not pull in files from elsewhere.
"""

from __future__ import annotations

import os
import re
from fnmatch import translate
from pathlib import Path

from abw.errors import AbwInputError
from abw.reader import lone_surrogate


def files_within(
    root: Path,
    where: Path,
    pattern: str | tuple[str, ...],
    what: str,
    *,
    skip_hidden: bool = False,
    contained: bool = True,
) -> list[Path]:
    """:func:`walk_files`, as paths."""
    texts = walk_files(root, where, pattern, what, skip_hidden=skip_hidden, contained=contained)
    return [Path(text) for text in texts]


def walk_files(
    root: Path,
    where: Path,
    pattern: str | tuple[str, ...],
    what: str,
    *,
    skip_hidden: bool = False,
    contained: bool = True,
) -> list[str]:
    """The files matching ``pattern`` (a glob on the name, or any of several) under ``where``
    (recursively, as ``where.rglob(pattern)`` finds them: never into a linked folder), sorted as
    their paths sort and named as ``str(path)`` names them, each inside ``root`` once symlinks
    are resolved, else the first that leaks is refused (``contained=False``: a user's own export
    folder, whose file links may lead anywhere). ``skip_hidden``: no file or folder whose
    name starts with ``.`` below ``where``. A matching name that is a symlink to nothing, or a
    folder below ``where`` that cannot be listed, or that is no regular file (a FIFO, a
    socket, a device), is refused: each would drop a file unseen.

    One directory walk (``os.scandir`` entries know their type): only a path that passes
    through a symlink is resolved (resolving and stat-ing every file took 5 % of a large gate).
    """
    patterns = (pattern,) if isinstance(pattern, str) else pattern
    match = re.compile("|".join(translate(p) for p in patterns)).match
    found: list[tuple[tuple[str, ...], bool]] = []
    broken: list[tuple[str, ...]] = []
    linked_folders: list[str] = []  # (never walked into: checked that they stay inside)
    stack: list[tuple[str, tuple[str, ...]]] = [(str(where), ())]
    while stack:
        folder, parts = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as error:
            raise _unreadable(error, folder, what) from None
        for entry in entries:
            name = entry.name
            if skip_hidden and name.startswith("."):
                continue
            if not name.isascii():
                _utf8_name(name, entry.path, what)
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, (*parts, name)))
                elif entry.is_symlink() and entry.is_dir():
                    linked_folders.append(entry.path)
                elif match(name) is not None:
                    if entry.is_file():
                        found.append(((*parts, name), entry.is_symlink()))
                    elif entry.is_symlink() and not os.path.exists(entry.path):
                        broken.append((*parts, name))
                    else:  # a FIFO, a socket, a device: no file to read, yet one by its name
                        raise AbwInputError(
                            f"not a regular file (a FIFO, a socket or a device) in the {what}; "
                            "refusing it",
                            file=entry.path,
                        )
            except OSError as error:
                if not entry.is_symlink():
                    raise _unreadable(error, entry.path, what) from None
                if match(name) is not None:
                    broken.append((*parts, name))  # a link loop
    found.sort()
    base = str(where)
    prefix = "" if base == "." else base if base.endswith(os.sep) else base + os.sep
    if broken:
        raise AbwInputError(
            f"a symlink in the {what} leads to no file (a missing target or a loop); refusing it",
            file=prefix + os.sep.join(min(broken)),
        )
    texts = [prefix + os.sep.join(parts) for parts, _ in found]
    if not contained:
        return texts
    where_linked = _through_link(where, root)
    real_root = root.resolve()
    for folder in sorted(linked_folders):  # its files would be left out unseen
        if not Path(folder).resolve().is_relative_to(real_root):
            raise AbwInputError(f"a symlink leads outside the {what}; refusing it", file=folder)
    for text, (_, linked) in zip(texts, found, strict=True):
        if (linked or where_linked) and not Path(text).resolve().is_relative_to(real_root):
            raise AbwInputError(f"a symlink leads outside the {what}; refusing it", file=text)
    return texts


def _utf8_name(name: str, path: str, what: str) -> None:
    """Refuse a name that is not UTF-8 (POSIX allows any bytes; Python reads such a byte as a
    lone surrogate): no report, comment or alert could name the file truly, and a report
    naming it would not be UTF-8 JSON that abw or GitHub can read back."""
    if lone_surrogate(name) is not None:
        raise AbwInputError(f"a name in the {what} is not UTF-8 text; rename it", file=path)


def _unreadable(error: OSError, path: str, what: str) -> AbwInputError:
    """The input error for a folder or entry of the walk that the system would not read."""
    reason = error.strerror or type(error).__name__
    return AbwInputError(f"cannot read this part of the {what}: {reason}", file=path)


def _through_link(where: Path, root: Path) -> bool:
    """Whether ``where`` (``root`` or a folder below it) is, or lies below, a symlink that is
    below ``root``."""
    while where != root and where.parent != where:
        if where.is_symlink():
            return True
        where = where.parent
    return False
