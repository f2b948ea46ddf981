"""``abw sample`` end to end: stand-in agents writing real Claude Code and Codex transcripts,
the real importers, the real gate, and real signals."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO

EXAMPLE = REPO / "examples" / "refund-policy"
BASELINE = EXAMPLE / "traces" / "baseline"
SPEC = EXAMPLE / "behavior.yaml"
CLAUDE_AGENT = REPO / "examples" / "sample" / "claude_agent.py"
CODEX_AGENT = REPO / "examples" / "sample" / "codex_agent.py"
LABELS = "classify,lookup_order,policy_check:guardrail,refund_commit"
FIELDS = "decision,order_id,refund_amount,currency,fraud_check_passed"
PY = shlex.quote(sys.executable)


def claude_scenario(sid: str = "refund-policy", agent_args: str = "", transcript: str = "") -> str:
    where = "" if transcript else " --transcript {transcript}"
    run = f"{PY} {shlex.quote(str(CLAUDE_AGENT))} {agent_args}{where}"
    lines = [
        f"  - id: {sid}",
        f"    run: {json.dumps(run)}",
        "    importer: claude",
        f'    import_args: [--bash-tool-labels, "{LABELS}", --output-fields, "{FIELDS}"]',
    ]
    if transcript:
        lines.append(f"    transcript: {transcript}")
    return "\n".join(lines) + "\n"


def write_scenarios(tmp_path: Path, *entries: str) -> Path:
    path = tmp_path / "scenarios.yaml"
    path.write_text("scenarios:\n" + "".join(entries), encoding="utf-8")
    return path


def sample_args(scenarios: Path, out: Path, *extra: str, baseline: Path = BASELINE) -> list[str]:
    return [
        "sample",
        "--scenarios",
        str(scenarios),
        "--baseline",
        str(baseline),
        "--spec",
        str(SPEC),
        "--out",
        str(out),
        *extra,
    ]


def traces_of(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(out.rglob("*.json"))]


def test_good_agent_passes_and_the_report_is_the_gates_byte_for_byte(tmp_path, run_cli):
    scenarios = write_scenarios(tmp_path, claude_scenario(agent_args="--seed 7"))
    out, report = tmp_path / "candidate", tmp_path / "sample-report.json"
    code, stdout, stderr = run_cli(*sample_args(scenarios, out, "--report", report))
    assert code == 0, stdout + stderr
    assert "refund-policy: PASS (decided)" in stdout
    runs = traces_of(out)
    assert runs and all(r["run"]["scenario_id"] == "refund-policy" for r in runs)
    assert all(r["source"]["platform"] == "claude_code" for r in runs)
    # decided as soon as the statistic allowed: one run fewer would not have been enough
    assert "#1: passed" in stderr and f"#{len(runs)}: passed" in stderr
    assert f"#{len(runs) - 1}: passed; {len(runs) - 1} runs" in stderr
    assert "undecided" in stderr.splitlines()[-2]
    gate_report = tmp_path / "gate-report.json"
    code, _, _ = run_cli(
        "gate", "--baseline", BASELINE, "--candidate", out, "--spec", SPEC, "--out", gate_report
    )
    assert code == 0
    assert report.read_bytes() == gate_report.read_bytes()


def test_a_counterexample_under_forbid_stops_the_scenario_at_once(tmp_path, run_cli):
    scenarios = write_scenarios(tmp_path, claude_scenario(agent_args="--regress 1"))
    out = tmp_path / "candidate"
    code, stdout, _ = run_cli(*sample_args(scenarios, out, "--max-runs", "20"))
    assert code == 1
    assert len(traces_of(out)) == 1  # one violating run is proof: no second run is paid for
    assert "refund-policy: FAIL (decided) after 1 run" in stdout
    assert "behavior_contract.required_order[0] has a counterexample" in stdout


def test_codex_rollouts_from_a_sessions_glob(tmp_path, run_cli):
    sessions = tmp_path / "codex-home" / "sessions"
    old = sessions / "2020" / "01" / "01" / "rollout-old.jsonl"  # an earlier session: not a run
    old.parent.mkdir(parents=True)
    old.write_text("not a rollout\n", encoding="utf-8")
    # baseline: Codex runs of the released agent, imported by hand as a user would
    raw = tmp_path / "codex-baseline"
    for index in range(12):
        subprocess.run(
            [sys.executable, CODEX_AGENT, "--transcript", raw / f"run-{index:02d}.jsonl"],
            check=True,
            env={**os.environ, "ABW_RUN": str(index)},
        )
    baseline = tmp_path / "baseline"
    code, _, err = run_cli(
        "import", "codex", "--input", raw, "--out", baseline, "--scenario-id", "refund-codex",
        "--bash-tool-labels", LABELS, "--output-fields", FIELDS,
    )  # fmt: skip
    assert code == 0, err
    run = f"{PY} {shlex.quote(str(CODEX_AGENT))} --seed 3 --sessions {shlex.quote(str(sessions))}"
    entry = (
        "  - id: refund-codex\n"
        f"    run: {json.dumps(run)}\n"
        f"    transcript: {json.dumps(str(sessions) + '/**/rollout-*.jsonl')}\n"
        "    importer: codex\n"
        f'    import_args: [--bash-tool-labels, "{LABELS}", --output-fields, "{FIELDS}"]\n'
    )
    scenarios = write_scenarios(tmp_path, entry)
    out = tmp_path / "candidate"
    code, stdout, stderr = run_cli(*sample_args(scenarios, out, baseline=baseline))
    assert code == 0, stdout + stderr
    runs = traces_of(out)
    assert len(runs) >= 2
    assert {r["source"]["platform"] for r in runs} == {"codex_cli"}
    assert all(r["run"]["final_status"] == "success" for r in runs)
    assert all("execution_problem" not in r["run"] for r in runs)
    assert "refund-codex: PASS (decided)" in stdout


def test_runs_that_crash_time_out_or_leave_nothing_are_kept_and_never_pass(tmp_path, run_cli):
    scenarios = write_scenarios(
        tmp_path,
        claude_scenario("crashes", "--crash 1"),
        claude_scenario("slow", "--sleep 30"),
    )
    out = tmp_path / "candidate"
    args = sample_args(scenarios, out, "--max-runs", "2", "--timeout", "0.5", "--parallel", "2")
    started = time.monotonic()
    code, stdout, stderr = run_cli(*args)
    assert time.monotonic() - started < 20  # the sleeping agents were stopped at the limit
    assert code == 1, stdout + stderr
    runs = {r["run"]["scenario_id"]: [] for r in traces_of(out)}
    for r in traces_of(out):
        runs[r["run"]["scenario_id"]].append(r["run"])
    assert [r["final_status"] for r in runs["crashes"]] == ["unknown"]
    assert runs["crashes"][0]["execution_problem"] == "the command exited with code 1"
    assert [r["final_status"] for r in runs["slow"]] == ["cancelled"]
    assert runs["slow"][0]["execution_problem"] == "timed out"
    assert "did not complete: the command exited with code 1 (stderr: claude: API error" in stderr

    # an agent's stderr cannot become a workflow command in a CI log
    scenarios = write_scenarios(
        tmp_path, claude_scenario("loud", "--crash 1; echo '::error::x' >&2; false #")
    )
    code, _, stderr = run_cli(*sample_args(scenarios, tmp_path / "loud", "--max-runs", "1"))
    assert "(stderr: " in stderr and "::error::x" not in stderr
    assert "1 did not complete" in stdout


def test_execution_failures_are_in_the_gate_report_as_failed_runs(tmp_path, run_cli):
    scenarios = write_scenarios(tmp_path, claude_scenario(agent_args="--crash 1"))
    out, report_path = tmp_path / "candidate", tmp_path / "report.json"
    code, _, _ = run_cli(*sample_args(scenarios, out, "--report", report_path))
    assert code == 1
    report = json.loads(report_path.read_text())
    candidate = [r for r in report["runs"] if r["role"] == "candidate"]
    assert len(candidate) == 1 and candidate[0]["passed"] is False
    # a run that left nothing keeps its place in the recording order (its launch time)
    assert report["statistics"][0]["sequence"]["order"] == "recording"
    (execution,) = report["execution"]
    assert execution["unknown"] == 1 and execution["completed"] == 0
    assert execution["incomplete_runs"][0]["trace_id"] == candidate[0]["trace_id"]


def test_a_second_sample_continues_the_sequence(tmp_path, run_cli):
    scenarios = write_scenarios(tmp_path, claude_scenario(agent_args="--seed 11"))
    out, first, second = tmp_path / "candidate", tmp_path / "first.json", tmp_path / "second.json"
    code, stdout, _ = run_cli(*sample_args(scenarios, out, "--budget-runs", "3", "--report", first))
    assert code == 3  # not decided within the budget
    assert "run budget spent (3)" in stdout
    names = sorted(p.name for p in (out / "refund-policy").iterdir())
    assert [n[:4] for n in names] == ["0001", "0002", "0003"]
    code, stdout, _ = run_cli(*sample_args(scenarios, out, "--report", second))
    assert code == 0
    later = sorted(p.name for p in (out / "refund-policy").iterdir())
    assert later[:3] == names and later[3][:4] == "0004"
    assert "refund-policy: PASS (decided)" in stdout
    before = [r["trace_file"] for r in json.loads(first.read_text())["runs"]]
    after = [r["trace_file"] for r in json.loads(second.read_text())["runs"]]
    assert set(before) <= set(after)
    # the gate itself sees the second sequence extend the first (same order, same hash chain)
    regate = tmp_path / "regate.json"
    code, stdout, _ = run_cli(
        "gate", "--baseline", BASELINE, "--candidate", out, "--spec", SPEC,
        "--previous", first, "--out", regate,
    )  # fmt: skip
    assert code == 0, stdout
    (sequence,) = [s["sequence"] for s in json.loads(regate.read_text())["statistics"]]
    assert sequence["continuity"] == "extends" and sequence["order"] == "recording"
    assert sequence["chain"] == json.loads(second.read_text())["statistics"][0]["sequence"]["chain"]
    # a third invocation has nothing left to do: the scenario is decided
    code, stdout, _ = run_cli(*sample_args(scenarios, out))
    assert code == 0 and "0 new agent runs" in stdout
    assert sorted(p.name for p in (out / "refund-policy").iterdir()) == later


def test_budget_and_max_runs_bound_the_runs(tmp_path, run_cli):
    scenarios = write_scenarios(
        tmp_path, claude_scenario("a", "--seed 1"), claude_scenario("b", "--seed 2")
    )
    out = tmp_path / "candidate"
    code, stdout, _ = run_cli(*sample_args(scenarios, out, "--max-runs", "2"))
    assert code == 3
    assert len(traces_of(out)) == 4
    assert "reached max runs (2)" in stdout


def test_sigterm_mid_way_keeps_every_finished_run_and_a_rerun_continues(tmp_path):
    scenarios = write_scenarios(tmp_path, claude_scenario(agent_args="--seed 5 --sleep 0.4"))
    out = tmp_path / "candidate"
    abw = [sys.executable, "-c", "from abw.cli import main; main()"]
    process = subprocess.Popen(
        [*abw, *sample_args(scenarios, out)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    folder = out / "refund-policy"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if folder.is_dir() and len(list(folder.glob("*.json"))) >= 3:
            break
        time.sleep(0.05)
    time.sleep(0.2)  # land inside a run
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 2, stdout + stderr
    assert "Run the same command to continue" in stderr
    assert "Traceback" not in stderr
    recorded = sorted(folder.iterdir())
    assert recorded and all(p.suffix == ".json" for p in recorded)  # no temporary files left
    from abw.traceio import load_traces

    assert len(load_traces(out)) == len(recorded)  # every file is a whole, valid trace
    # no stand-in agent is left running
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert str(CLAUDE_AGENT) not in ps
    rerun = subprocess.run(
        [*abw, *sample_args(scenarios, out)], cwd=REPO, capture_output=True, text=True
    )
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    after = sorted(folder.iterdir())
    assert after[: len(recorded)] == recorded
    first_new = int(after[len(recorded)].name[:4])
    assert first_new == int(recorded[-1].name[:4]) + 1


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("scenarios:\n  - id: a\n    run: x {transcript}\n    importer: claude\n    colour: 1\n",
         "scenarios.yaml:5: scenarios.0.colour: unknown key"),
        ("scenarios:\n  - id: a\n    run: x {transcript}\n    run: y {transcript}\n"
         "    importer: claude\n", "scenarios.yaml:4: duplicate key 'run' (lines 3 and 4)"),
        ("scenarios:\n  - id: a\n    run: agent\n    importer: claude\n",
         "scenarios.yaml:2: scenarios.0: say where the transcript appears"),
        ("scenarios:\n  - id: a\n    run: x {transcript}\n    transcript: stdout\n"
         "    importer: claude\n", "keep one of them"),
        ("scenarios:\n  - id: a\n    run: x {transcript}\n    importer: claud\n",
         "scenarios.yaml:4: scenarios.0.importer: unknown importer 'claud'"),
        ("scenarios:\n  - id: a\n    run: x {transcript}\n    importer: claude\n"
         "    import_args: [--bash-tool-label, x]\n",
         "scenarios.yaml:5: scenarios.0.import_args: No such option '--bash-tool-label'"),
        ("scenarios:\n  - id: a\n    run: x {transcript}\n    importer: claude\n"
         "    import_args: [--out, x]\n", "--out is set by abw sample"),
        ("scenarios:\n  - id: a\n    run: x {transcript}\n    importer: claude\n"
         "    import_args: [--no-redact]\n",
         "scenarios.0.import_args: abw sample writes redacted traces only; remove --no-redact"),
        ("scenarios:\n  - id: a/b\n    run: x {transcript}\n    importer: claude\n",
         "scenarios.yaml:2: scenarios.0.id:"),
        ("scenarios: []\n", "scenarios.yaml:1: scenarios:"),
        # a variable nothing sets: no run could ever leave its transcript there
        ("scenarios:\n  - id: a\n    run: x\n    importer: claude\n"
         "    transcript: $ABW_TEST_UNSET_DIR/*.jsonl\n",
         "scenarios.yaml:5: scenarios.0.transcript: $ABW_TEST_UNSET_DIR is set neither"),
    ],
)  # fmt: skip
def test_bad_scenarios_files_are_one_line_errors(tmp_path, run_cli, body, needle):
    scenarios = tmp_path / "scenarios.yaml"
    scenarios.write_text(body, encoding="utf-8")
    code, _, stderr = run_cli(*sample_args(scenarios, tmp_path / "out"))
    assert code == 2
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert needle in stderr
    assert not (tmp_path / "out").exists()  # nothing ran


def test_parallel_scenarios_run_at_once_and_each_scenario_one_run_at_a_time(tmp_path, run_cli):
    log = tmp_path / "log.txt"
    agent = f"{PY} {shlex.quote(str(CLAUDE_AGENT))} --sleep 1 --transcript {{transcript}}"
    mark = shlex.quote(str(log))
    entries = []
    for sid in ("a", "b"):
        run = f"echo start $ABW_SCENARIO >> {mark}; {agent}; echo end $ABW_SCENARIO >> {mark}"
        entries.append(
            f"  - id: {sid}\n    run: {json.dumps(run)}\n    importer: claude\n"
            f'    import_args: [--bash-tool-labels, "{LABELS}", --output-fields, "{FIELDS}"]\n'
        )
    scenarios = write_scenarios(tmp_path, *entries)
    out = tmp_path / "candidate"
    code, stdout, stderr = run_cli(
        *sample_args(scenarios, out, "--parallel", "2", "--max-runs", "2")
    )
    assert code == 3, stdout + stderr
    events = log.read_text().split("\n")[:-1]
    assert sorted(events[:2]) == ["start a", "start b"]  # both scenarios started together
    for sid in ("a", "b"):  # and each scenario's own runs one after another
        own = [e.split()[0] for e in events if e.endswith(f" {sid}")]
        assert own == ["start", "end", "start", "end"]


def test_transcript_from_stdout(tmp_path, run_cli):
    scenarios = write_scenarios(
        tmp_path, claude_scenario(agent_args="--seed 2", transcript="stdout")
    )
    out = tmp_path / "candidate"
    code, stdout, stderr = run_cli(*sample_args(scenarios, out, "--max-runs", "2"))
    assert code == 3, stdout + stderr
    runs = traces_of(out)
    assert len(runs) == 2 and all(r["run"]["final_status"] == "success" for r in runs)
    assert all(r["run"]["canonical_output"]["decision"] == "refund_approved" for r in runs)


def test_a_signal_while_a_run_is_written_waits_until_it_is_written():
    import signal as signals

    from abw.faults import signals_held
    from abw.sample.loop import _install_handlers, _restore_handlers

    previous = _install_handlers()
    written = []
    try:
        with pytest.raises(KeyboardInterrupt), signals_held():
            os.kill(os.getpid(), signals.SIGTERM)
            time.sleep(0.05)
            written.append("trace")  # the write goes on; the interrupt comes after it
        assert written == ["trace"]
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signals.SIGTERM)
            time.sleep(1)
    finally:
        _restore_handlers(previous)
    assert signals.getsignal(signals.SIGTERM) == previous[signals.SIGTERM]


# an agent that ignores SIGTERM, started by the run's shell (``sh -c`` forks it): it writes
# its pid, then works on for a minute unless killed
_STUBBORN = (
    "import os, signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"
)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as handle:  # a zombie is dead too
        return handle.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("stop", ["timeout", "stop_all"])
def test_a_stopped_run_leaves_no_process_of_its_group(tmp_path, monkeypatch, stop):
    """The shell leading the run's group died of SIGTERM while the agent it started ignored
    it: abw waited for the shell only, never sent SIGKILL, and the agent went on after the
    run was over (its late transcript was taken for a later run's)."""
    import threading

    from abw.sample import runner
    from abw.sample.scenarios import Scenario

    monkeypatch.setattr(runner, "_GRACE_S", 0.5)
    pid_file = tmp_path / "agent.pid"
    command = f"{PY} -c {shlex.quote(_STUBBORN)} {shlex.quote(str(pid_file))}; echo done"
    scenario = Scenario(id="s", run=command, transcript="stdout", importer="claude")
    table = runner.ProcessTable()
    run = dict(base=tmp_path, work=tmp_path / "work", sequence=1, suffix=".jsonl", table=table)
    if stop == "timeout":
        result = runner.run_once(scenario, timeout=1.0, **run)
        assert result.timed_out
    else:
        thread = threading.Thread(
            target=runner.run_once, args=(scenario,), kwargs=run | {"timeout": 60}
        )
        thread.start()
        while not pid_file.exists() or not pid_file.read_text():
            time.sleep(0.05)
        table.stop_all()
        thread.join(10)
        assert not thread.is_alive()
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:  # (reaped by init, not by us)
        time.sleep(0.05)
    assert not _alive(pid)


def test_a_transcript_glob_reads_the_scenarios_env_and_one_spelling_per_folder(tmp_path):
    """``$VARS`` in ``transcript`` expanded from abw's own environment only, so a scenario's
    ``env: {SESS_DIR: ...}`` left every run "without a transcript"; and two scenarios naming
    one folder by two paths (``a/../sessions``, ``b/../sessions``) ran at once, one's run
    counted in both."""
    from abw.sample.scenarios import Scenario

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "sessions").mkdir()
    os.symlink(tmp_path / "sessions", tmp_path / "linked")
    sessions = str(tmp_path / "sessions" / "*.jsonl")

    def glob_of(**fields) -> str | None:
        scenario = Scenario(id="s", run="x", importer="claude", **fields)
        return scenario.transcript_glob(tmp_path)

    assert glob_of(transcript="$SESS/*.jsonl", env={"SESS": str(tmp_path / "sessions")}) == sessions
    assert glob_of(transcript="../sessions/*.jsonl", cwd="a") == sessions
    assert glob_of(transcript="../sessions/*.jsonl", cwd="b") == sessions
    assert glob_of(transcript="linked/*.jsonl") == sessions
    assert glob_of(transcript="sessions/**/*.jsonl") == str(
        tmp_path / "sessions" / "**" / "*.jsonl"
    )


