"""``abw import claude`` CLI: bad input, exit codes, atomic writes, determinism."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS

CLAUDE = CORPUS / "claude-code"
SHORT = CLAUDE / "spotter__short.jsonl"
PINNED = "2026-01-01T00:00:00Z"


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(lines))
    return path


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def _fails(run_cli, source: Path, out: Path, *needles: str) -> str:
    code, _, err = run_cli("import", "claude", "--input", source, "--out", out)
    assert code == 2, err
    line = _one_error_line(err)
    for needle in needles:
        assert needle in line, line
    assert not out.exists(), "nothing may be written on bad input"
    return line


def test_malformed_line_mid_file(run_cli, tmp_path: Path):
    lines = _lines(SHORT)
    lines[4] = b'{"type": "user", "message": {oops\n'
    bad = _write(tmp_path / "bad.jsonl", lines)
    _fails(run_cli, bad, tmp_path / "out.json", "bad.jsonl:5", "invalid JSON")


def test_a_pretty_printed_json_document_is_not_a_transcript(run_cli, tmp_path: Path):
    """A valid JSON document over many lines (another tool's export) was 'invalid JSON' at its
    first line; it is said to be no JSON Lines transcript."""
    gemini = CORPUS / "gemini-cli" / "codemie__session-2025-12-01T21-45-5b959dae.json"
    assert gemini.read_text().splitlines()[0] == "{"
    _fails(
        run_cli,
        gemini,
        tmp_path / "out.json",
        f"{gemini.name}:1",
        "not a Claude Code transcript: one JSON document laid out over many lines",
    )


def test_invalid_utf8(run_cli, tmp_path: Path):
    lines = _lines(SHORT)
    lines[2] = lines[2].replace(b'"external"', b'"ext\xff\xfernal"', 1)
    assert b"\xff" in lines[2]
    bad = _write(tmp_path / "latin.jsonl", lines)
    _fails(run_cli, bad, tmp_path / "out.json", "latin.jsonl:3", "not valid UTF-8 (byte")


def test_not_a_claude_transcript(run_cli, tmp_path: Path):
    codex = sorted((CORPUS / "codex").glob("*.jsonl"))[0]
    _fails(
        run_cli, codex, tmp_path / "out.json", codex.name, "not a Claude Code transcript", "type"
    )
    pretty = tmp_path / "pretty.jsonl"
    pretty.write_text(json.dumps({"type": "user", "x": 1}, indent=2), encoding="utf-8")
    _fails(run_cli, pretty, tmp_path / "out.json", "pretty.jsonl:1")
    array = _write(tmp_path / "array.jsonl", [b"[1, 2]\n", *_lines(SHORT)])
    _fails(run_cli, array, tmp_path / "out.json", "array.jsonl:1", "not a JSON object")


def test_empty_file(run_cli, tmp_path: Path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    _fails(run_cli, empty, tmp_path / "out.json", "empty.jsonl", "empty")
    blank = _write(tmp_path / "blank.jsonl", [b"\n", b"   \n"])
    _fails(run_cli, blank, tmp_path / "out.json", "blank.jsonl", "empty")


@pytest.mark.parametrize(
    ("bad_block", "field"),
    [
        ({"type": "tool_use", "name": "Bash", "input": {}}, "message.content[0]"),
        ("just a string", "message.content[0]"),
    ],
)
def test_bad_field_is_named(run_cli, tmp_path: Path, bad_block, field: str):
    lines = _lines(SHORT)
    index = next(i for i, raw in enumerate(lines) if json.loads(raw).get("type") == "assistant")
    record = json.loads(lines[index])
    record["message"]["content"] = [bad_block]
    lines[index] = json.dumps(record).encode() + b"\n"
    bad = _write(tmp_path / "field.jsonl", lines)
    _fails(run_cli, bad, tmp_path / "out.json", f"field.jsonl:{index + 1}", field)


def test_bad_file_in_a_folder_writes_nothing(run_cli, tmp_path: Path):
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "good.jsonl").write_bytes(SHORT.read_bytes())
    lines = _lines(SHORT)
    lines[3] = b"{broken\n"
    _write(folder / "zz-bad.jsonl", lines)
    _fails(run_cli, folder, tmp_path / "traces", "zz-bad.jsonl:4")


def test_trailing_partial_line_is_tolerated(run_cli, tmp_path: Path):
    lines = _lines(SHORT)
    live = _write(tmp_path / "live.jsonl", [*lines, lines[3][:50]])
    out = tmp_path / "live.json"
    code, _, err = run_cli("import", "claude", "--input", live, "--out", out)
    assert code == 0, err
    assert "warning" in err and "live.jsonl:16" in err
    assert out.exists()


def test_usage_errors(run_cli, tmp_path: Path):
    out = tmp_path / "o.json"
    code, _, err = run_cli("import", "claude", "--input", SHORT, "--out", out, "--no-redact")
    assert code == 2 and "--no-redact" in _one_error_line(err)
    code, _, err = run_cli("import", "claude", "--input", tmp_path / "nope.jsonl", "--out", out)
    assert code == 2 and "nope.jsonl" in _one_error_line(err)
    code, _, err = run_cli(
        "import", "claude", "--input", SHORT, "--out", out, "--bash-tool-labels", "x:weird"
    )
    assert code == 2 and "--bash-tool-labels" in _one_error_line(err)
    code, _, err = run_cli("import", "claude", "--input", CLAUDE, "--out", out)
    assert code == 2 and "--out" in _one_error_line(err)
    assert not out.exists()


def test_cli_output_is_deterministic_and_valid(run_cli, tmp_path: Path):
    source = CLAUDE / "spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    outs = []
    for name in ("a.json", "b.json"):
        out = tmp_path / name
        code, _, err = run_cli(
            "import", "claude", "--input", source, "--out", out, "--exported-at", PINNED
        )
        assert code == 0, err
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    code, _, err = run_cli("validate", tmp_path / "a.json")
    assert code == 0, err
    # one span per line: the span with ordinal N is on line (first span line + N)
    text = outs[0].decode().splitlines()
    start = text.index('"spans": [') + 1
    assert json.loads(text[start + 3].rstrip(","))["ordinal"] == 3


def test_folder_import_writes_one_trace_per_session(run_cli, tmp_path: Path):
    project = tmp_path / "project"
    (project / "4c2ddfdc-b619-4525-8d03-1950fb1b0257").mkdir(parents=True)
    for name in (
        "codemie__4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
        "codemie__agent-36541525.jsonl",
        "codemie__agent-50243ee8.jsonl",
        "spotter__short.jsonl",
    ):
        (project / name.split("__", 1)[1]).write_bytes((CLAUDE / name).read_bytes())
    out = tmp_path / "traces"
    code, _, err = run_cli("import", "claude", "--input", project, "--out", out, "-q")
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == [
        "4c2ddfdc-b619-4525-8d03-1950fb1b0257.json",
        "short.json",
    ]


def test_run_metadata_flags(run_cli, tmp_path: Path):
    out = tmp_path / "run.json"
    code, _, err = run_cli(
        "import", "claude", "--input", SHORT, "--out", out,
        "--scenario-id", "refund-policy", "--environment", "ci", "--exported-at", PINNED,
    )  # fmt: skip
    assert code == 0, err
    run = json.loads(out.read_text(encoding="utf-8"))["run"]
    assert (run["scenario_id"], run["environment"]) == ("refund-policy", "ci")
    assert run["trace_id"] == "55604662-cf2a-4331-851a-ec234028f8ca"


def test_odd_but_valid_json_is_not_a_crash(run_cli, tmp_path: Path):
    """Wrong-typed fields in records: skipped or a one-line error, never a traceback."""
    records = [
        {"type": ["user"]},
        {"type": "assistant", "timestamp": "9999-12-31T23:59:59-05:00", "message": {
            "id": 5, "model": [], "usage": {"output_tokens": True},
            "content": [{"type": "tool_use", "id": "a", "name": "Bash", "input": {"command": 1}}],
        }},
        {"type": "user", "isSidechain": True, "uuid": ["x"], "parentUuid": {"a": 1},
         "message": {"content": [{"type": "tool_result", "tool_use_id": "a", "content": {}}]}},
        {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"trigger": [1]}},
        {"type": "progress", "data": {"type": "agent_progress", "agentId": 1}},
    ]  # fmt: skip
    odd = tmp_path / "odd.jsonl"
    odd.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    code, _, err = run_cli("import", "claude", "--input", odd, "--out", tmp_path / "odd.json")
    assert code == 0, err
    trace = json.loads((tmp_path / "odd.json").read_text(encoding="utf-8"))
    assert [(s["name"], s["status"]) for s in trace["spans"]] == [
        ("unknown", "success"),
        ("Bash", "success"),  # paired by tool_use_id alone
        ("compaction", "success"),
    ]


def test_same_session_name_in_two_subfolders_is_refused(run_cli, tmp_path: Path):
    for sub in ("a", "b"):
        (tmp_path / "in" / sub).mkdir(parents=True)
        (tmp_path / "in" / sub / "session.jsonl").write_bytes(SHORT.read_bytes())
    _fails(run_cli, tmp_path / "in", tmp_path / "traces", "session.json", "--out")


@pytest.mark.parametrize(
    "value",
    ["yesterday", "2026-13-45T99:00:00Z", "1700000000", "", "2026-01-01", "2026-01-01T00:00"],
)
def test_exported_at_that_is_no_time_is_refused(run_cli, tmp_path, value):
    """--exported-at was stored as given ("yesterday" reached source.exported_at, and validate
    passed it); an empty one silently became now. Any importer: exit 2, the option named."""
    for importer, source in (("claude", SHORT), ("otel", CORPUS / "otel")):
        out = tmp_path / importer
        code, _, err = run_cli(
            "import", importer, "--input", source, "--out", out, "--exported-at", value
        )
        assert code == 2, err
        line = _one_error_line(err)
        assert "--exported-at" in line and "ISO 8601" in line and "2026-01-01T00:00:00Z" in line
        assert not out.exists()


@pytest.mark.parametrize(
    "value", [PINNED, "2026-01-01T00:00:00.000000Z", "2026-01-01T01:00:00+01:00"]
)
def test_exported_at_is_recorded_as_given(run_cli, tmp_path, value):
    out = tmp_path / "t.json"
    code, _, err = run_cli(
        "import", "claude", "--input", SHORT, "--out", out, "--exported-at", value
    )
    assert code == 0, err
    assert json.loads(out.read_text())["source"]["exported_at"] == value


def test_claude_home_folder_skips_the_prompt_log(run_cli, tmp_path):
    """~/.claude holds history.jsonl (the prompts typed) beside projects/: importing the folder
    failed on it ("not a Claude Code transcript") and wrote nothing. It is skipped; given
    alone, it is refused with what to import instead."""
    home = tmp_path / ".claude"
    project = home / "projects" / "-home-user-proj"
    project.mkdir(parents=True)
    (project / SHORT.name).write_bytes(SHORT.read_bytes())
    log = home / "history.jsonl"
    log.write_text(
        '{"display":"help me","pastedContents":{},"timestamp":1762870600000,'
        '"project":"/home/user/proj","sessionId":"s-1"}\n'
    )
    code, _, err = run_cli("import", "claude", "--input", home, "--out", tmp_path / "out")
    assert code == 0, err
    assert len(list((tmp_path / "out").glob("*.json"))) == 1
    line = _fails(run_cli, log, tmp_path / "o2", "prompt log", "~/.claude/projects/")
    assert "history.jsonl" in line


def test_a_folder_that_holds_other_traces_is_said_to(run_cli, tmp_path):
    """Importing into a folder that already held an earlier import's traces said "wrote 4
    traces" while the gate then read 28: the others are counted in a warning."""
    transcripts = Path(__file__).resolve().parent.parent / "examples/refund-policy/transcripts"
    out = tmp_path / "traces"
    code, _, err = run_cli("import", "claude", "--input", transcripts / "small", "--out", out)
    assert code == 0 and "warning" not in err, err
    code, _, err = run_cli("import", "claude", "--input", transcripts / "baseline", "--out", out)
    assert code == 0, err
    assert err.splitlines()[-2:] == [
        f"abw: wrote 24 traces to {out}",
        f"abw: warning: {out} also holds 4 traces this import did not write (an earlier "
        "import's?); the gate reads every trace in the folder",
    ]
    code, _, err = run_cli("import", "claude", "--input", transcripts / "baseline", "--out", out)
    assert "also holds 4 traces" in err  # the same import again: only the others are counted
