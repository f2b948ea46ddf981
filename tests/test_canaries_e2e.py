"""The redaction promise end to end: canaries planted in every content field of real exports of
every supported format go through import → gate → every report format → explain → the Action
(outputs, step summary, annotations, check run, PR comment, every API request) and never
come out anywhere.

Planting uses the adapter kit's :func:`~abw.adapter_kit.canary_copy` (every string under a
content key — prompts, tool inputs and outputs, commands, paths, messages — becomes a unique
``ABWCANARY<n>`` string; JSON held inside strings is opened and planted too).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from action_env import Runner
from conftest import CORPUS
from fake_github import FakeGitHub
from fuzzkit import CORPUS_DIRS

from abw.adapter_kit import CANARY, canary_copy

#: Raw keys importers keep on purpose (identities, not content), as in tests/test_adapter_kit.py.
KEEP = {"gemini": ("agent_name",), "openhands": ("action",)}
FILES_PER_FORMAT = 4
MAX_BYTES = 400_000  # keep the test fast: the smaller real files of each format


#: Fuzz targets whose exports hold no key the adapter kit plants (behaviorlock's
#: observations: values the format keeps as its canonical output on purpose).
UNPLANTED = {"behaviorlock"}


def _importers() -> list[str]:
    from abw.importers import importer_targets

    return [name for name in importer_targets() if name in CORPUS_DIRS.keys() - UNPLANTED]


def _samples(importer: str) -> list[Path]:
    folder = CORPUS / CORPUS_DIRS[importer]
    files = [
        p
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.suffix in (".json", ".jsonl", ".traj") and p.stat().st_size < MAX_BYTES
    ]
    return sorted(files, key=lambda p: p.stat().st_size)[-FILES_PER_FORMAT:]


def _assert_clean(text: str, where: str) -> None:
    if CANARY in text:
        at = text.index(CANARY)
        pytest.fail(f"canary leaked into {where}: ...{text[max(0, at - 80) : at + 30]!r}...")


def _assert_tree_clean(folder: Path, where: str) -> int:
    count = 0
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            _assert_clean(path.read_bytes().decode("utf-8", "replace"), f"{where}/{path.name}")
            count += 1
    return count


SPEC = """schema_version: behavior-spec/v0
id: canaries
invariants:
  required_tools: [a_tool_no_run_calls]
  forbidden_tools: [Bash, shell, exec_command, Read]
  max_path_length: 3
  max_errors: 0
  max_retries: 0
rules:
  - {kind: count, tool: "*search*", max: 0}
thresholds: {min_runs: 3}
"""


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """Import canary copies of real exports of every format; returns (workspace, import logs)."""
    from abw.cli import cli, run

    root = tmp_path_factory.mktemp("canaries")
    workspace = root / "workspace"
    logs: list[str] = []
    imported: dict[str, int] = {}
    planted_files = 0
    for importer in _importers():
        raw = root / "raw" / importer
        raw.mkdir(parents=True)
        for sample in _samples(importer):
            copy = canary_copy(sample, raw, keep=KEEP.get(importer, ()))
            if copy is None:
                continue
            planted_files += 1
            out = workspace / "traces" / "all" / importer / copy.stem
            import contextlib
            import io

            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
                code = run(
                    cli,
                    [
                        "import",
                        importer,
                        "--input",
                        str(copy),
                        "--out",
                        str(out),
                        "--scenario-id",
                        importer,
                        "--exported-at",
                        "2026-01-01T00:00:00Z",
                        "--output-fields",
                        "decision,result,status",
                    ],
                )
            logs.append(err.getvalue())
            if code == 0:
                imported[importer] = imported.get(importer, 0) + 1
    # every importer turned at least one planted real export into traces
    assert set(imported) == set(_importers()), imported
    all_traces = workspace / "traces" / "all"
    shutil.copytree(all_traces, workspace / "traces" / "baseline")
    shutil.copytree(all_traces, workspace / "traces" / "candidate")
    shutil.rmtree(all_traces)
    (workspace / "spec.yaml").write_text(SPEC, encoding="utf-8")
    return root, workspace, logs, planted_files


def test_planting_really_planted(planted):
    root, _, _, planted_files = planted
    assert planted_files >= len(_importers())
    raw = "".join(p.read_text("utf-8", "replace") for p in (root / "raw").rglob("*") if p.is_file())
    assert raw.count(CANARY) > 200  # content fields of real files carry canaries


def test_import_outputs_and_logs_have_no_canary(planted):
    _, workspace, logs, _ = planted
    for log in logs:
        _assert_clean(log, "import stderr")
    assert _assert_tree_clean(workspace / "traces", "traces") > 0


def test_gate_reports_and_explain_have_no_canary(planted, run_cli):
    _, workspace, _, _ = planted
    out = workspace.parent / "reports"
    code, stdout, stderr = run_cli(
        "gate",
        "--baseline",
        workspace / "traces" / "baseline",
        "--candidate",
        workspace / "traces" / "candidate",
        "--spec",
        workspace / "spec.yaml",
        "--report-dir",
        out,
    )
    assert code == 1, stderr  # the spec forbids common tools: violations name runs and spans
    _assert_clean(stdout + stderr, "gate output")
    assert _assert_tree_clean(out, "reports") == 5
    report = json.loads((out / "gate-report.json").read_text())
    assert sum(len(c["violations"]) for c in report["checks"]) > 10
    for check in report["checks"]:
        for fmt in ("text", "json"):
            code, stdout, stderr = run_cli(
                "explain", check["id"], "--report", out / "gate-report.json", "--format", fmt
            )
            assert code == 0, stderr
            _assert_clean(stdout + stderr, f"explain {check['id']}")
    rendered = workspace.parent / "rendered"
    code, stdout, stderr = run_cli("report", "-i", out / "gate-report.json", "--out-dir", rendered)
    assert code == 0, stderr
    _assert_clean(stdout + stderr, "abw report output")
    assert _assert_tree_clean(rendered, "abw report files") == 5


def test_action_channels_have_no_canary(planted, tmp_path):
    _, workspace, _, _ = planted
    fake = FakeGitHub().start()
    try:
        runner = Runner(tmp_path, fake.url)
        shutil.copytree(workspace, runner.workspace, dirs_exist_ok=True)
        result = runner.run(
            {"baseline": "traces/baseline", "candidate": "traces/candidate", "spec": "spec.yaml"}
        )
        assert result.code == 1, result.stdout + result.stderr
        _assert_clean(result.stdout + result.stderr, "Action logs and annotations")
        _assert_clean(json.dumps(result.outputs), "Action outputs")
        _assert_clean(result.summary, "step summary")
        assert fake.requests, "the Action published nothing"
        for request in fake.requests:
            _assert_clean(json.dumps(request.body), f"API {request.method} {request.path}")
        for comment in fake.comments.values():
            _assert_clean(json.dumps(comment), "PR comment")
        for run in fake.check_runs.values():
            _assert_clean(json.dumps(run), "check run and annotations")
        _assert_tree_clean(runner.workspace / "abw-report", "Action report files")
    finally:
        fake.stop()
