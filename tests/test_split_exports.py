"""One run's records split over several files of a folder (a rotated OTLP file, an OpenAI
Agents SDK run's several uploads) import as the one run the uncut file holds: read with the
first file of the folder, the later file alone warns, and ``--workers`` writes the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from tests.importkit import import_traces, path_statuses

OTLP = (
    CORPUS / "otel-live/gen__otlp-json__pydantic-ai-2.68.0__v6__delegation-retries-exhausted.jsonl"
)
AGENTS = CORPUS / "openai-agents-live/gen__openai-agents-0.24.0__handoffs-as-tool.jsonl"
PINNED = ("--exported-at", "2026-01-01T00:00:00Z")


def _otlp_cut(folder: Path) -> Path:
    """The OTLP/JSON Lines export cut into two files of ``folder`` (a rotated file)."""
    lines = OTLP.read_bytes().splitlines(keepends=True)
    folder.mkdir()
    (folder / "spans-1.jsonl").write_bytes(b"".join(lines[: len(lines) // 2]))
    (folder / "spans-2.jsonl").write_bytes(b"".join(lines[len(lines) // 2 :]))
    return folder


def _agents_cut(folder: Path) -> Path:
    """The Agents SDK run's one upload cut into two uploads, a file each."""
    (upload,) = [json.loads(line) for line in AGENTS.read_text().splitlines()]
    half = len(upload["data"]) // 2
    folder.mkdir()
    for name, data in (
        ("upload-1.json", upload["data"][:half]),
        ("upload-2.json", upload["data"][half:]),
    ):
        (folder / name).write_text(json.dumps({"data": data}))
    return folder


def _same_run(split, whole) -> None:
    assert split.run.trace_id == whole.run.trace_id
    assert path_statuses(split) == path_statuses(whole)
    assert [s.model_dump(exclude={"source_ref"}) for s in split.spans] == [
        s.model_dump(exclude={"source_ref"}) for s in whole.spans
    ]
    assert split.run.final_status == whole.run.final_status
    assert split.run.canonical_output == whole.run.canonical_output


@pytest.mark.parametrize(
    ("importer", "cut", "uncut"),
    [("otel", _otlp_cut, OTLP), ("openai-agents", _agents_cut, AGENTS)],
)
def test_a_run_split_over_two_files_is_the_uncut_run(run_cli, tmp_path, importer, cut, uncut):
    folder = cut(tmp_path / "split")
    (whole,) = import_traces(importer, uncut)
    first = sorted(folder.iterdir())[0]
    (split,) = import_traces(importer, first)  # the first file reads its sibling
    _same_run(split, whole)
    out = tmp_path / "out"
    code, _, err = run_cli("import", importer, "--input", folder, "--out", out, *PINNED)
    assert code == 0, err
    (written,) = sorted(out.glob("*.json"))  # one trace, named after the first file
    assert written.stem == first.stem
    data = json.loads(written.read_text())
    assert data["run"]["final_status"] == whole.run.final_status
    assert [(s["type"], s["outcome"]) for s in data["spans"]] == [
        (s.type, s.outcome) for s in whole.spans
    ]


@pytest.mark.parametrize(("importer", "cut"), [("otel", _otlp_cut), ("openai-agents", _agents_cut)])
def test_the_later_file_alone_warns(tmp_path, importer, cut):
    folder = cut(tmp_path / "split")
    first, later = sorted(folder.iterdir())
    warnings: list[str] = []
    traces = import_traces(importer, later, warnings=warnings)
    assert len(traces) == 1
    assert warnings == [
        f"{later.name}: its runs continue traces that {first.name} begins; imported on its own: "
        "import its folder to read them with it"
    ]


@pytest.mark.parametrize(("importer", "cut"), [("otel", _otlp_cut), ("openai-agents", _agents_cut)])
def test_a_part_sent_twice_is_still_one_run(tmp_path, importer, cut):
    """An exporter that retries a request the collector already had writes that part twice:
    the files shared a span, so they were taken for copies and each read alone, the run
    shredded into a run with no end and runs of its last part (one of its spans twice)."""
    folder = cut(tmp_path / "split")
    first, later = sorted(folder.iterdir())
    (folder / f"{later.stem}-again{later.suffix}").write_bytes(later.read_bytes())
    (whole,) = import_traces(importer, OTLP if importer == "otel" else AGENTS)
    (split,) = import_traces(importer, first)
    _same_run(split, whole)


def test_copies_of_a_run_in_one_folder_stay_two_runs(tmp_path):
    """Files repeating a span are copies, not parts: each is its own run (as before)."""
    folder = tmp_path / "copies"
    folder.mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        (folder / name).write_bytes(OTLP.read_bytes())
    (whole,) = import_traces("otel", OTLP)
    for name in ("a.jsonl", "b.jsonl"):
        (copy,) = import_traces("otel", folder / name)
        assert path_statuses(copy) == path_statuses(whole)


def test_a_split_folder_on_workers_is_byte_identical(run_cli, tmp_path):
    pytest.importorskip("distributed")
    folder = tmp_path / "split"
    folder.mkdir()
    _otlp_cut(folder / "otel")
    outs = []
    for tag, extra in (("serial", ()), ("workers", ("--workers", "2"))):
        out = tmp_path / tag
        code, _, err = run_cli(
            "import", "otel", "--input", folder / "otel", "--out", out, *PINNED, *extra
        )
        assert code == 0, err
        outs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert len(outs[0]) == 1
    assert outs[0] == outs[1]
