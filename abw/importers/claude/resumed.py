"""Sessions continued in another file: Claude Code 1.x resumes a session (``--resume``,
``--continue``) into a new file that begins with a copy of the old file's lines — the same
``uuid`` s, rewritten to the new session id — and goes on there. The old file is then a
prefix of the new one: one run, recorded twice. A folder import reads it once, as the newer
file's run; the old file given alone is imported on its own, with a warning.

Files are paired by the ``uuid`` of their first message (read with the first lines anyway);
only the files of a pair are read whole, to compare their messages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from abw.errors import AbwInputError
from abw.importers.claude.reader import JsonlReader


def message_uuids(path: Path) -> frozenset[str]:
    """The ``uuid`` of every record of a transcript (none where it cannot be read)."""
    try:
        return frozenset(
            uuid
            for _, record in JsonlReader(path, lambda _: None)
            if isinstance(uuid := record.get("uuid"), str)
        )
    except AbwInputError:
        return frozenset()  # (reported when the file itself is imported)


def continuations(
    sessions: Iterable[Path], first_uuid: Callable[[Path], str | None]
) -> dict[Path, Path]:
    """For each session file whose every message a file of its folder holds too, with more
    (that file resumed it and went on): the file that holds the most. Two files with the same
    messages are copies, no resume: each stays a run (the gate warns of their shared id)."""
    groups: dict[tuple[Path, str], list[Path]] = {}
    for session in sessions:
        first = first_uuid(session)
        if first is not None:
            groups.setdefault((session.parent, first), []).append(session)
    found: dict[Path, Path] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        held = {path: message_uuids(path) for path in members}
        for path in members:
            holders = [
                other
                for other in members
                if other != path and held[path] and held[path] < held[other]
            ]
            if holders:
                found[path] = max(holders, key=lambda other: (len(held[other]), other))
    return found
