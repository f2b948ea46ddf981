"""Raw agent exports are read by the one reader (abw.reader.parse_json): a repeated key in any
export, or in a JSON string inside one, is a one-line error naming the file and line; integers
beyond 64 bits stay exact from the raw file to the gate."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from abw.errors import AbwInputError
from tests.conftest import CORPUS

BIG = 1180591620717411303425  # 2**70 + 1: a double cannot hold it
PINNED = "2026-01-01T00:00:00Z"
_SCALAR_MEMBER = re.compile(rb'^\s*"([A-Za-z_]+)": (?:"[^"\\]*"|-?\d+|true|false|null),\r?$')


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err
    return lines[0]


def _refused(run_cli, importer: str, source: Path, out: Path, *needles: str) -> None:
    code, _, err = run_cli(
        "import", importer, "--input", source, "--out", out, "--exported-at", PINNED
    )
    line = _one_error_line(err)
    assert code == 2, err
    for needle in needles:
        assert needle in line, line
    assert not out.exists(), "nothing may be written on bad input"


def _repeat_first_key_on_line(source: Path, target: Path, line_no: int) -> str:
    """A copy of a JSON Lines file whose record on ``line_no`` writes its first key twice."""
    lines = source.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[line_no - 1])
    key, value = next(iter(record.items()))
    twice = json.dumps({key: value}, separators=(",", ":"))[:-1] + ","
    lines[line_no - 1] = twice.encode() + lines[line_no - 1].lstrip()[1:]
    target.write_bytes(b"".join(lines))
    return key


def _repeat_a_member(source: Path, target: Path) -> tuple[str, int]:
    """A copy of an indented JSON document with one ``"key": scalar,`` line written twice (the
    first such line past the document's first quarter); (key, line of the first one)."""
    lines = source.read_bytes().splitlines(keepends=True)
    for number in range(len(lines) // 4, len(lines)):
        found = _SCALAR_MEMBER.match(lines[number])
        if found:
            lines.insert(number + 1, lines[number])
            target.write_bytes(b"".join(lines))
            return found.group(1).decode(), number + 1
    raise AssertionError(f"no scalar member line in {source}")


JSONL_EXPORTS = [
    ("claude", CORPUS / "claude-code" / "spotter__short.jsonl", 4),
    ("codex", sorted((CORPUS / "codex").glob("*.jsonl"))[0], 3),
    ("otel", CORPUS / "otel" / "gen__otlp-json__pydantic-ai__genai-semconv.jsonl", 1),
]


@pytest.mark.parametrize(("importer", "source", "line"), JSONL_EXPORTS, ids=lambda v: str(v))
def test_a_repeated_key_in_a_json_lines_export_is_one_line(
    run_cli, tmp_path, importer, source, line
):
    """orjson kept the last of the two values and the import went on."""
    bad = tmp_path / f"bad{source.suffix}"
    key = _repeat_first_key_on_line(source, bad, line)
    _refused(run_cli, importer, bad, tmp_path / "out", f"bad{source.suffix}:{line}", f'"{key}"')
    _refused(run_cli, importer, bad, tmp_path / "out", "duplicate key")


DOCUMENT_EXPORTS = [
    ("gemini", sorted((CORPUS / "gemini-cli").glob("*session*.json"))[0]),
    ("openhands", sorted((CORPUS / "openhands").glob("*.json"))[0]),
    ("swe-agent", sorted((CORPUS / "swe-agent").glob("*.traj"))[0]),
    ("any-agent", sorted((CORPUS / "any-agent").glob("*.json"))[0]),
    ("langsmith", sorted((CORPUS / "langsmith").glob("*.json"))[0]),
    ("openai-agents", sorted((CORPUS / "openai-agents").glob("*.json"))[0]),
    ("otel", CORPUS / "otel" / "packetpanic__jaeger_get-inventory.json"),
]


@pytest.mark.parametrize(("importer", "source"), DOCUMENT_EXPORTS, ids=lambda v: str(v))
def test_a_repeated_key_in_a_json_export_names_both_lines(run_cli, tmp_path, importer, source):
    bad = tmp_path / f"bad{source.suffix}"
    key, line = _repeat_a_member(source, bad)
    _refused(
        run_cli,
        importer,
        bad,
        tmp_path / "out",
        f"bad{source.suffix}:{line + 1}",
        f'duplicate key "{key}" (lines {line} and {line + 1})',
    )


def test_the_subagent_peek_does_not_hide_a_repeated_key(run_cli, tmp_path):
    """A session folder: the error names the session file and line, whichever file is read
    first."""
    folder = tmp_path / "project"
    folder.mkdir()
    session = CORPUS / "claude-code" / "spotter__short.jsonl"
    key = _repeat_first_key_on_line(session, folder / "s.jsonl", 1)
    _refused(run_cli, "claude", folder, tmp_path / "out", "s.jsonl:1", f'"{key}"')


def test_a_cut_off_last_line_is_still_skipped_but_a_refused_one_is_not(run_cli, tmp_path):
    lines = (CORPUS / "claude-code" / "spotter__short.jsonl").read_bytes().splitlines(True)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    code, _, err = run_cli("import", "claude", "--input", cut, "--out", tmp_path / "a.json")
    assert code == 0 and "cut-off last line" in err, err
    # a complete last line without its newline that repeats a key is refused, not skipped
    whole = tmp_path / "whole.jsonl"
    last = json.loads(lines[-1])
    key = next(iter(last))
    twice = json.dumps({key: last[key]}, separators=(",", ":"))[:-1] + ","
    whole.write_bytes(b"".join(lines[:-1]) + twice.encode() + lines[-1].strip()[1:])
    _refused(run_cli, "claude", whole, tmp_path / "b.json", f"whole.jsonl:{len(lines)}", key)


# ---------------------------------------------------------------- JSON strings inside records


def _codex_with_arguments(source: Path, target: Path, insert: str) -> int:
    """A copy of a Codex rollout whose first shell function call's arguments string starts
    with ``insert`` (JSON members, escaped as in the file); the line it is on."""
    lines = source.read_bytes().splitlines(keepends=True)
    for number, raw in enumerate(lines, 1):
        if b'"type":"function_call","name":"shell","arguments":"{' in raw:
            lines[number - 1] = raw.replace(
                b'"arguments":"{', b'"arguments":"{' + insert.encode(), 1
            )
            target.write_bytes(b"".join(lines))
            return number
    raise AssertionError("no shell call")


CODEX = sorted((CORPUS / "codex").glob("agentcmd__*.jsonl"))[0]


def test_a_repeated_key_in_a_tool_calls_json_arguments_is_refused(run_cli, tmp_path):
    """The arguments string ``{"workdir": "/", ..., "workdir": "..."}``: orjson took the last."""
    bad = tmp_path / "rollout.jsonl"
    line = _codex_with_arguments(CODEX, bad, '\\"workdir\\":\\"/\\",')
    _refused(
        run_cli,
        "codex",
        bad,
        tmp_path / "out",
        f"rollout.jsonl:{line}",
        'in a JSON string of the record: duplicate key "workdir"',
    )


def test_an_integer_beyond_64_bits_in_json_arguments_stays_exact(run_cli, tmp_path):
    source = tmp_path / "rollout.jsonl"
    _codex_with_arguments(CODEX, source, f'\\"timeout_ms\\":{BIG},')
    out = tmp_path / "t.json"
    code, _, err = run_cli(
        "import", "codex", "--input", source, "--out", out, "--argument-fields",
        "shell:timeout_ms", "--exported-at", PINNED,
    )  # fmt: skip
    assert code == 0, err
    kept = [
        s["attributes"]["arguments"]
        for s in json.loads(out.read_text())["spans"]
        if "arguments" in s.get("attributes", {})
    ]
    assert {"timeout_ms": BIG} in kept, kept


def test_an_integer_beyond_64_bits_in_a_claude_tool_input_stays_exact(run_cli, tmp_path):
    source = tmp_path / "s.jsonl"
    text = (CORPUS / "claude-code" / "spotter__short.jsonl").read_bytes()
    assert text.count(b'"timeout":30000') == 1
    source.write_bytes(text.replace(b'"timeout":30000', f'"timeout":{BIG}'.encode()))
    out = tmp_path / "t.json"
    code, _, err = run_cli(
        "import", "claude", "--input", source, "--out", out, "--argument-fields",
        "Bash:timeout", "--exported-at", PINNED,
    )  # fmt: skip
    assert code == 0, err
    assert f'"timeout":{BIG}' in out.read_text().replace(" ", "")


# ---------------------------------------------------------------- to the gate


BEHAVIORLOCK = CORPUS / "behaviorlock"


def _behaviorlock_run(path: Path, run_id: str, amount: int) -> Path:
    document = json.loads((BEHAVIORLOCK / "behaviorlock__readme_baseline.trace.json").read_text())
    document["run"]["id"] = run_id
    document["scenarios"][0]["observations"]["refund"] = {"amount": amount}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2))
    return path


