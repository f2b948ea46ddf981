"""abw gate --latent: the advisory summary lands in the ledger and never changes the verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abw.latent.tiny import make_tiny_model
from abw.latent_summary import summarize_latent
from abw.models.report import GateReport, LatentAdvisory
from tests.conftest import CORPUS

CLAUDE = CORPUS / "claude-code"
BASELINE = ["spotter__tool_heavy.jsonl", "codemie__4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"]
CANDIDATE = ["spotter__short.jsonl", "codemie__session-196820da.jsonl"]


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_model(tmp_path_factory.mktemp("tiny") / "qwen2", "qwen2")


def _sessions(folder: Path, names: list[str]) -> Path:
    folder.mkdir(parents=True)
    for name in names:
        (folder / name).write_bytes((CLAUDE / name).read_bytes())
    return folder


def test_gate_verdict_is_the_same_with_and_without_latent(run_cli, model, tmp_path) -> None:
    raw = {"baseline": BASELINE, "candidate": CANDIDATE}
    for role, names in raw.items():
        sessions = _sessions(tmp_path / "raw" / role, names)
        common = ["--input", sessions, "--scenario-id", "s1"]
        code, _, err = run_cli("import", "claude", *common, "--out", tmp_path / "traces" / role)
        assert code == 0, err
        code, _, err = run_cli(
            "latent", "trace", *common, "--out", tmp_path / "latent" / role,
            "--model", model, "--offline", "--keep-vectors", "f16",
        )  # fmt: skip
        assert code == 0, err
    spec = tmp_path / "spec.yaml"
    code, _, err = run_cli(
        "spec", "init", "--baseline", tmp_path / "traces/baseline", "--out", spec
    )
    assert code == 0, err
    gate = [
        "gate", "--baseline", tmp_path / "traces/baseline",
        "--candidate", tmp_path / "traces/candidate", "--spec", spec,
    ]  # fmt: skip
    plain_code, _, _ = run_cli(*gate, "--out", tmp_path / "plain.json")
    latent_code, _, err = run_cli(
        *gate, "--out", tmp_path / "latent.json", "--latent", tmp_path / "latent"
    )
    assert latent_code == plain_code != 2, err
    plain = GateReport.model_validate_json((tmp_path / "plain.json").read_text(encoding="utf-8"))
    with_latent = GateReport.model_validate_json(
        (tmp_path / "latent.json").read_text(encoding="utf-8")
    )
    assert with_latent.verdict == plain.verdict
    assert with_latent.checks == plain.checks and with_latent.statistics == plain.statistics
    assert plain.evidence_ledger.latent is None
    advisory = with_latent.evidence_ledger.latent
    assert advisory == summarize_latent(tmp_path / "latent")
    assert (advisory.baseline_trajectories, advisory.candidate_trajectories) == (2, 2)
    assert advisory.baseline_mean_entropy is not None
    assert advisory.velocity_profile_difference is not None
    assert [len(p) for p in advisory.projections["candidate"]] == [
        json.loads(f.read_text(encoding="utf-8"))["step_count"]
        for f in sorted((tmp_path / "latent" / "candidate").glob("*.json"))
    ]
    LatentAdvisory.model_validate(advisory.model_dump(mode="json"))
    assert run_cli("validate", tmp_path / "latent.json")[0] == 0
