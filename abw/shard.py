"""``abw gate --workers N`` / ``--scheduler ADDRESS``: the gate as a reduction on Dask workers.

The gate is a mergeable reduction (:mod:`abw.gating.summary`): each candidate run is read once
and reduced to a compact summary; the report is built from the merged summaries only. Here the
per-run half runs on ``dask.distributed`` workers — N processes on this machine
(:func:`local_cluster`, its scheduler in a process of its own), or any running scheduler. The
driver loads the baseline (as the single-process gate does), lists the candidate files,
broadcasts the context (the spec and the baseline runs) to every worker once, and maps batches
of file names onto the workers; each worker reads, validates (the same errors, naming file,
line and field) and summarizes its files and sends back one
:class:`~abw.gating.summary.Partial` per batch. The driver never holds a candidate trace: it
merges each partial as it arrives (one copy of the values many runs repeat) and builds the
report with :func:`abw.gating.merged_report`, as the single-process gate does, so the report
is byte-identical (``tests/test_shard.py``).

What crosses the network: to the workers, the context once and the file names of each batch;
back, nothing but the summaries (or a bad file's one-line error). The workers must see the
trace folders at the same paths as the driver (the same machine, or a shared file system);
relative paths are the driver's, whatever folder a worker was started in
(:func:`in_driver_folder`), and a worker whose abw is not the driver's is refused
(:func:`code_digest`).
Dask is optional (``pip install "dask[distributed]"``); nothing else in abw imports this module
but ``abw import --workers``, which uses :func:`dask_client`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abw.errors import AbwInputError
from abw.text import exception_words

if TYPE_CHECKING:
    from abw.gating.sequence import Previous
    from abw.gating.summary import Context, Partial
    from abw.models.report import GateReport
    from abw.traceio import TraceFile

#: Files per task: large enough that scheduling costs nothing next to parsing, small enough
#: that every worker gets many tasks.
BATCH_FILES = 100
#: How long a scheduler given by --scheduler may take to show a first worker, and how long a
#: cluster may be left with none before abw stops waiting for its tasks.
WORKER_WAIT_S = 30
#: How often a wait for a task's result looks whether the cluster still has workers.
_POLL_S = 2.0


def _distributed() -> Any:
    try:
        import distributed
    except ModuleNotFoundError:
        raise AbwInputError(
            'gating on workers needs Dask: pip install "dask[distributed]"', field="--workers"
        ) from None
    return distributed


@cache
def code_digest() -> str:
    """SHA-256 of abw's own modules, their names and bytes: the driver and its workers must
    run the same code, or the summaries merged into one report could differ from the single
    process's (the version alone is the same for every development checkout)."""
    import hashlib

    import abw

    root = Path(abw.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def same_code(driver: str) -> AbwInputError | None:
    """Worker side: the error for a worker whose abw is not the driver's (``driver``: its
    :func:`code_digest`), else None."""
    from abw import __version__

    ours = code_digest()
    if ours == driver:
        return None
    return AbwInputError(
        f"a Dask worker runs other abw code than this process (abw {__version__}, code "
        f"{ours[:12]} against {driver[:12]}): install the same abw on every worker"
    )


def in_driver_folder(path: str, folder: str) -> str:
    """``path`` as the driver means it, on a worker: a relative path is relative to the
    driver's working folder ``folder``, and a worker's own may be another (one started
    elsewhere, on another machine of a shared file system). Unchanged where it is the same
    folder, so messages name the path as the driver was given it."""
    if os.path.isabs(path) or os.getcwd() == folder:
        return path
    return os.path.join(folder, path)


def named_as_given(exc: AbwInputError, given: str, used: str) -> AbwInputError:
    """``exc`` (raised reading ``used``, :func:`in_driver_folder`'s path of ``given``) naming
    the path as the driver was given it: the same line as without workers."""
    file = str(exc.file) if exc.file is not None else None
    if used != given and file is not None and (file == used or file.startswith(used + os.sep)):
        exc.file = given + file[len(used) :]
    return exc


def _load(path: str, folder: str) -> TraceFile:
    """One file as the single-process gate loads it (abw.leanrun.load_lean_traces), read from
    the driver's working ``folder`` and named as the driver names it."""
    from abw.leanrun import load_lean_trace

    used = in_driver_folder(path, folder)
    try:
        trace_file = load_lean_trace(used, held=False)
    except AbwInputError as exc:
        raise named_as_given(exc, path, used) from None
    trace_file.path = path
    return trace_file


def summarize_batch(
    prefix: str, names: list[str], context: Context, folder: str, code: str
) -> Partial | AbwInputError:
    """Worker side: read, validate and summarize each file (``prefix + name``, relative to the
    driver's working ``folder``), in order, with the driver's abw (``code``: its
    :func:`code_digest`). Nothing of a run but its summary comes back; the first bad file's
    error, or other code's, comes back as the result (the driver raises it), so the worker
    logs no failed task."""
    from abw.gating.summary import Partial, summarize
    from abw.gcpause import gc_paused

    other = same_code(code)
    if other is not None:
        return other
    partial = Partial()
    with gc_paused():
        try:
            for name in names:
                partial.add(summarize(_load(prefix + name, folder), context))
        except AbwInputError as exc:
            return exc
    return partial


def _batches(folder: str | Path) -> tuple[str, list[list[str]]]:
    """The trace files under ``folder`` (abw.traceio.trace_files: the same files, the same
    order) as a common prefix and batches of the rest of their paths (fewer bytes to send)."""
    from abw.traceio import trace_files

    paths = trace_files(folder)
    prefix = str(folder).rstrip("/") + "/"
    if not all(p.startswith(prefix) for p in paths):
        prefix = ""
    names = [p[len(prefix) :] for p in paths]
    return prefix, [names[i : i + BATCH_FILES] for i in range(0, len(names), BATCH_FILES)]


def task_result(future: Any) -> Any:
    """``future.result()``, where a task the workers could not finish is one line: every worker
    that ran it died (dask's ``KilledWorker``: out of memory, killed), or the scheduler dropped
    it or went away."""
    from concurrent.futures import CancelledError

    from distributed.comm import CommClosedError
    from distributed.scheduler import KilledWorker

    try:
        return _waited(future)
    except KilledWorker as exc:
        raise AbwInputError(
            f"the Dask workers died running abw's task {exc.task} (each worker that tried it: "
            "out of memory or killed); their logs say why"
        ) from None
    except (CancelledError, CommClosedError, OSError) as exc:
        raise AbwInputError(
            f"the Dask scheduler dropped abw's task {future.key} ({type(exc).__name__}: the "
            "scheduler restarted or went away)"
        ) from None


def _waited(future: Any) -> Any:
    """``future.result()``, but not forever on a cluster left with no worker (each one died
    or left, and none came back): after :data:`WORKER_WAIT_S` without one, a one-line error."""
    import time

    alone_since: float | None = None
    while True:
        try:
            return future.result(timeout=_POLL_S)
        except TimeoutError:
            if future.client.nthreads():
                alone_since = None
                continue
            alone_since = alone_since if alone_since is not None else time.monotonic()
            if time.monotonic() - alone_since >= WORKER_WAIT_S:
                raise AbwInputError(
                    f"the Dask cluster has had no worker for {WORKER_WAIT_S} s (each one died "
                    f"or left): abw's task {future.key} cannot run; start workers and run again"
                ) from None


def _results(client: Any, futures: list[Any]) -> Iterator[Any]:
    """Each future's result in the given order (the first bad file's error raises), released
    as read. After each, the young garbage cycles are collected: the gate pauses the automatic
    collector (abw.gcpause), and each result read leaves reference cycles of the Dask client's
    (and of the scheduler, where it runs in this process) that only the collector
    frees; collecting the young generations costs what was allocated since, never a scan of
    everything the driver holds."""
    import gc

    try:
        for future in futures:
            result = task_result(future)
            if isinstance(result, AbwInputError):
                raise result
            yield result
            future.release()
            del result
            gc.collect(1)
    finally:
        client.cancel(futures)


def summaries_on(client: Any, folder: str | Path, context: Context) -> Partial:
    """Every candidate run under ``folder`` summarized by ``client``'s workers, merged as each
    batch arrives, with one copy of the values many runs repeat (abw.sharedfields.ValuePool)."""
    from abw.gating.summary import Partial
    from abw.sharedfields import ValuePool

    prefix, batches = _batches(folder)
    shared = _held(client, context)
    futures = client.map(
        summarize_batch,
        [prefix] * len(batches),
        batches,
        context=shared,
        folder=os.getcwd(),
        code=code_digest(),
        pure=False,
    )
    merged, pool = Partial(), ValuePool()
    for partial in _results(client, futures):
        merged.merge(partial, pool)
    return merged


def _held(client: Any, value: Any) -> Any:
    """A future of ``value`` on the cluster that the scheduler can make again: the result of a
    task that holds it, not scattered data (which is lost with the last worker holding it: one
    worker's death then failed every batch). Its own key (``pure=False``): an equal value held
    again on this client is never the one an earlier gate released. The task holds the value
    once, as a task graph: distributed's warning that a graph is large is expected here."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sending large graph")
        return client.submit(_itself, value, pure=False)


def _itself(value: Any) -> Any:
    return value


@contextmanager
def dask_client(*, workers: int | None = None, scheduler: str | None = None) -> Iterator[Any]:
    """A client of the scheduler at ``scheduler``, or of a fresh :func:`local_cluster` of
    ``workers`` single-threaded processes (closed on the way out)."""
    distributed = _distributed()
    if (workers is None) == (scheduler is None):
        raise AbwInputError("give one of --workers and --scheduler", field="--workers")
    if scheduler is not None:
        import logging

        try:
            client = distributed.Client(scheduler, timeout="30s")
        except (OSError, TimeoutError, ValueError, TypeError) as exc:  # (TypeError: tls://
            raise AbwInputError(  # without a security configuration)
                f"cannot reach the Dask scheduler: {exception_words(exc)}", field="--scheduler"
            ) from None
        # its log lines are not abw's output (a scheduler gone mid-run logged tracebacks)
        with _logger_quiet(logging.getLogger("distributed")), client:
            try:  # (else the first task waits, and then fails as if a write had)
                client.wait_for_workers(1, timeout=WORKER_WAIT_S)
            except TimeoutError:
                raise AbwInputError(
                    f"the Dask scheduler at {scheduler} has no workers (waited "
                    f"{WORKER_WAIT_S} s); start some: dask worker {scheduler}",
                    field="--scheduler",
                ) from None
            yield client
        return
    if workers is None or workers < 1:
        raise AbwInputError("--workers must be at least 1", field="--workers")
    import logging
    import tempfile
    from contextlib import ExitStack

    import dask

    from abw.faults import signals_held

    # Ctrl-C or SIGTERM waits while the cluster starts and while it closes (seconds): cut
    # short, either left a scheduler process running, or distributed's own log lines and an
    # atexit traceback on stderr. Its log lines in this process are not abw's output.
    stack = ExitStack()
    try:
        with signals_held():
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="abw-dask-"))
            stack.enter_context(_environment_kept())
            stack.enter_context(_logger_quiet(logging.getLogger("distributed")))
            stack.enter_context(dask.config.set({"temporary-directory": scratch}))
            os.environ["DASK_TEMPORARY_DIRECTORY"] = scratch  # (the scheduler's process too)
            try:
                cluster = stack.enter_context(local_cluster(workers))
                client = stack.enter_context(distributed.Client(cluster))
            except (RuntimeError, OSError) as exc:  # ("Nanny failed to start", a full disk)
                raise AbwInputError(
                    f"the Dask cluster did not start: {exception_words(exc)}", field="--workers"
                ) from None
        yield client
    finally:
        with signals_held(), contextlib.suppress(Exception):  # (a scheduler that died took the
            stack.close()  # cluster with it: closing it fails, and must not hide what happened)


@contextmanager
def _logger_quiet(logger: Any) -> Iterator[None]:
    """``logger`` (and what propagates to it) silent but for critical lines, as it was
    afterwards."""
    import logging

    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


@contextmanager
def _environment_kept() -> Iterator[None]:
    """This process's environment as it was, afterwards: distributed's ``Nanny`` sets its
    workers' variables (``OMP_NUM_THREADS=1``, ``PYTHONHASHSEED``, ``MALLOC_TRIM_THRESHOLD_``,
    ``__DASK_PARENT_PID``) in the process that starts them, where they would stay for the
    caller's later work and children."""
    before = dict(os.environ)
    try:
        yield
    finally:
        for name in set(os.environ) - set(before):
            del os.environ[name]
        for name, value in before.items():
            if os.environ.get(name) != value:
                os.environ[name] = value


