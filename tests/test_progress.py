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
