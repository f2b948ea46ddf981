"""``abw demo`` end to end: import -> spec init -> diff -> gate -> reports, three verdicts."""

from __future__ import annotations

import importlib.util
import json


def test_demo_end_to_end(tmp_path, run_cli):
    out = tmp_path / "demo"
    code, stdout, err = run_cli("demo", "--out", out)
    assert code == 0, stdout + err
    lines = {
        line.split()[0]: line.split()[1]
        for line in stdout.splitlines()
        if line.startswith("  ")
        and line.split()
        and line.split()[0] in ("good", "regressed", "small")
    }
    assert lines == {"good": "PASS", "regressed": "FAIL", "small": "INCONCLUSIVE"}
    assert "behavior_contract.required_order[0]" in stdout
    for name, verdict in (("good", "PASS"), ("regressed", "FAIL"), ("small", "INCONCLUSIVE")):
        report = json.loads((out / name / "gate-report.json").read_text())
        assert report["verdict"] == verdict
        assert (out / name / "diff.txt").read_text().startswith("scenario refund-policy")
        if importlib.util.find_spec("abw.render") is not None:
            for file in ("report.html", "report.md", "report.sarif", "report.junit.xml"):
                assert (out / name / file).stat().st_size > 0
    assert len(list((out / "traces" / "baseline").glob("*.json"))) == 24
    first = (out / "regressed" / "gate-report.json").read_bytes()

    # Running again into the same folder gives byte-identical reports.
    assert run_cli("demo", "--out", out)[0] == 0
    assert (out / "regressed" / "gate-report.json").read_bytes() == first

    code, stdout, _ = run_cli(
        "explain",
        "behavior_contract.required_order[0]",
        "--report",
        out / "regressed" / "gate-report.json",
    )
    assert code == 0 and "3 runs contradict the rule" in stdout


def test_demo_with_a_missing_example_is_a_one_line_error(tmp_path, run_cli):
    code, _, err = run_cli("demo", "--out", tmp_path / "o", "--example", tmp_path / "nothing")
    assert code == 2 and "example was not found" in err and err.count("\n") == 1
