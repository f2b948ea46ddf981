"""Gating on Dask workers (a real LocalCluster): the report is byte-identical to the
single-process gate's, the driver receives summaries only, and bad input is still one line
naming the file, exit code 2."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path

import distributed
import pytest
from conftest import REPO, example_gate, export_again

from abw.errors import AbwInputError
from abw.gating import report_json, run_gate
from abw.gating.summary import Context, Partial, RunSummary
from abw.leanrun import load_lean_traces
from abw.shard import (
    BATCH_FILES,
    code_digest,
    run_gate_distributed,
    summaries_on,
    summarize_batch,
)
from abw.specio import load_spec

EXAMPLE = REPO / "examples" / "refund-policy"
ABW = str(Path(sys.executable).with_name("abw"))


@pytest.mark.parametrize("candidate", ["good", "regressed", "small"])
def test_report_on_workers_is_byte_identical(cluster, candidate):
    args = (EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / candidate)
    spec = EXAMPLE / "behavior.yaml"
    single = run_gate(*args, spec)
    spread = run_gate_distributed(*args, spec, scheduler=cluster.scheduler_address)
    assert report_json(spread) == report_json(single)


def test_a_worker_started_in_another_folder_reads_the_drivers_relative_paths(
    remote_cluster, monkeypatch
):
    """Relative paths are the driver's: a worker whose working folder is another (a remote
    worker's) gives the single process's report, files named as the driver was given them."""
    monkeypatch.chdir(EXAMPLE)
    args = ("traces/baseline", "traces/regressed", "behavior.yaml")
    single = run_gate(*args)
    spread = run_gate_distributed(*args, scheduler=remote_cluster.scheduler_address)
    assert report_json(spread) == report_json(single)
    named = [v.trace_file for c in spread.checks for v in c.violations]
    assert named and all(name.startswith("traces/regressed/") for name in named)


def test_contract_gate_on_workers_is_byte_identical(cluster):
    from abw.contract import run_contract_gate

    args = (EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / "regressed")
    contract = EXAMPLE / "contract.json"
    single = run_contract_gate(*args, contract)
    spread = run_gate_distributed(*args, contract=contract, scheduler=cluster.scheduler_address)
    assert report_json(spread) == report_json(single)


def _many(tmp_path: Path) -> Path:
    """A candidate folder of more files than two batches hold, some in a subfolder."""
    candidate = tmp_path / "candidate"
    (candidate / "more").mkdir(parents=True)
    sources = sorted((EXAMPLE / "traces" / "regressed").glob("*.json"))
    copies = 0
    while copies <= 2 * BATCH_FILES:
        for source in sources:
            folder = candidate / "more" if copies % 3 else candidate
            export_again(source, folder / f"{copies:04d}-{source.name}", copies)
            copies += 1
    return candidate


@pytest.mark.parametrize("contract", [False, True], ids=["spec", "contract"])
def test_many_batches_give_the_same_report(cluster, tmp_path, contract):
    """More files than one batch holds, so several workers each summarize some of them."""
    candidate = _many(tmp_path)
    base = EXAMPLE / "traces" / "baseline"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if contract:
            from abw.contract import run_contract_gate

            single = run_contract_gate(base, candidate, EXAMPLE / "contract.json")
            spread = run_gate_distributed(
                base,
                candidate,
                contract=EXAMPLE / "contract.json",
                scheduler=cluster.scheduler_address,
            )
        else:
            single = run_gate(base, candidate, EXAMPLE / "behavior.yaml")
            spread = run_gate_distributed(
                base, candidate, EXAMPLE / "behavior.yaml", scheduler=cluster.scheduler_address
            )
    assert report_json(spread) == report_json(single)
    assert not [w for w in caught if "large graph" in str(w.message)]


def _holds_a_run(value: object) -> list[str]:
    """The classes of loaded runs (trace files, lean or full trace models) pickled in value."""
    text = pickle.dumps(value)
    names = (b"TraceFile", b"LeanTrace", b"LeanSpan", b"abw.models.trace")
    return [name.decode() for name in names if name in text]


def test_the_driver_receives_summaries_only(cluster, tmp_path):
    """What the workers send back for the candidate runs holds no loaded run: per batch a
    Partial of RunSummary objects, and nothing else reaches the driver."""
    candidate = _many(tmp_path)
    spec, _ = load_spec(EXAMPLE / "behavior.yaml")
    context = Context(spec, load_lean_traces(EXAMPLE / "traces" / "baseline"))
    names = sorted(str(p.relative_to(candidate)) for p in candidate.rglob("*.json"))
    with distributed.Client(cluster.scheduler_address) as client:
        [shared] = client.scatter([context], broadcast=True)
        futures = client.map(
            summarize_batch,
            [f"{candidate}/"] * 3,
            [names[0::3], names[1::3], names[2::3]],
            context=shared,
            folder=os.getcwd(),
            code=code_digest(),
            pure=False,
        )
        returned = [future.result() for future in futures]
        merged = summaries_on(client, candidate, context)
    for partial in [*returned, merged]:
        assert type(partial) is Partial
        assert {type(s) for s in partial.summaries} == {RunSummary}
        assert _holds_a_run(partial) == []
    assert len(merged.summaries) == len(names)


def test_a_whole_gate_on_workers_gets_back_nothing_but_summaries(cluster, monkeypatch):
    """Of a whole gate, what the workers send back is one Partial per batch: the driver loads
    the baseline itself, as the single process does."""
    import abw.shard

    received: list[object] = []
    read = abw.shard._results

    def recording(client, futures):
        for result in read(client, futures):
            received.append(result)
            yield result

    monkeypatch.setattr(abw.shard, "_results", recording)
    args = (EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / "regressed")
    spread = run_gate_distributed(
        *args, EXAMPLE / "behavior.yaml", scheduler=cluster.scheduler_address
    )
    assert report_json(spread) == report_json(run_gate(*args, EXAMPLE / "behavior.yaml"))
    assert received and {type(result) for result in received} == {Partial}
    assert all(_holds_a_run(result) == [] for result in received)


def test_previous_on_workers_gives_the_same_report(cluster, tmp_path):
    args = (EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / "good", EXAMPLE / "behavior.yaml")
    earlier = tmp_path / "earlier.json"
    earlier.write_text(
        report_json(
            run_gate(EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / "small", args[2])
        )
    )
    single = run_gate(*args, previous=earlier)
    spread = run_gate_distributed(*args, scheduler=cluster.scheduler_address, previous=earlier)
    assert report_json(spread) == report_json(single)


@pytest.mark.parametrize("side", ["candidate", "baseline"])
def test_a_bad_file_is_the_same_one_line_error(cluster, tmp_path, side):
    """A broken candidate file (read on a worker) or baseline file (read by the driver)."""
    folders = {
        "baseline": EXAMPLE / "traces" / "baseline",
        "candidate": EXAMPLE / "traces" / "good",
    }
    folders[side] = shutil.copytree(folders[side], tmp_path / side)
    (folders[side] / "zz-broken.json").write_text('{"schema_version": "agent-behavior-trace/v0"')
    args = (folders["baseline"], folders["candidate"], EXAMPLE / "behavior.yaml")
    with pytest.raises(AbwInputError) as single:
        run_gate(*args)
    with pytest.raises(AbwInputError) as spread:
        run_gate_distributed(*args, scheduler=cluster.scheduler_address)
    assert spread.value.one_line() == single.value.one_line()
    assert "zz-broken.json" in spread.value.one_line()


def test_cli_workers_writes_the_same_report(tmp_path):
    common = [
        *example_gate("regressed"),
        "-q",
    ]
    single = subprocess.run([ABW, *common, "--out", str(tmp_path / "a.json")], check=False)
    spread = subprocess.run(
        [ABW, *common, "--out", str(tmp_path / "b.json"), "--workers", "2"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert spread.returncode == single.returncode == 1, spread.stderr
    assert (tmp_path / "b.json").read_bytes() == (tmp_path / "a.json").read_bytes()
    assert "Traceback" not in spread.stderr


def test_cli_refuses_workers_and_scheduler_together(tmp_path):
    result = subprocess.run(
        [
            ABW,
            *example_gate("good"),
            "--workers",
            "2",
            "--scheduler",
            "tcp://127.0.0.1:1",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "at most one of --workers and --scheduler" in result.stderr
    assert "Traceback" not in result.stderr


def test_cli_workers_bad_file_is_the_single_process_error(tmp_path):
    candidate = tmp_path / "candidate"
    shutil.copytree(EXAMPLE / "traces" / "good", candidate)
    (candidate / "zz-broken.json").write_text('{"schema_version": "agent-behavior-trace/v0"')
    common = [
        *example_gate(candidate),
        "-q",
    ]
    single = subprocess.run([ABW, *common], capture_output=True, text=True, check=False)
    spread = subprocess.run(
        [ABW, *common, "--workers", "2"], capture_output=True, text=True, check=False
    )
    assert spread.returncode == single.returncode == 2
    assert spread.stderr.strip().splitlines()[-1] == single.stderr.strip().splitlines()[-1]
    assert "zz-broken.json" in spread.stderr and "Traceback" not in spread.stderr


def test_a_worker_with_other_abw_code_is_refused(cluster, run_cli, tmp_path):
    """A worker whose abw is not the driver's (another checkout, another version) could
    summarize runs otherwise: the gate and the import refuse it in one line, exit code 2, and
    write nothing."""
    from abw.shard import same_code

    assert same_code(code_digest()) is None
    assert "other abw code" in same_code("0" * 64).message

    def pretend_other_code() -> None:
        import abw.shard

        abw.shard.code_digest = lambda: "f" * 64  # as another checkout's code would hash

    def restore() -> None:
        import importlib

        import abw.shard

        importlib.reload(abw.shard)

    with distributed.Client(cluster.scheduler_address) as client:
        client.run(pretend_other_code)
        try:
            with pytest.raises(AbwInputError, match="other abw code than this process"):
                run_gate_distributed(
                    EXAMPLE / "traces" / "baseline",
                    EXAMPLE / "traces" / "regressed",
                    EXAMPLE / "behavior.yaml",
                    scheduler=cluster.scheduler_address,
                )
            out = tmp_path / "report.json"
            gate = example_gate(EXAMPLE / "traces" / "regressed")
            code, _, err = run_cli(*gate, "--out", out, "--scheduler", cluster.scheduler_address)
            assert code == 2 and not out.exists()
            assert err.count("\n") == 1 and "install the same abw on every worker" in err
            imported = tmp_path / "imported"
            code, _, err = run_cli(
                *("import", "claude", "--input", REPO / "tests" / "corpus" / "claude-code"),
                *("--out", imported, "--scheduler", cluster.scheduler_address),
            )
            assert code == 2 and not imported.exists() and "other abw code" in err
        finally:
            client.run(restore)


def test_a_scheduler_without_workers_is_one_line_not_a_wait(run_cli, tmp_path, monkeypatch):
    """A scheduler whose workers are gone: a one-line error naming it, exit code 2, nothing
    written (before: a wait, then "cannot write: No valid workers found")."""
    import logging

    import abw.shard

    monkeypatch.setattr(abw.shard, "WORKER_WAIT_S", 1)
    with distributed.LocalCluster(
        n_workers=0, processes=True, dashboard_address=":0", silence_logs=logging.ERROR
    ) as empty:
        out = tmp_path / "report.json"
        gate = example_gate("regressed")
        code, _, err = run_cli(*gate, "--out", out, "--scheduler", empty.scheduler_address)
    assert code == 2 and not out.exists()
    assert err.count("\n") == 1 and "has no workers (waited 1 s)" in err, err


def test_workers_that_die_running_the_gate_are_one_line(run_cli, tmp_path):
    """A worker that dies running a batch (out of memory, killed), on every try: a one-line
    error, exit code 2, nothing written (before: an "internal error" line)."""
    import logging

    import dask
    from distributed.diagnostics.plugin import WorkerPlugin

    class DiesOnTheGate(WorkerPlugin):  # on every worker, each one the nanny starts again too
        def setup(self, worker) -> None:
            import os

            import abw.shard

            abw.shard.summarize_batch = lambda *args, **kwargs: os._exit(1)

    out = tmp_path / "report.json"
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        distributed.LocalCluster(
            n_workers=1, processes=True, dashboard_address=":0", silence_logs=logging.CRITICAL
        ) as dying,
        distributed.Client(dying) as client,
    ):
        client.register_plugin(DiesOnTheGate())
        gate = example_gate("regressed")
        code, _, err = run_cli(*gate, "--out", out, "--scheduler", dying.scheduler_address)
    assert code == 2 and not out.exists()
    assert err.count("\n") == 1 and "the Dask workers died running abw's task" in err, err


def test_output_fields_seen_fold_on_workers_as_in_one_process(cluster, tmp_path):
    """The output fields the runs hold are folded like the span names: a spec naming one that
    no run holds gets the same note on workers as in one process."""
    text = (EXAMPLE / "behavior.yaml").read_text().replace("    decision:", "    decsion:", 1)
    spec = tmp_path / "typo.yaml"
    spec.write_text(text)
    args = (EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / "good", spec)
    single = run_gate(*args)
    spread = run_gate_distributed(*args, scheduler=cluster.scheduler_address)
    assert report_json(spread) == report_json(single)
    (check,) = [c for c in single.checks if c.id == "output_eval.expected"]
    assert check.message.endswith(
        "Note: decsion is in no run's output (44 runs); did you mean decision?"
    )


_LEFT_BEHIND = """
import os, sys
from abw.shard import run_gate_distributed

