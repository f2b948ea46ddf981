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


@pytest.fixture(scope="module")
def remote_cluster(tmp_path_factory):
    """A LocalCluster whose one worker process runs in a folder of its own, not this process's
    working folder: as a worker started elsewhere, or on another machine of a shared file
    system, does."""
    import logging
    import os

    import distributed

    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("worker-folder"))
    try:
        local = distributed.LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # any free port: another cluster may hold the default
            silence_logs=logging.ERROR,
        )
    finally:
        os.chdir(here)
    with local:
        with distributed.Client(local) as client:
            assert here not in client.run(os.getcwd).values()
        yield local


#: Real Claude Code sessions of the corpus from different projects: six as a baseline, six as a
#: candidate (many violations, long ordinal lists).
BASELINE_SESSIONS = (
    "agentcmd__06381696-0074-49f8-863e-6ad4fac507f9",
    "agentcmd__full-session-five",
    "agentcmd__full-session-four",
    "codemie__session-196820da",
    "codemie__session-9eda1058",
    "codemie__4c2ddfdc-b619-4525-8d03-1950fb1b0257",
)
CANDIDATE_SESSIONS = (
    "spotter__short",
    "spotter__tool_heavy",
    "spotter__subagent",
    "ccviewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a",
    "ccviewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b",
    "codemie__session-624a4a58",
)


def copy_sessions(folder: Path, names: tuple[str, ...]) -> Path:
    """A new folder holding the named Claude Code sessions of the corpus (``<name>.jsonl``)."""
    import shutil

    folder.mkdir(parents=True)
    for name in names:
        shutil.copy(CORPUS / "claude-code" / f"{name}.jsonl", folder)
    return folder


def example_gate(candidate: str | Path) -> list[str]:
    """``abw gate`` arguments for the refund-policy example: its baseline and spec against
    ``candidate``, one of its trace folders by name (``"regressed"``) or any folder."""
    example = REPO / "examples" / "refund-policy"
    folder = candidate if isinstance(candidate, Path) else example / "traces" / candidate
    baseline, spec = example / "traces" / "baseline", example / "behavior.yaml"
    return ["gate", "--baseline", str(baseline), "--candidate", str(folder), "--spec", str(spec)]


def one_line(stderr: str) -> str:
    """``stderr`` when it is one line and no traceback or internal error (abw's promise for a
    refusal or a fault)."""
    assert stderr.count("\n") == 1, stderr
    assert "internal error" not in stderr and "Traceback" not in stderr, stderr
    return stderr


def export_again(source: Path, target: Path, n: int) -> Path:
    """``target``: trace file ``source`` as the ``n``-th other export of the same run (its
    ``exported_at`` moved ``n`` seconds on): the same trace id, other bytes. A byte-for-byte
    copy would be refused as the same run given twice."""
    import re

    text = source.read_text(encoding="utf-8")
    stamp = f'"exported_at": "2030-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}.{n:06d}Z"'
    again, count = re.subn(r'"exported_at": "[^"]*"', stamp, text, count=1)
    assert count == 1, source
    target.write_text(again, encoding="utf-8")
    return target
