"""Faults around a verdict: a closed stdout, a full disk, read-only or mistyped output paths, a
killed import, file modes, quadratic scans. One line on stderr, and where a verdict was
reached its exit code survives (abw.faults); nothing half-written is ever read as a trace.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import CORPUS, REPO, one_line

EXAMPLE = REPO / "examples" / "refund-policy"
TRACES = EXAMPLE / "traces"
SPEC = EXAMPLE / "behavior.yaml"
ABW = str(Path(sys.executable).with_name("abw"))
ENV = {**os.environ, "ABW_NO_PROGRESS": "1"}
VERDICTS = {"good": 0, "regressed": 1, "small": 3}  # PASS, FAIL, INCONCLUSIVE


def _gate(candidate: str, *extra: str | Path) -> list[str]:
    return [
        ABW, "gate", "--baseline", str(TRACES / "baseline"),
        "--candidate", str(TRACES / candidate), "--spec", str(SPEC), *map(str, extra),
    ]  # fmt: skip


# ---------------------------------------------------------------- 5. closed stdout


@pytest.mark.parametrize("candidate", sorted(VERDICTS))
def test_closed_stdout_keeps_the_verdicts_exit_code(candidate, tmp_path):
    """``abw gate ... | head``: click turned the broken pipe into exit 1 (reads as FAIL)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before abw writes a byte
    try:
        result = subprocess.run(
            _gate(candidate, "--report-dir", tmp_path / "out"),
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=ENV,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert result.returncode == VERDICTS[candidate], result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr
    assert (tmp_path / "out" / "gate-report.json").is_file()  # reports written all the same


# ---------------------------------------------------------------- full disk, bad output paths


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("candidate", sorted(VERDICTS))
def test_stdout_on_a_full_disk_is_one_line_and_keeps_the_exit_code(candidate):
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            _gate(candidate), stdout=full, stderr=subprocess.PIPE, text=True, env=ENV, timeout=120
        )
    assert result.returncode == VERDICTS[candidate], result.stderr
    assert "no space left" in one_line(result.stderr)


def test_out_in_a_read_only_folder_is_one_line_and_keeps_the_exit_code(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        for candidate, code in VERDICTS.items():
            result = subprocess.run(
                _gate(candidate, "--out", folder / "gate-report.json"),
                capture_output=True, text=True, env=ENV, timeout=120,
            )  # fmt: skip
            assert result.returncode == code, result.stderr
            line = one_line(result.stderr)
            assert "gate-report.json: --out: cannot write: permission denied" in line
    finally:
        folder.chmod(0o755)


def test_out_on_a_read_only_file_system_path_isone_line(tmp_path, run_cli):
    """/proc is read-only for everyone, root included."""
    code, _, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / "regressed",
        "--spec", SPEC, "--out", "/proc/abw-gate-report.json",
    )  # fmt: skip
    assert code == 1
    assert "/proc/abw-gate-report.json: --out: cannot write" in one_line(err)


@pytest.mark.parametrize("candidate", sorted(VERDICTS))
def test_out_naming_a_folder_is_a_usage_error_before_the_gate(candidate, tmp_path, run_cli):
    """A path of the wrong kind is found before the gate runs: exit 2 whatever the verdict."""
    reports = tmp_path / "reports"
    reports.mkdir()
    code, out, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / candidate,
        "--spec", SPEC, "--out", f"{reports}/",
    )  # fmt: skip
    assert code == 2 and out == ""
    assert "reports: --out: expected a file, found a folder" in one_line(err)
    assert list(reports.iterdir()) == []


