"""Reading input files: read_limited without a buffer of the limit, and files_within resolving
only the paths that pass through a symlink."""

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
    """It said "the file is 3 MiB, over abw's limit of 3 MiB": the bytes read, cut at the
    limit, are no size of the file."""
    with pytest.raises(AbwInputError) as refused:
        read_limited("/dev/zero", 3 * MiB, "the trace file")
    assert refused.value.message == (
        "the trace file holds more than abw's limit of 3 MiB; refusing to read it"
    )


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


def test_only_links_below_the_root_are_followed_out(tmp_path: Path) -> None:
    """files_within resolves only paths through a symlink; every kind is still judged."""
    from abw.folders import files_within

    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "plain").mkdir(parents=True)
    (root / "inner").mkdir()
    outside.mkdir()
    (outside / "o.json").write_text("{}")
    (root / "plain" / "a.json").write_text("{}")
    (root / "inner" / "i.json").write_text("{}")
    (root / "to-inner").symlink_to(root / "inner", target_is_directory=True)
    (root / "file-in.json").symlink_to(root / "plain" / "a.json")
    inside = [root / "file-in.json", root / "inner" / "i.json", root / "plain" / "a.json"]
    assert files_within(root, root, "*.json", "trace folder") == inside
    # as rglob: a link to a folder is not entered, and one leading outside is refused (its
    # files would be left out unseen); given as the folder to walk, it is judged
    (root / "to-out").symlink_to(outside, target_is_directory=True)
    with pytest.raises(AbwInputError, match="symlink leads outside") as info:
        files_within(root, root, "*.json", "trace folder")
    assert info.value.file == str(root / "to-out")
    with pytest.raises(AbwInputError, match="symlink leads outside") as info:
        files_within(root, root / "to-out", "*.json", "trace folder")
    assert info.value.file == str(root / "to-out" / "o.json")
    (root / "to-out").unlink()
    (root / "file-out.json").symlink_to(outside / "o.json")
    with pytest.raises(AbwInputError, match="symlink leads outside") as info:
        files_within(root, root, "*.json", "trace folder")
    assert info.value.file == str(root / "file-out.json")
    (root / "file-out.json").unlink()
    linked_root = tmp_path / "linked-root"
    linked_root.symlink_to(root, target_is_directory=True)  # the root itself may be a link
    found = files_within(linked_root, linked_root, "*.json", "trace folder")
    assert found == [linked_root / p.relative_to(root) for p in inside]


def _spec_forms(folder: Path) -> dict[str, Path]:
    """The example spec written as the gate reads it but validate's suffix reader did not (and
    the other way round): JSON indented with tabs (no YAML), JSON with a byte order mark, YAML
    named without a suffix, and one over the spec limit (1 MiB)."""
    import json

    import yaml

    from tests.conftest import REPO

    text = (REPO / "examples" / "refund-policy" / "behavior.yaml").read_text()
    document = yaml.safe_load(text)
    forms = {
        "tabs.json": json.dumps(document, indent="\t"),
        "bom.json": "\ufeff" + json.dumps(document, indent=2),
        "no-suffix": text,
        "big.yaml": text + "# " + "x" * MiB + "\n",
    }
    for name, body in forms.items():
        (folder / name).write_text(body, encoding="utf-8")
    return {name: folder / name for name in forms}


def test_validate_says_ok_exactly_to_the_specs_the_gate_reads(tmp_path: Path, run_cli) -> None:
    """reliability.md: a file ``abw validate`` calls ok is one the gate accepts. It read specs
    by their suffix and trace files under no object limit: tab-indented JSON was ok and the
    gate refused it, a spec over 1 MiB was ok, YAML named without a suffix and JSON with a
    byte order mark were refused while the gate ran them."""
    from tests.conftest import example_gate

    # the gate's reading: tab-indented JSON is no YAML, 1 MiB is the spec limit; a byte order
    # mark and a name without a suffix are YAML it reads
    accepted = {"tabs.json": False, "bom.json": True, "no-suffix": True, "big.yaml": False}
    for name, spec in _spec_forms(tmp_path).items():
        code, _, err = run_cli("validate", spec)
        args = example_gate("good")[:-1]
        gated, _, gate_err = run_cli(*args, spec, "--out", tmp_path / "report.json")
        assert (gated in (0, 1, 3)) == accepted[name], (name, gate_err)
        assert (code == 0) == accepted[name], (name, err)
    code, _, err = run_cli("validate", tmp_path / "big.yaml")
    assert "bytes, over abw's limit of 1,048,576 bytes" in err, err  # (not "1 MiB, over 1 MiB")


def test_validate_refuses_a_trace_the_gate_refuses_for_its_objects(tmp_path: Path, run_cli):
    import json

    from abw.limits import MAX_TRACE_OBJECTS
    from tests.conftest import REPO

    source = next((REPO / "examples" / "refund-policy" / "traces" / "good").glob("*.json"))
    trace = json.loads(source.read_text())
    trace["spans"][0].setdefault("attributes", {})["many"] = [{}] * MAX_TRACE_OBJECTS
    path = tmp_path / "run.json"
    path.write_text(json.dumps(trace))
    code, _, err = run_cli("validate", path)
    assert code == 2 and "more than 800,000 JSON objects" in err, err
    code, _, gate_err = run_cli("fingerprint", path)
    assert code == 2 and "more than 800,000 JSON objects" in gate_err
