"""SARIF 2.1.0 for GitHub code scanning: one rule per check kind, one result per violation.

Results point at the trace file and the line of the offending span. Findings without a trace
location (sample sufficiency, distribution-level diff checks) point at the spec file, line 1,
because code scanning shows only results that have a location. Past GitHub's limits (25,000
results per run, 10 MB gzipped) the lowest-severity violations are folded into one summary
result per check.
"""

from __future__ import annotations

import gzip
import json
import posixpath
import re
from typing import Any
from urllib.parse import quote

import orjson

from abw.hashing import ORJSON_OPTIONS, proven_json_bytes, sha256_hex
from abw.models.report import Check, GateReport, Violation
from abw.render.common import VERDICT_RANK, category_title, clean_all, md, safe_url, shorten
from abw.render.rules import RuleText, rule_text
from abw.text import clean

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
#: Code scanning's limits (docs.github.com, "SARIF support for code scanning"): a file over
#: 10 MB gzipped, a run with more than 25,000 results or 25,000 rules is rejected whole.
MAX_RESULTS = 25_000
MAX_RULES = 25_000
MAX_GZIP_BYTES = 10_000_000
MAX_RELATED = 10
#: Any one string of the SARIF at most (a rule id, a path, a message): what a report holds
#: past it is not shown by code scanning and only spends the 10 MB.
MAX_STRING = 8_192
#: The tool is abw whatever an uploaded report claims: code scanning files and filters the
#: alerts under ``tool.driver.name``.
TOOL_NAME = "abw"
OTHER_RULE = "abw-other-check-kinds"
#: SemVer 2.0 (semver.org), as ``semanticVersion`` must be; a version is also kept as plain
#: ``version`` when it is at least made of version characters.
_SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)
_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}")
_LEVEL = {"FAIL": "error", "WARN": "warning", "INCONCLUSIVE": "warning", "PASS": "none"}
_DRIVE_RE = re.compile(r"^[A-Za-z]:/")
_URI_SAFE = "/-._~!$&'()*+,;=:@"
#: In a relative reference a ``:`` in the first segment would make it a scheme (RFC 3986 4.2:
#: ``run:1.json`` is scheme ``run``), so relative paths encode every ``:``.
_RELATIVE_SAFE = _URI_SAFE.replace(":", "")


def _normal(path: str) -> str:
    """``path`` with forward slashes; an absolute POSIX path also without ``.``/``..``
    segments, so ``/w/./t.json`` is under ``/w`` and ``/w/../x`` is not.

    A backslash separates only in a Windows path (abw writes one with backslashes alone): in
    a path holding a ``/`` it is a character of a file name (POSIX allows it), and one whose
    segments it would make ``..`` is a name too. A trace named ``x\\..\\..\\package.json``
    must not move its alert onto another file of the repository."""
    windows = "/" not in path and ".." not in path.split("\\")
    text = path.replace("\\", "/") if windows else path
    return posixpath.normpath(text) if text.startswith("/") else text


def artifact_uri(path: str, base_dir: str | None = None) -> str:
    """A repository-relative URI with forward slashes, or a file:// URI for an absolute path.

    ``base_dir`` (e.g. the checkout root) makes absolute paths under it relative. Relative paths
    are taken to be relative to the repository root already.
    """
    text = _normal(path)
    if base_dir:
        base = _normal(base_dir).rstrip("/")
        if text == base:
            text = "."
        elif text.startswith(base + "/"):
            text = text[len(base) + 1 :]
    if text.startswith("/") or _DRIVE_RE.match(text):
        absolute = posixpath.normpath(text) if text.startswith("/") else text
        prefix = "file://" if absolute.startswith("/") else "file:///"
        return prefix + quote(absolute, safe=_URI_SAFE)
    relative = posixpath.normpath(text) if text else "."
    return quote(relative, safe=_RELATIVE_SAFE)


def _sentence(text: str) -> str:
    text = " ".join(clean(text).split())
    return text if text.endswith((".", "!", "?")) else text + "."


def _message(text: str) -> dict[str, str]:
    """A SARIF message object. Plain text reads ``[text](target)`` as an embedded link (to a
    related location or a URI; code scanning renders them), so when the text holds a ``](``
    its brackets and backslashes are escaped with a backslash (SARIF 2.1.0, 3.11.6): a name
    from a trace cannot become a link. Every ``message`` goes through here."""
    text = clean(text)
    if "](" in text:
        text = text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return {"text": text}