@pytest.mark.parametrize("sub", ["", "sub"])
def test_report_dir_naming_a_file_is_a_usage_error_before_the_gate(tmp_path, run_cli, sub):
    existing = tmp_path / "notes.txt"
    existing.write_text("keep me\n")
    code, _, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / "regressed",
        "--spec", SPEC, "--report-dir", existing / sub,
    )  # fmt: skip
    assert code == 2
    reason = "a part of the path is a file" if sub else "exists and is not a folder"
    assert f"--report-dir: cannot write: {reason}" in one_line(err)
    assert existing.read_text() == "keep me\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_an_out_that_cannot_be_written_costs_no_other_output(tmp_path, run_cli):
    """After the verdict, a failed ``--out`` write lost the summary and every ``--report-dir``
    file too: a person saw one error line beside exit 1. The others are written and the
    summary printed; the failure is its one line, and the exit code the verdict's."""
    reports = tmp_path / "reports"
    code, out, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / "regressed",
        "--spec", SPEC, "--out", "/dev/full", "--report-dir", reports,
    )  # fmt: skip
    assert code == 1
    assert "/dev/full: --out: cannot write: no space left" in one_line(err)
    assert out.startswith("FAIL: ") and "report: /dev/full" not in out
    assert f"html: {reports / 'report.html'}" in out
    assert (reports / "report.html").is_file() and (reports / "gate-report.json").is_file()


@pytest.mark.parametrize("candidate", sorted(VERDICTS))
def test_reports_onto_a_full_disk_keep_the_verdicts_exit_code(candidate, tmp_path, run_cli):
    """/dev/full as the --out file: the write fails with ENOSPC after the verdict."""
    code, _, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / candidate,
        "--spec", SPEC, "--out", "/dev/full",
    )  # fmt: skip
    assert code == VERDICTS[candidate]
    assert "/dev/full: --out: cannot write: no space left" in one_line(err)
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)  # written into, never replaced


def test_abw_report_out_naming_a_folder_isone_line(tmp_path, run_cli):
    out = tmp_path / "gate-report.json"
    run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", TRACES / "good",
        "--spec", SPEC, "--out", out,
    )  # fmt: skip
    (tmp_path / "r.html").mkdir()
    code, _, err = run_cli("report", "--input", out, "--out", tmp_path / "r.html")
    assert code == 2 and "expected a file, found a folder" in one_line(err)


def test_an_unreadable_trace_isone_line(tmp_path, run_cli):
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    cand = tmp_path / "cand"
    cand.mkdir()
    for path in sorted((TRACES / "good").glob("*.json"))[:3]:
        (cand / path.name).write_bytes(path.read_bytes())
    locked = sorted(cand.iterdir())[1]
    locked.chmod(0)
    code, _, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", cand, "--spec", SPEC
    )
    assert code == 2 and f"{locked.name}: cannot read: permission denied" in one_line(err)


def test_a_trace_that_is_a_folder_isone_line(tmp_path, run_cli):
    cand = tmp_path / "cand"
    (cand / "odd.json").mkdir(parents=True)
    code, _, err = run_cli("validate", cand / "odd.json")
    assert code == 2 and "odd.json: expected a file, found a folder" in one_line(err)


# ---------------------------------------------------------------- 2. file modes


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_written_files_get_the_mode_open_would_give(tmp_path, umask):
    from abw.atomic import write_atomic

    previous = os.umask(umask)
    try:
        fresh = write_atomic(tmp_path / "new.json", "{}")
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask
        kept = tmp_path / "kept.json"
        kept.write_text("old")
        kept.chmod(0o640)
        write_atomic(kept, "new")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o640 and kept.read_text() == "new"
    finally:
        os.umask(previous)


def test_gate_reports_are_readable_by_others_under_umask_022(tmp_path):
    out = tmp_path / "out"
    subprocess.run(
        ["sh", "-c", 'umask 022 && exec "$@"', "sh", *_gate("good", "--report-dir", out)],
        check=True, capture_output=True, env=ENV, timeout=120,
    )  # fmt: skip
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()}
    assert modes and all(mode == 0o644 for mode in modes.values()), modes


# ---------------------------------------------------------------- 1. staging folders


def test_a_staging_folder_is_never_read_as_traces(tmp_path, run_cli):
    """What a killed import leaves: traces in a hidden staging folder under the candidate set."""
    cand = tmp_path / "traces" / "candidate"
    staging = cand / ".claude.abw-staging-x1y2"
    staging.mkdir(parents=True)
    for path in sorted((TRACES / "good").glob("*.json")):
        (staging / path.name).write_bytes(path.read_bytes())
    code, _, err = run_cli(
        "gate", "--baseline", TRACES / "baseline", "--candidate", cand, "--spec", SPEC
    )
    assert code == 2 and "no trace files" in one_line(err)
    (cand / "run.json").write_bytes(next((TRACES / "regressed").glob("*.json")).read_bytes())
    from abw.traceio import trace_paths

    assert trace_paths(cand) == [cand / "run.json"]


