"""Alias of :mod:`abw` under the distribution's import name."""

from abw import *  # noqa: F403
from abw import __all__, __getattr__, __version__  # noqa: F401
