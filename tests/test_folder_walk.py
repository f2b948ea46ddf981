"""abw.folders.files_within (one directory walk) finds what ``rglob`` + ``is_file`` found, in
the order sorted paths have, and refuses a symlink that leads out of the folder."""

from __future__ import annotations

import os
import random
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from abw.errors import AbwInputError
from abw.folders import files_within
from abw.traceio import TRACE_FILES, trace_files, trace_paths

NAMES = ["a", "a-b", "a.json", "b.json", ".h", ".h.json", "B.JSON", "é.json", "x y.json", "z"]


def _reference(root: Path, hidden: bool) -> list[Path] | None:
    """What trace_paths (``hidden``: names in any case) and files_within returned before the
    walk (rglob, then filters), or None where a matching name is a symlink to nothing (the
    walk refuses it)."""
    if hidden:
        matching = sorted(p for p in root.rglob("*") if fnmatchcase(p.name, TRACE_FILES))
    else:
        matching = sorted(root.rglob("*.json"))
    if hidden:
        matching = [
            p for p in matching if not any(s.startswith(".") for s in p.relative_to(root).parts)
        ]
    if any(p.is_symlink() and not p.exists() for p in matching):
        return None
    return [p for p in matching if p.is_file()]


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
    everything = _reference(tmp_path, False)
    if everything is None:
        with pytest.raises(AbwInputError, match="leads to no file"):
            files_within(tmp_path, tmp_path, "*.json", "folder")
    else:
        assert files_within(tmp_path, tmp_path, "*.json", "folder") == everything
    expected = _reference(tmp_path, True)
    if expected is None:
        with pytest.raises(AbwInputError, match="leads to no file"):
            trace_paths(tmp_path)
    elif expected:
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


def test_a_linked_subfolder_leading_outside_is_refused_not_skipped(tmp_path: Path) -> None:
    """``traces/more -> /elsewhere``: a linked folder is never walked into (as ``rglob``), so
    its runs were left out of the gate without a word; one leading outside is refused, as a
    linked file is. One leading to a folder inside is left to the walk that reaches it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "t.json").write_text("{}")
    folder = tmp_path / "traces"
    (folder / "inner").mkdir(parents=True)
    (folder / "inner" / "a.json").write_text("{}")
    os.symlink(folder / "inner", folder / "again")
    assert trace_paths(folder) == [folder / "inner" / "a.json"]
    os.symlink(outside, folder / "more")
    with pytest.raises(AbwInputError, match="symlink leads outside") as caught:
        trace_paths(folder)
    assert caught.value.file == str(folder / "more")


def test_a_trace_file_named_in_upper_case_is_read(tmp_path: Path) -> None:
    """``run.JSON`` was skipped without a word: a violating run dropped from the count."""
    for name in ("a.json", "b.JSON", "c.Json", "d.jsonl", "e.txt"):
        (tmp_path / name).write_text("{}")
    assert [p.name for p in trace_paths(tmp_path)] == ["a.json", "b.JSON", "c.Json"]


def test_a_dangling_trace_link_is_refused_not_dropped(tmp_path: Path) -> None:
    """A candidate file that is a symlink to a missing file would have been one run fewer,
    unseen: the gate refuses it, naming it."""
    folder = tmp_path / "candidate"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.json").write_text("{}")
    os.symlink(tmp_path / "gone.json", folder / "sub" / "b.json")
    os.symlink(tmp_path / "gone.txt", folder / "notes.txt")  # not a trace name: no matter
    with pytest.raises(AbwInputError, match="leads to no file") as caught:
        trace_paths(folder)
    assert caught.value.file == str(folder / "sub" / "b.json")


def test_a_folder_that_cannot_be_listed_is_refused_not_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A subfolder the system will not list (permissions, I/O error) held runs no one saw."""
    folder = tmp_path / "candidate"
    (folder / "locked").mkdir(parents=True)
    (folder / "a.json").write_text("{}")
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(AbwInputError, match="Permission denied") as caught:
        trace_paths(folder)
    assert caught.value.file == str(folder / "locked")


@pytest.mark.parametrize(
    ("importer", "name", "corpus_file"),
    [
        ("claude", "session.jsonl", "claude-code/spotter__short.jsonl"),
        ("codex", "rollout.jsonl", "codex/simonw-cct__sample_codex_session.jsonl"),
        ("swe-agent", "run.traj", "mini-swe-agent/miniswe__github_issue.traj.json"),
    ],
)
def test_an_import_folder_refuses_a_dangling_export_link(
    tmp_path: Path, run_cli, importer: str, name: str, corpus_file: str
) -> None:
    """``abw import … --input FOLDER`` skipped an export that is a symlink to nothing (as
    ``rglob`` + ``is_file`` do): one run fewer, unseen. It is refused, naming it; a link to a
    real file outside the folder (a user's own sessions elsewhere) still imports."""
    from tests.conftest import CORPUS

    folder = tmp_path / "exports"
    folder.mkdir()
    real = CORPUS / corpus_file
    os.symlink(real, folder / real.name)
    code, _, err = run_cli("import", importer, "--input", folder, "--out", tmp_path / "ok")
    assert code == 0, err
    os.symlink(tmp_path / "gone", folder / name)
    code, _, err = run_cli("import", importer, "--input", folder, "--out", tmp_path / "out")
    assert code == 2
    assert f"{folder / name}: a symlink in the import folder leads to no file" in err


def test_a_fifo_named_as_a_trace_is_refused_not_skipped(tmp_path, run_cli):
    """A FIFO (or a socket) named ``*.json`` in a trace folder was skipped without a word, as a
    linked folder leading outside was: a gate over it PASSed the other runs. A dangling link
    was already refused; so is anything by a trace's name that is no regular file."""
    import shutil

    from conftest import REPO, example_gate

    folder = tmp_path / "cand"
    shutil.copytree(REPO / "examples" / "refund-policy" / "traces" / "good", folder)
    os.mkfifo(folder / "zz-run.json")
    code, _, err = run_cli(*example_gate(folder))
    assert code == 2 and "zz-run.json: not a regular file" in err, err