def local_cluster(workers: int) -> Any:
    """A cluster of ``workers`` single-threaded worker processes on this machine, as
    ``LocalCluster`` starts them, with its scheduler in a process of its own: the scheduler's
    task states and the task graph it unpickles stay out of the driver, which then holds the
    summaries and the report only. Where a subprocess scheduler cannot run (Windows), a
    ``LocalCluster``, whose scheduler runs in this process."""
    import logging
    import sys

    distributed = _distributed()
    quiet = logging.CRITICAL  # never a warning that a port is taken, nor a lost heartbeat
    if sys.platform == "win32":
        return distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": ":0"},  # no dashboard; its HTTP server on
            silence_logs=quiet,  # any free port
        )
    from distributed.worker_memory import parse_memory_limit

    options = {  # as LocalCluster's: one thread, an equal share of this machine's memory
        "nthreads": 1,
        "memory_limit": parse_memory_limit("auto", 1, workers, logger=logging.getLogger(__name__)),
        "silence_logs": quiet,
    }
    worker = {"cls": distributed.Nanny, "options": options}
    scheduler_options = {
        "host": "127.0.0.1",
        "port": 0,
        "dashboard": False,
        "dashboard_address": ":0",
        "idle_timeout": "300s",  # gone on its own if this process dies without closing it
    }
    return distributed.SpecCluster(
        workers=dict.fromkeys(range(workers), worker),
        scheduler={"cls": _drained_scheduler(), "options": {"scheduler_kwargs": scheduler_options}},
        worker=worker,
        silence_logs=quiet,
    )