def _fingerprint(check: Check, violation: Violation | None, extra: str = "") -> str:
    parts = [check.rule, check.id, check.scenario_id or ""]
    if violation is not None:
        parts += [violation.trace_id, ",".join(str(o) for o in violation.span_ordinals)]
    parts.append(extra)
    return sha256_hex("\x1f".join(parts))


def _physical(uri: str, line: int) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": uri},
            "region": {"startLine": max(int(line), 1)},
        }
    }


def _result(
    check: Check,
    rule: tuple[str, int],
    message: str,
    uri: str,
    line: int,
    fingerprint: str,
    properties: dict[str, Any],
) -> dict[str, Any]:
    return {
        "ruleId": rule[0],
        "ruleIndex": rule[1],
        "level": _LEVEL[check.verdict],
        "message": _message(message),
        "locations": [_physical(uri, line)],
        "partialFingerprints": {
            "abwFinding/v1": fingerprint,
            "primaryLocationLineHash": f"{fingerprint[:16]}:1",
        },
        "properties": properties,
    }


def _violation_result(
    check: Check, rule: tuple[str, int], violation: Violation, base_dir: str | None
) -> dict[str, Any]:
    uri = artifact_uri(violation.trace_file, base_dir)
    lines = violation.span_lines
    message = _sentence(f"Run {violation.trace_id} breaks {check.id}: {violation.message}")
    result = _result(
        check,
        rule,
        message,
        uri,
        lines[0] if lines else 1,
        _fingerprint(check, violation),
        {
            "checkId": clean(check.id),
            "verdict": check.verdict,
            "traceId": clean(violation.trace_id),
            "scenarioId": clean(violation.scenario_id),
            "spanOrdinals": list(violation.span_ordinals),
        },
    )
    if len(lines) > 1:
        result["relatedLocations"] = [
            {"id": i, **_physical(uri, line), "message": _message(f"Span ordinal {ordinal}.")}
            for i, (line, ordinal) in enumerate(
                zip(lines[1 : 1 + MAX_RELATED], violation.span_ordinals[1:], strict=False), 1
            )
        ]
    return result


def _check_result(
    check: Check, rule: tuple[str, int], spec_uri: str, note: str = ""
) -> dict[str, Any]:
    """A finding with no trace location: it is anchored on the spec file, line 1."""
    message = _sentence(f"{check.id}: {note or check.message}")
    return _result(
        check,
        rule,
        message,
        spec_uri,
        1,
        _fingerprint(check, None, "summary" if note else ""),
        {"checkId": clean(check.id), "verdict": check.verdict, "summary": bool(note)},
    )


def rule_id(rule: str) -> str:
    """The SARIF rule id of a check kind: the kind itself, at most :data:`MAX_STRING` long."""
    return shorten(clean(rule), MAX_STRING)


def _rule_ids(report: GateReport) -> dict[str, str]:
    """Check kind -> SARIF rule id; past :data:`MAX_RULES` kinds (only an edited report has
    more than a few dozen) the rest share one rule, so code scanning does not reject the run."""
    ids: dict[str, str] = {}
    own: set[str] = set()
    for check in report.checks:
        if check.rule not in ids:
            rule = rule_id(check.rule)
            if rule in own or len(own) < MAX_RULES - 1:
                own.add(rule)
            else:
                rule = OTHER_RULE
            ids[check.rule] = rule
    return ids


