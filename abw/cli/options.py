"""Click options that several commands share, declared once."""

from __future__ import annotations

import os
from collections.abc import Callable
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from abw.errors import AbwInputError

F = TypeVar("F", bound=Callable[..., Any])

#: ``ctx.meta`` key of the output paths given on the command line (path -> option).
OUTPUTS = "abw.outputs"
#: ``ctx.meta`` key: {path given to read: the option or argument that named it}
INPUTS = "abw.inputs"
#: ``ctx.meta`` key: the output paths given with a trailing ``/`` (a folder, as written)
SPELLED_AS_FOLDERS = "abw.folder_outputs"


class PathParam(click.Path):
    """A filesystem path given on the command line, as a :class:`~pathlib.Path`. An empty one
    is refused: ``Path("")`` is the working folder, so ``--out "$REPORTS"`` with the variable
    unset would write there (and ``--baseline ""`` read there). So is one that is not UTF-8
    text (POSIX allows any bytes): a report naming it would not be UTF-8 JSON that abw or
    GitHub can read back (abw.folders refuses such names inside a folder alike)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(path_type=Path, **kwargs)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            from abw.pathtext import path_problem

            problem = path_problem(value)
            if problem is not None:
                self.fail(problem, param, ctx)
        path = super().convert(value, param, ctx)
        if ctx is not None and param is not None and not isinstance(self, OutputPath):
            ctx.meta.setdefault(INPUTS, {})[Path(path)] = option_name(param)
        return path


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
        path = super().convert(value, param, ctx)
        if ctx is not None and isinstance(param, click.Option):
            ctx.meta.setdefault(OUTPUTS, {})[Path(path)] = option_name(param)
            if isinstance(value, str) and value.endswith(("/", os.sep)):  # (Path drops it)
                ctx.meta.setdefault(SPELLED_AS_FOLDERS, set()).add(Path(path))
        return path


def option_name(param: click.Parameter) -> str:
    """How an error names ``param``: an option by its longest flag (``--input``, not ``-i``),
    an argument by its metavar (``FILES``)."""
    if isinstance(param, click.Option) and param.opts:
        return max(param.opts, key=len)
    return param.human_readable_name


def output_error(exc: OSError, ctx: click.Context) -> OSError | AbwInputError:
    """``exc`` as an error naming the output option (``--out``, ``--report-dir``) whose path
    it happened on — that path, or a file under it — else the input option or argument
    (a read error, "cannot read"), else ``exc`` unchanged: every write error names the option
    and the path given, whichever command or helper wrote. A closed pipe
    (``--out /dev/stdout | head``) stays silent, as on stdout (abw.faults)."""
    from abw.errors import os_input_error
    from abw.faults import closed_pipe

    if closed_pipe(exc) or not isinstance(exc.filename, str | PathLike):
        return exc
    failed = Path(exc.filename)
    given = ctx.meta.get(OUTPUTS, {})
    for path in (failed, *failed.parents):
        if path in given:
            return os_input_error(exc, field=given[path])
    inputs = ctx.meta.get(INPUTS, {})  # ("cannot write" would send the reader astray)
    for path in (failed, *failed.parents):
        if path in inputs:
            return os_input_error(exc, reading=True, field=inputs[path])
    return exc


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


def check_outputs(*targets: tuple[str, Path | None, bool]) -> None:
    """Refuse each output path (option, path, whether a folder goes there) of the wrong kind —
    a folder as a file, a file as a folder, a file on the way — before any work is done: a
    usage error, nothing written."""
    from abw.atomic import check_target, special_file
    from abw.errors import AbwInputError, naming_field

    context = click.get_current_context(silent=True)
    spelled_as_folders = context.meta.get(SPELLED_AS_FOLDERS, set()) if context else set()
    files: dict[Path, Path] = {}  # each regular file written, as resolved -> as given
    for option, path, folder in targets:
        if path is None:
            continue
        with naming_field(option):
            check_target(path, folder=folder)
        same = None if folder or special_file(path) else files.setdefault(path.resolve(), path)
        if same is not None and same is not path:  # (the last written would hold only its own)
            raise AbwInputError(
                f"names the file {same} twice: each output needs a file of its own",
                file=path,
                field=option,
            )
        if not folder and path in spelled_as_folders:  # (a folder not there yet)
            raise AbwInputError(
                "ends with '/', which names a folder, but a file goes here: give a file path",
                file=f"{path}/",
                field=option,
            )


def check_writable(*targets: tuple[str, Path | None, bool]) -> None:
    """Refuse each output (option, path, whether it is a folder) whose folder cannot be
    written now — a read-only file system, no permission, a full disk — by writing one byte
    into an unnamed file there (the nearest folder that exists): before an ``abw sample`` pays
    for a run it could not keep. A usage error, nothing left behind."""
    import os
    import tempfile

    from abw.atomic import special_file
    from abw.errors import os_input_error

    for option, path, folder in targets:
        if path is None or special_file(path):
            continue
        place = path if folder else path.parent
        while not place.exists() and place != place.parent:
            place = place.parent
        try:
            with tempfile.TemporaryFile(dir=place) as probe:
                probe.write(b"x")
                probe.flush()
                os.fsync(probe.fileno())
        except OSError as exc:
            error = os_input_error(exc, field=option)
            error.file = str(path)
            raise error from None


def check_not_inputs(
    outputs: list[tuple[str, Path | None]],
    inputs: list[tuple[str, Path | None]],
    trace_folder: tuple[str, Path] | None = None,
    what: str = "report",
) -> None:
    """Refuse, before any work is done, an output (option, path) that would overwrite an input
    file (the spec, a trace given as a file), or a report that lands where a trace folder's
    walk (abw.traceio.trace_files: ``*.json``, hidden names skipped) would read it as a trace:
    the next gate on that folder would stop at it. ``trace_folder``: one more, written later
    (``abw sample --out``). ``what``: the output's name in the message. A usage error, nothing
    written."""
    from abw.errors import AbwInputError

    given = [(option, path) for option, path in inputs if path is not None]
    folders = [(option, path) for option, path in given if path.is_dir()]
    folders += [trace_folder] if trace_folder and not trace_folder[1].is_file() else []
    files = [(option, path.resolve()) for option, path in given if path.is_file()]
    for option, path in outputs:
        if path is None:
            continue
        for input_option, folder in folders:
            if _read_as_trace(path, folder):
                raise AbwInputError(
                    f"inside the {input_option} folder {folder}, where the next gate would "
                    f"read it as a trace; write the {what} outside the trace folders",
                    file=path,
                    field=option,
                )
        for input_option, file in files:
            if path.resolve() == file:
                raise AbwInputError(
                    f"it is the {input_option} file; the {what} would overwrite it",
                    file=path,
                    field=option,
                )


def refuse_other_kind(target: Path, schema: str, option: str) -> None:
    """Refuse to overwrite ``target`` when it is a file but not a ``schema`` document (a raw
    export or a trace where a trajectory goes, a spec, a report): an input error before
    anything is written. (abw's own files name their ``schema_version`` near the top.)"""
    from abw.errors import AbwInputError

    if not target.is_file():
        return
    with open(target, "rb") as handle:
        head = handle.read(4096)
    if f'"{schema}"'.encode() not in head:
        article = "an" if schema[:1] in "aeiou" else "a"
        raise AbwInputError(
            f"exists and is not {article} {schema} file; refusing to overwrite it",
            file=target,
            field=option,
        )


def check_folders_apart(written: tuple[str, Path], read: tuple[str, Path]) -> None:
    """Refuse, before any work, a folder written to (``abw sample --out``) that is a trace
    folder read (``--baseline``), lies inside it or holds it: new runs would become baseline
    runs, or baseline runs count as candidates. A usage error, nothing written."""
    from abw.errors import AbwInputError

    (out_option, out), (in_option, folder) = written, read
    out_real, folder_real = out.resolve(), folder.resolve()
    if out_real == folder_real or out_real.is_relative_to(folder_real):
        where = "is" if out_real == folder_real else "lies inside"
        raise AbwInputError(
            f"{where} the {in_option} folder {folder}: the runs written would be read as "
            f"{in_option} runs; give another folder",
            file=out,
            field=out_option,
        )
    if folder_real.is_relative_to(out_real):
        raise AbwInputError(
            f"holds the {in_option} folder {folder}: its runs would be read as runs of "
            f"{out_option}; give another folder",
            file=out,
            field=out_option,
        )


def _read_as_trace(path: Path, folder: Path) -> bool:
    """Whether a walk of ``folder`` for traces would read ``path`` (once it exists)."""
    target, root = path.resolve(), folder.resolve()
    if not path.name.endswith(".json") or not target.is_relative_to(root):
        return False
    return not any(part.startswith(".") for part in target.relative_to(root).parts)


def check_spec_out(out: Path, force: bool, source: tuple[str, Path] | None = None) -> None:
    """Refuse, before any work, an ``--out`` no behavior spec may be written to: a folder (or
    a file on the way), a name other than ``.yaml``/``.yml`` (a spec is YAML, which
    ``abw validate`` reads by that suffix, and any other name as JSON), or an existing file
    without ``--force`` (a reviewed spec must not be replaced by a fresh guess). A device or
    FIFO (``/dev/stdout``) is written into, never replaced, and passes. ``source``: the
    (argument, file) the spec is made from, which ``--force`` never lets it replace."""
    from abw.atomic import special_file
    from abw.documents import is_yaml
    from abw.errors import AbwInputError

    check_outputs(("--out", out, False))
    if special_file(out):
        return
    if not is_yaml(out):
        raise AbwInputError(
            "a behavior spec is YAML: name the file .yaml or .yml", file=out, field="--out"
        )
    if source is not None:
        check_not_inputs([("--out", out)], [source], what="spec")
    if out.exists() and not force:
        raise AbwInputError("exists; pass --force to overwrite it", file=out, field="--out")


def spec_out_options(required: bool) -> Callable[[F], F]:
    """``--out`` (a behavior spec's YAML file) and ``--force``, checked by
    :func:`check_spec_out`."""
    where = "" if required else "; standard output without it"
    out = output_option(
        "--out",
        required=required,
        help=f"The behavior-spec/v0 YAML file to write (.yaml or .yml){where}.",
    )
    force = click.option("--force", is_flag=True, help="Overwrite an existing --out file.")
    return lambda func: out(force(func))


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
