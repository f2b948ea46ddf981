"""Workspace paths: every path input must stay inside ``GITHUB_WORKSPACE``.

The container only sees the workspace, and a gate that read ``../../etc`` or followed a symlink
out of the checkout would publish what it must not. Both are refused with one clear line.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from abw.errors import AbwInputError


def workspace_root(value: str | None) -> Path:
    """The resolved workspace folder (``GITHUB_WORKSPACE``, else the current folder)."""
    root = Path(value) if value else Path.cwd()
    if not root.is_dir():
        raise AbwInputError("workspace folder not found", file=str(root), field="GITHUB_WORKSPACE")
    return root.resolve()


def resolve_in_workspace(
    value: str, workspace: Path, *, name: str, must_exist: bool = True
) -> Path:
    """The absolute path of input ``name`` inside ``workspace``; refuse anything outside it.

    Relative values are taken from the workspace; absolute values are allowed only when they
    already point inside it (``/github/workspace/...``). Symlinks are resolved before the check.
    """
    if "\x00" in value:
        raise AbwInputError("path contains a NUL character", field=name)
    raw = Path(value)
    candidate = raw if raw.is_absolute() else workspace / raw
    resolved = Path(os.path.realpath(candidate))
    if not resolved.is_relative_to(workspace):
        raise AbwInputError(
            f"path {value!r} resolves outside the workspace {str(workspace)!r}; "
            "paths must be relative to the repository checkout",
            field=name,
        )
    if must_exist and not resolved.exists():
        raise AbwInputError(f"path {value!r} does not exist in the workspace", field=name)
    return resolved


def relative_posix(path: Path, workspace: Path) -> str:
    """``path`` relative to the workspace, with ``/`` separators ("." for the root itself)."""
    return PurePosixPath(path.relative_to(workspace).as_posix()).as_posix() or "."


def missing_folders(folder: Path, workspace: Path) -> list[Path]:
    """``folder`` and the folders above it, up to ``workspace``, that do not exist yet: the ones
    a ``mkdir(parents=True)`` would create (and :func:`hand_to_workspace_owner` must hand on)."""
    missing = []
    for path in (folder, *folder.parents):
        if path == workspace or not path.is_relative_to(workspace) or path.exists():
            break
        missing.append(path)
    return missing


def hand_to_workspace_owner(paths: Iterable[Path], workspace: Path) -> None:
    """Files and folders the container writes belong to root; give them to the workspace's
    owner if we can, so that later steps (and a self-hosted runner's next checkout) can change
    or remove them."""
    info = workspace.stat()
    if not hasattr(os, "chown") or os.geteuid() != 0:
        return
    for path in paths:
        with contextlib.suppress(OSError):
            os.chown(path, info.st_uid, info.st_gid)
