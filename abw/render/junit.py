"""JUnit XML (junit-10.xsd): one testsuite per check category, one testcase per check.

FAIL -> ``<failure>``, INCONCLUSIVE -> ``<skipped message=...>``, WARN -> passed with the warning
in ``<system-out>``, PASS -> passed. The gate measures no durations, so every time is 0.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from abw.models.report import Check, GateReport
from abw.render.common import (
    category_title,
    checks_by_category,
    fmt_num,
    fold_numbers,
    location,
)
from abw.text import clean, clean_block

MAX_LISTED = 1000


def _details(check: Check, details_url: str | None) -> str:
    lines = [f"{check.verdict}: {clean(check.message)}"]
    if check.scenario_id is not None:
        lines.append(f"scenario: {clean(check.scenario_id)}")
    lines.append(f"runs checked: {check.runs_checked}")
    if check.measured:
        lines.append(f"measured: {fmt_num(check.measured)}")
    if check.limits:
        lines.append(f"limits: {fmt_num(check.limits)}")
    if check.violations:
        lines.append(f"violations ({len(check.violations)}):")
        for v in check.violations[:MAX_LISTED]:
            ordinals = fold_numbers(v.span_ordinals) or "-"
            lines.append(
                f"  {clean(location(v.trace_file, v.span_lines))} run {clean(v.trace_id)} "
                f"spans {ordinals}: {clean(v.message)}"
            )
        if len(check.violations) > MAX_LISTED:
            lines.append(f"  ... {len(check.violations) - MAX_LISTED} more in the gate report")
    if details_url:
        lines.append(f"full report: {clean(details_url)}")
    return "\n".join(lines) + "\n"


def _testcase(suite: ET.Element, check: Check, details_url: str | None) -> None:
    case = ET.SubElement(
        suite,
        "testcase",
        {"name": clean(check.id), "classname": f"abw.{clean(check.category)}", "time": "0"},
    )
    text = _details(check, details_url)
    if check.verdict == "FAIL":
        failure = ET.SubElement(
            case, "failure", {"type": clean(check.rule), "message": clean(check.message)}
        )
        failure.text = text
    elif check.verdict == "INCONCLUSIVE":
        skipped = ET.SubElement(
            case, "skipped", {"type": "INCONCLUSIVE", "message": clean(check.message)}
        )
        skipped.text = text
    else:
        ET.SubElement(case, "system-out").text = text


def junit_tree(report: GateReport, *, details_url: str | None = None) -> ET.Element:
    root = ET.Element("testsuites", {"name": f"abw gate: {clean(report.spec_id)}"})
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for category, checks in checks_by_category(report):
        failures = sum(c.verdict == "FAIL" for c in checks)
        skipped = sum(c.verdict == "INCONCLUSIVE" for c in checks)
        suite = ET.SubElement(
            root,
            "testsuite",
            {
                "name": category_title(category),
                "tests": str(len(checks)),
                "failures": str(failures),
                "errors": "0",
                "skipped": str(skipped),
                "time": "0",
                "package": f"abw.{clean(category)}",
            },
        )
        props = ET.SubElement(suite, "properties")
        for name, value in (
            ("category", clean(category)),
            ("gate.verdict", report.verdict),
            ("gate.spec_id", clean(report.spec_id)),
            ("gate.inputs_digest", report.inputs.digest),
        ):
            ET.SubElement(props, "property", {"name": name, "value": value})
        for warning in report.input_warnings:
            value = f"{warning.kind}: {clean(warning.message)}"
            ET.SubElement(props, "property", {"name": "gate.input_warning", "value": value})
        for check in checks:
            _testcase(suite, check, details_url)
        totals["tests"] += len(checks)
        totals["failures"] += failures
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", "0")
    root.set("time", "0")
    for element in root.iter():  # the one field escaper of the XML: every attribute and text
        for key, value in element.attrib.items():
            element.set(key, clean(value))
        if element.text:
            element.text = clean_block(element.text)
    return root


def render_junit(report: GateReport, *, details_url: str | None = None) -> str:
    """JUnit XML text; ``details_url`` (the full report) is added to each testcase's output."""
    root = junit_tree(report, details_url=details_url)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
