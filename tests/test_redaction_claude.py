"""The redaction promise for Claude Code: no planted canary survives an import.

Every string leaf of every line of real transcripts gets a unique canary appended, every object
gets an extra canary key, and every subagent file is planted too. Only identifiers and enum
values that the trace keeps on purpose (record types, ids used for linking, tool and model
names, timestamps, version) are left alone; see docs/traces.md.
"""

from __future__ import annotations

import json
import re
from itertools import count
from pathlib import Path

import pytest

from abw.importers.base import ImportOptions
from abw.importers.claude import ClaudeImporter
from abw.importers.common import parse_labels
from abw.traceio import render_trace
from tests.conftest import CORPUS
from tests.importkit import claude_corpus_runs, import_traces

CLAUDE = CORPUS / "claude-code"
FILES = claude_corpus_runs()
MARK = "CANARY"

# Paths whose string values are structure the importer needs or keeps on purpose: record
# types, ids used for linking and grouping, the session id (trace id), agent ids, tool names
# and model names. Everything else is planted, timestamps and enum-like fields included.
KEEP = {
    "$.type",
    "$.subtype",
    "$.uuid",
    "$.parentUuid",
    "$.sessionId",
    "$.agentId",
    "$.parentToolUseID",
    "$.message.role",
    "$.message.id",
    "$.message.model",
    "$.message.content[].type",
    "$.message.content[].id",
    "$.message.content[].name",
    "$.message.content[].tool_use_id",
    "$.data.type",
    "$.data.agentId",
    "$.toolUseResult.agentId",
}


class Planter:
    """Appends a unique canary to every content string; records where it planted."""

    def __init__(self) -> None:
        self.numbers = count()
        self.paths: set[str] = set()

    def canary(self) -> str:
        return f"{MARK}{next(self.numbers):07d}"

    def plant(self, value, path: str = "$"):
        if isinstance(value, dict):
            planted = {key: self.plant(item, f"{path}.{key}") for key, item in value.items()}
            planted[self.canary()] = self.canary()  # keys are content too
            return planted
        if isinstance(value, list):
            return [self.plant(item, f"{path}[]") for item in value]
        if isinstance(value, str) and path not in KEEP:
            self.paths.add(path)
            return f"{value} {self.canary()}"
        return value

    def plant_file(self, source: Path, target: Path) -> Path:
        lines = source.read_text(encoding="utf-8").splitlines()
        target.write_text(
            "\n".join(json.dumps(self.plant(json.loads(t))) for t in lines if t.strip()) + "\n",
            encoding="utf-8",
        )
        return target


def _import(path: Path, **options) -> tuple[str, list[str]]:
    opts = ImportOptions(exported_at="2026-01-01T00:00:00Z", **options)
    traces = import_traces(ClaudeImporter(), path, opts)
    return "".join(render_trace(t) for t in traces), opts.warnings


def _assert_clean(text: str, warnings: list[str]) -> None:
    leaks = re.findall(rf"{MARK}\d+", text + "\n".join(warnings))
    assert not leaks, f"canaries leaked: {leaks[:5]}"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_no_canary_survives_import(tmp_path: Path, path: Path):
    planter = Planter()
    planted = planter.plant_file(path, tmp_path / path.name)
    text, warnings = _import(
        planted,
        labels=parse_labels("git:guardrail,mix,ls,cd,grep"),
        output_fields=("summary", "result"),
    )
    _assert_clean(text, warnings)
    alone = tmp_path / "original" / path.name  # without its sibling subagent files, like above
    alone.parent.mkdir()
    alone.write_bytes(path.read_bytes())
    original, _ = _import(alone)
    assert text.count('"tool": ') == original.count('"tool": ')  # every call still imported