def test_sigterm_during_a_folder_import_leaves_nothing_behind(tmp_path):
    source = tmp_path / "exports"
    source.mkdir()
    export = sorted((EXAMPLE / "transcripts" / "good").rglob("*.jsonl"))[0]
    for i in range(400):
        (source / f"s{i:03d}.jsonl").write_bytes(export.read_bytes())
    out = tmp_path / "traces" / "candidate" / "claude"
    proc = subprocess.Popen(
        [ABW, "import", "claude", "--input", str(source), "--out", str(out), "-q"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV,
    )  # fmt: skip
    parent = out.parent
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until the staging folder holds some traces
        staged = [p for p in parent.glob(".*") if p.is_dir() and any(p.iterdir())]
        if staged or proc.poll() is not None:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the import finished before it could be interrupted"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "terminated" in err
    assert list(parent.iterdir()) == []  # no staging folder, no half result


# ---------------------------------------------------------------- 10 + 11. linear scans


def _cpu_seconds(work, *args) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        work(*args)
        best = min(best, time.process_time() - started)
    return max(best, 1e-4)


def _linear(work, make_input, small: int) -> None:
    """10x the input costs well under 100x the CPU time (quadratic would be ~100x). The scans
    are regular-expression searches in C, where no count of steps can be taken, so the ratio
    is measured: up to three times, and one ratio under 35 passes (a quadratic scan reads
    about 100 every time; a busy machine can push one linear reading past 35)."""
    large_input, small_input = make_input(10 * small), make_input(small)
    ratios = []
    for _ in range(3):
        ratios.append(_cpu_seconds(work, large_input) / _cpu_seconds(work, small_input))
        if ratios[-1] < 35:
            return
    raise AssertionError(f"10x the input took {ratios} times the CPU time")


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "```json\n" * n,  # openers without closers
        lambda n: "```\n" + "\n" * (8 * n),  # one opener, a long run of blank lines
        lambda n: '```json\n{"a": 1}\n' * n + "```",  # one closer at the very end
        lambda n: "x ```json\n" + "y" * (8 * n) + "\n ```z",
    ],
)
def test_output_fields_scan_is_linear(make):
    from abw.importers.common import extract_canonical_output

    _linear(lambda text: extract_canonical_output(text, ("decision",)), make, 2000)


def test_mini_swe_agent_bash_scan_is_linear():
    from abw.importers.swe_agent import bash_command

    for opener in ("```bash\n", "```mswea_bash_command\n", "<mswea_bash_command>"):
        _linear(bash_command, opener.__mul__, 4000)
    both = "run:\n```bash\nls -la\n```\n<mswea_bash_command>pwd</mswea_bash_command>"
    assert bash_command(both) == "ls -la"
    assert bash_command("<mswea_bash_command>pwd</mswea_bash_command>\n```sh\nls\n```") == "pwd"
    assert bash_command("```bash\nls") is None


def test_fenced_blocks_keep_what_the_regex_found():
    from abw.importers.common import extract_canonical_output

    text = 'Done.\n```json\n{"decision": "refund_approved", "n": 1}\n```\nThanks'
    assert extract_canonical_output(text, ("decision",)) == {"decision": "refund_approved"}
    text = 'a ```json\n{"x": 1\n```\n```\n{"decision": 2}\n   ```'
    assert extract_canonical_output(text, ("decision",)) == {"decision": 2}


def _many_scenarios(n: int):
    from abw.gating import run_gate

    report = run_gate(TRACES / "baseline", TRACES / "good", SPEC)
    diff = report.diff[0]
    shape = [c for c in report.checks if c.category == "diff_shape"]
    diffs, checks = [], []
    for i in range(n):
        sid = f"scenario-{i:05d}"
        diffs.append(diff.model_copy(update={"scenario_id": sid}))
        checks += [c.model_copy(update={"scenario_id": sid, "id": f"{c.id}@{sid}"}) for c in shape]
    return report.model_copy(update={"diff": diffs, "checks": checks})