def main():
    before = dict(os.environ)
    report = run_gate_distributed(*sys.argv[1:4], workers=1)
    changed = sorted(k for k in set(before) | set(os.environ) if before.get(k) != os.environ.get(k))
    print(report.verdict, changed)

if __name__ == "__main__":
    main()
"""


def test_a_cluster_of_its_own_leaves_the_process_and_the_temporary_folder_as_they_were(tmp_path):
    """``run_gate_distributed(workers=N)`` left ``OMP_NUM_THREADS=1``, ``PYTHONHASHSEED`` and
    more in the caller's environment (distributed's Nanny sets them in the process that starts
    it), and a scheduler file and ``dask-scratch-space`` in the temporary folder."""
    script = tmp_path / "gate.py"
    script.write_text(_LEFT_BEHIND)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    base, cand = EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / "good"
    done = subprocess.run(
        [sys.executable, str(script), str(base), str(cand), str(EXAMPLE / "behavior.yaml")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(temporary)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "PASS []", done.stdout
    assert list(temporary.iterdir()) == []


def _marked(tag: str) -> list[int]:
    """The processes whose environment carries ``ABW_TEST_MARK=tag``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                if f"ABW_TEST_MARK={tag}".encode() in handle.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_a_stop_while_the_cluster_starts_is_one_line_and_leaves_no_process(tmp_path, stop):
    """Ctrl-C or SIGTERM while ``--workers 2`` started its cluster: half the time about 30
    lines on stderr (distributed's log, an atexit traceback) or a scheduler process left
    running after abw exited. The stop waits until the cluster has started, then ends it."""
    import signal
    import time

    abw = Path(sys.executable).with_name("abw")
    tag = f"cluster-{stop}-{os.getpid()}"
    base, cand = EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / "regressed"
    proc = subprocess.Popen(
        [str(abw), "gate", "--baseline", str(base), "--candidate", str(cand),
         "--spec", str(EXAMPLE / "behavior.yaml"), "--workers", "2", "-q"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        env={**os.environ, "ABW_NO_PROGRESS": "1", "ABW_TEST_MARK": tag},
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while len(_marked(tag)) < 2 and time.monotonic() < deadline:  # the scheduler is starting
        time.sleep(0.02)
    proc.send_signal(getattr(signal, stop))
    _, err = proc.communicate(timeout=120)
    left: list[int] = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        left = [pid for pid in _marked(tag) if pid != proc.pid]
        if not left:
            break
        time.sleep(0.2)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert len([line for line in err.splitlines() if line.strip()]) == 1, err
    assert proc.returncode in (2, 143) and not left, (proc.returncode, left)


@contextmanager
def _one_worker_running(plugin):
    """A LocalCluster of one worker process (its nanny starts it again if it dies) that runs
    ``plugin`` (a WorkerPlugin: what the worker's abw does instead)."""
    import logging

    with (
        distributed.LocalCluster(
            n_workers=1, processes=True, dashboard_address=":0", silence_logs=logging.CRITICAL
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.register_plugin(plugin)
        yield cluster


def _example_args():
    return (
        EXAMPLE / "traces" / "baseline",
        EXAMPLE / "traces" / "regressed",
        EXAMPLE / "behavior.yaml",
    )


def test_the_worker_holding_the_gates_context_may_die(tmp_path):
    """The spec and baseline went to the workers as scattered data, which Dask cannot make again:
    the one worker holding it died (killed, out of memory), and every batch failed ("the Dask
    scheduler dropped abw's task ... went away"). It is a task's result now, made again where it
    is lost: the gate goes on and writes the single process's report."""

    from distributed.diagnostics.plugin import WorkerPlugin

    marker = tmp_path / "died"

    class DiesOnce(WorkerPlugin):  # the first batch kills its worker; the nanny starts another
        def setup(self, worker) -> None:
            import os

            import abw.shard

            original = abw.shard.summarize_batch

            def once(*args, **kwargs):
                if not os.path.exists(marker):
                    open(marker, "w").close()
                    os._exit(1)
                return original(*args, **kwargs)

            abw.shard.summarize_batch = once

    with _one_worker_running(DiesOnce()) as flaky:
        spread = run_gate_distributed(*_example_args(), scheduler=flaky.scheduler_address)
    assert marker.exists()
    assert report_json(spread) == report_json(run_gate(*_example_args()))


def test_a_cluster_left_without_workers_is_one_line_not_a_wait(run_cli, tmp_path, monkeypatch):
    """Every worker lost while the gate waits for its tasks (killed, none started again): the
    wait went on for ever, with nothing printed. After WORKER_WAIT_S without a worker it is
    one line, exit code 2."""
    import threading

    import abw.shard

    monkeypatch.setattr(abw.shard, "WORKER_WAIT_S", 1)
    monkeypatch.setattr(abw.shard, "_POLL_S", 0.2, raising=False)
    from distributed.diagnostics.plugin import WorkerPlugin

    class Slow(WorkerPlugin):
        def setup(self, worker) -> None:
            import time

            import abw.shard

            abw.shard.summarize_batch = lambda *args, **kwargs: time.sleep(60)

    out = tmp_path / "report.json"
    with _one_worker_running(Slow()) as leaving:
        threading.Timer(3, lambda: leaving.scale(0)).start()
        gate = [*example_gate("regressed"), "--out", out, "--scheduler", leaving.scheduler_address]
        result = []
        waiting = threading.Thread(target=lambda: result.append(run_cli(*gate)), daemon=True)
        waiting.start()
        waiting.join(40)
        assert not waiting.is_alive(), "still waiting for a cluster without workers"
    code, _, err = result[0]
    assert code == 2 and not out.exists()
    assert err.count("\n") == 1 and "has had no worker for 1 s" in err, err


def test_a_scheduler_address_of_another_scheme_is_one_line(run_cli, tmp_path):
    """``tls://`` without a security configuration was an internal error (a TypeError)."""
    gate = example_gate("regressed")
    code, _, err = run_cli(*gate, "--out", tmp_path / "r.json", "--scheduler", "tls://127.0.0.1:1")
    assert code == 2 and "cannot reach the Dask scheduler" in err and "internal error" not in err
    assert err.count("\n") == 1, err