def test_canaries_reach_every_kind_of_content(tmp_path: Path):
    """The walk above really plants in prompts, inputs, outputs, thinking, paths, commands…"""
    planter = Planter()
    for path in FILES:
        planter.plant_file(path, tmp_path / path.name)
    wanted = {
        "$.message.content",  # prompts as strings
        "$.message.content[].text",  # assistant text, text prompts
        "$.message.content[].thinking",
        "$.message.content[].input.command",
        "$.message.content[].input.file_path",
        "$.message.content[].input.prompt",  # Task prompts
        "$.message.content[].content",  # tool outputs
        "$.toolUseResult",
        "$.toolUseResult.stdout",
        "$.cwd",
        "$.gitBranch",
        "$.summary",
        "$.data.command",  # hook commands in progress lines
    }
    assert wanted <= planter.paths, sorted(wanted - planter.paths)


def test_no_canary_in_a_project_with_subagents(tmp_path: Path):
    """Subagent files are planted too and read through the session that spawned them."""
    planter = Planter()
    project = tmp_path / "project"
    subagents = project / "258c7280-ae70-4798-800f-63464d01a85d" / "subagents"
    subagents.mkdir(parents=True)
    session = planter.plant_file(
        CLAUDE / "spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl",
        project / "258c7280-ae70-4798-800f-63464d01a85d.jsonl",
    )
    for name in ("agent-a881341.jsonl", "agent-acompact-fffbd0.jsonl"):
        planter.plant_file(CLAUDE / f"spotter__258c7280__subagents__{name}", subagents / name)
    for name in (
        "codemie__agent-36541525.jsonl",
        "codemie__4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
    ):
        planter.plant_file(CLAUDE / name, project / name.split("__", 1)[1])
    importer = ClaudeImporter()
    sessions = importer.discover(project)
    assert len(sessions) == 2
    for path in sessions:
        options = ImportOptions(exported_at="2026-01-01T00:00:00Z")
        text = "".join(render_trace(t) for t in importer.import_file(path, options))
        _assert_clean(text, options.warnings)
        if path == session:
            assert "agent-a881341.jsonl" in text  # the subagent really was read


def test_labels_and_output_fields_keep_only_what_is_named(tmp_path: Path):
    source = CLAUDE / "codemie__4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
    lines = [json.loads(t) for t in source.read_text(encoding="utf-8").splitlines()]
    last = next(x for x in reversed(lines) if x.get("type") == "assistant")
    call = json.loads(json.dumps(last))
    call["message"]["id"], call["uuid"] = "msg_call", "u-call"
    command = f"policy_check --customer {MARK}0000001 && refund_commit {MARK}0000002"
    call["message"]["content"] = [
        {"type": "tool_use", "id": "toolu_x", "name": "Bash", "input": {"command": command}}
    ]
    answer = json.loads(json.dumps(last))
    answer["message"]["id"], answer["uuid"] = "msg_answer", "u-answer"
    answer["message"]["content"] = [
        {"type": "text", "text": f'{{"approved": true, "reason": "{MARK}0000003"}}'}
    ]
    path = tmp_path / "labelled.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in [*lines, call, answer]) + "\n", "utf-8")
    text, warnings = _import(
        path, labels=parse_labels("policy_check:guardrail"), output_fields=("approved",)
    )
    _assert_clean(text, warnings)
    assert '"name": "policy_check"' in text and '"type": "guardrail"' in text
    assert '"canonical_output": {"approved": true}' in text


def test_removed_fields_name_exactly_what_was_removed():
    text, _ = _import(CLAUDE / "agentcmd__individual__tool-mcp__happy__change_title.jsonl")
    removed = json.loads(text)["redaction"]["removed_fields"]
    assert removed == ["cwd", "git_branch", "tool_input"]  # one line: a tool call
    for path in FILES:
        text, _ = _import(path)
        removed = set(json.loads(text)["redaction"]["removed_fields"])
        raw = path.read_text(encoding="utf-8")
        assert ("thinking" in removed) == ('"type":"thinking"' in raw), path.name
        shell = re.search(r'"name":"(Bash|PowerShell)"', raw)
        assert ("shell_command" in removed) == bool(shell), path.name
        assert ("compaction_summary" in removed) == ('"isCompactSummary":true' in raw), path.name
        titled = re.search(r'"type":"(summary|[a-z]+-title)"', raw)
        assert ("session_summary" in removed) == bool(titled), path.name
        assert ("cwd" in removed) == ('"cwd":"' in raw), path.name
