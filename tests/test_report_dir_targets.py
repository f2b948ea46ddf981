"""A report folder is checked whole before the gate: each report file it will hold, and an
output file that a report of another format would overwrite (`abw gate`, `abw report`)."""

from __future__ import annotations

from conftest import example_gate, one_line

GATE = example_gate("good")


def test_a_folder_where_a_report_file_goes_is_refused_before_the_gate(run_cli, tmp_path):
    """`report.html` a folder: the gate ran, wrote the JSON, then stopped (exit 3) with the
    Markdown, SARIF and JUnit reports never written; now nothing is written, exit 2."""
    reports = tmp_path / "reports"
    (reports / "report.html").mkdir(parents=True)
    code, _, err = run_cli(*GATE, "--out", tmp_path / "r.json", "--report-dir", reports)
    assert code == 2, err
    assert "--report-dir" in one_line(err) and "report.html" in err
    assert not (tmp_path / "r.json").exists()
    assert sorted(p.name for p in reports.iterdir()) == ["report.html"]


def test_out_named_as_a_report_file_of_another_format_is_refused(run_cli, tmp_path):
    """`--out X/report.md --report-dir X`: the gate's JSON was silently overwritten by the
    Markdown report."""
    code, _, err = run_cli(*GATE, "--out", tmp_path / "report.md", "--report-dir", tmp_path)
    assert code == 2, err
    assert "--out" in one_line(err) and "report.md" in err
    assert list(tmp_path.iterdir()) == []


def test_out_as_the_report_folders_own_json_is_the_same_bytes(run_cli, tmp_path):
    """--out naming the folder's own gate-report.json is allowed: both write the same bytes."""
    alone = tmp_path / "alone.json"
    code, _, err = run_cli(*GATE, "--out", alone)
    assert code == 0, err
    folder = tmp_path / "reports"
    code, _, err = run_cli(*GATE, "--out", folder / "gate-report.json", "--report-dir", folder)
    assert code == 0, err
    assert (folder / "gate-report.json").read_bytes() == alone.read_bytes()
    assert (folder / "report.md").is_file()


def test_abw_report_checks_its_out_dir_files_first(run_cli, tmp_path):
    code, _, err = run_cli(*GATE, "--out", tmp_path / "r.json")
    assert code == 0, err
    out_dir = tmp_path / "views"
    (out_dir / "report.sarif").mkdir(parents=True)
    code, _, err = run_cli("report", "--input", tmp_path / "r.json", "--out-dir", out_dir)
    assert code == 2, err
    assert "--out-dir" in one_line(err) and "report.sarif" in err
    assert sorted(p.name for p in out_dir.iterdir()) == ["report.sarif"]


def test_a_file_output_written_as_a_folder_is_refused(run_cli, tmp_path):
    """``--out reports/`` for a folder not there yet: the gate wrote a JSON file named
    ``reports`` (exit 0), and a later ``--report-dir reports`` failed. A path written with a
    trailing ``/`` names a folder; where a file goes, that is a usage error, nothing written."""
    example = GATE[2].rsplit("/traces/", 1)[0]
    report = tmp_path / "r.json"
    code, _, err = run_cli(*GATE, "--out", report)
    assert code == 0, err
    commands = [
        [*GATE, "--out"],
        ["diff", "--baseline", GATE[2], "--candidate", GATE[4], "--out"],
        ["report", "--input", report, "--format", "html", "--out"],
        ["spec", "init", "--baseline", GATE[2], "--out"],
        ["contract", "compile", f"{example}/contract.json", "--out"],
    ]
    for command in commands:
        code, _, err = run_cli(*command, f"{tmp_path / 'out'}/")
        assert code == 2, (command, err)
        assert "--out" in one_line(err) and "names a folder" in err
        assert not (tmp_path / "out").exists()


def test_one_file_named_for_two_outputs_is_refused(run_cli, tmp_path):
    """``abw report --out r.sarif --out ./r.sarif -f sarif -f junit`` wrote JUnit XML into
    r.sarif, said "sarif r.sarif", exit 0. One file for two outputs is a usage error; a device
    (``/dev/null`` twice) is written in turn."""
    report = tmp_path / "g.json"
    assert run_cli(*example_gate("good"), "--out", report)[0] == 0
    first, again = tmp_path / "r.sarif", tmp_path / "." / "r.sarif"
    code, _, err = run_cli(
        "report", "--input", report, "--out", first, "--out", again, "-f", "sarif", "-f", "junit"
    )
    assert code == 2 and "names the file" in one_line(err) and "twice" in err, err
    assert not first.exists()
    code, _, err = run_cli(
        "report", "--input", report, "--out", "/dev/null", "--out", "/dev/null", "-f", "sarif",
        "-f", "junit",
    )  # fmt: skip
    assert code == 0, err


def test_a_report_that_cannot_be_written_costs_no_other(run_cli, tmp_path):
    """``--report-dir`` on a full disk stopped at the first format it could not write: the
    new gate-report.json said FAIL beside the earlier gate's report.md, SARIF and JUnit, which
    said PASS (what CI uploads). Every format is tried; each failure is its own line."""
    folder = tmp_path / "rd"
    assert run_cli(*example_gate("good"), "--report-dir", folder)[0] == 0
    (folder / "report.html").unlink()
    (folder / "report.html").symlink_to("/dev/full")  # (writes fail: no space left)
    code, _, err = run_cli(*example_gate("regressed"), "--report-dir", folder)
    assert code == 1, err  # the verdict's code
    assert "report.html: --report-dir: cannot write: no space left" in err
    for name in ("report.md", "report.sarif", "report.junit.xml"):
        assert "policy_check" in (folder / name).read_text(), name  # this gate's FAIL
    report = tmp_path / "g.json"
    run_cli(*example_gate("regressed"), "--out", report)
    views = tmp_path / "views"
    views.mkdir()
    (views / "report.html").symlink_to("/dev/full")
    code, out, err = run_cli("report", "--input", report, "--out-dir", views)
    assert code == 2 and "report.html: --out-dir: cannot write" in err, err
    assert "policy_check" in (views / "report.sarif").read_text() and "sarif" in out