def _same_amount_contract(path: Path) -> Path:
    contract = json.loads((BEHAVIORLOCK / "behaviorlock__readme_behaviorlock.json").read_text())
    contract["scenarios"][0]["assertions"] = [
        {
            "id": "refund-amount-same",
            "statement": "The refund amount does not change.",
            "severity": "error",
            "selector": "/observations/refund/amount",
            "matcher": {"op": "same"},
        }
    ]
    path.write_text(json.dumps(contract, indent=2))
    return path


@pytest.mark.parametrize(("candidate", "verdict"), [(BIG - 1, "FAIL"), (BIG, "PASS")])
def test_an_amount_beyond_64_bits_reaches_the_gate_exactly(run_cli, tmp_path, candidate, verdict):
    """As doubles 2**70 + 1 and 2**70 are one number: the gate passed a changed refund."""
    raw = tmp_path / "raw"
    sides = {
        "baseline": _behaviorlock_run(raw / "baseline.trace.json", "b", BIG),
        "candidate": _behaviorlock_run(raw / "candidate.trace.json", "c", candidate),
    }
    for side, source in sides.items():
        code, _, err = run_cli(
            "import", "behaviorlock", "--input", source, "--out", tmp_path / side / "t.json"
        )
        assert code == 0, err
    contract = _same_amount_contract(tmp_path / "contract.json")
    code, _, err = run_cli("spec", "convert", contract, "--out", tmp_path / "spec.yaml")
    assert code == 0, err
    report = tmp_path / "report.json"
    code, out, err = run_cli(
        "gate", "--baseline", tmp_path / "baseline", "--candidate", tmp_path / "candidate",
        "--spec", tmp_path / "spec.yaml", "--out", report,
    )  # fmt: skip
    assert json.loads(report.read_text())["verdict"] == verdict, out + err
    assert code == (0 if verdict == "PASS" else 1)
    assert f'"amount": {BIG}' in (tmp_path / "baseline" / "t.json").read_text()


