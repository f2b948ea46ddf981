"""Files under a folder, never through a symlink that leads out of it.

A folder of traces or trajectories comes from a pull request: a symlink inside it
(``traces/x.json -> /etc/...``, or a linked subfolder) must not pull in files from elsewhere.
"""

from __future__ import annotations

from pathlib import Path

from abw.errors import AbwInputError


def refuse_outside(paths: list[Path], root: Path, what: str) -> list[Path]:
    """``paths`` (all under ``root``) unchanged when each resolves inside ``root``; else refuse
    the first that leaks.

    Only a path that passes through a symlink below ``root`` can leak, so only those are
    resolved (resolving every file took 4 % of a large gate); whether a folder is a link is
    asked once per folder."""
    real_root = root.resolve()
    linked: dict[Path, bool] = {root: False}

    def through_link(path: Path) -> bool:
        if path in linked:
            return linked[path]
        parent = path.parent
        found = path.is_symlink() or (parent != path and through_link(parent))
        linked[path] = found
        return found

    for path in paths:
        if through_link(path) and not path.resolve().is_relative_to(real_root):
            raise AbwInputError(f"a symlink leads outside the {what}; refusing it", file=path)
    return paths


def files_within(root: Path, where: Path, pattern: str, what: str) -> list[Path]:
    """The files matching ``pattern`` under ``where`` (recursively, sorted), each inside
    ``root`` once symlinks are resolved."""
    return refuse_outside(sorted(p for p in where.rglob(pattern) if p.is_file()), root, what)
