"""``abw import <format> --workers N`` / ``--scheduler ADDRESS``: a folder of raw exports
imported on Dask workers, with the same files, bytes, warnings and errors as a serial import.

The driver discovers the files (as the serial import does) and maps batches of them onto the
workers (abw.shard.dask_client: N worker processes with their scheduler in a process of its
own, or a running scheduler).
Each worker imports its files in order and writes every trace, through abw.atomic's one
writer (:func:`abw.traceio.write_trace`), into the driver's hidden staging folder, under the
name the serial import would give it; it sends back only, per file, the number of traces, the
warnings and what its runs say about ``--output-fields`` (abw.importers.base.OutputFieldsSeen).
The driver takes the results in file order — the first bad file's error, or two inputs that
would write the same file, end the import exactly where the serial import ends it — prints
the warnings in that order, and moves the staged files into place once every input has
imported. The workers must see the input and output folders at the same paths as the
driver (the same machine, or a shared file system); relative paths are the driver's, whatever
folder a worker was started in; a worker whose abw is not the driver's is refused.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.base import ImportOptions, OutputFieldsSeen

#: Files per task: a task's start costs little next to importing a few files.
BATCH_FILES = 4


def staged_names(source: Path, count: int) -> list[str]:
    """The file names of ``source``'s ``count`` traces: ``<stem>.json``, or ``<stem>-000.json``
    ... for many (the one naming rule of ``abw import``); a folder's stem is its whole name (a
    conversation folder ``sdk-1.58.2-run`` has no suffix to drop)."""
    stem = source.name if source.is_dir() else source.stem
    if count == 1:
        return [f"{stem}.json"]
    return [f"{stem}-{index:03d}.json" for index in range(count)]


def third_party(importer: Any) -> bool:
    """Whether ``importer`` is a third-party adapter (an ``abw.importers`` entry point): its
    class is defined outside the ``abw`` package. abw's own importers live under ``abw.``; a
    failure of theirs is abw's bug, and stays one (an "internal error" line)."""
    module = getattr(type(importer), "__module__", "") or ""
    return module != "abw" and not module.startswith("abw.")


def importer_label(importer: Any) -> str:
    """``'name' (module:Class)``: how an error names an importer."""
    cls = type(importer)
    name = getattr(importer, "name", None)
    target = f"{cls.__module__}:{cls.__qualname__}"
    return f"{name!r} ({target})" if isinstance(name, str) and name else target


def not_traces(value: Any) -> str | None:
    """Why ``value``, what an importer's ``import_file`` returned, is not a list of traces
    (``returned None, not a list of traces``); None when it is one."""
    from abw.models.trace import Trace

    if not isinstance(value, list | tuple):
        return f"returned {_kind(value)}, not a list of traces"
    for index, item in enumerate(value):
        if not isinstance(item, Trace):
            return f"returned a list holding {_kind(item)} at [{index}], not a Trace"
    return None


def _kind(value: Any) -> str:
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def plugin_failed(importer: Any, source: Path, exc: BaseException) -> AbwInputError:
    """The one-line error for a third-party importer that raised ``exc`` (not AbwInputError)
    on ``source``: names the importer, the file and the exception."""
    from abw.text import exception_words

    reason = exception_words(exc)
    return AbwInputError(
        f"the importer {importer_label(importer)} failed: {type(exc).__name__}: {reason} "
        "(a bug in that importer; ABW_DEBUG=1 shows its traceback)",
        file=source,
    )