# ---------------------------------------------------------------- found by the fuzzers

FOUND = Path(__file__).resolve().parents[1] / "fuzz" / "found"


def test_a_time_beyond_a_double_is_no_time_not_an_overflow(run_cli, tmp_path):
    """Exact integers reached ``start_ns / 1e9``: OverflowError, an internal error."""
    source = FOUND / "import-any-agent-time-beyond-a-double.json"
    out = tmp_path / "t.json"
    code, _, err = run_cli("import", "any-agent", "--input", source, "--out", out)
    assert code in (0, 2) and "internal error" not in err and "Traceback" not in err, err
    if code == 2:
        _one_error_line(err)


def test_a_refused_value_in_a_console_sequence_is_one_line(run_cli, tmp_path):
    source = FOUND / "import-any-agent-refused-value-in-a-sequence.json"
    _refused(
        run_cli, "any-agent", source, tmp_path / "out", f"{source.name}:2",
        "Infinity is not a JSON number",
    )  # fmt: skip


def test_nan_in_a_tool_output_string_keeps_it_a_string(run_cli, tmp_path):
    """Python's json.dumps prints NaN: such an output is no JSON under abw's rules, so it stays
    a string (as before); only a repeated key inside an embedded string is refused."""
    from abw.importers.rawio import decode_json_string

    printed = '{"score": NaN, "metadata": {"exit_code": 1}}'
    assert decode_json_string(printed, "r.jsonl", 3) == printed
    assert decode_json_string(f'{{"n": {BIG}}}', "r.jsonl", 3) == {"n": BIG}
    with pytest.raises(AbwInputError) as caught:
        decode_json_string('{"exit_code": 0, "exit_code": 1}', "r.jsonl", 3)
    assert caught.value.one_line().startswith("r.jsonl:3: exit_code: in a JSON string")