def _rules(report: GateReport) -> tuple[list[dict[str, Any]], dict[str, int]]:
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    ids = _rule_ids(report)
    for check in report.checks:
        rule_id = ids[check.rule]
        if rule_id in index:
            rule = rules[index[rule_id]]
            if check.hard and rule["defaultConfiguration"]["level"] != "error":
                rule["defaultConfiguration"]["level"] = "error"
            continue
        text = rule_text(rule_id, check.category)
        if rule_id == OTHER_RULE:
            text = RuleText(
                f"More than {MAX_RULES - 1} kinds of check.",
                "The report holds more kinds of check than code scanning takes rules; the "
                "rest are listed under this one rule.",
                "See the check's id in the result and the full gate report.",
            )
        index[rule_id] = len(rules)
        rules.append(
            {
                "id": rule_id,
                "name": rule_id[:255],
                "shortDescription": {"text": clean(text.short)[:1024]},
                "fullDescription": {"text": clean(text.full)[:1024]},
                "help": {
                    "text": clean(f"{text.full} {text.help}"),
                    "markdown": (
                        f"**{md(text.short)}**\n\n{md(text.full)}\n\n"
                        f"**What to do:** {md(text.help)}\n\n"
                        f"Category: {md(category_title(check.category))}. The HTML gate report "
                        "shows the runs and spans behind each finding."
                    ),
                },
                "defaultConfiguration": {"level": "error" if check.hard else "warning"},
                "properties": {
                    "category": clean(check.category),
                    "tags": ["abw", "agent-behavior", clean(check.category)],
                    "precision": "very-high" if check.hard else "medium",
                    "problem.severity": "error" if check.hard else "warning",
                },
            }
        )
    return rules, index


def _results(
    report: GateReport,
    index: dict[str, int],
    spec_uri: str,
    base_dir: str | None,
    max_results: int,
) -> list[dict[str, Any]]:
    flagged = [c for c in report.checks if c.verdict != "PASS"]
    dropped: list[Check] = []
    if len(flagged) > max_results:  # more checks than results: the most severe keep theirs
        ranked = sorted(flagged, key=lambda c: VERDICT_RANK[c.verdict])
        kept = {id(c) for c in ranked[: max(max_results - 1, 0)]}
        dropped = [c for c in flagged if id(c) not in kept]
        flagged = [c for c in flagged if id(c) in kept]
    wanted = {id(c): max(len(c.violations), 1) for c in flagged}
    allowed = dict(wanted)
    if sum(wanted.values()) > max_results:
        # Keep the most severe first; every check keeps one slot for its summary result.
        budget = max(max_results - len(flagged), 0)
        for check in sorted(flagged, key=lambda c: VERDICT_RANK[c.verdict]):
            take = min(len(check.violations), budget)
            allowed[id(check)] = take
            budget -= take
    results: list[dict[str, Any]] = []
    ids = _rule_ids(report)
    for check in flagged:
        rule = (ids[check.rule], index[ids[check.rule]])
        if not check.violations:
            results.append(_check_result(check, rule, spec_uri))
            continue
        keep = allowed[id(check)]
        results += [_violation_result(check, rule, v, base_dir) for v in check.violations[:keep]]
        omitted = len(check.violations) - keep
        if omitted:
            note = (
                f"{omitted} more violations ({len(check.violations)} in all) are not listed "
                "here to stay within code scanning limits; see the full gate report"
            )
            results.append(_check_result(check, rule, spec_uri, note))
    if dropped:
        first = dropped[0]
        rule = (ids[first.rule], index[ids[first.rule]])
        note = (
            f"{len(dropped)} more non-passing checks ({len(dropped) - 1} after this one, with "
            f"{sum(len(c.violations) for c in dropped)} violations) are not listed here to "
            "stay within code scanning limits; see the full gate report"
        )
        results.append(_check_result(first, rule, spec_uri, note))
    return results


