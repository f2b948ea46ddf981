"""SARIF 2.1.0: valid against the official schema, one rule per check kind, one result per
violation, stable fingerprints, repository-relative locations, GitHub's limits."""

from __future__ import annotations

import gzip
import json
from functools import lru_cache

import jsonschema
import pytest
import render_fixtures as fx
from conftest import REFERENCE

from abw.models.report import Check, Violation
from abw.render import render
from abw.render.sarif import artifact_uri, render_sarif


@lru_cache(maxsize=1)
def validator() -> jsonschema.Draft4Validator:
    schema = json.loads((REFERENCE / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


def sarif(report, **options) -> dict:
    text = render(report, "sarif", **options)
    document = json.loads(text)
    errors = sorted(validator().iter_errors(document), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]
    return document


def expected_results(report) -> int:
    return sum(max(len(c.violations), 1) for c in report.checks if c.verdict != "PASS")


@pytest.mark.parametrize("kind", ["pass", "warn", "fail", "inconclusive", "malicious"])
def test_fixture_reports_are_valid_sarif(kind):
    report = fx.ALL[kind]()
    doc = sarif(report)
    (run,) = doc["runs"]
    assert doc["version"] == "2.1.0"
    assert len(run["results"]) == expected_results(report)


@pytest.mark.parametrize("kind", ["pass", "warn", "fail", "inconclusive"])
def test_reports_from_the_real_gate_are_valid_sarif(kind):
    report = fx.gated(kind)
    doc = sarif(report)
    results = doc["runs"][0]["results"]
    assert len(results) == expected_results(report)
    levels = {r["level"] for r in results}
    if kind == "pass":
        assert results == []
    if kind == "fail":
        assert "error" in levels
        order = [r for r in results if r["ruleId"] == "required_order"]
        assert len(order) == 15
        for result in order:
            loc = result["locations"][0]["physicalLocation"]
            assert loc["artifactLocation"]["uri"].startswith(
                "examples/refund-policy/candidate-fail/"
            )
            assert loc["region"]["startLine"] > 1  # the line of the offending span
    if kind in ("warn", "inconclusive"):
        assert levels == {"warning"}


def test_driver_and_rules():
    report = fx.fail_report()
    run = sarif(report)["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "abw"
    assert driver["version"] == report.tool.version
    assert driver["informationUri"].startswith("https://")
    ids = [r["id"] for r in driver["rules"]]
    assert ids == list(dict.fromkeys(c.rule for c in report.checks))  # one per check kind
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and len(rule["shortDescription"]["text"]) <= 1024
        assert rule["fullDescription"]["text"] and len(rule["fullDescription"]["text"]) <= 1024
        assert rule["help"]["text"] and rule["help"]["markdown"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning")
    by_id = {r["id"]: r for r in driver["rules"]}
    assert by_id["required_order"]["defaultConfiguration"]["level"] == "error"
    assert by_id["path_edit_distance"]["defaultConfiguration"]["level"] == "warning"
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_one_result_per_violation_with_level_message_and_location():
    report = fx.fail_report()
    results = sarif(report)["runs"][0]["results"]
    order = [r for r in results if r["ruleId"] == "required_order"]
    assert len(order) == 300
    first = order[0]
    assert first["level"] == "error"
    text = first["message"]["text"]
    assert text.endswith(".") and "cand-000" in text and "\n" not in text
    loc = first["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == (
        "examples/refund-policy/candidate-regressed/run-000.trace.json"
    )
    assert loc["region"]["startLine"] == 9
    # A check without violations (the Wilson bound) is anchored on the spec file, line 1.
    wilson = [r for r in results if r["ruleId"] == "wilson"]
    assert len(wilson) == 1 and wilson[0]["level"] == "error"
    spec_loc = wilson[0]["locations"][0]["physicalLocation"]
    assert spec_loc["artifactLocation"]["uri"] == "examples/refund-policy/behavior.yaml"
    assert spec_loc["region"]["startLine"] == 1
    warn = [r for r in results if r["ruleId"] == "path_edit_distance"]
    assert [r["level"] for r in warn] == ["warning"]


def test_inconclusive_is_a_warning():
    results = sarif(fx.inconclusive_report())["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("wilson", "warning")]


def test_fingerprints_are_stable_and_ignore_line_numbers():
    report = fx.fail_report(30)
    first = sarif(report)["runs"][0]["results"]
    again = sarif(fx.fail_report(30))["runs"][0]["results"]
    assert [r["partialFingerprints"] for r in first] == [r["partialFingerprints"] for r in again]
    # Re-recorded traces move spans to other lines: the alerts must stay the same alerts.
    moved = report.model_copy(deep=True)
    for check in moved.checks:
        for v in check.violations:
            v.span_lines = [line + 7 for line in v.span_lines]
    shifted = sarif(moved)["runs"][0]["results"]
    assert [r["partialFingerprints"] for r in shifted] == [r["partialFingerprints"] for r in first]
    assert shifted[0]["locations"] != first[0]["locations"]
    prints = [r["partialFingerprints"]["abwFinding/v1"] for r in first]
    assert len(set(prints)) == len(prints)


def test_automation_details_category():
    report = fx.fail_report(3)
    assert sarif(report)["runs"][0]["automationDetails"]["id"] == "abw/refund-policy/"
    doc = sarif(report, category="gate/refund")
    assert doc["runs"][0]["automationDetails"]["id"] == "gate/refund/"


def test_uris_are_repository_relative_with_forward_slashes():
    assert artifact_uri("examples/a b/run#1.json") == "examples/a%20b/run%231.json"
    assert artifact_uri("./examples/x.json") == "examples/x.json"
    assert artifact_uri("examples\\win\\x.json") == "examples/win/x.json"
    assert artifact_uri("/github/workspace/t/x.json", "/github/workspace") == "t/x.json"
    assert artifact_uri("/github/workspace/t/x.json", "/github/workspace/") == "t/x.json"
    assert artifact_uri("/elsewhere/x.json", "/github/workspace") == "file:///elsewhere/x.json"
    assert artifact_uri("C:\\w\\repo\\t\\x.json", "C:\\w\\repo") == "t/x.json"
    assert artifact_uri("/abs/x.json") == "file:///abs/x.json"


def test_a_backslash_in_a_posix_file_name_never_moves_the_alert():
    """Linux allows ``\\`` in a file name: a trace named ``x\\..\\..\\..\\package.json`` in
    ``traces/candidate`` put its alert on the repository's ``package.json``."""
    name = "traces/candidate/x\\..\\..\\..\\package.json"
    assert artifact_uri(name) == "traces/candidate/x%5C..%5C..%5C..%5Cpackage.json"
    assert artifact_uri("x\\..\\package.json") == "x%5C..%5Cpackage.json"
    assert artifact_uri("/w/repo/t/a\\b.json", "/w/repo") == "t/a%5Cb.json"
    report = fx.fail_report(3)
    for check in report.checks:
        for v in check.violations:
            v.trace_file = name
    uris = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for result in sarif(report)["runs"][0]["results"]
        for location in result["locations"]
    }
    assert "package.json" not in uris and uris >= {artifact_uri(name)}


def test_base_dir_relativizes_absolute_trace_paths():
    report = fx.fail_report(3)
    absolute = report.model_copy(deep=True)
    for check in absolute.checks:
        for v in check.violations:
            v.trace_file = "/github/workspace/" + v.trace_file
    doc = sarif(absolute, base_dir="/github/workspace")
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in doc["runs"][0]["results"]
    }
    assert "examples/refund-policy/candidate-regressed/run-000.trace.json" in uris
    assert not any(u.startswith(("/", "file:")) for u in uris)


def test_malicious_names_stay_data():
    doc = sarif(fx.malicious_report())
    text = json.dumps(doc, ensure_ascii=False)
    assert "\x1b" not in text and "\x00" not in text and "\u202e" not in text
    results = doc["runs"][0]["results"]
    assert any("<script>alert(1)</script>" in r["message"]["text"] for r in results)
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    assert all("<" not in u and " " not in u and "#" not in u for u in uris)
    markdown = "".join(r["help"]["markdown"] for r in doc["runs"][0]["tool"]["driver"]["rules"])
    assert "<img" not in markdown and "&lt;img" in markdown


def test_past_the_result_limit_violations_are_summarised():
    report = fx.fail_report()  # 300 order violations + 1 warn + 1 wilson
    doc = sarif(report, max_results=100)
    results = doc["runs"][0]["results"]
    assert len(results) <= 100
    order = [r for r in results if r["ruleId"] == "required_order"]
    summary = [r for r in order if r["properties"].get("summary")]
    assert len(summary) == 1 and "300 in all" in summary[0]["message"]["text"]
    assert len(order) - 1 == 100 - 3  # every flagged check keeps a slot for its summary
    # errors are kept before warnings
    assert any(r["ruleId"] == "wilson" for r in results)


def _many_violations(n: int) -> Check:
    return Check(
        id="behavior_contract.forbidden_tools[0]",
        rule="forbidden_tools",
        category="behavior_contract",
        verdict="FAIL",
        message=f"{n} runs called a forbidden tool.",
        hard=True,
        runs_checked=n,
        violations=[
            Violation(
                trace_id=f"r{i}",
                trace_file=f"t/r{i}.json",
                span_ordinals=[1],
                span_lines=[3],
                message="forbidden tool x.",
            )
            for i in range(n)
        ],
    )


def test_githubs_25000_results_limit_holds_by_default():
    report = fx.pass_report().model_copy(update={"verdict": "FAIL"})
    report.checks.append(_many_violations(30_000))
    doc = json.loads(render_sarif(report))
    results = doc["runs"][0]["results"]
    assert len(results) == 25_000
    assert results[-1]["properties"]["summary"] is True
    assert "5001 more violations (30000 in all)" in results[-1]["message"]["text"]
    size = len(gzip.compress(json.dumps(doc).encode()))
    assert size < 10_000_000


def test_gzip_size_limit_halves_the_results_until_it_fits():
    report = fx.fail_report()
    small = render_sarif(report, max_gzip_bytes=8_000)
    assert len(gzip.compress(small.encode(), mtime=0)) <= 8_000
    results = json.loads(small)["runs"][0]["results"]
    assert 3 <= len(results) < 300
    validator().validate(json.loads(small))


def test_sarif_is_deterministic():
    assert render(fx.fail_report(), "sarif") == render(fx.fail_report(), "sarif")
    assert render(fx.gated("fail"), "sarif") == render(fx.gated("fail"), "sarif")