class _CountedList(list):
    """A list that counts the passes over it (a renderer's reads of a report's checks)."""

    passes = 0

    def __iter__(self):
        self.passes += 1
        return super().__iter__()


def test_rendering_is_linear_in_scenarios():
    """A renderer asking for every scenario's diff_shape checks reads the report's checks once
    (they are indexed by scenario), not once per scenario: counted, never timed."""
    from abw.render.common import diff_shape_checks

    report = _many_scenarios(3000)
    checks = _CountedList(report.checks)
    report = report.model_copy(update={"checks": checks})
    found = [diff_shape_checks(report, d.scenario_id) for d in report.diff]
    assert checks.passes == 1
    assert len(found) == 3000 and all(found)
    for d, by_rule in zip(report.diff[::500], found[::500], strict=True):
        expected = [c for c in list.__iter__(checks) if c.scenario_id == d.scenario_id]
        assert by_rule == {c.rule: c for c in expected if c.category == "diff_shape"}


def test_markdown_and_html_of_many_scenarios_render(tmp_path):
    from abw.render import render

    report = _many_scenarios(400)
    started = time.process_time()
    markdown = render(report, "markdown", max_chars=1 << 20)
    html = render(report, "html")
    assert "scenario-00399" in html and "Difference from baseline" in markdown
    assert time.process_time() - started < 120  # a generous bound; 127 s was for 8,000


def test_verdict_json_of_many_scenarios(tmp_path):
    report = _many_scenarios(50)
    assert json.loads(report.model_dump_json())["diff"][49]["scenario_id"] == "scenario-00049"


# ---------------------------------------------------------------- the Action's inputs


@pytest.fixture
def fake():
    from fake_github import FakeGitHub

    server = FakeGitHub().start()
    yield server
    server.stop()


def _action_error(result) -> str:
    logs = result.stdout + result.stderr
    assert "internal error" not in logs and "Traceback" not in logs, logs
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1, result.stderr
    return errors[0]


def test_action_output_dir_under_a_file_is_a_usage_error(tmp_path, fake):
    from action_env import Runner, write_gate_workspace

    runner = Runner(tmp_path, fake.url)
    inputs = write_gate_workspace(runner.workspace, "PASS")
    (runner.workspace / "file.txt").write_text("x")
    result = runner.run({**inputs, "output-dir": "file.txt/sub"})
    assert result.code == 2, result.stderr
    line = _action_error(result)
    assert "file.txt/sub: output-dir: cannot write: a part of the path is a file" in line
    assert not fake.requests


@pytest.mark.parametrize("verdict", ["PASS", "FAIL", "INCONCLUSIVE"])
def test_action_failing_to_write_outputs_keeps_the_verdicts_exit_code(tmp_path, fake, verdict):
    """The runner's GITHUB_OUTPUT cannot be written (here: it is a folder) after the verdict."""
    from action_env import Runner, write_gate_workspace

    runner = Runner(tmp_path, fake.url)
    inputs = write_gate_workspace(runner.workspace, verdict)
    folder = tmp_path / "output-folder"
    folder.mkdir()
    result = runner.run({**inputs, "comment": "off"}, GITHUB_OUTPUT=str(folder))
    assert result.code == {"PASS": 0, "FAIL": 1, "INCONCLUSIVE": 3}[verdict], result.stderr
    logs = result.stdout + result.stderr
    assert "could not write $GITHUB_OUTPUT" in logs and "Is a directory" in logs
    assert "internal error" not in logs and "Traceback" not in logs