def _drained_scheduler() -> type:
    """distributed's ``SubprocessScheduler``, with its log output read and dropped as it comes:
    it writes to a pipe that nothing else reads once it has started, and a full pipe (64 KiB of
    log lines) would block the scheduler, and with it the gate."""
    import asyncio
    import contextlib

    from distributed.deploy.subprocess import SubprocessScheduler

    class DrainedScheduler(SubprocessScheduler):  # type: ignore[misc]
        async def _start(self) -> None:
            await super()._start()
            stream = self.process.stderr

            async def drain() -> None:
                while await stream.read(1 << 16):
                    pass

            self._drain = asyncio.ensure_future(drain())  # held: a task is only weakly held

        async def close(self) -> None:
            drain = getattr(self, "_drain", None)
            if drain is not None:  # stopped first: closing reads what is left itself
                drain.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await drain
            await super().close()
            # the file it told its address in (the temporary folder, a random name): the
            # scheduler removes it only when it closes itself, not when it is stopped
            with contextlib.suppress(OSError):
                os.unlink(self.scheduler_kwargs["scheduler_file"])

    return DrainedScheduler


def run_gate_distributed(
    baseline: str | Path,
    candidate: str | Path,
    spec: str | Path | None = None,
    *,
    contract: str | Path | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    latent: str | Path | None = None,
    strict: bool = False,
    previous: str | Path | Mapping[str | None, Previous] | None = None,
) -> GateReport:
    """:func:`abw.gating.run_gate` (or, with ``contract``, the contract gate) with the
    candidate runs summarized on Dask workers: the same report."""
    from abw.gating import load_latent, load_previous, merged_report
    from abw.gating.summary import Context
    from abw.leanrun import load_lean_traces

    if (spec is None) == (contract is None):
        raise AbwInputError("give exactly one of --spec and --contract", field="--spec")
    if isinstance(previous, str | Path):
        previous = load_previous(previous)
    if contract is not None:
        from abw.contract import load_contract_as_spec

        loaded_spec, spec_sha256 = load_contract_as_spec(contract)
    else:
        from abw.specio import load_spec

        loaded_spec, spec_sha256 = load_spec(spec)
    if strict:
        loaded_spec = loaded_spec.model_copy(update={"strict": True})
    context = Context(loaded_spec, load_lean_traces(baseline))  # as the single process does
    with dask_client(workers=workers, scheduler=scheduler) as client:
        partial = summaries_on(client, candidate, context)
    return merged_report(
        context,
        partial,
        spec_file=str(contract if contract is not None else spec),
        spec_sha256=spec_sha256,
        latent=load_latent(latent) if latent is not None else None,
        previous=previous,
    )
