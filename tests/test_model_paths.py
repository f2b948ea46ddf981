"""A model named by its file path (local model servers such as llama.cpp and vLLM name a model
by the path it was loaded from) was an llm span's name as it was, the user's home folder and
all: a path no flag named reached the trace. Every importer now names such a model
``model-`` and 12 hex digits of the path's SHA-256."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import CORPUS

from abw.importers.common import model_name

PATH = "/home/alice/models/Llama 3 8B (acme).gguf"
EXPORTS = {
    "claude": CORPUS
    / "claude-code"
    / "JanDeDobbeleer__oh-my-posh__async-agent-failed-2.1.219-8bc57db.jsonl",
    "codex": CORPUS
    / "codex"
    / "agentcmd__rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl",
    "gemini": CORPUS / "gemini-cli" / "codemie__session-2025-12-01T21-45-5b959dae.json",
    "otel": CORPUS / "otel" / "gen__otlp-json__pydantic-ai__genai-semconv.jsonl",
}
#: a model's name where each export gives one: a "model" member, or an OTel attribute's value
_MODEL = re.compile(
    r'("model"\s*:\s*)"[^"]*"|("gen_ai\.(?:request|response)\.model"\s*,\s*"value"\s*:\s*\{\s*'
    r'"stringValue"\s*:\s*)"[^"]*"'
)


def _with_model_path(source: Path, folder: Path) -> Path:
    text, count = _MODEL.subn(
        lambda m: (m.group(1) or m.group(2)) + json.dumps(PATH), source.read_text("utf-8")
    )
    assert count
    planted = folder / source.name
    planted.write_text(text, "utf-8")
    return planted


@pytest.mark.parametrize("importer", sorted(EXPORTS))
def test_a_model_named_by_its_path_is_hashed_in_every_importer(run_cli, tmp_path, importer):
    planted = _with_model_path(EXPORTS[importer], tmp_path)
    out = tmp_path / "out"
    code, _, err = run_cli("import", importer, "--input", planted, "--out", out, "-q")
    assert code == 0, err
    texts = [p.read_text("utf-8") for p in sorted(out.rglob("*.json"))]
    assert texts and not [t for t in texts if "/home/alice" in t or "Llama 3" in t]
    names = {s["name"] for t in texts for s in json.loads(t)["spans"] if s["type"] == "llm"}
    assert model_name(PATH) in names and model_name(PATH).startswith("model-")


def test_model_names_that_are_no_path_stay():
    for model in ("claude-sonnet-4-5", "gpt-4o", "meta-llama/Llama-3-8B", "openai/gpt-4o"):
        assert model_name(model) == model
    for path in (PATH, "~/m.gguf", "./m.gguf", "../m", "C:\\models\\m.gguf", "m\\x"):
        assert re.fullmatch(r"model-[0-9a-f]{12}", model_name(path))
    assert model_name(PATH) == model_name(PATH) != model_name("/home/bob/m.gguf")
