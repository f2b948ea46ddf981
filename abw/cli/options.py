"""Click options that several commands share, declared once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


class PathParam(click.Path):
    """A filesystem path given on the command line, as a :class:`~pathlib.Path`. An empty one
    is refused: ``Path("")`` is the working folder, so ``--out "$REPORTS"`` with the variable
    unset would write there (and ``--baseline ""`` read there)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(path_type=Path, **kwargs)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value:
            self.fail("empty path (an unset variable?): give a file or folder", param, ctx)
        return super().convert(value, param, ctx)


class OutputPath(PathParam):
    """A path abw writes to. ``-`` is refused too: abw writes files atomically, never to
    standard output, and a file named ``-`` in the working folder is not what ``-`` asks for
    (``./-`` names that file)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value == "-":
            self.fail(
                "'-' (standard output) is not supported: give a file or folder path",
                param,
                ctx,
            )
        return super().convert(value, param, ctx)


def _path_settings(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The :class:`click.Path` settings among an option's ``kwargs``, taken out of them; an
    optional single path defaults to ``None``."""
    if not kwargs.get("required") and not kwargs.get("multiple"):
        kwargs.setdefault("default", None)
    return {key: kwargs.pop(key) for key in ("file_okay", "dir_okay") if key in kwargs}


def path_option(*decls: str, **kwargs: Any) -> Callable[[F], F]:
    """``click.option`` for a path abw reads (:class:`PathParam`)."""
    return click.option(*decls, type=PathParam(**_path_settings(kwargs)), **kwargs)


def output_option(*decls: str, **kwargs: Any) -> Callable[[F], F]:
    """``click.option`` for a path abw writes to (:class:`OutputPath`)."""
    return click.option(*decls, type=OutputPath(**_path_settings(kwargs)), **kwargs)


_BASELINE = path_option("--baseline", required=True, help="Folder (or file) of baseline traces.")
_CANDIDATE = path_option("--candidate", required=True, help="Folder (or file) of candidate traces.")


def trace_set_options(func: F) -> F:
    """``--baseline`` and ``--candidate``: the two required folders (or files) of traces."""
    return _BASELINE(_CANDIDATE(func))


_FAIL_ON = click.option(
    "--fail-on",
    type=click.Choice(["fail", "warn"]),
    default="fail",
    show_default=True,
    help="warn: a WARN verdict exits 1.",
)
_ALLOW_INCONCLUSIVE = click.option(
    "--allow-inconclusive", is_flag=True, help="INCONCLUSIVE exits 0 instead of 3."
)


def exit_policy_options(func: F) -> F:
    """``--fail-on`` and ``--allow-inconclusive``: how a verdict maps to the exit code."""
    return _FAIL_ON(_ALLOW_INCONCLUSIVE(func))


def dask_options(work: str, same: str) -> Callable[[F], F]:
    """``--workers N`` and ``--scheduler ADDRESS``: do ``work`` ("Summarize the candidate
    runs") on a local Dask cluster or a dask.distributed scheduler, with ``same`` result."""
    workers = click.option(
        "--workers",
        type=click.IntRange(min=1),
        help=f"{work} on a local Dask cluster of N processes ({same}).",
    )
    scheduler = click.option(
        "--scheduler",
        metavar="ADDRESS",
        help=f"{work} on the dask.distributed scheduler at ADDRESS ({same}).",
    )
    return lambda func: workers(scheduler(func))
