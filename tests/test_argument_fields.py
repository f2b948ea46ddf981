"""``--argument-fields``: only the named tool-input fields reach ``span.attributes.arguments``.

Checked on real Claude Code transcripts and Codex rollouts from the corpus against an
independent parse of the raw files; a canary planted in every string leaf shows that exactly
the named fields are disclosed; an ``arguments`` rule gates the imported traces end to end.
"""

from __future__ import annotations

import json
import re
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from abw.errors import AbwInputError
from abw.importers.base import Importer, ImportOptions
from abw.importers.claude import ClaudeImporter
from abw.importers.codex import CodexImporter
from abw.importers.common import (
    ArgumentField,
    Label,
    extract_arguments,
    parse_argument_fields,
)
from abw.models.trace import Trace
from abw.traceio import load_trace, render_trace
from tests.conftest import CORPUS
from tests.importkit import import_trace

CLAUDE_FOUR = CORPUS / "claude-code" / "agentcmd__full-session-four.jsonl"
CLAUDE_MCP = CORPUS / "claude-code" / "agentcmd__individual__tool-mcp__happy__change_title.jsonl"
CODEX_SHELL = (
    CORPUS / "codex" / "agentcmd__rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-"
    "095dda01c36e.jsonl"
)
CODEX_EXEC = (
    CORPUS / "codex" / "codemie__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-"
    "3724b5ddb799.jsonl"
)
CLAUDE_FIELDS = "Read:limit,Read:offset,Grep:output_mode"


def _import(importer: Importer, path: Path, fields: str, **kwargs: Any) -> Trace:
    return import_trace(
        importer,
        path,
        argument_fields=parse_argument_fields(fields),
        exported_at="2026-01-01T00:00:00Z",
        **kwargs,
    )


def _claude_calls(path: Path) -> list[tuple[str, Any]]:
    """(tool name, input) of every tool_use block, first occurrence of each id, in file order."""
    calls, seen = [], set()
    for text in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(text)
        if record.get("type") != "assistant":
            continue
        for block in record["message"]["content"]:
            if block.get("type") == "tool_use" and block["id"] not in seen:
                seen.add(block["id"])
                calls.append((block["name"], block["input"]))
    return calls


def _codex_calls(path: Path) -> list[tuple[str, Any]]:
    """(name, decoded arguments) of every function_call, in file order."""
    calls = []
    for text in path.read_text(encoding="utf-8").splitlines():
        payload = json.loads(text).get("payload") or {}
        if payload.get("type") == "function_call":
            calls.append((payload["name"], json.loads(payload["arguments"])))
    return calls


def _expected(calls, tool: str, paths: list[str]) -> list[dict[str, Any]]:
    out = []
    for name, args in calls:
        if name == tool:
            out.append({p: args[p] for p in sorted(paths) if p in args})
    return out


def _observed(trace, tool: str) -> list[dict[str, Any]]:
    return [s.attributes["arguments"] for s in trace.spans if s.name == tool]


# ------------------------------------------------------------------ parsing
def test_parse_argument_fields():
    fields = parse_argument_fields(" Read:limit , mcp__*:query.text,Read:limit,, a:b:c ")
    assert fields == (
        ArgumentField("Read", "limit"),
        ArgumentField("mcp__*", "query.text"),
        ArgumentField("a:b", "c"),  # the last colon splits: field paths hold no colon
    )
    assert fields[1].parts == ("query", "text")
    assert parse_argument_fields(None) == parse_argument_fields("") == ()


@pytest.mark.parametrize("item", ["Read", ":limit", "Read:", "Read:a..b", "Read:.a", "R ead:x"])
def test_malformed_argument_field_is_an_input_error(item):
    with pytest.raises(AbwInputError) as caught:
        parse_argument_fields(f"Grep:output_mode,{item}")
    assert caught.value.field == "--argument-fields"


def test_extract_arguments_semantics():
    fields = parse_argument_fields("Read:limit,Re*:a.b,Read:missing,Other:x")
    tool_input = {"limit": 5, "a": {"b": [1, {"c": None}], "z": "secret"}, "file_path": "/x"}
    assert extract_arguments(fields, "Read", tool_input) == {"a.b": [1, {"c": None}], "limit": 5}
    assert extract_arguments(fields, "Grep", tool_input) is None  # no field named for it
    assert extract_arguments(fields, "Read", "not an object") is None  # cannot be extracted
    assert extract_arguments(fields, "Read", {"file_path": "/x"}) == {}  # extracted, all absent
    assert extract_arguments(fields, "read", tool_input) is None  # globs are case-sensitive


