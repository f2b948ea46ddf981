"""The peer tools' files: agent-invariants event streams and contracts, behaviorlock traces and
contracts, imported (``abw import agent-invariants|behaviorlock``) and converted (``abw spec
convert``) on their own public examples, and gated with the verdicts their READMEs document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abw.importers import get_importer
from abw.importers.base import ImportOptions
from abw.models.spec import Spec
from abw.spec_convert import convert
from tests.agent_invariants_kit import events, to_trace
from tests.conftest import CORPUS
from tests.test_agent_invariants_differential import CANDIDATE_OUTCOME, spec

INVARIANTS = CORPUS / "agent-invariants"
BEHAVIORLOCK = CORPUS / "behaviorlock"
BL_CONTRACT = BEHAVIORLOCK / "behaviorlock__readme_behaviorlock.json"
BL_BASELINE = BEHAVIORLOCK / "behaviorlock__readme_baseline.trace.json"
BL_CANDIDATE = BEHAVIORLOCK / "behaviorlock__readme_candidate.trace.json"


def _spans(trace) -> list[tuple]:
    return [
        (s.span_id, s.type, s.name, s.status, s.input_hash, s.attributes.get("arguments"))
        for s in trace.spans
    ]


# ----------------------------------------------------------------- agent-invariants


@pytest.mark.parametrize("name", ["baseline.jsonl", "candidate-regression.jsonl"])
def test_agent_invariants_import_is_the_documented_mapping(name):
    """The importer writes what the documented hand mapping (docs/contracts.md) gives."""
    (trace,) = get_importer("agent-invariants").import_file(INVARIANTS / name, ImportOptions())
    by_hand, _ = to_trace(events(name), "x")
    assert _spans(trace) == _spans(by_hand)
    assert trace.run.trace_id == events(name)[0]["run_id"]
    assert trace.run.final_status == by_hand.run.final_status
    assert trace.run.canonical_output == by_hand.run.canonical_output
    lines = (INVARIANTS / name).read_text().splitlines()
    for span in trace.spans:  # each span points at its event's line
        assert json.loads(lines[span.source_ref.line - 1])["seq"] == int(span.span_id[1:])


def test_agent_invariants_contract_converts_to_the_documented_rules():
    contract = json.loads((INVARIANTS / "agent-invariants.json").read_text())
    conversion = convert(contract)
    assert conversion.source_format == "agent-invariants"
    by_hand = spec()
    got = conversion.spec
    assert [r.model_dump() for r in got.rules] == [r.model_dump() for r in by_hand.rules]
    assert [a.model_dump() for a in got.assertions] == [a.model_dump() for a in by_hand.assertions]
    # the differences the docs name, one line each, for the rules that have them
    assert sorted({n.split(" ")[0] for n in conversion.unexpressible}) == [
        "rules.0",
        "rules.1",  # stop_is_final: a result after the stop is not seen
        "rules.3",
        "rules.4",
    ]


def _gate(run_cli, tmp_path: Path, importer: str, baseline: Path, candidate: Path, contract: Path):
    for side, source in (("baseline", baseline), ("candidate", candidate)):
        code, _, err = run_cli(
            "import", importer, "--input", source, "--out", tmp_path / side / "t.json"
        )
        assert code == 0, err
    code, _, err = run_cli("spec", "convert", contract, "--out", tmp_path / "spec.yaml")
    assert code == 0, err
    code, _, err = run_cli(
        "gate",
        "--baseline",
        tmp_path / "baseline",
        "--candidate",
        tmp_path / "candidate",
        "--spec",
        tmp_path / "spec.yaml",
        "--out",
        tmp_path / "report.json",
    )
    return code, json.loads((tmp_path / "report.json").read_text()), err


def test_agent_invariants_differential_from_the_command_line(run_cli, tmp_path):
    """Imported and converted by abw itself, the regressed candidate fails exactly the peer
    rules its docs name (and at the same events); swapped, the runs are compatible."""
    code, report, _ = _gate(
        run_cli,
        tmp_path / "regressed",
        "agent-invariants",
        INVARIANTS / "baseline.jsonl",
        INVARIANTS / "candidate-regression.jsonl",
        INVARIANTS / "agent-invariants.json",
    )
    assert code == 1 and report["verdict"] == "FAIL"
    candidate = get_importer("agent-invariants").import_file(
        INVARIANTS / "candidate-regression.jsonl", ImportOptions()
    )[0]
    seq_of = {s.ordinal: int(s.span_id[1:]) for s in candidate.spans}
    found = {}
    for peer_id in CANDIDATE_OUTCOME:
        checks = [c for c in report["checks"] if f".rules.{peer_id}." in c["id"]]
        assert checks, peer_id
        seqs = sorted(
            {seq_of[o] for c in checks for v in c["violations"] for o in v["span_ordinals"]}
        )
        found[peer_id] = (all(c["verdict"] == "PASS" for c in checks), seqs)
    assert found == CANDIDATE_OUTCOME
    outcome = next(c for c in report["checks"] if c["id"].endswith("outcome_regression"))
    assert outcome["verdict"] == "FAIL"
    code, report, _ = _gate(
        run_cli,
        tmp_path / "swapped",
        "agent-invariants",
        INVARIANTS / "candidate-regression.jsonl",
        INVARIANTS / "baseline.jsonl",
        INVARIANTS / "agent-invariants.json",
    )
    # Compatible, except that no trace has a control.stop event: abw makes the stop rule
    # INCONCLUSIVE (vacuous, docs/semantics.md), where the peer passes it.
    assert (code, report["verdict"]) == (3, "INCONCLUSIVE")
    flagged = [c for c in report["checks"] if c["verdict"] != "PASS"]
    assert [".rules.stop-means-stop." in c["id"] for c in flagged] == [True]


def test_unexpressible_constructs_are_named_one_line_each(run_cli, tmp_path):
    contract = json.loads((INVARIANTS / "agent-invariants.json").read_text())
    contract["rules"] += [
        {"id": "budget", "kind": "event_budget", "max_events": 10},
        {"id": "any-tool-event", "kind": "deny_event", "match": {"type": "tool.*"}},
        {"id": "later-kind", "kind": "require_signature", "tool": "x"},
        {
            "id": "violated-only",
            "kind": "require_event",
            "match": {"type": "outcome.observed", "verdict": "violated"},
        },
    ]
    contract["compare"]["fail_on_slow_runs"] = True
    path = tmp_path / "contract.json"
    path.write_text(json.dumps(contract))
    code, out, err = run_cli("spec", "convert", path)
    assert code == 0, err
    notes = [line for line in err.splitlines() if line.startswith("abw: not expressed exactly:")]
    for where in (
        "rules.7 (budget)",
        "rules.8 (any-tool-event)",
        "rules.9 (later-kind)",
        "rules.10 (violated-only)",
        "compare.fail_on_slow_runs",
    ):
        assert sum(where in n for n in notes) == 1, where
        assert where in out  # and in the spec's header
    assert len(notes) == 5 + 5  # the example's own five, one per construct added
    converted = Spec.model_validate(
        __import__("yaml").safe_load(out)
    )  # a valid spec without the left-out rules
    assert not any(
        r.id.startswith(("budget", "any-tool", "later", "violated")) for r in converted.rules
    )


# ----------------------------------------------------------------- behaviorlock


def test_behaviorlock_trace_is_one_trace_per_scenario():
    (trace,) = get_importer("behaviorlock").import_file(BL_CANDIDATE, ImportOptions())
    document = json.loads(BL_CANDIDATE.read_text())
    (scenario,) = document["scenarios"]
    assert trace.run.trace_id == f"{document['run']['id']}/{scenario['id']}"
    assert trace.run.scenario_id == scenario["id"] and trace.run.final_status == "success"
    assert trace.run.canonical_output == {
        "status": scenario["status"],
        "observations": scenario["observations"],
    }
    assert trace.spans == []
    narrowed = get_importer("behaviorlock").import_file(
        BL_CANDIDATE, ImportOptions(output_fields=("observations.permission.decision",))
    )[0]
    assert narrowed.run.canonical_output == {"observations": {"permission": {"decision": "deny"}}}
    options = ImportOptions(scenario_id="mine")
    (named,) = get_importer("behaviorlock").import_file(BL_CANDIDATE, options)
    assert named.run.scenario_id == scenario["id"]
    assert options.warnings and "--scenario-id" in options.warnings[0]


def test_behaviorlock_differential_against_its_readme(run_cli, tmp_path):
    """The README: ask -> deny (stricter) is compatible, PASS; the README's own edit
    ``sed 's/"deny"/"allow"/'`` makes permission-not-weaker drift (ask, allow): FAIL, exit 1."""
    code, report, _ = _gate(
        run_cli, tmp_path / "ok", "behaviorlock", BL_BASELINE, BL_CANDIDATE, BL_CONTRACT
    )
    assert (code, report["verdict"]) == (0, "PASS")
    drifted = tmp_path / "drifted.trace.json"
    drifted.write_text(BL_CANDIDATE.read_text().replace('"deny"', '"allow"'))
    code, report, _ = _gate(
        run_cli, tmp_path / "drift", "behaviorlock", BL_BASELINE, drifted, BL_CONTRACT
    )
    assert (code, report["verdict"]) == (1, "FAIL")
    (check,) = [c for c in report["checks"] if c["id"].endswith("permission-not-weaker")]
    assert check["verdict"] == "FAIL"
    message = check["violations"][0]["message"]
    assert "ask" in message and "allow" in message


def test_behaviorlock_unknown_scenario_is_not_compatible(run_cli, tmp_path):
    """The README: a scenario without a baseline is unknown, not compatible."""
    document = json.loads(BL_CANDIDATE.read_text())
    document["scenarios"][0]["observations"].pop("permission")
    candidate = tmp_path / "no-decision.trace.json"
    candidate.write_text(json.dumps(document))
    code, report, _ = _gate(
        run_cli, tmp_path / "g", "behaviorlock", BL_BASELINE, candidate, BL_CONTRACT
    )
    (check,) = [c for c in report["checks"] if c["id"].endswith("permission-not-weaker")]
    assert check["verdict"] != "PASS" and code != 0


@pytest.mark.parametrize(
    "content",
    ['{"traceVersion": 2, "scenarios": []}', '{"traceVersion": 1, "scenarios": [{"x": 1}]}'],
)
def test_behaviorlock_bad_input_is_one_line(run_cli, tmp_path, content):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    code, _, err = run_cli("import", "behaviorlock", "--input", bad, "--out", tmp_path / "o.json")
    assert code == 2 and "bad.json" in err and len(err.strip().splitlines()) == 1


def test_agent_invariants_trace_as_a_json_array_and_seq_out_of_order(run_cli, tmp_path):
    """The peer reads a trace as JSON Lines or as one JSON array of events, and refuses a
    ``seq`` that does not increase: the array was refused as "invalid JSON", and a stream out
    of order imported in file order without a word."""
    source = INVARIANTS / "candidate-regression.jsonl"
    lines = source.read_text().splitlines()
    as_array = tmp_path / "array" / "candidate.json"
    as_array.parent.mkdir()
    as_array.write_text("[\n" + ",\n".join(lines) + "\n]\n")
    code, _, err = run_cli(
        "import", "agent-invariants", "--input", as_array, "--out", tmp_path / "a.json"
    )
    assert code == 0, err
    code, _, err = run_cli(
        "import", "agent-invariants", "--input", source, "--out", tmp_path / "l.json"
    )
    assert code == 0, err
    array_spans = json.loads((tmp_path / "a.json").read_text())["spans"]
    lines_spans = json.loads((tmp_path / "l.json").read_text())["spans"]
    assert [s["name"] for s in array_spans] == [s["name"] for s in lines_spans]
    assert [s["source_ref"]["line"] for s in array_spans] == [
        s["source_ref"]["line"] + 1 for s in lines_spans
    ]  # (each event on its own line, after the "[" line)

    swapped = tmp_path / "swapped.jsonl"
    events = [json.loads(line) for line in lines]
    events[1]["seq"], events[2]["seq"] = events[2]["seq"], events[1]["seq"]
    swapped.write_text("".join(json.dumps(e) + "\n" for e in events))
    code, _, err = run_cli(
        "import", "agent-invariants", "--input", swapped, "--out", tmp_path / "s.json"
    )
    assert code == 2 and f"{swapped}:3: seq: seq must increase strictly" in err
