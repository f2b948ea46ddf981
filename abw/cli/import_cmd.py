"""``abw import <source>``: one subcommand per registered importer, all with the same flags."""

from __future__ import annotations

from pathlib import Path

import click

from abw.cli.options import PathParam, dask_options, output_option, refuse_other_kind
from abw.importers import importer_targets
from abw.models import TRACE_SCHEMA


def _targets(source: Path, count: int, out: Path, planned: dict[Path, Path]) -> list[Path]:
    """The file in the folder ``out`` for each of the ``count`` traces of ``source``
    (abw.import_shard.staged_names), added to ``planned`` (target -> source). Two inputs that
    would write the same file are an input error, raised before either is written."""
    from abw.errors import AbwInputError
    from abw.import_shard import staged_names

    targets = []
    for name in staged_names(source, count):
        target = out / name
        if target in planned:
            raise AbwInputError(
                f"{planned[target]} and {source} would both be written to {target.name}; "
                "import them separately",
                file=out,
                field="--out",
            )
        refuse_other_kind(target, TRACE_SCHEMA, "--out")
        planned[target] = source
        targets.append(target)
    return targets


def _write_traces(
    traces_by_input: list[tuple[Path, list]], out: Path, single_file: bool
) -> list[Path]:
    """Write every trace: to ``out`` itself when one trace goes to a ``.json`` path, else a folder.

    Nothing is written until every input has imported, so a bad file leaves no half result.
    """
    from abw.atomic import staging_folder
    from abw.traceio import write_trace

    if single_file:
        (trace,) = traces_by_input[0][1]
        return [write_trace(trace, out)]
    planned: dict[Path, Path] = {}
    writes = [
        (target, trace)
        for source, traces in traces_by_input
        for target, trace in zip(_targets(source, len(traces), out, planned), traces, strict=True)
    ]
    with staging_folder(out) as staging:  # (all of them appear, or none: a signal, a full disk)
        for target, trace in writes:
            write_trace(trace, staging / target.name)
        _move_into(out, staging, planned)
    return list(planned)


class _Writer:
    """Writes traces on one background thread, so that each file's ``fsync`` (abw.atomic's
    durable, atomic write) overlaps the import of the next file instead of stalling it.

    At most ``depth`` traces wait at a time (memory stays flat); the first error a write
    raised is raised again, in the order of the writes, before the caller's own error: a write
    that failed happened before the import that came after it."""

    def __init__(self, depth: int = 4) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="abw-write")
        self.pending: list = []
        self.depth = depth

    def write(self, trace, target: Path) -> None:
        from abw.traceio import write_trace

        self.pending.append(self.pool.submit(write_trace, trace, target))
        while len(self.pending) > self.depth:
            self.pending.pop(0).result()

    def finish(self) -> None:
        """Wait for every write; raise the first one's error."""
        try:
            while self.pending:
                self.pending.pop(0).result()
        finally:
            self.pool.shutdown(wait=True, cancel_futures=True)


def _stream_traces(importer, files, options, out: Path) -> list[Path]:
    """Import file by file, writing each trace to a staging folder next to ``out`` at once, and
    move them all into place only when every input has imported: memory stays flat however
    large the folder, and a bad file still leaves no half result."""
    from abw.atomic import staging_folder
    from abw.gcpause import gc_paused
    from abw.import_shard import import_file

    planned: dict[Path, Path] = {}  # target -> source
    with staging_folder(out) as staging:
        writer = _Writer()
        try:
            for source in files:
                with gc_paused():  # one file at a time: cyclic garbage, if any, goes in between
                    traces = import_file(importer, source, options)
                    for target, trace in zip(
                        _targets(source, len(traces), out, planned), traces, strict=True
                    ):
                        writer.write(trace, staging / target.name)
                del traces
        except BaseException:
            writer.finish()  # an earlier write's error comes first; else the import's
            raise
        writer.finish()
        _move_into(out, staging, planned)
    return list(planned)


def _stream_on_workers(
    name: str, files: list[Path], options, out: Path, workers: int | None, scheduler: str | None
) -> list[Path]:
    """:func:`_stream_traces` with the files imported on Dask workers (abw.import_shard): the
    same files, bytes, warnings and errors."""
    from abw.atomic import staging_folder
    from abw.import_shard import import_on
    from abw.shard import dask_client

    planned: dict[Path, Path] = {}  # target -> source
    with staging_folder(out) as staging:
        with dask_client(workers=workers, scheduler=scheduler) as client:
            import_on(
                client,
                name,
                files,
                options,
                staging,
                lambda source, count: _targets(source, count, out, planned),
            )
        _move_into(out, staging, planned)
    return list(planned)