def test_sample_out_and_the_baseline_are_kept_apart(tmp_path, run_cli):
    """``--out`` naming the baseline folder wrote the new runs into it (read as baseline runs
    by every later gate); ``--out`` holding it counted the baseline runs as candidates (PASS
    with 0 new runs). Both refused before any run."""
    scenarios = write_scenarios(tmp_path, claude_scenario())
    traces = tmp_path / "traces"
    baseline = traces / "baseline"
    baseline.mkdir(parents=True)
    for path in sorted(BASELINE.glob("*.json"))[:3]:
        (baseline / path.name).write_bytes(path.read_bytes())
    for out, words in ((baseline, "is the --baseline folder"), (traces, "holds the --baseline")):
        code, _, err = run_cli(*sample_args(scenarios, out, baseline=baseline))
        assert code == 2, err
        assert words in err and len(err.strip().splitlines()) == 1
        assert len(list(baseline.iterdir())) == 3


def test_max_runs_counts_every_run_recorded_even_copies_of_one(tmp_path, run_cli):
    """An agent whose every run records the same transcript (a fixed session id resumed, a
    replaying stand-in): the statistics count the copies once, n stayed 1, and ``--max-runs
    5`` was never reached — 709 agent runs in 20 s, paid for, until killed. It counts every
    run recorded."""
    seed = sorted((EXAMPLE / "transcripts" / "good").glob("*.jsonl"))[0]
    lines = [
        "  - id: refund-policy",
        f"    run: {json.dumps(f'cp {shlex.quote(str(seed))} {{transcript}}')}",
        "    importer: claude",
        f'    import_args: [--bash-tool-labels, "{LABELS}", --output-fields, "{FIELDS}"]',
    ]
    scenarios = write_scenarios(tmp_path, "\n".join(lines) + "\n")
    out = tmp_path / "out"
    args = sample_args(scenarios, out, "--max-runs", "3", "--budget-runs", "8", "-q")
    code, _, err = run_cli(*args)  # (the budget bounds the test if max-runs fails again)
    assert code == 3, err
    assert len(list((out / "refund-policy").glob("*.json"))) == 3


