"""The committed refund-policy example: reproducible, redacted, and giving its three verdicts."""

from __future__ import annotations

import itertools
import json

import pytest
from conftest import REPO

from abw.demo import EXPECTED, build_spec, import_set, load_generator, review
from abw.gating import run_gate
from abw.traceio import load_traces

EXAMPLE = REPO / "examples" / "refund-policy"


@pytest.fixture(scope="module")
def generator():
    return load_generator(EXAMPLE)


def test_generator_is_deterministic_and_matches_the_committed_transcripts(tmp_path, generator):
    written = generator.generate(tmp_path)
    assert {name: len(files) for name, files in written.items()} == {
        "baseline": 24,
        "good": 20,
        "regressed": 20,
        "small": 4,
    }
    for name, files in written.items():
        committed = sorted((EXAMPLE / "transcripts" / name).glob("*.jsonl"))
        assert [p.name for p in committed] == sorted(p.name for p in files)
        for path in files:
            assert path.read_bytes() == (EXAMPLE / "transcripts" / name / path.name).read_bytes()


def test_transcripts_have_the_claude_code_shape():
    path = sorted((EXAMPLE / "transcripts" / "baseline").glob("*.jsonl"))[0]
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records[0]["type"] == "user" and records[0]["parentUuid"] is None
    for previous, record in itertools.pairwise(records):
        assert record["parentUuid"] == previous["uuid"]
        assert record["sessionId"] == records[0]["sessionId"]
        assert {"cwd", "version", "timestamp", "message", "isSidechain"} <= set(record)
    uses = [
        b
        for r in records
        if r["type"] == "assistant"
        for b in r["message"]["content"]
        if b["type"] == "tool_use"
    ]
    commands = [u["input"]["command"] for u in uses if u["name"] == "Bash"]
    assert any("tools/policy_check.py" in c for c in commands)
    assert any("tools/refund_commit.py" in c for c in commands)
    # One API message split over several records shares its message.id.
    ids = [r["message"]["id"] for r in records if r["type"] == "assistant"]
    assert len(set(ids)) < len(ids)


def behavior(trace) -> list:
    """What the gate reads from a trace: the run's answer and each span's kind, name, status."""
    run = trace.run
    return [
        (run.trace_id, run.scenario_id, run.final_status, run.canonical_output),
        *((s.ordinal, s.type, s.name, s.status, s.input_hash) for s in trace.spans),
    ]


def test_committed_traces_and_spec_are_what_the_pipeline_produces(tmp_path, generator):
    """Committed traces are byte for byte what a fresh import gives (docs/example.md says they
    were written so): they lacked ``run.agent_version``, and a walkthrough that imported fresh
    candidates warned of a Claude Code version the baseline never used. An importer change
    that moves their bytes re-runs examples/refund-policy/generate.py."""
    for name in ("baseline", "good", "regressed", "small"):
        written = import_set(EXAMPLE / "transcripts" / name, tmp_path / name, generator)
        committed = sorted((EXAMPLE / "traces" / name).glob("*.json"))
        assert [p.name for p in committed] == sorted(p.name for p in written)
        fresh = {t.path.rsplit("/", 1)[-1]: t.trace for t in load_traces(tmp_path / name)}
        for path in committed:
            (old,) = load_traces(path)
            assert behavior(old.trace) == behavior(fresh[path.name]), path
            assert path.read_bytes() == (tmp_path / name / path.name).read_bytes(), path
    generated, reviewed = build_spec(tmp_path / "baseline", tmp_path)
    assert reviewed.read_bytes() == (EXAMPLE / "behavior.yaml").read_bytes()
    assert review(generated.read_text()) == reviewed.read_text()
    # The reviewed spec differs from spec init only by the accepted constraint and the answer.
    assert "    {before: policy_check, after: refund_commit}," in reviewed.read_text()
    assert "    # {before: policy_check, after: refund_commit}," in generated.read_text()


def test_traces_are_redacted():
    for path in (EXAMPLE / "traces").rglob("*.json"):
        text = path.read_text()
        for raw in ("tools/", "--order", "T-5812", "Committing", "/srv/supportbot", "orders-db"):
            assert raw not in text, (path, raw)


@pytest.mark.parametrize(("candidate", "verdict"), sorted(EXPECTED.items()))
def test_the_three_verdicts(candidate, verdict):
    report = run_gate(
        EXAMPLE / "traces" / "baseline",
        EXAMPLE / "traces" / candidate,
        EXAMPLE / "behavior.yaml",
    )
    assert report.verdict == verdict, report.summary
    failing = [c.id for c in report.checks if c.verdict == "FAIL"]
    if candidate == "regressed":
        assert failing == ["behavior_contract.required_order[0]"]
        (check,) = [c for c in report.checks if c.id == failing[0]]
        assert len(check.violations) == 3
        # Output-only evaluation cannot tell: every output check passes.
        assert all(c.verdict == "PASS" for c in report.checks if c.category == "output_eval")
    if candidate == "small":
        # 4 of 4 passed; the anytime rule needs 15 all-pass runs to show tau = 0.7.
        assert report.statistics[0].runs_needed == 11


def test_regressed_runs_return_the_identical_final_json():
    baseline = load_traces(EXAMPLE / "traces" / "baseline")
    regressed = load_traces(EXAMPLE / "traces" / "regressed")
    hashes = {t.trace.run.final_output_hash for t in baseline + regressed}
    outputs = {json.dumps(t.trace.run.canonical_output) for t in baseline + regressed}
    assert len(hashes) == 1 and len(outputs) == 1
