"""``abw gate --workers N`` / ``--scheduler ADDRESS``: load a large gate's traces on Dask.

Reading, parsing and validating the trace files is most of a large gate's time
(docs/performance.md). Here that work runs on ``dask.distributed`` workers — a
``LocalCluster`` of N processes on this machine, or any running scheduler — in batches of
files: each worker reads its files, validates each against the trace model (the same errors,
naming file, line and field) and sends back only the lean run (:mod:`abw.leanrun`: the schema
fields of each span, the extracted arguments, the span lines). The driver then runs the very
:func:`abw.gating.gate` a single process runs, on the same lean runs in the same order, so the
report is byte-identical to ``abw gate`` without workers (``tests/test_shard.py``).

What crosses the network: file paths to the workers; lean runs (a few KB each) back; never a
raw file or a validated trace model. The workers must see the trace folders at the same paths
as the driver (the same machine, or a shared file system). Dask is optional
(``pip install "dask[distributed]"``); nothing else in abw imports this module.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abw.errors import AbwInputError

if TYPE_CHECKING:
    from abw.models.report import GateReport
    from abw.traceio import TraceFile

#: Files per task: large enough that scheduling costs nothing next to parsing, small enough
#: that every worker gets many tasks.
BATCH_FILES = 100


def _distributed() -> Any:
    try:
        import distributed
    except ModuleNotFoundError:
        raise AbwInputError(
            'gating on workers needs Dask: pip install "dask[distributed]"', field="--workers"
        ) from None
    return distributed


def load_batch(paths: list[str]) -> list[TraceFile]:
    """Worker side: read, validate and reduce each file to its lean run, in order."""
    from abw.gcpause import gc_paused
    from abw.leanrun import lean
    from abw.traceio import load_trace

    with gc_paused():
        return [lean(load_trace(path)) for path in paths]


def load_on(client: Any, folder: str | Path) -> list[TraceFile]:
    """The lean runs of every trace under ``folder`` (as :func:`abw.leanrun.load_lean_traces`
    returns them, in the same order), loaded by ``client``'s workers."""
    from abw.traceio import trace_paths

    paths = [str(p) for p in trace_paths(folder)]
    batches = [paths[i : i + BATCH_FILES] for i in range(0, len(paths), BATCH_FILES)]
    futures = client.map(load_batch, batches, pure=False)
    runs: list[TraceFile] = []
    try:
        for future in futures:  # in file order; the first bad file raises its own error
            runs += future.result()
    finally:
        client.cancel(futures)
    return runs


@contextmanager
def dask_client(*, workers: int | None = None, scheduler: str | None = None) -> Iterator[Any]:
    """A client of the scheduler at ``scheduler``, or of a fresh ``LocalCluster`` of
    ``workers`` single-threaded processes (closed on the way out)."""
    import logging

    distributed = _distributed()
    if (workers is None) == (scheduler is None):
        raise AbwInputError("give one of --workers and --scheduler", field="--workers")
    if scheduler is not None:
        try:
            client = distributed.Client(scheduler, timeout="30s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise AbwInputError(
                f"cannot reach the Dask scheduler: {exc}", field="--scheduler"
            ) from None
        with client:
            yield client
        return
    if workers is None or workers < 1:
        raise AbwInputError("--workers must be at least 1", field="--workers")
    with (
        distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


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
) -> GateReport:
    """:func:`abw.gating.run_gate` (or, with ``contract``, the contract gate) with the traces
    loaded on Dask workers: the same report."""
    from abw.gating import gate, load_latent

    if (spec is None) == (contract is None):
        raise AbwInputError("give exactly one of --spec and --contract", field="--spec")
    if contract is not None:
        from abw.contract import load_contract_as_spec

        loaded_spec, spec_sha256 = load_contract_as_spec(contract)
    else:
        from abw.specio import load_spec

        loaded_spec, spec_sha256 = load_spec(spec)
    if strict:
        loaded_spec = loaded_spec.model_copy(update={"strict": True})
    with dask_client(workers=workers, scheduler=scheduler) as client:
        baseline_runs = load_on(client, baseline)
        candidate_runs = load_on(client, candidate)
    return gate(
        baseline_runs,
        candidate_runs,
        loaded_spec,
        spec_file=str(contract if contract is not None else spec),
        spec_sha256=spec_sha256,
        latent=load_latent(latent) if latent is not None else None,
    )