def import_file(importer: Any, source: Path, options: ImportOptions) -> list[Any]:
    """``importer.import_file``, counting into ``options.outputs`` which ``--output-fields``
    its runs' answers hold (the one per-file step of every ``abw import``).

    A third-party importer (:func:`third_party`) that raises anything but AbwInputError, an
    OSError (one line naming its file, as anywhere) or MemoryError, or that returns anything but
    a list of :class:`~abw.models.Trace`, is one AbwInputError naming the importer and
    ``source`` (exit 2); with ``ABW_DEBUG`` set, its exception is raised as it is. abw's own
    importers are not wrapped: their failures are abw's bugs."""
    if not third_party(importer):
        traces = importer.import_file(source, options)
    else:
        try:
            traces = importer.import_file(source, options)
        except (AbwInputError, OSError, MemoryError):
            raise
        except Exception as exc:
            if os.environ.get("ABW_DEBUG"):
                raise
            raise plugin_failed(importer, source, exc) from exc
        why = not_traces(traces)
        if why is not None:
            raise AbwInputError(f"the importer {importer_label(importer)} {why}", file=source)
        traces = list(traces)
    if options.output_fields:
        outputs = [trace.run.canonical_output for trace in traces]
        options.outputs.add(options.output_fields, outputs)
    return traces


def import_batch(
    name: str, sources: list[str], options: ImportOptions, staging: str, folder: str, code: str
) -> tuple[list[tuple[int, list[str], OutputFieldsSeen]], AbwInputError | None]:
    """Worker side: import each file in order and write its traces into ``staging`` (relative
    paths are relative to the driver's working ``folder``: abw.shard.in_driver_folder), with
    the driver's abw (``code``: abw.shard.code_digest). Returns, per file imported, (number of
    traces, its warnings, its output fields seen), and the first bad file's error, or other
    code's (then the files after it are not read), so the worker logs no failed task."""
    from abw.gcpause import gc_paused
    from abw.importers import get_importer
    from abw.shard import in_driver_folder, named_as_given, same_code
    from abw.traceio import write_trace

    other = same_code(code)
    if other is not None:
        return [], other
    importer = get_importer(name)
    staged_in = Path(in_driver_folder(staging, folder))
    done: list[tuple[int, list[str], OutputFieldsSeen]] = []
    for source in sources:
        mine = replace(options, warnings=[], outputs=OutputFieldsSeen())
        used = in_driver_folder(source, folder)
        try:
            with gc_paused():
                traces = import_file(importer, Path(used), mine)
                names = staged_names(Path(source), len(traces))
                for staged, trace in zip(names, traces, strict=True):
                    write_trace(trace, staged_in / staged, make_folders=False)
        except AbwInputError as exc:
            return done, named_as_given(exc, source, used)
        except FileNotFoundError:
            if not staged_in.is_dir():  # the driver gave up and removed it: nothing to write
                return done, None
            raise
        done.append((len(traces), mine.warnings, mine.outputs))
        del traces
    return done, None


def import_on(
    client: Any,
    name: str,
    files: list[Path],
    options: ImportOptions,
    staging: Path,
    plan: Callable[[Path, int], object],
) -> None:
    """Import ``files`` on ``client``'s workers into ``staging``. ``plan(source, count)`` is
    called for each imported file in file order (it names the outputs and refuses a clash, as
    the serial import does right after each file); warnings go to ``options.warnings`` in
    file order, output fields seen to ``options.outputs``; the first bad file's error is
    raised where the serial import raises it."""
    from abw.shard import code_digest, task_result

    batches = [files[i : i + BATCH_FILES] for i in range(0, len(files), BATCH_FILES)]
    futures = client.map(
        import_batch,
        [name] * len(batches),
        [[str(p) for p in batch] for batch in batches],
        options=replace(options, warnings=[], outputs=OutputFieldsSeen()),
        staging=str(staging),
        folder=os.getcwd(),
        code=code_digest(),
        pure=False,
    )
    try:
        for batch, future in zip(batches, futures, strict=True):
            done, error = task_result(future)
            for source, (count, warnings, outputs) in zip(batch, done, strict=False):
                options.warnings.extend(warnings)
                options.outputs.merge(outputs)
                plan(source, count)
            if error is not None:
                raise error
            future.release()
    finally:
        client.cancel(futures)
