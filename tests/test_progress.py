"""The progress bar draws on a terminal only, never in logs, and erases itself."""

from __future__ import annotations

import io

from abw.progress import Progress, progress_enabled, track


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_bar_when_not_a_tty():
    stream = io.StringIO()
    assert list(track(range(5), "import", stream=stream)) == [0, 1, 2, 3, 4]
    assert stream.getvalue() == ""


def test_no_bar_when_quiet_or_disabled(monkeypatch):
    assert not progress_enabled(FakeTty(), quiet=True)
    monkeypatch.setenv("ABW_NO_PROGRESS", "1")
    assert not progress_enabled(FakeTty())


def test_bar_on_tty_reaches_total_and_erases(monkeypatch):
    monkeypatch.delenv("ABW_NO_PROGRESS", raising=False)
    stream = FakeTty()
    items = list(track(range(3), "gate", stream=stream))
    assert items == [0, 1, 2]
    text = stream.getvalue()
    assert "gate [" in text and "3/3" in text and "100%" in text
    assert text.endswith("\r\x1b[K")  # erased when done
    assert "\n" not in text


def test_unknown_total_counts_only():
    bar = Progress(0, "scan", enabled=True, stream=FakeTty())
    bar.advance(7)
    assert bar.line() == "scan 7"
    bar.close()
    assert not bar.enabled


def test_broken_stream_disables_bar():
    class Broken(FakeTty):
        def write(self, text: str) -> int:
            raise OSError("gone")

    bar = Progress(2, "x", enabled=True, stream=Broken())
    bar.advance(2)  # must not raise
    assert not bar.enabled


def _abw_with_tty_stderr(args: list[str], cwd) -> tuple[int, str]:
    """Run abw with stderr on a pseudo-terminal; returns (exit code, what the terminal showed)."""
    import os
    import pty
    import subprocess
    import sys
    from pathlib import Path

    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "ABW_NO_PROGRESS"}
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("abw")), *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=120), b"".join(chunks).decode("utf-8", "replace")


def test_import_draws_a_bar_on_a_terminal_only(tmp_path):
    import shutil

    from conftest import CORPUS

    source = tmp_path / "in"
    source.mkdir()
    for path in sorted((CORPUS / "codex").glob("*.jsonl"))[:3]:
        shutil.copyfile(path, source / path.name)
    code, shown = _abw_with_tty_stderr(["import", "codex", "--input", "in", "--out", "a"], tmp_path)
    assert code == 0 and "import codex [" in shown and "3/3" in shown
    code, shown = _abw_with_tty_stderr(
        ["import", "codex", "--input", "in", "--out", "b", "--quiet"], tmp_path
    )
    assert code == 0 and "import codex [" not in shown


def test_write_line_prints_above_the_bar_or_plainly():
    plain = io.StringIO()
    Progress(3, "runs", stream=plain).write_line("a #1: passed")
    assert plain.getvalue() == "a #1: passed\n"
    tty = FakeTty()
    bar = Progress(3, "runs", enabled=True, stream=tty)
    bar.advance()
    bar.write_line("a #1: passed")
    text = tty.getvalue()
    assert "\r\x1b[Ka #1: passed\n" in text
    assert text.endswith(bar.line() + "\x1b[K")  # the bar is drawn again below the line


def _folder_with_a_bad_run(folder, count: int = 260):
    """``count`` example runs, the 150th no trace."""
    from conftest import REPO

    folder.mkdir()
    good = sorted((REPO / "examples" / "refund-policy" / "traces" / "good").glob("*.json"))
    for i in range(count):
        text = good[i % len(good)].read_text()
        (folder / f"r{i:03d}.json").write_text("{" if i == 150 else text)
    return folder


def test_a_load_that_fails_erases_its_bar(tmp_path, monkeypatch):
    """``load_traces`` on a terminal, failing at the 150th file: "loading c [ ] 1/261 0%"
    stayed on the terminal, the error printed after it (the loop's generator was held by the
    error's traceback, so its bar was never closed)."""
    import pytest

    from abw import AbwInputError, load_traces
    from abw.leanrun import load_lean_traces

    monkeypatch.delenv("ABW_NO_PROGRESS", raising=False)
    folder = _folder_with_a_bad_run(tmp_path / "c")
    for load in (load_traces, lambda f: list(load_lean_traces(f))):
        stream = FakeTty()
        monkeypatch.setattr("sys.stderr", stream)
        with pytest.raises(AbwInputError) as raised:
            load(folder)
        shown = stream.getvalue()
        assert "loading c [" in shown and shown.endswith("\r\x1b[K"), repr(shown[-80:])
        del raised


def test_a_gate_that_fails_erases_its_bar_before_the_error(tmp_path):
    from conftest import REPO

    _folder_with_a_bad_run(tmp_path / "c")
    example = REPO / "examples" / "refund-policy"
    args = ["gate", "--baseline", str(example / "traces" / "baseline"), "--candidate", "c",
            "--spec", str(example / "behavior.yaml")]  # fmt: skip
    code, shown = _abw_with_tty_stderr(args, tmp_path)
    assert code == 2
    before, _, _ = shown.rpartition("abw: error:")
    assert "loading c [" in before and before.endswith("\r\x1b[K"), repr(before[-80:])