def test_cli_malformed_item_is_one_line_exit_2(run_cli, tmp_path):
    code, out, err = run_cli(
        "import", "claude", "--input", CLAUDE_MCP, "--out", tmp_path / "t.json",
        "--argument-fields", "Read:limit,Grep",
    )  # fmt: skip
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and "--argument-fields" in err and "'Grep'" in err
    assert "Traceback" not in err and not (tmp_path / "t.json").exists()


# An importer without support refusing the flag: tests/test_argument_fields_more.py (every
# built-in importer now extracts argument fields; the example adapter does not).


# ------------------------------------------------------------------ Claude
def test_claude_named_fields_match_an_independent_parse():
    trace = _import(ClaudeImporter(), CLAUDE_FOUR, CLAUDE_FIELDS)
    calls = _claude_calls(CLAUDE_FOUR)
    assert _observed(trace, "Read") == _expected(calls, "Read", ["limit", "offset"])
    assert _observed(trace, "Grep") == _expected(calls, "Grep", ["output_mode"])
    assert sum(1 for a in _observed(trace, "Read") if a) == 3  # 3 of 9 Reads have a limit
    others = [s for s in trace.spans if s.name not in ("Read", "Grep")]
    assert others and all("arguments" not in s.attributes for s in others)
    assert trace.redaction.kept_fields == ["Grep:output_mode", "Read:limit", "Read:offset"]
    assert "tool_input" in trace.redaction.removed_fields


def test_claude_mcp_field_by_glob_and_no_fields_means_no_change():
    trace = _import(ClaudeImporter(), CLAUDE_MCP, "mcp__happy__*:title")
    ((name, tool_input),) = _claude_calls(CLAUDE_MCP)
    (span,) = [s for s in trace.spans if s.type != "llm"]
    assert span.name == name and span.attributes["arguments"] == {"title": tool_input["title"]}
    assert trace.redaction.kept_fields == [f"{name}:title"]
    plain = _import(ClaudeImporter(), CLAUDE_MCP, "")
    assert plain.redaction.kept_fields is None
    assert "kept_fields" not in render_trace(plain) and '"arguments"' not in render_trace(plain)


def test_claude_label_renames_before_matching():
    trace = _import(
        ClaudeImporter(), CLAUDE_FOUR, "Bash:description,pytest:description",
        labels=(Label("pytest"),),
    )  # fmt: skip
    bash = [s for s in trace.spans if s.attributes.get("tool") == "Bash"]
    assert bash and all("arguments" in s.attributes for s in bash)
    names = {s.name for s in bash}
    assert trace.redaction.kept_fields == sorted(f"{n}:description" for n in names)


def test_deterministic():
    first = render_trace(_import(ClaudeImporter(), CLAUDE_FOUR, CLAUDE_FIELDS))
    assert first == render_trace(_import(ClaudeImporter(), CLAUDE_FOUR, CLAUDE_FIELDS))
    fields = "shell:timeout_ms,shell:workdir"
    first = render_trace(_import(CodexImporter(), CODEX_SHELL, fields))
    assert first == render_trace(_import(CodexImporter(), CODEX_SHELL, fields))


# ------------------------------------------------------------------ Codex
def test_codex_named_fields_match_an_independent_parse():
    trace = _import(CodexImporter(), CODEX_SHELL, "shell:timeout_ms,shell:workdir,sh*:justif")
    calls = _codex_calls(CODEX_SHELL)
    observed = _observed(trace, "shell")
    assert observed == _expected(calls, "shell", ["timeout_ms", "workdir"]) and len(observed) == 57
    assert trace.redaction.kept_fields == ["shell:timeout_ms", "shell:workdir"]
    assert all("arguments" not in s.attributes for s in trace.spans if s.name != "shell")


def test_codex_exec_command_fields_polls_fold_in():
    trace = _import(CodexImporter(), CODEX_EXEC, "exec_command:max_output_tokens")
    calls = _codex_calls(CODEX_EXEC)
    assert _observed(trace, "exec_command") == _expected(
        calls, "exec_command", ["max_output_tokens"]
    )
    assert trace.redaction.kept_fields == ["exec_command:max_output_tokens"]


# ------------------------------------------------------------------ canaries
MARK = "ABWARGCANARY"
_CANARY = re.compile(MARK + r"\d{6}")

