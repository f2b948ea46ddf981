"""Shared fixtures: where the vendored real corpus and reference schemas are, and a CLI runner."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
CORPUS = TESTS / "corpus"  # real exports, vendored with their provenance (corpus/PROVENANCE.md)
REFERENCE = TESTS / "reference"  # SARIF and JUnit schemas, with their source (its README.md)


@pytest.fixture
def run_cli(capsys):
    """Run ``abw`` in-process like a user would; returns (exit code, stdout, stderr)."""
    from abw.cli import cli, run

    def invoke(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = run(cli, [str(a) for a in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke


@pytest.fixture
def fake():
    """The local fake GitHub REST server on 127.0.0.1 (tests/fake_github.py)."""
    from fake_github import FakeGitHub

    server = FakeGitHub().start()
    yield server
    server.stop()


@pytest.fixture
def runner(tmp_path, fake):
    """A simulated Actions runner (tests/action_env.py) pointed at the fake GitHub."""
    from action_env import Runner

    return Runner(tmp_path, fake.url)


@pytest.fixture(scope="module")
def cluster():
    """A real Dask LocalCluster of two single-threaded worker processes, for the tests of
    ``--workers`` / ``--scheduler`` (one per test module)."""
    import logging

    import distributed

    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    ) as local:
        yield local
