"""Gating on Dask workers (a real LocalCluster): the report is byte-identical to the
single-process gate's, and bad input is still one line naming the file, exit code 2."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import distributed
import pytest
from conftest import REPO

from abw.errors import AbwInputError
from abw.gating import report_json, run_gate
from abw.shard import BATCH_FILES, run_gate_distributed

EXAMPLE = REPO / "examples" / "refund-policy"
ABW = str(Path(sys.executable).with_name("abw"))


@pytest.fixture(scope="module")
def cluster():
    import logging

    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    ) as local:
        yield local


@pytest.mark.parametrize("candidate", ["good", "regressed", "small"])
def test_report_on_workers_is_byte_identical(cluster, candidate):
    args = (EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / candidate)
    spec = EXAMPLE / "behavior.yaml"
    single = run_gate(*args, spec)
    spread = run_gate_distributed(*args, spec, scheduler=cluster.scheduler_address)
    assert report_json(spread) == report_json(single)


def test_contract_gate_on_workers_is_byte_identical(cluster):
    from abw.contract import run_contract_gate

    args = (EXAMPLE / "traces" / "baseline", EXAMPLE / "traces" / "regressed")
    contract = EXAMPLE / "contract.json"
    single = run_contract_gate(*args, contract)
    spread = run_gate_distributed(*args, contract=contract, scheduler=cluster.scheduler_address)
    assert report_json(spread) == report_json(single)


def test_many_batches_keep_the_file_order(cluster, tmp_path):
    """More files than one batch holds, so several workers each load some of them."""
    candidate = tmp_path / "candidate"
    candidate.mkdir()
    sources = sorted((EXAMPLE / "traces" / "regressed").glob("*.json"))
    copies = 0
    while copies <= 2 * BATCH_FILES:
        for source in sources:
            shutil.copy(source, candidate / f"{copies:04d}-{source.name}")
            copies += 1
    args = (EXAMPLE / "traces" / "baseline", candidate, EXAMPLE / "behavior.yaml")
    single = run_gate(*args)
    spread = run_gate_distributed(*args, scheduler=cluster.scheduler_address)
    assert report_json(spread) == report_json(single)


def test_a_bad_file_on_a_worker_is_the_same_one_line_error(cluster, tmp_path):
    candidate = tmp_path / "candidate"
    shutil.copytree(EXAMPLE / "traces" / "good", candidate)
    (candidate / "zz-broken.json").write_text('{"schema_version": "agent-behavior-trace/v0"')
    args = (EXAMPLE / "traces" / "baseline", candidate, EXAMPLE / "behavior.yaml")
    with pytest.raises(AbwInputError) as single:
        run_gate(*args)
    with pytest.raises(AbwInputError) as spread:
        run_gate_distributed(*args, scheduler=cluster.scheduler_address)
    assert spread.value.one_line() == single.value.one_line()
    assert "zz-broken.json" in spread.value.one_line()


def test_cli_workers_writes_the_same_report(tmp_path):
    common = [
        "gate",
        "--baseline",
        str(EXAMPLE / "traces" / "baseline"),
        "--candidate",
        str(EXAMPLE / "traces" / "regressed"),
        "--spec",
        str(EXAMPLE / "behavior.yaml"),
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
            "gate",
            "--baseline",
            str(EXAMPLE / "traces" / "baseline"),
            "--candidate",
            str(EXAMPLE / "traces" / "good"),
            "--spec",
            str(EXAMPLE / "behavior.yaml"),
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
