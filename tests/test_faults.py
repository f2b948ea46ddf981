"""Faults: killed writers leave no half files; concurrent gates do not corrupt an output folder;
the GitHub API failing (404, 422, timeouts) degrades publishing but never the verdict."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from action_env import Runner, write_gate_workspace
from conftest import REPO, example_gate

ABW = str(Path(sys.executable).with_name("abw"))
EXAMPLE = REPO / "examples" / "refund-policy"
REPORTS = ("gate-report.json", "report.html", "report.md", "report.sarif", "report.junit.xml")


def _complete(path: Path) -> bool:
    """True when the file is a whole report of its kind."""
    text = path.read_text(encoding="utf-8")
    if path.suffix in (".json", ".sarif"):
        json.loads(text)
        return True
    if path.name.endswith(".xml"):
        ET.fromstring(text)
        return True
    if path.suffix == ".html":
        return text.rstrip().endswith("</html>")
    return text.endswith("\n") and len(text) > 100


WRITER = """
import sys
from abw.atomic import write_atomic
payload = ("x" * 4095 + "\\n") * 4096  # 16 MB: a write takes long enough to be interrupted
marker = sys.argv[2]
while True:
    write_atomic(sys.argv[1], marker + payload + marker)
"""


def _kill_while_temporary_exists(proc: subprocess.Popen, folder: Path) -> None:
    """SIGKILL the writer as soon as a temporary file shows a write in progress."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and proc.poll() is None:
        if any(p.name.endswith(".tmp") and p.stat().st_size > 0 for p in folder.iterdir()):
            break
        time.sleep(0.001)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def test_killed_mid_write_leaves_old_or_new_file_never_half(tmp_path):
    target = tmp_path / "report.json"
    for round_ in range(20):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target), f"<{round_}>"])
        _kill_while_temporary_exists(proc, tmp_path)
        if target.exists():
            data = target.read_bytes()
            marker = data[: data.index(b">") + 1]  # the round that wrote it, e.g. b"<3>"
            assert data.endswith(marker) and len(data) == 4096 * 4096 + 2 * len(marker)
        if round_ >= 5 and any(p != target for p in tmp_path.iterdir()):
            break
    # leftovers of a killed writer are hidden temporaries, never the report's own name
    leftovers = [p for p in tmp_path.iterdir() if p != target]
    for path in leftovers:
        assert path.name.startswith(".report.json.") and path.suffix == ".tmp", path.name
    assert leftovers, "no kill landed mid-write: the test proved nothing"


def test_killed_gate_leaves_only_complete_reports(tmp_path):
    args = [
        ABW,
        *example_gate("regressed"),
        "--report-dir",
        str(tmp_path / "out"),
    ]
    rng = random.Random(11)
    for _ in range(5):
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.2, 2.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for name in REPORTS:
            path = tmp_path / "out" / name
            if path.exists():
                assert _complete(path), name


def _gate(out: Path, candidate: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            ABW,
            *example_gate(candidate),
            "--report-dir",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "ABW_NO_PROGRESS": "1"},
    )


def test_two_gates_writing_one_folder_do_not_corrupt_it(tmp_path):
    out = tmp_path / "out"
    for _ in range(2):
        good, bad = _gate(out, "good"), _gate(out, "regressed")
        assert good.wait(timeout=120) == 0, good.stderr.read()
        assert bad.wait(timeout=120) == 1, bad.stderr.read()
        for name in REPORTS:
            assert _complete(out / name), name  # whole files, from one run or the other
        verdict = json.loads((out / "gate-report.json").read_text())["verdict"]
        assert verdict in ("PASS", "FAIL")
        assert not [p for p in out.iterdir() if p.name not in REPORTS]  # no temporaries left


# ---------------------------------------------------------------- the GitHub API failing


@pytest.mark.parametrize("status", [404, 422])
def test_api_errors_keep_verdict_and_exit_code(tmp_path, fake, status):
    runner = Runner(tmp_path, fake.url)
    inputs = write_gate_workspace(runner.workspace, "FAIL")
    fake.fail("POST", r"/check-runs$", status, "Not Found" if status == 404 else "Unprocessable")
    fake.fail("POST", r"/issues/7/comments$", status, "nope")
    result = runner.run(inputs)
    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "FAIL"
    assert "FAIL" in result.summary
    logs = result.stdout + result.stderr
    assert "::warning" in logs or "::error" in logs or "could not" in logs.lower()
    assert "Traceback" not in logs


def test_api_timeout_keeps_verdict_and_exit_code(tmp_path):
    """An API that accepts connections and never answers: publishing times out, verdict stands."""
    hole = socket.socket()
    hole.bind(("127.0.0.1", 0))
    hole.listen(64)
    try:
        url = f"http://127.0.0.1:{hole.getsockname()[1]}/api/v3"
        runner = Runner(tmp_path, url)
        inputs = write_gate_workspace(runner.workspace, "FAIL")
        started = time.monotonic()
        result = runner.run(inputs, ABW_GITHUB_TIMEOUT="1", ABW_GITHUB_BACKOFF="0")
        assert result.code == 1, result.stdout + result.stderr
        assert result.outputs["verdict"] == "FAIL"
        assert "Traceback" not in result.stdout + result.stderr
        assert time.monotonic() - started < 110  # bounded retries, not a hang
    finally:
        hole.close()


def test_a_failed_comment_write_says_this_look_is_not_recorded(tmp_path, fake):
    """The sticky comment carries the run chain: a look whose comment could not be written
    recorded no restart, and the next look reused its level; the warning said the verdict
    and reports were unaffected, and nothing else."""
    runner = Runner(tmp_path, fake.url)
    inputs = write_gate_workspace(runner.workspace, "INCONCLUSIVE")
    fake.fail("POST", r"/issues/7/comments$", 422, "Unprocessable", times=100)
    result = runner.run(inputs)
    assert result.code == 3
    warning = next(line for line in result.stdout.splitlines() if "PR comment failed" in line)
    assert "this look is not recorded" in warning


def test_a_signal_waits_for_a_step_that_must_finish(tmp_path):
    """SIGTERM or Ctrl-C while an import moved its staged traces into --out (one rename each)
    left some of them there and removed the rest with the staging folder: 1 to 96 of 3,000,
    or 370 of 400. During that step a signal waits, then acts as it would have."""
    import os
    import signal
    import time

    from abw.faults import signals_held

    events: list[str] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: events.append("handled"))
    try:
        with signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            events.append("step done")
        assert events == ["step done", "handled"]
        with pytest.raises(KeyboardInterrupt), signals_held():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            events.append("second step done")
        assert events[-1] == "second step done"
    finally:
        signal.signal(signal.SIGTERM, previous)
