"""`abw report` and the render API: formats from extensions, several outputs, clean errors."""

from __future__ import annotations

import json

import pytest
import render_fixtures as fx

from abw.render import (
    FILE_NAMES,
    FORMATS,
    format_for_path,
    load_report,
    render,
    render_json,
    write_reports,
)


@pytest.fixture
def report_file(tmp_path):
    path = tmp_path / "gate-report.json"
    path.write_text(render_json(fx.gated("fail")), encoding="utf-8")
    return path


def test_format_from_extension():
    assert format_for_path("r.html") == "html"
    assert format_for_path("out/R.HTM") == "html"
    assert format_for_path("r.md") == "markdown"
    assert format_for_path("r.sarif") == "sarif"
    assert format_for_path("r.sarif.json") == "sarif"
    assert format_for_path("report.junit.xml") == "junit"
    assert format_for_path("r.xml") == "junit"
    assert format_for_path("gate-report.json") == "json"
    assert format_for_path("r.txt") is None


def test_several_outputs_in_one_call(run_cli, report_file, tmp_path):
    outs = [tmp_path / n for n in ("a.html", "a.md", "a.sarif", "a.junit.xml", "copy.json")]
    args = ["report", "--input", report_file]
    for out in outs:
        args += ["--out", out]
    code, stdout, stderr = run_cli(*args, "--details-url", "https://ci.example/run/7")
    assert code == 0, stderr
    report = load_report(report_file)
    for out, fmt in zip(outs, ["html", "markdown", "sarif", "junit", "json"], strict=True):
        assert out.read_text(encoding="utf-8") == render(
            report, fmt, details_url="https://ci.example/run/7"
        )
        assert str(out) in stdout
    # the JSON view is the report itself, byte for byte
    assert (tmp_path / "copy.json").read_bytes() == report_file.read_bytes()


def test_format_option_and_out_dir(run_cli, report_file, tmp_path):
    code, _, stderr = run_cli(
        "report", "-i", report_file, "-o", tmp_path / "summary.txt", "--format", "md",
        "--max-chars", "3000", "--out-dir", tmp_path / "all", "--sarif-category", "gate/x",
    )  # fmt: skip
    assert code == 0, stderr
    text = (tmp_path / "summary.txt").read_text(encoding="utf-8")
    assert len(text.encode()) <= 3000 and text.startswith("## ")
    for name in FILE_NAMES.values():
        assert (tmp_path / "all" / name).is_file()
    sarif = json.loads((tmp_path / "all" / "report.sarif").read_text(encoding="utf-8"))
    assert sarif["runs"][0]["automationDetails"]["id"] == "gate/x/"
    code, _, _ = run_cli(
        "report", "-i", report_file, "-o", tmp_path / "x1", "-o", tmp_path / "x2",
        "-f", "html", "-f", "sarif",
    )  # fmt: skip
    assert code == 0
    assert (tmp_path / "x1").read_text().startswith("<!DOCTYPE html>")
    assert json.loads((tmp_path / "x2").read_text())["version"] == "2.1.0"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "r.txt"], "cannot tell the format from the extension"),
        ([], "give --out PATH"),
        (["-o", "a.html", "-o", "b.md", "-f", "html", "-f", "md", "-f", "json"], "--format"),
    ],
)
def test_usage_errors_are_one_line(run_cli, report_file, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    code, _, stderr = run_cli("report", "-i", report_file, *args)
    assert code == 2 and message in stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr


def test_bad_input_files(run_cli, tmp_path):
    cases = {
        "missing.json": None,
        "broken.json": '{"schema_version": "gate-report/v0",',
        "trace.json": '{"schema_version": "agent-behavior-trace/v0"}',
        "bad.json": '{"schema_version": "gate-report/v0", "verdict": "MAYBE"}',
    }
    for name, text in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text, encoding="utf-8")
        code, _, stderr = run_cli("report", "-i", path, "-o", tmp_path / "r.html")
        assert code == 2, name
        assert stderr.startswith(f"abw: error: {path}") and "Traceback" not in stderr
        assert len(stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r.html").exists()


def test_render_api_errors():
    report = fx.pass_report()
    with pytest.raises(ValueError, match="unknown report format"):
        render(report, "pdf")
    with pytest.raises(TypeError, match="unknown report option"):
        render(report, "html", colour="red")
    # options meant for other formats are ignored, so one set serves every format
    assert render(report, "html", max_chars=10_000, category="x") == render(report, "html")
    assert render(report, "md") == render(report, "markdown")


def test_write_reports_uses_the_standard_names(tmp_path):
    written = write_reports(fx.gated("warn"), tmp_path / "out", details_url="https://x.example")
    assert set(written) == set(FORMATS)
    assert {p.name for p in written.values()} == set(FILE_NAMES.values())
    again = write_reports(fx.gated("warn"), tmp_path / "out2", details_url="https://x.example")
    for fmt in FORMATS:  # byte-identical for the same report
        assert written[fmt].read_bytes() == again[fmt].read_bytes()
    only = write_reports(fx.gated("warn"), tmp_path / "one", formats=("sarif",))
    assert list(only) == ["sarif"]


@pytest.mark.parametrize("distance", [-1e6, -0.5])
def test_a_negative_path_edit_distance_is_refused_naming_its_field(
    run_cli, report_file, tmp_path, distance
):
    """An edit distance is never negative: a report holding one (edited by hand, or forged)
    crashed the HTML view ("internal error: list index out of range") or drew its runs in a
    wrong bin; it is refused as no gate-report/v0, before any view is written."""
    report = json.loads(report_file.read_text())
    runs = [r for d in report["diff"] for r in d["per_run"] if r["path_edit_distance"] is not None]
    assert runs
    for run in runs:
        run["path_edit_distance"] = distance
    report_file.write_text(json.dumps(report))
    out = tmp_path / "views"
    code, _, stderr = run_cli("report", "--input", report_file, "--out-dir", out)
    assert code == 2
    assert len(stderr.strip().splitlines()) == 1
    assert "path_edit_distance" in stderr and "internal error" not in stderr
    assert not out.exists() or not any(out.iterdir())
