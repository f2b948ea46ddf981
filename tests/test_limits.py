"""read_limited: the file's own bytes, refused over the limit, without a buffer of the limit."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest

from abw.errors import AbwInputError
from abw.limits import MAX_TRACE_BYTES, MiB, read_limited


def test_a_small_file_is_read_without_a_buffer_of_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "small.json"
    path.write_bytes(b'{"a": 1}')
    tracemalloc.start()
    try:
        assert read_limited(path, MAX_TRACE_BYTES) == b'{"a": 1}'
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MiB  # read(limit + 1) asked for 256 MiB here


@pytest.mark.parametrize("size", [0, 1, 1000, 3 * MiB + 5])
def test_the_bytes_are_the_file(tmp_path: Path, size: int) -> None:
    path = tmp_path / "f"
    data = os.urandom(size)
    path.write_bytes(data)
    assert read_limited(path, 4 * MiB) == data


def test_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 2001)
    with pytest.raises(AbwInputError, match="over abw's limit"):
        read_limited(path, 2000)
    assert read_limited(path, 2001) == b"x" * 2001


def test_a_file_that_reports_no_size_is_cut_off_at_the_limit() -> None:
    with pytest.raises(AbwInputError, match="over abw's limit"):
        read_limited("/dev/zero", 3 * MiB)


def test_a_pipe_is_read_to_its_end(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    pid = os.fork()
    if pid == 0:  # child: write and leave
        with open(fifo, "wb") as handle:
            handle.write(b"y" * (2 * MiB + 3))
        os._exit(0)
    try:
        assert read_limited(fifo, 4 * MiB) == b"y" * (2 * MiB + 3)
    finally:
        os.waitpid(pid, 0)