@pytest.mark.parametrize(
    ("inputs", "needle"),
    [
        ({"max-annotations": "\u00b2"}, "is not a whole number"),
        ({"event-file": "folder"}, "expected a file, found a folder"),
        ({"report": "folder"}, "expected a file, found a folder"),
        ({"report": "nan.json"}, "NaN is not a JSON number"),
        ({"report": "dup.json"}, 'duplicate key "verdict"'),
    ],
    ids=["superscript-annotations", "event-file-folder", "report-folder", "report-nan", "dup"],
)
def test_action_bad_inputs_areone_line(tmp_path, fake, inputs, needle):
    from action_env import Runner, make_report

    runner = Runner(tmp_path, fake.url)
    (runner.workspace / "folder").mkdir()
    text = make_report("PASS").model_dump_json()
    (runner.workspace / "nan.json").write_text(text.replace('"verdict":"PASS"', '"verdict":NaN', 1))
    (runner.workspace / "dup.json").write_text(
        text.replace('"verdict":"PASS"', '"verdict":"FAIL","verdict":"PASS"', 1)
    )
    result = runner.run({"report": "nan.json", **inputs} if "report" not in inputs else inputs)
    assert result.code == 2, result.stdout + result.stderr
    assert needle in _action_error(result)


# ---------------------------------------------------------------- the exit itself


_EXIT_PROBE = """
import atexit, sys, threading, time
marker = sys.argv.pop(1)
atexit.register(lambda: open(marker + ".atexit", "w").write("ran"))
def late():
    time.sleep(float(sys.argv.pop(1)))
    open(marker + ".thread", "w").write("ran")
if sys.argv[1] != "0":
    threading.Thread(target=late).start()
else:
    sys.argv.pop(1)
from abw.cli import main
sys.argv[0] = "abw"
main()
"""


@pytest.mark.parametrize("thread", [False, True])
@pytest.mark.parametrize("candidate", sorted(VERDICTS))
def test_the_exit_keeps_the_code_the_output_the_exit_handlers_and_running_threads(
    candidate, thread, tmp_path
):
    """abw ends without the interpreter's teardown when it can: the verdict's exit code, the
    whole of stdout through a pipe and the exit handlers all stay, and a thread still running
    (a library's) is waited for, as in an ordinary exit."""
    marker = tmp_path / "marker"
    args = ["0.3"] if thread else ["0"]
    result = subprocess.run(
        [sys.executable, "-c", _EXIT_PROBE, str(marker), *args, *_gate(candidate)[1:]],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=120,
    )
    assert result.returncode == VERDICTS[candidate], result.stderr
    verdict = {0: "PASS", 1: "FAIL", 3: "INCONCLUSIVE"}[VERDICTS[candidate]]
    assert result.stdout.startswith(verdict + ":"), result.stdout
    assert result.stdout.endswith(" of 16 checks passed.\n"), result.stdout  # the whole of it
    assert (tmp_path / "marker.atexit").read_text() == "ran"
    assert (tmp_path / "marker.thread").exists() == thread


