"""LangSmith llm runs' token counts: where each SDK records them (the real recordings of
tests/corpus/langsmith, langsmith-live and js-sdks-live/langsmith-js), read as the llm span's
``input_tokens``/``output_tokens`` from the first place that holds them, ints only; nothing else
of a trace changes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS
from tests.importkit import cli_import, import_trace

LIVE = CORPUS / "langsmith-live"
JS = CORPUS / "js-sdks-live" / "langsmith-js"
USAGE = ("input_tokens", "output_tokens")
OPENAI = ("prompt_tokens", "completion_tokens")
EXPORTED_AT = "2026-01-01T00:00:00Z"

#: The places a run records its counts (a path, list indexes as ints; the input and output keys)
PLACES: dict[str, tuple[tuple[str | int, ...], tuple[str, str]]] = {
    "answer": (("outputs", "usage_metadata"), USAGE),
    "message": (("outputs", "generations", 0, 0, "message", "kwargs", "usage_metadata"), USAGE),
    "llm_output": (("outputs", "llm_output", "token_usage"), OPENAI),
    "llmOutput": (("outputs", "llmOutput", "tokenUsage"), ("promptTokens", "completionTokens")),
    "metadata": (("extra", "metadata", "usage_metadata"), USAGE),
    "run": ((), OPENAI),
}

#: A recording of each form, and a place it holds its counts in
FORMS = [
    (CORPUS / "langsmith" / "langsmithjs__wrap_openai_default.json", "answer"),
    (CORPUS / "langsmith" / "gen__langsmith__runs-batch_payload.json", "answer"),
    (CORPUS / "langsmith" / "gen__langsmith__runs-multipart_parts.json", "metadata"),
    (LIVE / "tool_handled-batch", "llm_output"),
    (LIVE / "retry-batch", "llm_output"),
    (LIVE / "stream-multipart", "message"),
    (LIVE / "api_error-zstd", "metadata"),
    (LIVE / "list_runs" / "subagent.jsonl", "llm_output"),
    (JS / "stream-batch", "llmOutput"),
    (JS / "subagent-multipart", "message"),
    (JS / "api_error-multipart", "metadata"),
]

#: Every LangSmith recording of the corpus (list_runs: one file each, a case is listed twice)
RECORDINGS = sorted(
    [
        *(CORPUS / "langsmith").glob("*.json"),
        *(p for p in LIVE.iterdir() if p.is_dir() and p.name not in ("generate", "list_runs")),
        *(LIVE / "list_runs").iterdir(),
        *JS.iterdir(),
    ]
)


def _at(value: Any, path: tuple[str | int, ...]) -> Any:
    """The value at ``path`` below ``value``, else None."""
    for step in path:
        ok = isinstance(value, list) and isinstance(step, int) and step < len(value)
        if not ok and not (isinstance(value, dict) and step in value):
            return None
        value = value[step]
    return value


def _counts(run: dict[str, Any], place: str) -> tuple[int, int] | None:
    """The (input, output) counts ``place`` of a raw run records, else None."""
    path, keys = PLACES[place]
    usage = _at(run, path)
    if not isinstance(usage, dict):
        return None
    first, second = (usage.get(k) for k in keys)
    return (first, second) if type(first) is int and type(second) is int else None


def _documents(source: Path) -> Iterator[Any]:
    """The JSON documents of a recording (a file, or a folder's files): JSON, or JSON Lines."""
    for path in sorted(source.iterdir()) if source.is_dir() else [source]:
        text = path.read_text()
        try:
            yield json.loads(text)
        except json.JSONDecodeError:
            yield [json.loads(line) for line in text.splitlines() if line.strip()]


def _fields(document: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """(run id, fields) of each post, patch or listed run of a document."""
    if isinstance(document, dict):  # a /runs/batch body (a PATCH of langsmith-js: no id)
        for run in document.get("post", []) + document.get("patch", []):
            yield run.get("id") or run["dotted_order"].rsplit("Z", 1)[-1], run
    elif all("value" in p for p in document):  # /runs/multipart parts
        for part in document:
            _, run_id, *field = part["name"].split(".")
            yield run_id, {field[0]: part["value"]} if field else part["value"]
    else:  # runs as listed back
        yield from ((run["id"], run) for run in document)


def _raw_llm_runs(source: Path) -> dict[str, dict[str, Any]]:
    """The llm runs a recording holds, by id, each one's posts and patches merged."""
    runs: dict[str, dict[str, Any]] = {}
    for document in _documents(source):
        for run_id, fields in _fields(document):
            runs.setdefault(run_id, {}).update({k: v for k, v in fields.items() if v is not None})
    return {i: r for i, r in runs.items() if r.get("run_type") == "llm"}


def _imported(run_cli, tmp_path: Path, source: Path) -> list[dict[str, Any]]:
    """The traces ``abw import langsmith`` writes for a recording."""
    out = tmp_path / "out" / source.name
    traces, _ = cli_import(run_cli, "langsmith", source, out, "--exported-at", EXPORTED_AT)
    return traces


def _spans(traces: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The spans of the traces, by id."""
    return {s["span_id"]: s for t in traces for s in t["spans"]}


def _tokens(span: dict[str, Any]) -> tuple[Any, Any] | None:
    """A span's (input_tokens, output_tokens) as written, else None (it has neither)."""
    attributes = span["attributes"]
    if not any(k in attributes for k in USAGE):
        return None
    return attributes.get("input_tokens"), attributes.get("output_tokens")


@pytest.mark.parametrize(("source", "place"), FORMS, ids=lambda v: getattr(v, "name", v))
def test_each_forms_counts_are_on_its_llm_spans(run_cli, tmp_path, source, place) -> None:
    runs = _raw_llm_runs(source)
    spans = _spans(_imported(run_cli, tmp_path, source))
    expected = {run_id: _counts(run, place) for run_id, run in runs.items()}
    assert any(expected.values())
    assert {i: _tokens(spans[i]) for i in runs} == expected
    for span in spans.values():
        assert all(type(span["attributes"].get(k, 0)) is int for k in USAGE)


@pytest.mark.parametrize("source", RECORDINGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_recordings_counts_agree_with_every_place(run_cli, tmp_path, source) -> None:
    """Every place a run records counts in holds the span's; a run with none (a failed call)
    has none; no other span has any."""
    runs = _raw_llm_runs(source)
    for span_id, span in _spans(_imported(run_cli, tmp_path, source)).items():
        held = {_counts(runs[span_id], p) for p in PLACES} - {None} if span_id in runs else set()
        assert held == ({_tokens(span)} if _tokens(span) else set()), span_id


def test_a_failed_call_records_no_counts(run_cli, tmp_path) -> None:
    spans = [
        s
        for s in _imported(run_cli, tmp_path, LIVE / "api_error-zstd")[0]["spans"]
        if s["type"] == "llm"
    ]
    assert [(s["outcome"], _tokens(s)) for s in spans] == [("ok", (50, 12)), ("error", None)]


def _llm_run(**fields: Any) -> dict[str, Any]:
    """A ``/runs/batch`` body: one ended llm run with ``fields``."""
    run_id = "01a23f21-0000-7000-8000-000000000001"
    return {
        "post": [
            {
                "id": run_id,
                "trace_id": run_id,
                "dotted_order": f"20260101T000000000000Z{run_id}",
                "run_type": "llm",
                "name": "ChatOpenAI",
                "start_time": "2026-01-01T00:00:00Z",
                "end_time": "2026-01-01T00:00:01Z",
                **fields,
            }
        ]
    }


def _span_tokens(tmp_path: Path, body: dict[str, Any]) -> dict[str, Any]:
    """The token attributes of the one span the body imports as."""
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(body))
    (span,) = import_trace("langsmith", path).spans
    return {k: v for k, v in span.attributes.items() if k in USAGE}


def _placed(place: str, counts: tuple[Any, Any]) -> dict[str, Any]:
    """Run fields holding ``counts`` in ``place`` alone."""
    path, keys = PLACES[place]
    value: Any = dict(zip(keys, counts, strict=True))
    for step in reversed(path):
        value = [value] if isinstance(step, int) else {step: value}
    return value


@pytest.mark.parametrize("place", PLACES)
def test_each_place_on_its_own(tmp_path, place) -> None:
    body = _llm_run(**_placed(place, (7, 3)))
    assert _span_tokens(tmp_path, body) == {"input_tokens": 7, "output_tokens": 3}


def test_a_run_with_no_counts_has_none(tmp_path) -> None:
    body = _llm_run(outputs={"generations": [[{"text": "hi"}]], "llm_output": {}}, extra={})
    assert _span_tokens(tmp_path, body) == {}


@pytest.mark.parametrize("bad", [True, False, "50", 50.0, None, [50]])
def test_only_an_int_is_a_count(tmp_path, bad) -> None:
    body = _llm_run(outputs={"usage_metadata": {"input_tokens": bad, "output_tokens": bad}})
    assert _span_tokens(tmp_path, body) == {}
    later = _placed("metadata", (9, 4))
    body["post"][0].update(later)
    assert _span_tokens(tmp_path, body) == {"input_tokens": 9, "output_tokens": 4}


def test_the_first_place_holding_a_count_gives_it(tmp_path) -> None:
    body = _llm_run(
        outputs={
            "usage_metadata": {"input_tokens": 5},
            "llm_output": {"token_usage": {"prompt_tokens": 6, "completion_tokens": 2}},
        },
        extra={"metadata": {"usage_metadata": {"input_tokens": 8, "output_tokens": 8}}},
        prompt_tokens=9,
        completion_tokens=9,
    )
    assert _span_tokens(tmp_path, body) == {"input_tokens": 5, "output_tokens": 2}


def test_a_run_that_is_no_llm_call_has_no_counts(tmp_path) -> None:
    body = _llm_run(outputs=_placed("answer", (7, 3))["outputs"], prompt_tokens=7)
    body["post"][0]["run_type"] = "tool"
    assert _span_tokens(tmp_path, body) == {}


#: The keys a recording holds counts under, stripped from a copy of it
_COUNT_KEYS = {"usage_metadata", "token_usage", "tokenUsage", "prompt_tokens", "completion_tokens"}


def _stripped(value: Any) -> Any:
    """``value`` with every key of :data:`_COUNT_KEYS` removed, at any depth."""
    if isinstance(value, dict):
        return {k: _stripped(v) for k, v in value.items() if k not in _COUNT_KEYS}
    return [_stripped(v) for v in value] if isinstance(value, list) else value


def _without_counts(source: Path, folder: Path) -> Path:
    """A copy of a recording (a file or a folder) with no counts anywhere, in ``folder``."""
    copy = folder / source.name
    (copy if source.is_dir() else folder).mkdir(parents=True)
    files = sorted(source.iterdir()) if source.is_dir() else [source]
    for path, document in zip(files, _documents(source), strict=True):
        target = copy / path.name if source.is_dir() else copy
        lines = document if path.suffix == ".jsonl" else [document]
        target.write_text("\n".join(json.dumps(_stripped(d)) for d in lines))
    return copy


def _unhashed(value: Any) -> Any:
    """A trace as JSON without its hashes (of content the stripped copy changed) and counts."""
    if isinstance(value, dict):
        return {
            k: _unhashed(v) for k, v in value.items() if not k.endswith("_hash") and k not in USAGE
        }
    return [_unhashed(v) for v in value] if isinstance(value, list) else value


@pytest.mark.parametrize("source", RECORDINGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_counts_change_nothing_else(run_cli, tmp_path, source) -> None:
    """A recording imports as its copy without counts does, the llm spans' counts aside."""
    traces = _imported(run_cli, tmp_path, source)
    bare = _imported(run_cli, tmp_path / "bare", _without_counts(source, tmp_path / "copy"))
    assert not [s for t in bare for s in t["spans"] if _tokens(s)]
    assert _unhashed(traces) == _unhashed(bare)
    counted = {s["type"] for t in traces for s in t["spans"] if _tokens(s)}
    assert counted == {"llm"}
