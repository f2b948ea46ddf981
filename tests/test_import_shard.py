"""``abw import … --workers N`` / ``--scheduler``: a folder imported on Dask workers (a real
LocalCluster) writes the same files, byte for byte, with the same warnings, and bad input is the
same one-line error with nothing written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from abw.import_shard import BATCH_FILES
from tests.conftest import CORPUS

PINNED = ("--exported-at", "2026-01-01T00:00:00Z")


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _both(run_cli, tmp_path: Path, importer: str, source: Path, *more: str):
    """(serial, on workers): each (exit code, stderr, the output folder)."""
    results = []
    for tag, extra in (("serial", ()), ("workers", more)):
        out = tmp_path / tag
        code, _, err = run_cli("import", importer, "--input", source, "--out", out, *PINNED, *extra)
        results.append((code, err.replace(str(out), "OUT"), out))
    return results


@pytest.mark.parametrize(("importer", "folder"), [("claude", "claude-code"), ("codex", "codex")])
def test_a_folder_on_workers_is_byte_identical(run_cli, tmp_path, cluster, importer, folder):
    source = CORPUS / folder
    assert len(list(source.glob("*.jsonl"))) > BATCH_FILES  # several batches, in order
    serial, spread = _both(
        run_cli, tmp_path, importer, source, "--scheduler", cluster.scheduler_address
    )
    assert serial[0] == spread[0] == 0, spread[1]
    assert serial[1] == spread[1]  # the same warnings, in the same order
    assert _files(serial[2]) == _files(spread[2])


def test_a_worker_started_in_another_folder_reads_and_writes_the_drivers_relative_paths(
    run_cli, tmp_path, remote_cluster, monkeypatch
):
    """Relative ``--input`` and ``--out`` are the driver's, whatever folder a worker runs in."""
    shutil.copytree(CORPUS / "claude-code", tmp_path / "sessions")
    monkeypatch.chdir(tmp_path)
    outputs = {}
    for tag, extra in (
        ("serial", ()),
        ("workers", ("--scheduler", remote_cluster.scheduler_address)),
    ):
        code, _, err = run_cli(
            "import", "claude", "--input", "sessions", "--out", tag, *PINNED, *extra
        )
        assert code == 0, err
        outputs[tag] = _files(tmp_path / tag)
    assert outputs["workers"] == outputs["serial"]


def test_workers_start_their_own_local_cluster(run_cli, tmp_path):
    serial, spread = _both(run_cli, tmp_path, "swe-agent", CORPUS / "swe-agent", "--workers", "2")
    assert serial[0] == spread[0] == 0, spread[1]
    assert _files(serial[2]) == _files(spread[2])


def test_a_bad_file_on_a_worker_is_the_same_one_line_error(run_cli, tmp_path, cluster):
    source = tmp_path / "sessions"
    shutil.copytree(CORPUS / "claude-code", source)
    bad = [p for p in sorted(source.glob("*.jsonl")) if p.read_bytes().count(b"\n") > 1][
        BATCH_FILES + 1
    ]  # past the first batch, with a second line to break
    lines = bad.read_bytes().splitlines(keepends=True)
    lines[1] = b'{"type": "user", "message": {oops\n'
    bad.write_bytes(b"".join(lines))
    serial, spread = _both(
        run_cli, tmp_path, "claude", source, "--scheduler", cluster.scheduler_address
    )
    assert serial[0] == spread[0] == 2
    assert serial[1] == spread[1] and f"{bad.name}:2: invalid JSON" in spread[1]
    assert len(spread[1].strip().splitlines()) == 1
    assert not spread[2].exists()


def test_two_inputs_for_one_output_file_are_refused_on_workers_too(run_cli, tmp_path, cluster):
    source = tmp_path / "two"
    session = CORPUS / "claude-code" / "spotter__short.jsonl"
    for sub in ("a", "b"):
        (source / sub).mkdir(parents=True)
        shutil.copy(session, source / sub / session.name)
    serial, spread = _both(
        run_cli, tmp_path, "claude", source, "--scheduler", cluster.scheduler_address
    )
    assert serial[0] == spread[0] == 2
    assert serial[1] == spread[1] and "would both be written" in spread[1]
    assert not spread[2].exists()


def test_workers_and_scheduler_together_are_refused(run_cli, tmp_path):
    code, _, err = run_cli(
        "import", "claude", "--input", CORPUS / "claude-code", "--out", tmp_path / "o",
        "--workers", "2", "--scheduler", "tcp://127.0.0.1:1",
    )  # fmt: skip
    assert code == 2 and "give at most one of --workers and --scheduler" in err


def test_a_bad_file_named_relatively_is_the_same_line_on_a_worker_elsewhere(
    run_cli, tmp_path, remote_cluster, monkeypatch
):
    """A worker running in another folder read the driver's relative path as an absolute one,
    and its error named that (``/…/sessions/x.jsonl:2``), not the path the user gave."""
    source = tmp_path / "sessions"
    source.mkdir()
    good = CORPUS / "claude-code" / "spotter__short.jsonl"
    lines = good.read_bytes().splitlines(keepends=True)
    (source / "x.jsonl").write_bytes(lines[0] + b'{"type": "user", "message": {oops\n')
    monkeypatch.chdir(tmp_path)
    errors = []
    for tag, extra in (("serial", ()), ("w", ("--scheduler", remote_cluster.scheduler_address))):
        code, _, err = run_cli(
            "import", "claude", "--input", "sessions", "--out", tag, *PINNED, *extra
        )
        errors.append((code, err))
    assert errors[0] == errors[1] and errors[0][0] == 2
    assert "sessions/x.jsonl:2: invalid JSON" in errors[1][1] and str(tmp_path) not in errors[1][1]


def test_a_worker_writes_nothing_once_the_driver_removed_its_staging_folder(tmp_path):
    """A worker of another machine goes on with its batch after the driver gave up (a bad file,
    SIGTERM) and removed the staging folder: it made the folder again and filled it with
    traces, left hidden in the output folder. Now its next file finds the folder gone and the
    batch ends, writing nothing."""
    import os
    from dataclasses import replace

    from abw.atomic import staging_folder
    from abw.import_shard import import_batch
    from abw.importers.base import ImportOptions
    from abw.shard import code_digest

    out = tmp_path / "out"
    with staging_folder(out) as staging:
        pass  # the driver gave up: the folder is removed
    source = str(CORPUS / "claude-code" / "spotter__short.jsonl")
    options = replace(ImportOptions(), exported_at="2026-01-01T00:00:00Z")
    done, error = import_batch(
        "claude", [source], options, str(staging), os.getcwd(), code_digest()
    )
    assert (done, error) == ([], None)
    assert not staging.exists() and list(tmp_path.iterdir()) == []
