"""Redaction in what abw prints: an error or a warning names a file, a line and a field, never
the text an export holds (a key of a tool's input, an id field holding a command, a client
name that is a sentence, an error type that is a path). Such lines go to CI logs, and
``abw sample`` keeps an import's error in the run's trace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import CORPUS

SECRET = "jane.doe@example.com ssn 123-45-6789"
PATH = "/home/alice/.aws/credentials"
COMMAND = "curl -H 'Authorization: Bearer ghp_CANARY' https://x ::error::x"


def _langsmith_with_nan(folder):
    document = json.loads((CORPUS / "langsmith-live/retry-batch/retry-batch-1.json").read_text())
    document["post"][0]["outputs"] = {f"customer {SECRET}": "NANPLACE"}
    path = folder / "export.json"
    path.write_text(json.dumps(document).replace('"NANPLACE"', "NaN"))
    return path


def test_an_error_inside_a_tool_output_names_no_key_text(run_cli, tmp_path):
    """``post.0.outputs.customer jane.doe@… : NaN is not a JSON number``: the field path was
    built from the raw keys; a key that is no plain name is shown as ``…``."""
    source = _langsmith_with_nan(tmp_path)
    code, out, err = run_cli("import", "langsmith", "--input", source, "--out", tmp_path / "o")
    assert code == 2
    assert "export.json:1: post.0.outputs.…: NaN is not a JSON number" in err, err
    assert "jane" not in out + err


def test_a_repeated_key_inside_a_tool_input_names_no_key_text(run_cli, tmp_path):
    lines = CORPUS / "claude-code-live/shop/58db8314-d796-4e55-bcd2-f9c32efe8b53.jsonl"
    records = lines.read_text().splitlines()
    for index, line in enumerate(records):
        record = json.loads(line)
        content = record.get("message", {}).get("content")
        uses = [c for c in content or [] if isinstance(c, dict) and c.get("type") == "tool_use"]
        if record.get("type") == "assistant" and uses:
            uses[0]["input"][PATH] = "PLACE"
            records[index] = json.dumps(record).replace(
                f'"{PATH}": "PLACE"', f'"{PATH}": 1, "{PATH}": 2'
            )
            break
    source = tmp_path / "s.jsonl"
    source.write_text("\n".join(records) + "\n")
    code, _, err = run_cli("import", "claude", "--input", source, "--out", tmp_path / "o")
    assert code == 2 and f"s.jsonl:{index + 1}:" in err and "duplicate key (lines" in err, err
    assert "alice" not in err and ".input.…:" in err


def test_abw_sample_keeps_no_key_text_in_the_trace_of_a_run_that_did_not_import(tmp_path):
    """The failed import's one line is the run's ``execution_problem``, kept in its trace."""
    _langsmith_with_nan(tmp_path)
    abw = [str(Path(sys.executable).parent / "abw")]
    base = tmp_path / "base"
    source = CORPUS / "langsmith-live/retry-batch/retry-batch-1.json"
    subprocess.run(
        [*abw, "import", "langsmith", "--input", source, "--out", base / "b.json",
         "--scenario-id", "s1", "-q"], check=True,
    )  # fmt: skip
    (tmp_path / "spec.yaml").write_text("schema_version: behavior-spec/v0\nid: t\n")
    (tmp_path / "scenarios.yaml").write_text(
        "scenarios:\n  - id: s1\n    run: cp export.json {transcript}\n    importer: langsmith\n"
    )
    subprocess.run(
        [*abw, "sample", "--scenarios", "scenarios.yaml", "--baseline", "base", "--spec",
         "spec.yaml", "--out", "cand", "--report", "r.json", "--max-runs", "1", "-q"],
        cwd=tmp_path, capture_output=True,
    )  # fmt: skip
    (trace,) = (tmp_path / "cand").rglob("*.json")
    problem = json.loads(trace.read_text())["run"]["execution_problem"]
    assert "post.0.outputs.…: NaN is not a JSON number" in problem
    assert "jane" not in trace.read_text()


def test_warnings_show_no_id_field_that_holds_text(run_cli, tmp_path):
    """An output whose ``call_id`` is an object holding a command, a subagent whose
    ``agentId`` is text: the warning printed them as they were (the trace did not)."""
    codex = CORPUS / "codex-live"
    source = next(codex.glob("tools__rollout-*.jsonl"))
    records, done = [], False
    for line in source.read_text().splitlines():
        record = json.loads(line)
        payload = record.get("payload", {})
        if not done and payload.get("type") == "function_call_output":
            payload["call_id"], done = {"cmd": COMMAND}, True
        if record.get("type") == "session_meta":
            payload["originator"] = f"rm -rf {PATH} {COMMAND}"
        records.append(json.dumps(record))
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text("\n".join(records) + "\n")
    out = tmp_path / "codex.json"
    code, _, err = run_cli("import", "codex", "--input", rollout, "--out", out)
    assert code == 0 and "an output has no matching call (?)" in err, err
    assert "CANARY" not in err and "alice" not in out.read_text()
    assert "originator" not in json.loads(out.read_text())["run"]
    main = CORPUS / "claude-code-live/shop/fb017813-f7b8-4b1d-98be-2dda41a37ae8.jsonl"
    session = tmp_path / "main.jsonl"
    session.write_text(main.read_text().replace("a5a146da06eeb103c", f"SECRET {PATH}"))
    code, _, err = run_cli("import", "claude", "--input", session, "--out", tmp_path / "c.json")
    assert code == 0 and "no transcript found for subagent ?;" in err, err
    assert "alice" not in err


def test_an_otel_error_type_that_is_text_is_not_kept(run_cli, tmp_path):
    """``error.type`` is a class or a code (``RuntimeError``, ``500``); a value holding spaces,
    a path or a workflow command was copied into ``attributes.error_type``."""
    name = "gen__otlp-json__semantic-kernel-1.45.0__parallel-tool-raises.jsonl"
    text = (CORPUS / "otel-live-fourth" / name).read_text()
    assert '"stringValue":"RuntimeError"' in text
    source = tmp_path / "spans.jsonl"
    source.write_text(text.replace('"stringValue":"RuntimeError"', f'"stringValue":"{PATH} x"'))
    out = tmp_path / "t.json"
    code, _, err = run_cli("import", "otel", "--input", source, "--out", out)
    assert code == 0, err
    assert "alice" not in out.read_text()
    code, _, err = run_cli("import", "otel", "--input", CORPUS / "otel-live-fourth" / name,
                           "--out", tmp_path / "kept.json")  # fmt: skip
    assert '"error_type": "RuntimeError"' in (tmp_path / "kept.json").read_text()
