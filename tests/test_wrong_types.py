"""A field holding a value of another type than its format writes — a list where a name is read
(``x in {...}`` raises on a list), a number where a list is walked — is read leniently or
refused in one line (exit code 2), never an internal error.

:func:`fuzzkit.wrong_typed` gives every field of real recordings such a value, one field at a
time; each importer must keep the contract of tests/fuzzkit.py on all of them. The named cases
below are what that sweep (and a search for the same pattern) found.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fuzzkit import CORPUS, DELETED, Crash, check_contract, targets, wrong_typed

from tests.importkit import import_trace

#: Seeds swept per importer (fuzzkit's corpus seeds, smallest first).
SEEDS = 4
IMPORT_TARGETS = [t for t in targets() if t.name.startswith("import:")]


@pytest.mark.parametrize("target", IMPORT_TARGETS, ids=lambda t: t.name)
def test_every_field_wrong_typed_keeps_the_contract(target):
    crashes = []
    for name, data in target.seeds[:SEEDS]:
        for where, text in wrong_typed(data):
            try:
                check_contract(target, text, Path(name).suffix or target.suffix)
            except Crash as exc:
                crashes.append(f"{name}: {where}: {exc}")
    assert not crashes, "\n".join(crashes[:12])


#: In every name or id a trace keeps (span and model names, span and trace ids), an object or
#: array holding this must leave no trace of it: its text would copy content into the trace.
CANARY = "CANARY-in-a-container"
#: Importers that keep a field's recorded value on purpose (behaviorlock's observations are the
#: canonical output it compares, docs/importers.md).
KEEPS_VALUES = {"import:behaviorlock"}


@pytest.mark.parametrize(
    "target", [t for t in IMPORT_TARGETS if t.name not in KEEPS_VALUES], ids=lambda t: t.name
)
def test_a_container_where_a_name_or_id_is_read_never_reaches_the_trace(target, tmp_path):
    from abw.errors import AbwInputError
    from abw.importers import get_importer
    from abw.importers.base import ImportOptions
    from abw.traceio import render_trace

    importer = get_importer(target.name.removeprefix("import:"))
    leaks = []
    for name, data in target.seeds[:SEEDS]:
        path = tmp_path / f"run{Path(name).suffix or target.suffix}"
        for where, text in wrong_typed(data, ({"k": CANARY}, [CANARY])):
            path.write_bytes(text)
            try:
                traces = importer.import_file(path, ImportOptions())
            except AbwInputError:
                continue
            if CANARY in "".join(map(render_trace, traces)):
                leaks.append(f"{name}: {where}")
    assert not leaks, "\n".join(leaks[:12])


def test_the_sweep_changes_each_field_once_per_document():
    data = b'{"a": [{"t": "x"}, {"t": "y"}], "b": 1}'
    wheres = [where for where, _ in wrong_typed(data)]
    assert sum(w.startswith("a.0.t ") for w in wheres) == 3  # [], {}, 1.5 ("x" is its value)
    assert [w for w in wheres if w.startswith("a.1.t ")] == ['a.1.t = "x"']  # the rest: done
    lines = wrong_typed(b'{"a": 1}\n\n{"a": 2, "b": 3}\n{"a": 4}\n')  # two kinds of record
    assert {w for w, _ in lines} == {
        f"line {n}: {f} = {v}"
        for n, f in ((1, "a"), (3, "a"), (3, "b"))
        for v in ("[]", "{}", "1.5", '"x"')
    }
    assert all(text.count(b"\n") == 4 for _, text in lines)  # line numbers kept
    deleted = wrong_typed(b'{"a": [1, {"c": 2}], "b": 1}', (DELETED,))
    assert [(w, json.loads(t)) for w, t in deleted] == [
        ("a deleted", {"b": 1}),
        ("a.1.c deleted", {"a": [1, {}], "b": 1}),  # (an array's elements stay)
        ("b deleted", {"a": [1, {"c": 2}]}),
    ]


def _gemini_with_type(tmp_path: Path, value: object, jsonl: bool) -> Path:
    """A real recording whose second message's ``type`` is ``value``, on line 3 of the JSON
    Lines form (the header first) and on line 4 of the JSON form (a message a line)."""
    source = CORPUS / "gemini-cli" / "codemie__session-2026-01-16T11-01-file-ops-37b7abef.json"
    document = json.loads(source.read_text())
    document["messages"][1]["type"] = value
    messages = document.pop("messages")
    if jsonl:
        path = tmp_path / "session.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in [document, *messages]) + "\n")
        return path
    path = tmp_path / "session.json"
    head = json.dumps(document)[:-1]
    path.write_text(f'{head},\n"messages": [\n' + ",\n".join(map(json.dumps, messages)) + "\n]}\n")
    return path


@pytest.mark.parametrize("jsonl", [False, True], ids=["json", "jsonl"])
@pytest.mark.parametrize("value", [[], {}, 3])
def test_gemini_message_type_not_text_is_refused_at_its_line(run_cli, tmp_path, value, jsonl):
    path = _gemini_with_type(tmp_path, value, jsonl)
    code, _, err = run_cli("import", "gemini", "--input", path, "--out", tmp_path / "out")
    assert code == 2
    assert err.strip() == (
        f"abw: error: {path}:{3 if jsonl else 4}: messages.1.type: a message's type is not a string"
    )
    assert not (tmp_path / "out").exists()


def test_gemini_delegation_call_named_by_a_list_reads(tmp_path):
    source = CORPUS / "gemini-cli" / "codemie__session-2026-01-16T11-01-file-ops-37b7abef.json"
    document = json.loads(source.read_text())
    message = next(m for m in document["messages"] if m.get("toolCalls"))
    message["toolCalls"][0]["name"] = ["invoke_agent"]
    path = tmp_path / "session.json"
    path.write_text(json.dumps(document))
    trace = import_trace("gemini", path)
    assert trace.spans


def test_openhands_observation_and_choices_of_other_types_read(tmp_path):
    events = json.loads((CORPUS / "openhands" / "openhands__basic.json").read_text())
    next(e for e in events if "observation" in e)["observation"] = ["edit"]
    response = next(
        e["tool_call_metadata"]["model_response"]
        for e in events
        if (e.get("tool_call_metadata") or {}).get("model_response")
    )
    path = tmp_path / "run.json"
    for choices in (1.5, [{"message": {"tool_calls": ["not a call", {"id": None}]}}]):
        response["choices"] = choices
        path.write_text(json.dumps(events))
        assert import_trace("openhands", path).spans


def test_claude_hook_event_of_another_type_reads_as_any_other_hook(tmp_path):
    """A real Stop-hook halt (Claude Code 2.1.x) whose ``hookEvent`` is a list: read as a hook
    that is not an after-answer one, exactly as an event name abw does not know."""
    shop = CORPUS / "claude-code-live-more" / "shop"
    source = shop / "731710d4-4540-4f05-8533-d8f5dcf30a7d.jsonl"

    def imported(hook_event: object) -> tuple:
        records = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
        changed = 0
        for record in records:
            attachment = record.get("attachment")
            if isinstance(attachment, dict) and "hookEvent" in attachment:
                attachment["hookEvent"] = hook_event
                changed += 1
        assert changed
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        folder.mkdir()
        path = folder / source.name
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        trace = import_trace("claude", path)
        spans = [(s.name, s.status, s.outcome) for s in trace.spans]
        return trace.run.final_status, spans

    assert imported(["Stop"]) == imported("SomeLaterHook")


def test_otel_vercel_operation_id_as_an_array_reads(tmp_path):
    source = (
        CORPUS
        / "otel-live-js"
        / ("gen__otlp-json__ai-sdk-7.0.173__legacy__generateText__api-error.jsonl")
    )
    text = source.read_text()
    string = '"key":"ai.operationId","value":{"stringValue":"ai.generateText"}'
    assert string in text
    array = string.replace('{"stringValue":"ai.generateText"}', '{"arrayValue":{"values":[%s]}}')
    array %= '{"stringValue":"ai.generateText"}'
    path = tmp_path / "run.jsonl"
    path.write_text(text.replace(string, array))
    assert import_trace("otel", path).spans


@pytest.mark.parametrize(
    "field", ["approval_scope", "approval_id", "tool", "outcome_id", "evidence_class", "verdict"]
)
def test_agent_invariants_container_fields_stay_out_of_names_and_kept_values(tmp_path, field):
    lines = (CORPUS / "agent-invariants" / "baseline.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    for event in events:
        if field in event:
            event[field] = {"k": CANARY}
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    from abw.traceio import render_trace

    assert CANARY not in render_trace(import_trace("agent-invariants", path))


def test_the_fuzz_findings_import_or_are_refused_in_one_line(run_cli, tmp_path):
    found = CORPUS.parent.parent / "fuzz" / "found"
    gemini = found / "import-gemini-message-type-a-list.jsonl"
    code, _, err = run_cli("import", "gemini", "--input", gemini, "--out", tmp_path / "g")
    assert (code, err.strip()) == (
        2,
        f"abw: error: {gemini}:4: messages.1.type: a message's type is not a string",
    )
    invariants = found / "import-agent-invariants-result-call-id-a-list.jsonl"
    trace = import_trace("agent-invariants", invariants)
    (call,) = [s for s in trace.spans if s.type == "tool"]
    assert call.outcome == "incomplete"  # its result names no call: the call has none


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_first_line_nested_too_deep_is_one_line_for_gemini(run_cli, tmp_path, suffix):
    """Gemini's check for `--output-format stream-json` output parsed a first line opening
    as its events do with the standard library alone: RecursionError, an internal error."""
    path = tmp_path / f"session{suffix}"
    path.write_text('{"type":"init","x":' + "[" * 3000 + "]" * 3000 + "}\n")
    code, _, err = run_cli("import", "gemini", "--input", path, "--out", tmp_path / "out")
    assert code == 2 and "internal error" not in err
    assert err.strip().endswith("invalid JSON: nested too deeply")
