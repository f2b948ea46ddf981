"""The committed JSON Schemas are generated from the pydantic models and never drift."""

from __future__ import annotations

import json

import pytest

from abw.models.registry import KINDS, render_schema
from tests.conftest import REPO


@pytest.mark.parametrize("schema_id", sorted(KINDS))
def test_committed_schema_matches_model(schema_id):
    committed = (REPO / "schemas" / KINDS[schema_id].file_name).read_text(encoding="utf-8")
    assert committed == render_schema(schema_id), (
        f"schemas/{KINDS[schema_id].file_name} is stale: run `make schemas`"
    )


@pytest.mark.parametrize("schema_id", sorted(KINDS))
def test_schema_ids_are_stable(schema_id):
    schema = json.loads(render_schema(schema_id))
    assert schema["$id"] == f"https://raisingagents.is/system/schema/{schema_id}.json"


def test_validate_reports_json_paths(tmp_path, run_cli):
    bad = {
        "schema_version": "agent-behavior-trace/v0",
        "source": {"platform": "x", "export_format": "jsonl", "source_hash": "0" * 64},
        "run": {"trace_id": "t"},
        "spans": [
            {"span_id": "s", "ordinal": 0, "type": "robot", "name": "n", "status": "success"}
        ],
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    code, _, err = run_cli("validate", str(path))
    assert code == 2
    assert "$.spans[0].type" in err


def test_validate_unknown_kind(tmp_path, run_cli):
    path = tmp_path / "x.json"
    path.write_text('{"schema_version": "nope/v9"}')
    code, _, err = run_cli("validate", str(path))
    assert code == 2 and "$.schema_version" in err and "unknown schema" in err


def test_spec_unknown_key_is_an_error(tmp_path, run_cli):
    spec = tmp_path / "behavior.yaml"
    spec.write_text("schema_version: behavior-spec/v0\nid: x\ninvariants:\n  requierd_tools: [a]\n")
    code, _, err = run_cli("validate", str(spec))
    assert code == 2 and "requierd_tools" in err


EXAMPLE = REPO / "examples" / "refund-policy"


def test_every_committed_example_document_validates(run_cli):
    """The real documents the project ships: traces, spec and contract, each by its kind."""
    documents = sorted((EXAMPLE / "traces").rglob("*.json"))
    documents += [EXAMPLE / "behavior.yaml", EXAMPLE / "contract.json"]
    assert len(documents) > 60
    code, out, err = run_cli("validate", *documents)
    assert code == 0, err
    assert out.count(": ok") == len(documents)


def test_gate_report_from_the_example_validates(tmp_path, run_cli):
    report = tmp_path / "gate-report.json"
    code, _, err = run_cli(
        "gate",
        "--baseline", EXAMPLE / "traces" / "baseline",
        "--candidate", EXAMPLE / "traces" / "regressed",
        "--spec", EXAMPLE / "behavior.yaml",
        "--out", report,
    )  # fmt: skip
    assert code == 1, err
    assert run_cli("validate", report)[0] == 0


def test_a_broken_real_trace_names_the_json_path(tmp_path, run_cli):
    source = sorted((EXAMPLE / "traces" / "regressed").glob("*.json"))[0]
    document = json.loads(source.read_text(encoding="utf-8"))
    document["spans"][3]["status"] = "sort-of"
    broken = tmp_path / source.name
    broken.write_text(json.dumps(document), encoding="utf-8")
    code, _, err = run_cli("validate", broken)
    assert code == 2 and "$.spans[3].status" in err
