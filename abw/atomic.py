"""The one writer: atomic file writes, with the modes a plain ``open(path, "w")`` would give,
and hidden staging folders that no reader takes for output.

A reader sees the old file or the new one, never half of one (a device or FIFO such as
``/dev/stdout`` is written into, not replaced). A new file gets ``0o666`` less
the process's umask; a file replaced keeps the mode it had. Temporaries and staging folders
have names starting with ``.``, which the trace-folder walker (abw.traceio.trace_paths) skips.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path


def _umask() -> int:
    """The process's umask, read without changing it where the system tells it (Linux:
    ``/proc/self/status``); elsewhere set and put back at once (a file another thread creates
    in between gets 0o022's mode)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode(target: Path) -> int:
    """The mode ``open(target, "w")`` would leave: the existing file's, else 0o666 & ~umask."""
    try:
        info = target.stat()
    except OSError:
        return 0o666 & ~_umask()
    return stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else 0o666 & ~_umask()


def check_target(path: str | Path, *, folder: bool = False) -> None:
    """Refuse, before any work is done, an output path of the wrong kind: a folder where a file
    goes, a file where a folder goes, or a file on the way to either. Raises the OSError that
    writing would raise later (abw.faults words it; a command maps it to exit code 2)."""
    target = Path(path)
    if folder and target.exists() and not target.is_dir():
        raise FileExistsError(errno.EEXIST, "File exists", str(target))
    if not folder and target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(target))
    for parent in target.parents:
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, "Not a directory", str(target))
            return


def special_file(target: str | Path) -> bool:
    """True for what is written into, never replaced: a name of a device or an open stream
    (:func:`_through_devices`), or an existing file that is not a regular file (a FIFO, a
    socket)."""
    return _through_devices(_link_chain(Path(target))) or _not_regular(Path(target))


def _not_regular(target: Path) -> bool:
    try:
        return not stat.S_ISREG(target.stat().st_mode) and not target.is_dir()
    except OSError:
        return False


def _link_chain(target: Path) -> list[str]:
    """``target`` made absolute, then each path its links lead to, in turn (at most 40)."""
    chain = [os.path.abspath(target)]
    while len(chain) < 40 and os.path.islink(chain[-1]):
        hop = os.path.join(os.path.dirname(chain[-1]), os.readlink(chain[-1]))
        chain.append(os.path.normpath(hop))
    return chain


def _through_devices(chain: list[str]) -> bool:
    """Whether a path (its :func:`_link_chain`) names a device or an open stream: it is, or
    leads through, a path under ``/dev/`` or ``/proc/`` (``/dev/stdout``, ``/proc/self/fd/1``).
    With standard output redirected to a file such a name resolves to a regular file, and
    replacing it (a temporary and a rename) replaced the ``/dev/stdout`` link itself with a
    file, and the report never reached the redirect."""
    return any(hop.startswith(("/dev/", "/proc/")) for hop in chain)


#: The names of this process's own open descriptors.
_OWN_STREAMS = {"/dev/stdout": 1, "/dev/stderr": 2}
_OWN_FD = re.compile(r"/(?:proc/self|dev)/fd/([0-9]+)")


def _own_descriptor(chain: list[str]) -> int | None:
    """The descriptor of this process that a path (its :func:`_link_chain`) names
    (``/dev/stdout``: 1, ``/proc/self/fd/3``: 3, or a link to one), else None. Written through
    that descriptor, the report lands where the stream goes, after what was printed before it
    (opened again by name, a redirected standard output was truncated and written over by the
    summary)."""
    for hop in chain:
        if hop in _OWN_STREAMS:
            return _OWN_STREAMS[hop]
        if found := _OWN_FD.fullmatch(hop):
            return int(found.group(1))
    return None


def write_atomic(
    path: str | Path, data: str | bytes | Iterable[bytes], *, make_folders: bool = True
) -> Path:
    """Write ``data`` (text, bytes, or pieces of bytes written as they come) to ``path``
    through a temporary file in the same folder and a rename; the folders on the way are made
    unless ``make_folders`` is False (a worker writing into a staging folder the driver may
    have removed: FileNotFoundError, not a folder made again).

    A ``path`` that is a folder is refused before anything is written (IsADirectoryError)."""
    target = Path(path)
    check_target(target)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    pieces = [payload] if isinstance(payload, bytes | bytearray) else payload
    chain = _link_chain(target)
    descriptor = _own_descriptor(chain)
    if descriptor is not None:  # /dev/stdout: this process's own stream
        try:
            _write_to(descriptor, pieces)
        except OSError as exc:
            raise type(exc)(exc.errno, exc.strerror, str(target)) from None
        return target
    if _through_devices(chain) or _not_regular(target):  # a FIFO, /dev/full: written into
        try:
            with open(target, "wb") as handle:
                for piece in pieces:
                    handle.write(piece)
        except OSError as exc:
            raise type(exc)(exc.errno, exc.strerror, str(target)) from None
        return target
    # a link stays a link: the file it leads to is replaced
    replaced = Path(os.path.realpath(target)) if len(chain) > 1 else target
    try:
        if make_folders:
            replaced.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(
            prefix=f".{replaced.name}.", suffix=".tmp", dir=replaced.parent
        )
    except OSError as exc:  # name the file asked for, not a temporary
        raise type(exc)(exc.errno, exc.strerror, str(target)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), file_mode(replaced))
            for piece in pieces:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, replaced)
    except BaseException as exc:
        Path(tmp_name).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise type(exc)(exc.errno, exc.strerror, str(target)) from None
        raise
    return target


def _write_to(descriptor: int, pieces: Iterable[bytes]) -> None:
    """Write every piece to an open descriptor, after what Python's streams hold."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    for piece in pieces:
        view = memoryview(piece)
        while view:
            view = view[os.write(descriptor, view) :]


@contextlib.contextmanager
def staging_folder(out: Path) -> Iterator[Path]:
    """A hidden folder for output that must appear all at once — inside ``out`` when it is a
    folder already (``.abw-staging-XXXX``: on its file system, a mount point too, under its
    permissions), else next to it (``.<name>.abw-staging-XXXX``); removed when the block
    ends, however it ends (SIGTERM included, see abw.cli). A SIGKILL can leave it behind, and
    since it is hidden no reader picks it up.

    An OSError on the folder or a file in it names ``out`` (or ``out/<file>``), the path the
    user gave, not the hidden folder."""
    try:
        if out.is_dir():  # inside it: the same file system (a mount point), its permissions
            folder = Path(tempfile.mkdtemp(prefix=".abw-staging-", dir=out))
        else:
            out.parent.mkdir(parents=True, exist_ok=True)
            folder = Path(tempfile.mkdtemp(prefix=f".{out.name}.abw-staging-", dir=out.parent))
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror, str(out)) from None
    try:
        yield folder
    except OSError as exc:
        failed = Path(exc.filename) if isinstance(exc.filename, str | os.PathLike) else None
        if failed is None or not failed.is_relative_to(folder):
            raise
        raise type(exc)(exc.errno, exc.strerror, str(out / failed.relative_to(folder))) from None
    finally:
        _remove(folder)


def _remove(folder: Path) -> None:
    """Remove ``folder`` so that no writer can fill it again: renamed away first (a worker of
    another machine may still be writing into it; its next file is then refused, not written
    into a folder made again), then deleted."""
    gone = folder.with_name(f"{folder.name}-removed")
    try:
        folder.rename(gone)
    except OSError:
        gone = folder
    shutil.rmtree(gone, ignore_errors=True)