def _move_into(out: Path, staging: Path, planned: dict[Path, Path]) -> None:
    """Move the staged traces into ``out`` (created only when there is one to move), once
    every target is known to take a file (a folder in one's place left the others moved).
    SIGINT and SIGTERM wait until every trace is moved (a rename each: milliseconds), so a
    stop leaves all of them in ``out`` or none."""
    import os

    from abw.atomic import check_target
    from abw.faults import signals_held

    for target in planned:
        check_target(target)
    if planned:
        out.mkdir(parents=True, exist_ok=True)
    with signals_held():
        for target in planned:
            os.replace(staging / target.name, target)


def _check_out(out: Path) -> None:
    """Refuse an ``--out`` that would overwrite something that is not a trace: a file where a
    folder of traces goes, or an existing ``.json`` file of another kind (a spec, a report)."""
    from abw.errors import AbwInputError

    if not out.exists() or out.is_dir():
        return
    if out.suffix != ".json":
        raise AbwInputError(
            "is a file, not a folder: --out takes a .json file for one trace or a folder",
            file=out,
            field="--out",
        )
    refuse_other_kind(out, TRACE_SCHEMA, "--out")


def _report(options, written: list[Path], out: Path, quiet: bool) -> None:
    """The warnings and the one-line summary on stderr (none with ``--quiet``)."""
    if quiet:
        return
    from abw.text import log_line, plural

    outputs = options.outputs.warning(options.output_fields)
    for warning in [*options.warnings, *([outputs] if outputs else [])]:
        click.echo(log_line(f"abw: warning: {warning}"), err=True)
    click.echo(log_line(f"abw: wrote {plural(len(written), 'trace')} to {out}"), err=True)
    others = _other_traces(out, written)
    if others:
        click.echo(
            log_line(
                f"abw: warning: {out} also holds {plural(others, 'trace')} this import did not "
                "write (an earlier import's?); the gate reads every trace in the folder"
            ),
            err=True,
        )


def _other_traces(out: Path, written: list[Path]) -> int:
    """How many traces the folder ``out`` holds besides ``written`` (none for a file)."""
    if not out.is_dir():
        return 0
    from abw.traceio import trace_files

    return len({Path(name) for name in trace_files(out)} - set(written))