# Structure an importer must read (record types, linking ids, names), never planted.
CLAUDE_KEEP = {
    "$.type", "$.subtype", "$.uuid", "$.parentUuid", "$.sessionId", "$.agentId",
    "$.parentToolUseID", "$.message.role", "$.message.id", "$.message.model",
    "$.message.content[].type", "$.message.content[].id", "$.message.content[].name",
    "$.message.content[].tool_use_id", "$.data.type", "$.data.agentId", "$.toolUseResult.agentId",
}  # fmt: skip
CODEX_KEEP = {
    "$.type", "$.payload.type", "$.payload.role", "$.payload.name", "$.payload.call_id",
    "$.payload.id", "$.payload.model", "$.payload.namespace", "$.payload.cli_version",
    "$.payload.originator", "$.payload.content[].type",
}  # fmt: skip


class Planter:
    """Appends a unique canary to every string leaf (JSON inside strings is opened too) and to
    every object as an extra key; remembers the path of each canary."""

    def __init__(self, keep: set[str]) -> None:
        self.keep, self.numbers, self.where = keep, count(), {}

    def canary(self, path: str) -> str:
        mark = f"{MARK}{next(self.numbers):06d}"
        self.where[mark] = path
        return mark

    def plant(self, value: Any, path: str = "$") -> Any:
        if isinstance(value, dict):
            planted = {k: self.plant(v, f"{path}.{k}") for k, v in value.items()}
            planted[self.canary(f"{path}.<key>")] = self.canary(f"{path}.<extra>")
            return planted
        if isinstance(value, list):
            return [self.plant(item, f"{path}[]") for item in value]
        if isinstance(value, str) and path not in self.keep:
            if value[:1] == "{":
                try:
                    inner = json.loads(value)
                except json.JSONDecodeError:
                    inner = None
                if isinstance(inner, dict):
                    return json.dumps(self.plant(inner, f"{path}<json>"))
            return f"{value} {self.canary(path)}"
        return value

    def plant_file(self, source: Path, target: Path) -> Path:
        lines = source.read_text(encoding="utf-8").splitlines()
        target.write_text(
            "\n".join(json.dumps(self.plant(json.loads(t))) for t in lines if t.strip()) + "\n",
            encoding="utf-8",
        )
        return target


@pytest.mark.parametrize(
    ("importer", "source", "fields", "disclosed"),
    [
        (
            ClaudeImporter,
            CLAUDE_FOUR,
            CLAUDE_FIELDS,
            {"$.message.content[].input.output_mode"},
        ),
        (
            ClaudeImporter,
            CLAUDE_MCP,
            "mcp__happy__*:title",
            {"$.message.content[].input.title"},
        ),
        (
            CodexImporter,
            CODEX_SHELL,
            "shell:timeout_ms,shell:workdir",
            {"$.payload.arguments<json>.workdir"},
        ),
    ],
    ids=["claude-read-grep", "claude-mcp", "codex-shell"],
)
def test_only_named_fields_are_disclosed(tmp_path, importer, source, fields, disclosed):
    planter = Planter(CLAUDE_KEEP if importer is ClaudeImporter else CODEX_KEEP)
    planted = planter.plant_file(source, tmp_path / source.name)
    options = ImportOptions(argument_fields=parse_argument_fields(fields), exported_at="x")
    trace = import_trace(importer(), planted, options)
    text = render_trace(trace) + "\n".join(options.warnings)
    found = {planter.where[m] for m in _CANARY.findall(text)}
    assert found == disclosed  # the named string fields, and nothing else
    assert len(planter.where) > 20  # planted widely (the MCP file is one short exchange)


# ------------------------------------------------------------------ end to end gate
SPEC = """\
schema_version: behavior-spec/v0
id: argument-fields-e2e
thresholds:
  min_wilson_pass_rate: 0.2
  sequential: fixed  # one run: the single-look Wilson rule, as the check is about the rules
rules:
  - kind: arguments
    id: grep-mode
    tool: Grep
    expected: {output_mode: files_with_matches}
  - kind: arguments
    id: read-limit
    tool: Read
    mode: observed_subset
    expected: {limit: 20}
    ignore_fields: [offset]
"""


