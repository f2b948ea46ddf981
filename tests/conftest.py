"""Shared fixtures: where the real corpus and references are, and a CLI runner."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"
REFERENCE = SHARED / "reference"


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