def make_import_command(name: str, help_text: str) -> click.Command:
    # short_help in full: click would cut the listing in `abw import --help` at 45 characters
    # or at the first dot ("~/.codex" included).
    @click.command(name=name, help=help_text, short_help=help_text)
    @click.option(
        "--input",
        "input_path",
        required=True,
        type=PathParam(),
        help="A raw export file, or a folder holding many.",
    )
    @output_option(
        "--out",
        "out",
        required=True,
        help="A .json file for one trace, or a folder for many.",
    )
    @click.option(
        "--redact/--no-redact",
        default=True,
        show_default=True,
        help="Hash all content. Always on: --no-redact is refused.",
    )
    @click.option("--scenario-id", default=None, help="Scenario the runs belong to.")
    @click.option("--environment", default=None, help="Where the runs ran, e.g. ci.")
    @click.option(
        "--bash-tool-labels",
        default=None,
        help="Comma list: a shell command naming LABEL becomes a span LABEL; "
        "LABEL:TYPE sets its span type (e.g. policy_check:guardrail).",
    )
    @click.option(
        "--output-fields",
        default=None,
        help="Comma list of final-answer JSON fields to keep as canonical_output "
        "(dots reach into objects); everything else is hashed.",
    )
    @click.option(
        "--argument-fields",
        default=None,
        help="Comma list of TOOL:field.path: copy these tool-input fields raw into "
        "attributes.arguments of spans whose name matches the glob TOOL (for argument rules); "
        "everything else is hashed. Bash:command stores the command text.",
    )
    @click.option(
        "--exported-at",
        default=None,
        help="When the export was made, recorded as source.exported_at: an ISO 8601 date and "
        "time with its time zone, e.g. 2026-01-01T00:00:00Z (default: now, UTC).",
    )
    @dask_options(
        "Import the files of a folder",
        "same files; with --scheduler the workers must see --input and --out at the same paths",
    )
    @click.option("--quiet", "-q", is_flag=True, help="No warnings or summary on stderr.")
    def command(
        input_path: Path,
        out: Path,
        redact: bool,
        scenario_id: str | None,
        environment: str | None,
        bash_tool_labels: str | None,
        output_fields: str | None,
        argument_fields: str | None,
        exported_at: str | None,
        workers: int | None,
        scheduler: str | None,
        quiet: bool,
    ) -> int:

        from abw.errors import AbwInputError
        from abw.importers import get_importer
        from abw.importers.base import ImportOptions
        from abw.importers.common import (
            check_scenario_id,
            parse_argument_fields,
            parse_exported_at,
            parse_labels,
            parse_output_fields,
        )
        from abw.text import plural

        if not redact:
            raise AbwInputError(
                "abw never stores raw content; --no-redact is not supported", field="--redact"
            )
        if workers is not None and scheduler is not None:
            raise AbwInputError("give at most one of --workers and --scheduler", field="--workers")
        check_scenario_id(scenario_id)
        importer = get_importer(name)
        named_arguments = parse_argument_fields(argument_fields)
        if named_arguments and not getattr(importer, "supports_argument_fields", False):
            raise AbwInputError(
                f"the {name} importer does not extract argument fields yet",
                field="--argument-fields",
            )
        options = ImportOptions(
            scenario_id=scenario_id,
            environment=environment,
            labels=parse_labels(bash_tool_labels),
            output_fields=parse_output_fields(output_fields),
            argument_fields=named_arguments,
            exported_at=parse_exported_at(exported_at),
        )
        if input_path.is_dir():
            files = importer.discover(input_path)
            if not files:
                raise AbwInputError(f"no {name} exports found", file=input_path)
        elif input_path.is_file():
            files = [input_path]
        else:
            raise AbwInputError("no such file or folder", file=input_path)
        _check_out(out)
        from abw.progress import track

        bar = track(files, f"import {name}", quiet=quiet or len(files) < 2)
        if input_path.is_dir():  # stream: one input's traces in memory at a time
            if out.suffix == ".json":
                raise AbwInputError(
                    "a folder of exports: --out must be a folder", file=out, field="--out"
                )
            if workers is not None or scheduler is not None:
                written = _stream_on_workers(name, files, options, out, workers, scheduler)
            else:
                written = _stream_traces(importer, bar, options, out)
            if not written:  # every file was skipped: the warnings say why
                why = f"; {options.warnings[0]}" if options.warnings else ""
                held = (
                    "its one export holds no run"
                    if len(files) == 1
                    else f"none of its {plural(len(files), 'export')} holds a run"
                )
                raise AbwInputError(f"no trace to write: {held}{why}", file=input_path)
            _report(options, written, out, quiet)
            return 0
        from abw.gcpause import gc_paused
        from abw.import_shard import import_file

        with gc_paused():
            results = [(path, import_file(importer, path, options)) for path in bar]
        total = sum(len(traces) for _, traces in results)
        single_file = out.suffix == ".json" and total == 1
        if out.suffix == ".json" and total == 0:  # the importer's warning says why
            said = (
                options.warnings[0].removeprefix(f"{input_path.name}: ") if options.warnings else ""
            )
            why = f": {said}" if said else ""
            raise AbwInputError(f"no trace to write{why}", file=input_path)
        if out.suffix == ".json" and not single_file:
            raise AbwInputError(
                f"{total} traces to write: --out must be a folder", file=out, field="--out"
            )
        _report(options, _write_traces(results, out, single_file), out, quiet)
        return 0

    return command


class ImportGroup(click.Group):
    """Lists the built-in importers and every ``abw.importers`` entry point."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(importer_targets())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        from abw.importers import get_importer, importer_target

        if importer_target(cmd_name) is None:
            return None
        importer = get_importer(cmd_name)
        return make_import_command(cmd_name, importer.help)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The importer list; a broken plugin is named in one warning line and skipped."""
        from abw.errors import AbwInputError
        from abw.text import log_line

        commands = []
        for name in self.list_commands(ctx):
            try:
                command = self.get_command(ctx, name)
            except AbwInputError as exc:
                click.echo(log_line(f"abw: warning: {exc.one_line()}; skipped"), err=True)
                continue
            if command is not None:
                commands.append((name, command))
        limit = formatter.width - 6 - max((len(name) for name, _ in commands), default=0)
        rows = [(name, command.get_short_help_str(limit)) for name, command in commands]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(name="import", cls=ImportGroup)
def import_group() -> None:
    """Import raw agent exports into redacted agent-behavior-trace/v0 traces."""