def _unwritable(folder: Path):
    """``folder``, made so that no one can create a file in it (immutable as root, read-only
    to a user), and a function that undoes it."""
    import shutil as sh

    folder.mkdir()
    if os.geteuid() == 0 and sh.which("chattr"):
        subprocess.run(["chattr", "+i", str(folder)], check=True)
        return lambda: subprocess.run(["chattr", "-i", str(folder)], check=True)
    folder.chmod(0o555)
    return lambda: folder.chmod(0o755)


def test_an_out_folder_that_cannot_be_written_is_refused_before_any_run(tmp_path, run_cli):
    """``--out`` on a read-only file system (no permission, a full disk) was found only when
    the first run was written: that agent run was paid for and lost. It is refused first."""
    ran = tmp_path / "ran"
    seed = sorted((EXAMPLE / "transcripts" / "good").glob("*.jsonl"))[0]
    command = f"echo ran >> {shlex.quote(str(ran))}; cp {shlex.quote(str(seed))} {{transcript}}"
    entry = f"  - id: refund-policy\n    run: {json.dumps(command)}\n    importer: claude\n"
    scenarios = write_scenarios(tmp_path, entry)
    locked = tmp_path / "locked"
    undo = _unwritable(locked)
    try:
        code, _, err = run_cli(*sample_args(scenarios, locked / "cand", "-q"))
    finally:
        undo()
    assert code == 2 and "--out: cannot write" in err, err
    assert not ran.exists()  # no agent run paid for


def test_a_second_ctrl_c_while_the_agents_are_stopped_leaves_none_running(tmp_path):
    """Ctrl-C twice: the second came while abw waited for the agents to end (5 s), cut the
    wait, and the SIGKILL for an agent that ignores SIGTERM was never sent — it ran on after
    abw had exited. Once stopping, a further signal changes nothing."""
    pid_file = tmp_path / "agent.pid"
    command = f"{PY} -c {shlex.quote(_STUBBORN)} {shlex.quote(str(pid_file))}; echo done"
    entry = f"  - id: refund-policy\n    run: {json.dumps(command)}\n    transcript: stdout\n"
    scenarios = write_scenarios(tmp_path, entry + "    importer: claude\n")
    abw = Path(sys.executable).with_name("abw")
    proc = subprocess.Popen(
        [str(abw), *sample_args(scenarios, tmp_path / "out", "-q")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "ABW_NO_PROGRESS": "1"},
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)  # while abw waits for the agent to end
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "interrupted" in err, err
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)
