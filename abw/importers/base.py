"""The adapter API: what an importer implements, and the options every importer accepts."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from abw.importers.common import ArgumentField, Label
    from abw.models.trace import Trace


@dataclass
class OutputFieldsSeen:
    """What ``abw import`` warns about ``--output-fields`` from: the runs imported and the
    named fields some run's ``canonical_output`` holds. Small (names the user gave, a count):
    it crosses from workers."""

    runs: int = 0
    found: set[str] = field(default_factory=set)

    def add(self, fields: tuple[str, ...], outputs: list[dict | None]) -> None:
        """Count one file's runs (their ``canonical_output``)."""
        from abw.importers.common import holds_field

        self.runs += len(outputs)
        self.found.update(
            name
            for name in fields
            if name not in self.found and any(holds_field(output, name) for output in outputs)
        )

    def merge(self, other: OutputFieldsSeen) -> None:
        """Add another file's (or worker's) counts."""
        self.runs += other.runs
        self.found |= other.found

    def warning(self, fields: tuple[str, ...]) -> str | None:
        """``--output-fields decsion: in no final answer of the 3 runs imported ...`` when some
        named field is in no run's answer; else None. It names only the fields given, never an
        answer's own keys (they are the raw answer's content, which no output shows unless
        named)."""
        from abw.text import plural

        missing = [name for name in fields if name not in self.found]
        if not missing or not self.runs:
            return None
        return (
            f"--output-fields {', '.join(missing)}: in no final answer of the "
            f"{plural(self.runs, 'run')} imported; canonical_output leaves "
            f"{'it' if len(missing) == 1 else 'them'} out"
        )


@dataclass(frozen=True)
class ImportOptions:
    """Options common to every importer (content is always hashed; only the fields named in
    ``output_fields`` and ``argument_fields`` are kept raw)."""

    scenario_id: str | None = None
    environment: str | None = None
    labels: tuple[Label, ...] = ()
    output_fields: tuple[str, ...] = ()
    argument_fields: tuple[ArgumentField, ...] = ()
    exported_at: str | None = None
    warnings: list[str] = field(default_factory=list, compare=False)
    #: What the runs imported so far say about ``output_fields`` (:class:`OutputFieldsSeen`).
    outputs: OutputFieldsSeen = field(default_factory=OutputFieldsSeen, compare=False)

    def warn(self, message: str) -> None:
        """Record a warning for the user (printed on stderr by the CLI)."""
        self.warnings.append(" ".join(message.split()))

    def no_run(self, path: Path, why: str) -> list[Trace]:
        """No trace for ``path``, which holds no run (``why``): a warning naming the file (a
        folder import goes on; a single file's import says it has no trace to write)."""
        self.warn(f"{path.name}: {why}: no run, skipped")
        return []


class Importer(ABC):
    """Turns one raw export into one or more traces.

    Subclasses set the class attributes and implement :meth:`import_file`; :meth:`discover`
    decides which files of a folder are units of import (default: by suffix).
    """

    name: ClassVar[str]
    platform: ClassVar[str]
    export_format: ClassVar[str]
    help: ClassVar[str]
    suffixes: ClassVar[tuple[str, ...]] = (".json", ".jsonl")
    #: Whether the importer honours ``ImportOptions.argument_fields`` (``--argument-fields``);
    #: the CLI refuses the flag for an importer that would silently ignore it.
    supports_argument_fields: ClassVar[bool] = False
    #: The agent's own folder (``~/.codex``): its files, any one of which marks it, and its
    #: folders that hold the sessions. Given that folder, an import reads those folders only:
    #: the rest is the agent's settings, credentials, logs, caches and copies of project files.
    home_files: ClassVar[tuple[str, ...]] = ()
    home_sessions: ClassVar[tuple[str, ...]] = ()

    def session_folders(self, folder: Path) -> list[Path]:
        """``folder``, or, when it is the agent's own folder, those of its folders that hold
        sessions (:attr:`home_sessions`, in that order)."""
        if any((folder / name).is_file() for name in self.home_files):
            inside = [folder / name for name in self.home_sessions if (folder / name).is_dir()]
            if inside:
                return inside
        return [folder]

    def exports(self, folder: Path, patterns: tuple[str, ...]) -> list[Path]:
        """The files matching ``patterns`` under the session folders of ``folder``
        (:func:`export_files`, each folder's files in path order)."""
        return [p for root in self.session_folders(folder) for p in export_files(root, patterns)]

    def discover(self, folder: Path) -> list[Path]:
        """The files in ``folder`` to import, sorted (:meth:`exports`, by suffix)."""
        return self.exports(folder, tuple(f"*{suffix}" for suffix in self.suffixes))

    @abstractmethod
    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        """Read one raw file and return its traces; raise AbwInputError on bad input."""


def export_files(folder: Path, patterns: tuple[str, ...]) -> list[Path]:
    """The files under ``folder`` whose name matches one of ``patterns``, in path order, as
    ``rglob`` finds them (never into a linked folder); a matching name that is a symlink to
    nothing, or a subfolder that cannot be listed, is refused rather than skipped: an export
    left out unseen is a run missing from the count."""
    from abw.folders import files_within

    return files_within(folder, folder, patterns, "import folder", contained=False)
