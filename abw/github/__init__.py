"""The GitHub Action: runner inputs, workspace paths, outputs, annotations, check run, PR comment.

This package is the only part of abw that talks to the network. Everything it publishes is a
view of the gate report; none of it can change the verdict or the exit code.
"""

from __future__ import annotations

from abw.github.main import main

__all__ = ["main"]
