"""Edge cases of the Action's inputs, the report renderers and the report CLI, on real-shaped
files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from action_env import Runner
from conftest import one_line

from abw.render import render_json

CORPUS = Path(__file__).parent / "corpus"


@pytest.fixture(scope="module")
def mixed_report(tmp_path_factory) -> Path:
    """A real gate report with input warnings: Claude Code baseline, Codex candidate (corpus)."""
    from abw.cli import cli, run

    root = tmp_path_factory.mktemp("mixed")
    for platform, folder in (("claude", "claude-code"), ("codex", "codex")):
        raw = root / f"raw-{platform}"
        raw.mkdir()
        for path in sorted((CORPUS / folder).glob("agentcmd__*.jsonl"))[:3]:
            shutil.copy(path, raw / path.name)
        assert (
            run(cli, ["import", platform, "--input", str(raw), "--out", str(root / platform)]) == 0
        )
    spec = root / "spec.yaml"
    assert run(cli, ["spec", "init", "--baseline", str(root / "claude"), "--out", str(spec)]) == 0
    out = root / "gate-report.json"
    args = ["gate", "--baseline", str(root / "claude"), "--candidate", str(root / "codex")]
    run(cli, [*args, "--spec", str(spec), "--out", str(out), "-q"])
    assert json.loads(out.read_text(encoding="utf-8"))["input_warnings"]  # the premise
    return out


@pytest.mark.parametrize(("name", "value"), [("max-runs", "\u00b2"), ("budget-runs", "\u00b3")])
def test_action_refuses_a_superscript_digit_as_a_count(tmp_path, name, value):
    """``'²'.isdigit()`` is true but ``int('²')`` fails: it was an internal error."""
    runner = Runner(tmp_path, "http://127.0.0.1:9")
    inputs = {"baseline": "b", "candidate": "c", "spec": "s.yaml", name: value}
    result = runner.run(inputs)
    assert result.code == 2
    assert f"::error title=abw%3A invalid input::{name}: " in result.stdout
    assert "internal error" not in result.stdout + result.stderr


def test_report_max_chars_below_the_heading_is_one_line_error(run_cli, mixed_report, tmp_path):
    """A real report with input warnings has a heading over 1,000 bytes; ``--max-chars 1000``
    (the option's own minimum) was an internal error."""
    out = tmp_path / "summary.md"
    code, _, stderr = run_cli("report", "-i", mixed_report, "-o", out, "--max-chars", "1000")
    assert code == 2
    assert "--max-chars: 1000 bytes cannot hold" in one_line(stderr)
    assert not out.exists()


def test_report_base_dir_dot_makes_absolute_trace_paths_relative(run_cli, tmp_path, monkeypatch):
    """``--base-dir .`` (or a path with ``..``) relativised nothing: file:// URIs stayed."""
    import render_fixtures as fx

    report = fx.gated("fail")
    data = json.loads(render_json(report))
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for check in data["checks"]:
        for violation in check["violations"]:
            violation["trace_file"] = f"{checkout}/traces/{Path(violation['trace_file']).name}"
    source = tmp_path / "gate-report.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.chdir(checkout)
    for base in (".", f"{tmp_path}/x/../checkout"):
        out = tmp_path / "r.sarif"
        code, _, stderr = run_cli("report", "-i", source, "-o", out, "--base-dir", base)
        assert code == 0, stderr
        sarif = json.loads(out.read_text(encoding="utf-8"))
        uris = [
            loc["physicalLocation"]["artifactLocation"]["uri"]
            for result in sarif["runs"][0]["results"]
            for loc in result["locations"]
        ]
        traced = [uri for uri in uris if "traces/" in uri]
        assert traced and all(uri.startswith("traces/") for uri in traced), (base, uris)


def test_sarif_base_dir_and_paths_are_compared_normalised():
    """A base with ``..`` matched nothing, and ``/w/../etc/x`` under base ``/w`` became the
    relative URI ``../etc/x``, a path out of the repository."""
    from abw.render.sarif import artifact_uri

    assert artifact_uri("/w/repo/traces/a.json", "/w/tmp/../repo/") == "traces/a.json"
    assert artifact_uri("/w/repo/../etc/passwd", "/w/repo") == "file:///w/etc/passwd"


def test_report_format_without_out_is_refused_not_ignored(run_cli, mixed_report, tmp_path):
    """``--out-dir D --format md`` wrote all five formats, the --format silently ignored."""
    out_dir = tmp_path / "reports"
    code, _, stderr = run_cli("report", "-i", mixed_report, "--out-dir", out_dir, "-f", "md")
    assert code == 2
    assert "--format: " in one_line(stderr)
    assert not out_dir.exists()


@pytest.mark.parametrize(
    ("field", "inputs"),
    [
        ("report", {"report": "artifacts/broken.json"}),
        ("event-file", {"report": "artifacts/ok.json", "event-file": "artifacts/broken.json"}),
    ],
)
def test_action_names_a_broken_artifact_by_its_repository_path(
    tmp_path, mixed_report, field, inputs
):
    """A truncated report or event file was named by its absolute path (no annotation on the
    file), and the event file's error named no input at all."""
    runner = Runner(tmp_path, "http://127.0.0.1:9")
    folder = runner.workspace / "artifacts"
    folder.mkdir()
    shutil.copy(mixed_report, folder / "ok.json")
    (folder / "broken.json").write_text('{"schema_version":\n', encoding="utf-8")
    result = runner.run(inputs)
    assert result.code == 2
    line = one_line(result.stderr)
    assert f"abw: error: artifacts/broken.json:2: {field}: invalid JSON" in line
    assert "::error file=artifacts/broken.json,line=2," in result.stdout
    assert str(runner.workspace) not in result.stdout


def test_explain_lists_a_long_violation_in_a_readable_line(run_cli, mixed_report):
    """A real Codex session over its path budget listed every span's ``file:line (ordinal)``
    on one line: hundreds of places, tens of kilobytes."""
    report = json.loads(mixed_report.read_text(encoding="utf-8"))
    check = max(
        report["checks"], key=lambda c: max([len(v["span_lines"]) for v in c["violations"]] or [0])
    )
    assert max(len(v["span_lines"]) for v in check["violations"]) > 20  # the premise
    code, out, stderr = run_cli("explain", check["id"], "--report", mixed_report)
    assert code == 0, stderr
    assert max(len(line) for line in out.splitlines()) < 2000
    assert "spans in all; --format json lists every one" in out


def test_action_report_input_naming_the_checkout_puts_no_annotation_on_dot(tmp_path):
    """``report: .`` (a folder) gave ``::error file=.``: an annotation on no file."""
    runner = Runner(tmp_path, "http://127.0.0.1:9")
    result = runner.run({"report": "."})
    assert result.code == 2
    assert "abw: error: .: report: expected a file, found a folder" in one_line(result.stderr)
    assert "::error title=abw%3A invalid input::" in result.stdout


def test_a_report_without_decision_shows_the_wilson_decision_it_was_made_with(tmp_path, run_cli):
    """A report written before ``statistics[].decision`` was recorded was decided by Wilson's
    bounds (the defaults of ``rule`` and ``looks`` say so), yet it rendered "inconclusive"."""
    example = Path(__file__).resolve().parent.parent / "examples" / "refund-policy"
    spec = tmp_path / "fixed.yaml"
    text = (example / "behavior.yaml").read_text()
    spec.write_text(text.replace("  sequential: anytime", "  sequential: fixed"))
    report = tmp_path / "report.json"
    traces = example / "traces"
    run_cli(
        "gate", "--baseline", traces / "baseline", "--candidate", traces / "good",
        "--spec", spec, "--out", report, "-q",
    )  # fmt: skip
    older = json.loads(report.read_text())
    newer = ("rule", "looks", "decision", "failing_runs", "runs_used", "fail_level", "pass_level")
    for row in older["statistics"]:
        assert row["wilson_decision"] == "pass"
        for key in (*newer, "cs_lower", "cs_upper", "sequence"):
            row.pop(key, None)
    report.write_text(json.dumps(older))
    markdown = tmp_path / "report.md"
    code, _, err = run_cli("report", "-i", report, "-o", markdown, "--format", "markdown")
    assert code == 0, err
    assert "| pass \\(Wilson, single-look\\) |" in markdown.read_text()


def test_a_json_report_that_cannot_be_written_loses_nothing_else(fake, runner):
    """A folder where gate-report.json goes (or a full disk) stopped the Action after the
    verdict: exit code kept, but no other report file, no outputs, no step summary, no check
    run and no comment, under an "invalid input" error."""
    from action_env import make_report, publish

    (runner.workspace / "abw-report" / "gate-report.json").mkdir(parents=True)
    result = publish(runner, make_report("FAIL"))
    assert result.code == 1
    assert result.outputs["verdict"] == "FAIL" and result.outputs["exit-code"] == "1"
    assert "report-json" not in result.outputs and "sarif" in result.outputs
    assert "::warning title=abw::could not write the json report: " in result.stdout
    assert "::error" not in result.stdout.replace("::error file=", "")  # annotations only
    assert fake.check_runs and fake.comments
