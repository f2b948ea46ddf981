"""abw-latent trace on real Claude Code transcripts: aligned with abw import claude, no raw text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from abw.hashing import sha256_hex
from abw.latent.tiny import make_tiny_model
from tests.conftest import CORPUS

CLAUDE = CORPUS / "claude-code"
FILES = ["spotter__tool_heavy.jsonl", "codemie__session-196820da.jsonl"]
LABELS = "git:tool,pytest:guardrail"


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_model(tmp_path_factory.mktemp("tiny") / "qwen2", "qwen2")


def _tool_calls(path: Path) -> list[dict[str, Any]]:
    """Every tool_use block of a raw transcript in file order, each id once (independent read)."""
    calls, seen = [], set()
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            is_call = isinstance(block, dict) and block.get("type") == "tool_use"
            if is_call and block["id"] not in seen:
                seen.add(block["id"])
                calls.append(block)
    return calls


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@pytest.mark.parametrize("name", FILES)
def test_trace_steps_match_the_imported_trace(run_cli, model, tmp_path, name) -> None:
    source = CLAUDE / name
    out, imported = tmp_path / "rt.json", tmp_path / "trace.json"
    common = ["--input", source, "--bash-tool-labels", LABELS, "--scenario-id", "s1"]
    code, _, err = run_cli("latent", "trace", *common, "--out", out, "--model", model, "--offline")
    assert code == 0, err
    assert run_cli("import", "claude", *common, "--out", imported)[0] == 0
    assert run_cli("validate", out)[0] == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    trace = json.loads(imported.read_text(encoding="utf-8"))
    path = [(s["span_id"], s["ordinal"]) for s in trace["spans"] if s["type"] != "llm"]
    assert [(s["span_id"], s["span_ordinal"]) for s in doc["steps"]] == path
    assert doc["source"] == {
        "kind": "claude_transcript",
        "source_hash": trace["source"]["source_hash"],
        "trace_id": trace["run"]["trace_id"],
        "scenario_id": "s1",
    }
    # each step is the tool call as the model wrote it: name, space, input JSON (hashed)
    calls = _tool_calls(source)
    expected = [
        sha256_hex(f"{c['name']} {json.dumps(c['input'], ensure_ascii=False)}") for c in calls
    ]
    assert [s["text_hash"] for s in doc["steps"]] == expected
    # nothing raw: no input value of any call appears in the file
    text = out.read_text(encoding="utf-8")
    leaked = [s for c in calls for s in _strings(c["input"]) if len(s) >= 8 and s in text]
    assert leaked == []


def test_trace_folder_writes_one_file_per_trace(run_cli, model, tmp_path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name in FILES:
        (folder / name).write_bytes((CLAUDE / name).read_bytes())
    code, _, err = run_cli(
        "latent", "trace", "--input", folder, "--out", tmp_path / "out", "--model", model
    )
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        Path(n).stem + ".json" for n in FILES
    )
    code, _, err = run_cli(
        "latent", "trace", "--input", folder, "--out", tmp_path / "x.json", "--model", model
    )
    assert code == 2 and "--out must be a folder" in err


def test_trace_bad_input_is_one_line(run_cli, model, tmp_path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "user"\n', encoding="utf-8")
    for target in (bad, tmp_path / "missing.jsonl"):
        code, out, err = run_cli(
            "latent", "trace", "--input", target, "--out", tmp_path / "o.json", "--model", model
        )
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