def _edited_copy(source: Path, target: Path) -> dict[str, int]:
    """A copy where the 2nd Grep asks for ``content`` and the last Read with a limit asks for
    2000 lines; returns the raw line of each edit by tool name."""
    lines = source.read_text(encoding="utf-8").splitlines()
    greps: list[tuple[str, int, int]] = []
    reads: list[tuple[str, int, int]] = []
    for number, text in enumerate(lines, start=1):
        record = json.loads(text)
        if record.get("type") != "assistant":
            continue
        for index, block in enumerate(record["message"]["content"]):
            if block.get("type") != "tool_use":
                continue
            if block["name"] == "Grep":
                greps.append(("Grep", number, index))
            elif block["name"] == "Read" and "limit" in block["input"]:
                reads.append(("Read", number, index))
    edits: dict[str, int] = {}
    for tool, number, index in [greps[1], reads[-1]]:
        record = json.loads(lines[number - 1])
        block = record["message"]["content"][index]
        if tool == "Grep":
            block["input"]["output_mode"] = "content"
        else:
            block["input"]["limit"] = 2000
        lines[number - 1] = json.dumps(record)
        edits[tool] = number
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return edits


def test_arguments_rule_gates_imported_traces(run_cli, tmp_path):
    spec = tmp_path / "behavior.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    bad_raw = tmp_path / "raw" / CLAUDE_FOUR.name
    bad_raw.parent.mkdir()
    edits = _edited_copy(CLAUDE_FOUR, bad_raw)
    assert set(edits) == {"Grep", "Read"}
    pinned = ("--exported-at", "2026-01-01T00:00:00Z")
    flags = ("--scenario-id", "s1", *pinned, "-q", "--argument-fields")
    for name, source in [("base", CLAUDE_FOUR), ("good", CLAUDE_FOUR), ("bad", bad_raw)]:
        code, _, err = run_cli(
            "import", "claude", "--input", source, "--out", tmp_path / f"{name}.json",
            *flags, CLAUDE_FIELDS,
        )  # fmt: skip
        assert code == 0, err

    def gate(candidate: str) -> tuple[int, dict]:
        out = tmp_path / f"report-{candidate}.json"
        code, _, err = run_cli(
            "gate", "--baseline", tmp_path / "base.json", "--candidate",
            tmp_path / f"{candidate}.json", "--spec", spec, "--out", out, "-q",
        )  # fmt: skip
        assert out.exists(), err
        return code, json.loads(out.read_text(encoding="utf-8"))

    code, report = gate("good")
    assert (code, report["verdict"]) == (0, "PASS")
    rules = {c["id"]: c for c in report["checks"] if ".rules." in c["id"]}
    assert {c["verdict"] for c in rules.values()} == {"PASS"} and len(rules) == 2

    code, report = gate("bad")
    assert (code, report["verdict"]) == (1, "FAIL")
    spans = load_trace(tmp_path / "bad.json").trace.spans
    want = {
        tool: [s.ordinal for s in spans if s.name == tool and s.source_ref.line == line]
        for tool, line in edits.items()
    }
    rules = {c["id"]: c for c in report["checks"] if ".rules." in c["id"]}
    got = {
        rule_id.rsplit(".", 1)[1]: [o for v in c["violations"] for o in v["span_ordinals"]]
        for rule_id, c in rules.items()
    }
    assert got == {"grep-mode": want["Grep"], "read-limit": want["Read"]}
    assert all(c["verdict"] == "FAIL" for c in rules.values())


def test_a_named_value_nested_too_deep_is_a_one_line_error(run_cli, tmp_path):
    deep: Any = 1
    for _ in range(200):
        deep = {"a": deep}
    records = [
        {"type": "user", "sessionId": "s", "uuid": "u1", "message": {"content": "hi"}},
        {
            "type": "assistant",
            "sessionId": "s",
            "uuid": "u2",
            "message": {
                "id": "m",
                "model": "x",
                "content": [{"type": "tool_use", "id": "t1", "name": "T", "input": {"x": deep}}],
            },
        },
    ]
    source = tmp_path / "deep.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    out = tmp_path / "t.json"
    code, _, err = run_cli(
        "import", "claude", "--input", source, "--out", out, "--argument-fields", "T:x"
    )  # fmt: skip
    assert code == 2 and "deep.jsonl:2" in err and "T:x nests deeper" in err
    assert err.strip().count("\n") == 0 and not out.exists()
    inner = "T:" + ".".join(["x"] + ["a"] * 150)  # a field deep inside is fine
    code, _, err = run_cli("import", "claude", "--input", source, "--out", out,
                           "--argument-fields", inner, "-q")  # fmt: skip
    assert code == 0, err
    assert load_trace(out).trace.redaction.kept_fields == [inner]
