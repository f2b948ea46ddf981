"""abw.folders.files_within (one directory walk) finds what ``rglob`` + ``is_file`` found, in
the order sorted paths have, and refuses a symlink that leads out of the folder."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from abw.errors import AbwInputError
from abw.folders import files_within
from abw.traceio import trace_files, trace_paths

NAMES = ["a", "a-b", "a.json", "b.json", ".h", ".h.json", "B.JSON", "é.json", "x y.json", "z"]


def _reference(root: Path, hidden: bool) -> list[Path]:
    """What trace_paths and files_within returned before the walk (rglob, then filters)."""
    found = sorted(p for p in root.rglob("*.json") if p.is_file())
    if hidden:
        found = [p for p in found if not any(s.startswith(".") for s in p.relative_to(root).parts)]
    return found


def _random_tree(root: Path, rng: random.Random) -> None:
    folders = [root]
    for _ in range(40):
        parent = rng.choice(folders)
        name = rng.choice(NAMES)
        target = parent / name
        if target.exists() or target.is_symlink():
            continue
        kind = rng.random()
        if kind < 0.35:
            target.mkdir()
            folders.append(target)
        elif kind < 0.8:
            target.write_text("{}")
        elif kind < 0.9:  # a link to something inside the tree (a file or a folder)
            os.symlink(rng.choice(folders + [f / "a.json" for f in folders]), target)
        else:
            os.symlink(target.with_name("missing"), target)  # dangling


@pytest.mark.parametrize("seed", range(25))
def test_walk_finds_what_rglob_found_in_the_same_order(tmp_path: Path, seed: int) -> None:
    _random_tree(tmp_path, random.Random(seed))
    assert files_within(tmp_path, tmp_path, "*.json", "folder") == _reference(tmp_path, False)
    expected = _reference(tmp_path, True)
    if expected:
        assert trace_paths(tmp_path) == expected
        assert trace_files(tmp_path) == [str(p) for p in expected]


@pytest.mark.parametrize("given", [".", "./", "traces/", "./traces", "traces//sub/.."])
def test_file_names_are_what_str_of_the_path_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    (tmp_path / "traces" / "sub").mkdir(parents=True)
    (tmp_path / "traces" / "sub" / "a.json").write_text("{}")
    (tmp_path / "traces" / "b.json").write_text("{}")
    monkeypatch.chdir(tmp_path / "traces" if given in (".", "./") else tmp_path)
    want = [str(p) for p in sorted(Path(given).rglob("*.json"))]
    assert trace_files(given) == want
    assert trace_files(tmp_path / "traces") == [
        str(tmp_path / "traces" / n) for n in ("b.json", "sub/a.json")
    ]


def test_sorted_as_paths_sort_not_as_strings(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    for name in ("a/b.json", "a-c.json", "a.json"):
        (tmp_path / name).write_text("{}")
    assert [p.relative_to(tmp_path).as_posix() for p in trace_paths(tmp_path)] == [
        "a/b.json",
        "a-c.json",
        "a.json",
    ]  # a string sort would put "a-c.json" first


def test_a_file_link_leading_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "ok.json").write_text("{}")
    os.symlink(outside, folder / "leak.json")
    with pytest.raises(AbwInputError, match="symlink leads outside") as caught:
        trace_paths(folder)
    assert caught.value.file == str(folder / "leak.json")


def test_a_linked_subfolder_given_as_where_is_checked(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "t.json").write_text("{}")
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(outside, root / "sub")
    with pytest.raises(AbwInputError, match="symlink leads outside"):
        files_within(root, root / "sub", "*.json", "latent folder")