def _invocations(report: GateReport) -> dict[str, Any]:
    """Input warnings as tool execution notifications (they never change the verdict)."""
    if not report.input_warnings:
        return {}
    notes = [
        {"level": "warning", "message": _message(w.message), "descriptor": {"id": w.kind}}
        for w in report.input_warnings
    ]
    return {"invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notes}]}


def sarif_document(
    report: GateReport,
    *,
    category: str | None = None,
    base_dir: str | None = None,
    max_results: int = MAX_RESULTS,
) -> dict[str, Any]:
    """The SARIF log as a dict (see :func:`render_sarif`)."""
    rules, index = _rules(report)
    spec_uri = artifact_uri(report.inputs.spec_file, base_dir)
    automation = (category or f"abw/{report.spec_id}").strip()
    automation = re.sub(r"\s+", "-", clean(automation)).rstrip("/")
    automation = shorten(automation, MAX_STRING - 1) + "/"  # the category ends at its "/"
    information = safe_url(report.tool.information_uri, relative=False)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                **driver_version(report.tool.version),
                **({"informationUri": information} if information else {}),
                "rules": rules,
            }
        },
        "automationDetails": {"id": automation},
        **_invocations(report),
        "columnKind": "unicodeCodePoints",
        "results": _results(report, index, spec_uri, base_dir, max_results),
        "properties": {
            "verdict": report.verdict,
            "summary": clean(report.summary),
            "specId": clean(report.spec_id),
            "specSha256": report.inputs.spec_sha256,
            "inputsDigest": report.inputs.digest,
        },
    }
    document = {"$schema": SARIF_SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return clean_all(document, MAX_STRING)  # every string at most MAX_STRING characters


def driver_version(version: str) -> dict[str, str]:
    """``version`` and ``semanticVersion`` of the driver from the report's tool version: kept
    only when it is a version (SemVer 2.0 for ``semanticVersion``), never an uploaded
    report's arbitrary text."""
    if _SEMVER.fullmatch(version) and len(version) <= 64:
        return {"version": version, "semanticVersion": version}
    return {"version": version} if _VERSION.fullmatch(version) else {}


def limit_notes(report: GateReport, text: str) -> list[str]:
    """What the SARIF ``text`` rendered from ``report`` left out or changed to stay within
    code scanning's limits and to name abw as the tool, one sentence each (the Action prints
    them as warnings)."""
    notes: list[str] = []
    if report.tool.name != TOOL_NAME:
        notes.append(
            f"the report names its tool {shorten(clean(report.tool.name), 60)!r}: the SARIF "
            f"names {TOOL_NAME}, whose gate reports these results"
        )
    if not driver_version(report.tool.version):
        notes.append("the report's tool version is not a version: the SARIF leaves it out")
    elif "semanticVersion" not in driver_version(report.tool.version):
        notes.append("the report's tool version is not SemVer 2.0: no semanticVersion")
    kinds = len({c.rule for c in report.checks})
    if kinds >= MAX_RULES:
        notes.append(
            f"{kinds} kinds of check: past {MAX_RULES - 1} they share the rule {OTHER_RULE} "
            f"(code scanning rejects a run with more than {MAX_RULES:,} rules)"
        )
    document = json.loads(text)
    flagged = [c for c in report.checks if c.verdict != "PASS"]
    wanted = sum(max(len(c.violations), 1) for c in flagged)
    results = [r for run in document["runs"] for r in run.get("results", [])]
    listed = sum(not r.get("properties", {}).get("summary") for r in results)
    if listed < wanted:
        notes.append(
            f"{wanted - listed} of {wanted} results are folded into summary results, to stay "
            f"within code scanning's {MAX_RESULTS:,} results and "
            f"{MAX_GZIP_BYTES // 1_000_000} MB gzipped per upload"
        )
    if any(len(v) >= MAX_STRING for v in _strings(document)):
        notes.append(f"texts longer than {MAX_STRING:,} characters are shortened")
    return notes


def sarif_bytes(document: dict[str, Any]) -> bytes:
    """``json.dumps(document, indent=2, ensure_ascii=False) + "\\n"`` as UTF-8, written by orjson
    where it gives the same bytes (the standard library's indented encoder runs in Python:
    10 s for 25,000 results)."""
    return proven_json_bytes(document, _SARIF_JSON, _stdlib_sarif)


_SARIF_JSON = (
    (ORJSON_OPTIONS & ~orjson.OPT_SORT_KEYS) | orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
)


def _stdlib_sarif(document: Any) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def render_sarif(
    report: GateReport,
    *,
    category: str | None = None,
    base_dir: str | None = None,
    max_results: int = MAX_RESULTS,
    max_gzip_bytes: int = MAX_GZIP_BYTES,
) -> str:
    """SARIF 2.1.0 JSON text.

    ``category`` sets ``automationDetails.id`` (default ``abw/<spec id>/``); ``base_dir`` makes
    absolute trace paths under it repository-relative. The output stays under ``max_results``
    results and ``max_gzip_bytes`` gzipped, summarising the rest.
    """
    limit = max_results
    while True:
        doc = sarif_document(report, category=category, base_dir=base_dir, max_results=limit)
        data = sarif_bytes(doc)
        size = len(gzip.compress(data, mtime=0))
        if size <= max_gzip_bytes:
            return data.decode("utf-8", "surrogatepass")
        if limit <= 1:  # never a file code scanning rejects, nor one that drops results
            raise ValueError(
                f"the SARIF is {size:,} bytes gzipped with a single result, over code "
                f"scanning's {max_gzip_bytes:,}: the report holds too much text to upload"
            )
        limit //= 2