def test_out_naming_standard_output_redirected_to_a_file_writes_into_it(tmp_path):
    """``--out /dev/stdout`` with standard output redirected to a file: the name resolved to a
    regular file, so the report was written to a temporary and renamed over the name — the
    ``/dev/stdout`` link itself became a file (as root, for every later process) and the
    redirect got only the summary. Here a private link to ``/proc/self/fd/1`` stands in for
    ``/dev/stdout``: written through the process's own descriptor, the link stays, and the
    report comes before the summary."""
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    redirected = tmp_path / "redirected.txt"
    with open(redirected, "wb") as stdout:
        result = subprocess.run(
            _gate("good", "--out", link, "-q"), stdout=stdout, stderr=subprocess.PIPE,
            env=ENV, timeout=120,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert link.is_symlink()
    text = redirected.read_text()
    report, summary = text.rsplit("}\n", 1)
    assert json.loads(report + "}")["verdict"] == "PASS"
    assert summary == "PASS: all 16 checks passed over 20 candidate runs.\n"


def test_an_output_that_is_a_link_stays_a_link(tmp_path):
    """``--out report.json`` where report.json links to a shared file: the file it leads to is
    replaced (atomically, as any output), the link stays (it was replaced by a file)."""
    from abw.atomic import write_atomic

    shared = tmp_path / "shared" / "report.json"
    shared.parent.mkdir()
    shared.write_text("old")
    link = tmp_path / "report.json"
    link.symlink_to(Path("shared") / "report.json")
    write_atomic(link, "new")
    assert link.is_symlink() and shared.read_text() == "new"


def test_sigterm_after_the_verdict_keeps_its_exit_code(tmp_path):
    """A verdict's exit code survives every later fault; SIGTERM while the report waited for
    its reader (a FIFO given as --out) ended in 143 — a FAILing gate read as no verdict."""
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [ABW, "gate", "--baseline", str(TRACES / "baseline"), "--candidate",
         str(TRACES / "regressed"), "--spec", str(SPEC), "--out", str(fifo)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV,
    )  # fmt: skip
    wchan = Path(f"/proc/{proc.pid}/wchan")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:  # blocked opening the FIFO
        if wchan.exists() and wchan.read_text() == "wait_for_partner":
            break
        time.sleep(0.05)
    assert proc.poll() is None
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "terminated" in err, (proc.returncode, err)


def test_reading_the_umask_never_widens_it_for_other_threads(tmp_path, monkeypatch):
    """A new file's mode is 0o666 less the umask; reading the umask set it to 0o022 for an
    instant, and a file another thread created then got 0o644 under umask 0o077 (606–1,523 of
    100,000 files). On Linux it is read without being set."""
    old = os.umask(0o077)
    try:

        def never(mask: int) -> int:
            raise AssertionError(f"the umask was set to {mask:o}")

        monkeypatch.setattr(os, "umask", never)
        from abw.atomic import file_mode

        assert file_mode(tmp_path / "new.json") == 0o600
    finally:
        monkeypatch.undo()
        os.umask(old)


def _many_traces(folder: Path, count: int) -> Path:
    """One OTLP JSON Lines export holding ``count`` traces (a real pydantic-ai export, its
    trace id made new for each)."""
    source = (CORPUS / "otel" / "gen__otlp-json__pydantic-ai__genai-semconv.jsonl").read_text()
    export = folder / "many.jsonl"
    with export.open("w", encoding="utf-8") as out:
        for i in range(count):
            out.write(source.replace("fded474402aba942f75edc89a1a91f52", f"{i:032x}"))
    return export


def test_sigterm_while_one_export_of_many_traces_is_written_leaves_none(tmp_path):
    """One export holding 3,000 runs was written straight into --out, run by run: SIGTERM
    left 216–347 of them, read by the next gate as the whole candidate set. They are staged
    and moved into place together, as a folder's are."""
    export = _many_traces(tmp_path, 3000)
    out = tmp_path / "traces"
    out.mkdir()
    proc = subprocess.Popen(
        [ABW, "import", "otel", "--input", str(export), "--out", str(out), "-q"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:  # until some are staged
        staged = [p for p in out.glob(".*") if p.is_dir() and len(list(p.iterdir())) > 100]
        if staged:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the import finished before it could be stopped"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    left = list(out.iterdir())
    assert (proc.returncode, left) == (143, []), (proc.returncode, err, len(left))


def test_import_stages_inside_an_existing_out_folder(tmp_path):
    """The staging folder was made beside --out: into a mount point (another file system
    than its parent) every import failed ("Invalid cross-device link"), and under a folder
    that cannot be written the error named --out. An existing --out folder holds it."""
    parent = tmp_path / "locked"
    parent.mkdir()
    out = parent / "traces"
    out.mkdir()
    exports = tmp_path / "exports"
    exports.mkdir()
    _many_traces(exports, 3)
    undo = _locked(parent)
    try:
        done = subprocess.run(
            [ABW, "import", "otel", "--input", str(exports), "--out", str(out)],
            capture_output=True, text=True, env=ENV, timeout=120,
        )  # fmt: skip
    finally:
        undo()
    assert done.returncode == 0, done.stderr
    assert len(list(out.glob("*.json"))) == 3 and not list(out.glob(".*"))


def _locked(folder: Path):
    """``folder`` made so that no entry can be added to it (immutable as root, read-only to a
    user), and a function that undoes it."""
    if os.geteuid() == 0 and shutil.which("chattr"):
        subprocess.run(["chattr", "+i", str(folder)], check=True)
        return lambda: subprocess.run(["chattr", "-i", str(folder)], check=True)
    folder.chmod(0o555)
    return lambda: folder.chmod(0o755)
