"""Older and other real forms the importers beyond Claude Code and Codex read, each on a real
corpus file changed the way a recording of another version or a real edge case differs from it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import CORPUS
from tests.importkit import cli_import


def _import(run_cli, name: str, source: Path, out: Path) -> list[dict]:
    """``abw import <name>`` of ``source`` into ``out``: the traces written, in file order."""
    return cli_import(run_cli, name, source, out, "-q")[0]


def _tools(trace: dict) -> list[tuple[str, str, object]]:
    return [
        (s["name"], s["outcome"], s["attributes"].get("exit_code"))
        for s in trace["spans"]
        if s["type"] != "llm"
    ]


def test_openhands_v0_exit_code_in_extras_before_metadata(run_cli, tmp_path):
    """OpenHands before 2025 wrote a command's exit code as ``extras.exit_code``
    (``CmdOutputObservation{command_id, command, exit_code}``), not under ``metadata``: a failed
    command must be an error, not a success."""
    events = json.loads((CORPUS / "openhands" / "openhands__basic_gui_mode.json").read_text())
    first = next(e for e in events if e.get("observation") == "run")
    first["extras"] = {"command_id": -1, "command": "ls", "exit_code": 2, "hidden": False}
    source = tmp_path / "trajectory.json"
    source.write_text(json.dumps(events, indent=2))
    (trace,) = _import(run_cli, "openhands", source, tmp_path / "out.json")
    shells = [t for t in _tools(trace) if t[0] == "execute_bash"]
    assert shells[0] == ("execute_bash", "error", 2)


def _otlp_spans(requests: list[dict]) -> list[dict]:
    return [
        span
        for request in requests
        for resource in request["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]


def test_otel_semconv_1_26_content_events(run_cli, tmp_path):
    """Semantic Kernel and Spring AI record a request's messages in semconv 1.26's events,
    ``gen_ai.content.prompt`` (``gen_ai.prompt``) and ``gen_ai.content.completion``
    (``gen_ai.completion``): the llm spans keep their content hashes and the run its answer,
    the same as when the same messages are attributes."""
    real = CORPUS / "otel" / "gen__otlp-json__pydantic-ai__genai-semconv.jsonl"
    requests = [json.loads(line) for line in real.read_text().splitlines()]
    moved = {
        "gen_ai.input.messages": ("gen_ai.content.prompt", "gen_ai.prompt"),
        "gen_ai.output.messages": ("gen_ai.content.completion", "gen_ai.completion"),
    }
    for span in _otlp_spans(requests):
        kept = []
        for attribute in span["attributes"]:
            if attribute["key"] in moved:
                event, key = moved[attribute["key"]]
                value = [{"key": key, "value": attribute["value"]}]
                span.setdefault("events", []).append({"name": event, "attributes": value})
            elif attribute["key"] not in ("final_result", "pydantic_ai.all_messages"):
                kept.append(attribute)
        span["attributes"] = kept
    source = tmp_path / "semantic-kernel.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in requests))
    (expected,) = _import(run_cli, "otel", real, tmp_path / "real.json")
    (trace,) = _import(run_cli, "otel", source, tmp_path / "events.json")
    hashes = [(s.get("input_hash"), s.get("output_hash")) for s in trace["spans"]]
    assert hashes == [(s.get("input_hash"), s.get("output_hash")) for s in expected["spans"]]
    assert trace["run"]["final_output_hash"] == expected["run"]["final_output_hash"]


def test_openhands_v0_user_message_sets_the_run_going_again(run_cli, tmp_path):
    """A V0 conversation whose agent had answered (``awaiting_user_input``) and whose user then
    asked for more, cut off mid-call, did not end in success: as in V1, the user's message sets
    the run going again and the file stops mid-run (``unknown``)."""
    events = json.loads((CORPUS / "openhands" / "openhands__basic_gui_mode.json").read_text())
    user = next(e for e in events if e.get("source") == "user" and e.get("action") == "message")
    call = next(e for e in events if e.get("action") == "run")
    last = max(e["id"] for e in events)
    events += [{**user, "id": last + 1}, {**call, "id": last + 2}]
    source = tmp_path / "trajectory.json"
    source.write_text(json.dumps(events, indent=2))
    (trace,) = _import(run_cli, "openhands", source, tmp_path / "out.json")
    assert trace["run"]["final_status"] == "unknown"
    assert trace["spans"][-1]["outcome"] == "incomplete"


def test_otel_semantic_kernel_model_calls(run_cli, tmp_path):
    """Semantic Kernel names a model call's operation ``chat.completions`` (streaming:
    ``chat.streaming_completions``) and, in its first versions, its tokens
    ``gen_ai.response.prompt_tokens`` / ``completion_tokens``: its llm spans are llm spans
    with their tokens, not infrastructure dropped from the run."""
    real = CORPUS / "otel" / "gen__otlp-json__pydantic-ai__genai-semconv.jsonl"
    requests = [json.loads(line) for line in real.read_text().splitlines()]
    renamed = {
        "gen_ai.usage.input_tokens": "gen_ai.response.prompt_tokens",
        "gen_ai.usage.output_tokens": "gen_ai.response.completion_tokens",
    }
    operations = ("chat.completions", "chat.streaming_completions")
    for number, span in enumerate(_otlp_spans(requests)):
        for attribute in span["attributes"]:
            value = attribute["value"]
            if attribute["key"] == "gen_ai.operation.name" and value["stringValue"] == "chat":
                value["stringValue"] = operations[number % 2]
            attribute["key"] = renamed.get(attribute["key"], attribute["key"])
    source = tmp_path / "semantic-kernel.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in requests))
    (expected,) = _import(run_cli, "otel", real, tmp_path / "real.json")
    (trace,) = _import(run_cli, "otel", source, tmp_path / "sk.json")

    def shape(t: dict) -> list[tuple]:
        return [(s["type"], s["name"], s.get("input_hash"), s["attributes"]) for s in t["spans"]]

    assert shape(trace) == shape(expected)
    assert [s["type"] for s in trace["spans"]].count("llm") == 4