HUGE = 10**400  # exact now; as a double it would be infinity (orjson refused the whole file)


def test_an_integer_beyond_a_double_where_a_number_of_seconds_goes_is_no_duration(
    run_cli, tmp_path
):
    """Exact integers reached float(): OverflowError, an internal error (found by make fuzz in
    swe-agent's execution_time; the same float() in Codex, OTel and Claude Code durations)."""
    from abw.importers.claude.outcomes import reported_duration_ms
    from abw.importers.codex import classify_output
    from abw.importers.otel.encodings import any_value

    source = FOUND / "import-swe-agent-execution-time-beyond-a-double.traj"
    code, _, err = run_cli("import", "swe-agent", "--input", source, "--out", tmp_path / "t.json")
    assert "internal error" not in err and "Traceback" not in err, err
    assert code in (0, 2)
    output = f'{{"output": "", "metadata": {{"exit_code": 0, "duration_seconds": {HUGE}}}}}'
    assert classify_output(output, "r.jsonl", 1).seconds is None
    assert any_value({"doubleValue": HUGE}) == HUGE
    assert reported_duration_ms({"durationMs": HUGE}) is None


def test_a_repeated_key_after_a_lone_surrogate_in_a_raw_export_is_named(run_cli, tmp_path):
    """A raw export may hold a lone surrogate (a tool output cut inside a pair): the line
    finder must not stop at it and call that the problem; the repeated key after it is."""
    from abw.importers.rawio import decode_json_string

    source = tmp_path / "s.jsonl"
    lines = (CORPUS / "claude-code" / "spotter__short.jsonl").read_bytes().splitlines(True)
    record = json.loads(lines[3])
    key = next(iter(record))
    head = json.dumps({"note": "cut \ud800", key: record[key]}, separators=(",", ":"))[:-1]
    lines[3] = (head + ",").encode() + lines[3].lstrip()[1:]
    source.write_bytes(b"".join(lines))
    _refused(run_cli, "claude", source, tmp_path / "out", "s.jsonl:4", f'duplicate key "{key}"')
    with pytest.raises(AbwInputError, match="in a JSON string of the record: duplicate key"):
        decode_json_string('{"a": "\\ud800", "b": 1, "b": 2}', "r.jsonl", 2)


@pytest.mark.parametrize(
    ("importer", "source"),
    [
        ("codex", "codex/agenthistory__real_sessions_codex_session-01.jsonl"),
        ("gemini", "gemini-cli/vibecodingtracker__test_conversation_gemini.jsonl"),
    ],
)
def test_a_broken_last_line_with_its_line_break_is_refused_not_skipped(
    run_cli, tmp_path, importer, source
):
    """A last line written whole (its line break after it) and broken all the same is damaged
    data, not a file still being written: it was skipped with a "cut-off" warning."""
    lines = (CORPUS / source).read_bytes().splitlines(True)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2] + b"\n")
    code, _, err = run_cli("import", importer, "--input", damaged, "--out", tmp_path / "a.json")
    assert code == 2 and f"damaged.jsonl:{len(lines)}: invalid JSON" in err, err
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    code, _, err = run_cli("import", importer, "--input", cut, "--out", tmp_path / "b.json")
    assert code == 0 and f"cut.jsonl:{len(lines)}: skipped a cut-off last line" in err, err
