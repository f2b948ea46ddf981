"""One run's records split over several files of a folder, for exports keyed by trace id.

A trace is read from every file of its folder that holds part of it, and written with the
first of them in name order; its ``source_hash`` is over those files' bytes in name order. A
later file that only continues traces an earlier file begins is no unit of a folder's import,
and imported on its own it warns. A folder is indexed once per import (each file's trace ids,
and the ids of the records it holds of each); a file whose traces are whole reads no sibling.
Where a format's records are exported once each (OpenTelemetry spans, the OpenAI Agents SDK's
spans), files that repeat a record of a trace are copies of it, not its parts: each is read on
its own.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from abw.errors import AbwInputError
from abw.importers.base import Importer, ImportOptions

#: What a file holds: trace id -> the ids of its records of that trace.
Holdings = dict[str, Collection[str]]


@dataclass(frozen=True)
class Share:
    """What to read for one file: the traces it writes (``own``), and the later files of its
    folder that hold the rest of them (``later``, in name order)."""

    own: frozenset[str]
    later: tuple[Path, ...]


class Siblings:
    """The trace-id index of the folders an importer reads (each folder read once).

    ``holdings`` reads one file (raises :class:`AbwInputError` for a file it refuses: that
    file is no sibling); ``suffixes`` names the exports; ``copies``: a record id two files
    share makes them copies (records exported once each), else parts (a run's post and
    patch)."""

    def __init__(
        self,
        holdings: Callable[[Path], Holdings],
        suffixes: tuple[str, ...],
        *,
        copies: bool,
    ) -> None:
        self._holdings = holdings
        self._suffixes = suffixes
        self._copies = copies
        self._folders: dict[Path, dict[str, list[str]]] = {}

    def files_of(self, folder: Path) -> dict[str, list[str]]:
        """Trace id -> the files of ``folder`` holding its parts, in name order (a trace whose
        files are copies of each other is left out: each copy is whole)."""
        if folder not in self._folders:
            self._folders[folder] = self._index(folder)
        return self._folders[folder]

    def _index(self, folder: Path) -> dict[str, list[str]]:
        """The folder's index: read once per process while its exports are unchanged (an
        import on workers makes an importer per batch of files)."""
        exports = _exports(folder, self._suffixes)
        key = (self._holdings, self._copies, folder)
        cached = _INDEXES.get(key)
        if cached is not None and cached[0] == exports:
            return cached[1]
        files: dict[str, list[str]] = {}
        records: dict[str, list[Collection[str]]] = {}
        for name, *_ in exports if len(exports) > 1 else ():
            try:
                held = self._holdings(folder / name)
            except AbwInputError:  # refused when it is imported itself
                continue
            for trace_id, ids in held.items():
                files.setdefault(trace_id, []).append(name)
                records.setdefault(trace_id, []).append(ids)
        index = {
            trace_id: names
            for trace_id, names in files.items()
            if len(names) > 1 and not (self._copies and _repeat(records[trace_id]))
        }
        _INDEXES[key] = (exports, index)
        return index

    def begins_any(self, path: Path) -> bool:
        """Whether ``path`` is a unit of its folder's import: it begins a trace there, or
        continues none."""
        held = [names for names in self.files_of(path.parent).values() if path.name in names]
        return not held or any(names[0] == path.name for names in held)

    def share(self, path: Path, here: Iterable[str], whole: bool, options: ImportOptions) -> Share:
        """What ``path`` writes and reads besides (``here``: its trace ids; ``whole``: the
        format shows it holds them whole). A file that only continues traces is read on its
        own, with a warning naming the files that begin them."""
        here = frozenset(here)
        index = {} if whole else self.files_of(path.parent)
        first = {t: index.get(t, [path.name])[0] for t in here}
        own = frozenset(t for t in here if first[t] == path.name)
        if not own:
            earlier = ", ".join(sorted(set(first.values())))
            options.warn(
                f"{path.name}: its runs continue traces that {earlier} begins; imported on its "
                "own: import its folder to read them with it"
            )
            return Share(here, ())
        later = sorted({n for t in own for n in index.get(t, ()) if n != path.name})
        return Share(own, tuple(path.parent / name for name in later))


class SplitExportImporter(Importer):
    """An importer of exports keyed by trace id, one run's records possibly in several files
    of a folder: a file that only continues traces an earlier file begins is no unit of the
    folder's import (:meth:`discover`); :attr:`_siblings` says what each file reads besides.

    A subclass names what a file holds (:meth:`holdings`) and whether its records are
    exported once each (:attr:`records_exported_once`: files holding the same records are
    copies, each read on its own; files sharing only some are parts, one sent again), else a
    run's parts (its post and its patch)."""

    records_exported_once: ClassVar[bool]

    @staticmethod
    def holdings(path: Path) -> Holdings:
        """What the file at ``path`` holds, for its folder's index (:class:`Siblings`)."""
        raise NotImplementedError

    def __init__(self) -> None:
        self._siblings = Siblings(self.holdings, self.suffixes, copies=self.records_exported_once)

    def discover(self, folder: Path) -> list[Path]:
        """The exports, less the files whose every trace an earlier file of the folder begins
        (they are read with it)."""
        return [p for p in super().discover(folder) if self._siblings.begins_any(p)]


#: The folders indexed in this process: (reader, copies, folder) -> (exports, index).
_INDEXES: dict[tuple[object, bool, Path], tuple[tuple[tuple[str, int, int], ...], dict]] = {}


def _exports(folder: Path, suffixes: tuple[str, ...]) -> tuple[tuple[str, int, int], ...]:
    """The export files of ``folder`` in name order, each with its size and modification time
    (a folder that cannot be listed has none: each file is read on its own)."""
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return ()
    exports = []
    for entry in entries:
        try:
            stat = entry.stat()
        except OSError:
            continue
        if entry.suffix in suffixes and entry.is_file():
            exports.append((entry.name, stat.st_size, stat.st_mtime_ns))
    return tuple(exports)


def _repeat(records: list[Collection[str]]) -> bool:
    """Whether the files holding one trace are copies of a run, each read on its own: they
    hold the same records (a run exported twice), or records that overlap otherwise (one run
    exported in two ways). Files that hold the same records as another file and records of no
    other are parts of one run, one of them sent again (an exporter retries a request the
    collector already had): they are read together, and each record counts once."""
    distinct = list(dict.fromkeys(frozenset(ids) for ids in records))
    if len(records) > 1 and len(distinct) == 1:
        return True
    seen: set[str] = set()
    for ids in distinct:
        if seen.intersection(ids):
            return True
        seen.update(ids)
    return False
