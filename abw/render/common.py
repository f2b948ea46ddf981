"""Helpers shared by every report format: safe text, verdict labels, number formatting.

Every string in a gate report may come from a trace (tool names, trace ids, file names), so the
renderers treat all of them as untrusted: :func:`abw.text.clean` makes control characters,
ANSI escapes, bidirectional overrides and lone surrogates visible as ``\\xNN``/``\\uNNNN`` text
before any format-specific escaping happens.
"""

from __future__ import annotations

import math
import re
from typing import Any
from urllib.parse import quote

from abw.models.report import Check, GateReport, SampleStatistics, Verdict
from abw.text import clean, clean_block

CATEGORY_ORDER: tuple[str, ...] = (
    "behavior_contract",
    "output_eval",
    "operational_quality",
    "diff_shape",
    "execution",
    "sample_sufficiency",
)
CATEGORY_TITLES: dict[str, str] = {
    "behavior_contract": "Behavior contract",
    "output_eval": "Output",
    "operational_quality": "Operational quality",
    "diff_shape": "Difference from baseline",
    "execution": "Execution status",
    "sample_sufficiency": "Sample sufficiency",
}
VERDICT_RANK: dict[str, int] = {"FAIL": 0, "INCONCLUSIVE": 1, "WARN": 2, "PASS": 3}
VERDICT_EMOJI: dict[str, str] = {
    "PASS": "\u2705",  # white heavy check mark
    "WARN": "\u26a0\ufe0f",  # warning sign
    "FAIL": "\u274c",  # cross mark
    "INCONCLUSIVE": "\u2754",  # white question mark
}
VERDICT_WORD: dict[str, str] = {
    "PASS": "passed",
    "WARN": "passed with warnings",
    "FAIL": "failed",
    "INCONCLUSIVE": "is inconclusive",
}


def summary_text(report: GateReport) -> str:
    """The summary without a leading "FAIL: " where the verdict is already the headline."""
    text = report.summary
    prefix = f"{report.verdict}: "
    if text.startswith(prefix) and len(text) > len(prefix):
        text = text[len(prefix) :]
        return text[:1].upper() + text[1:]
    return text


def shorten(text: str, limit: int) -> str:
    """At most ``limit`` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "\u2026"


def fmt_num(value: Any, digits: int = 3) -> str:
    """Deterministic short text for a number (or any value)."""
    if value is None:
        return "\u2014"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "\u221e" if value > 0 else "-\u221e"
        if value == int(value) and abs(value) < 1e15:
            return str(int(value))
        text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
        return text if text not in ("", "-0") else "0"
    if isinstance(value, list | tuple):
        shown = ", ".join(fmt_num(v, digits) for v in value[:12])
        return shown + (f", \u2026 ({len(value)} in all)" if len(value) > 12 else "") or "none"
    if isinstance(value, dict):
        return ", ".join(f"{clean(k)}={fmt_num(v, digits)}" for k, v in value.items())
    return clean(value)


def decision_bounds(stats: SampleStatistics) -> tuple[float | None, float | None, str]:
    """The pass-rate bounds the deciding rule compares with tau, and their name: the
    confidence sequence's (the default rule), else Wilson's (``sequential: fixed``; beside the
    SPRT). Wilson's bounds are narrower than the sequence's: shown alone, they clear tau while
    the verdict is INCONCLUSIVE."""
    if stats.rule == "confidence_sequence":
        return stats.cs_lower, stats.cs_upper, "confidence sequence"
    return stats.wilson_lower, stats.wilson_upper, f"Wilson, z={fmt_num(stats.z)}"


def fmt_pct(value: float | None) -> str:
    return "\u2014" if value is None else f"{value * 100:.1f}%"


def checks_by_category(report: GateReport) -> list[tuple[str, list[Check]]]:
    """Checks grouped by category in a fixed order (unknown categories last), report order kept."""
    groups: dict[str, list[Check]] = {}
    for check in report.checks:
        groups.setdefault(check.category, []).append(check)
    known = [c for c in CATEGORY_ORDER if c in groups]
    extra = sorted(c for c in groups if c not in CATEGORY_ORDER)
    return [(c, groups[c]) for c in [*known, *extra]]


def verdict_counts(checks: list[Check]) -> dict[Verdict, int]:
    counts: dict[Verdict, int] = {"FAIL": 0, "INCONCLUSIVE": 0, "WARN": 0, "PASS": 0}
    for check in checks:
        counts[check.verdict] += 1
    return counts


def worst_first(checks: list[Check]) -> list[Check]:
    """Stable sort: FAIL, INCONCLUSIVE, WARN, PASS; report order within a verdict."""
    return sorted(checks, key=lambda c: VERDICT_RANK.get(c.verdict, 9))


def fold_numbers(numbers: list[int], shown: int = 8) -> str:
    """Span ordinals or line numbers, readable however many: runs of consecutive numbers become
    ranges (``3, 5\u20139, 12``), and past ``shown`` groups the rest is counted
    (``\u2026 (104 in all)``). Order is kept as given; an empty list is ``""``."""
    groups: list[list[int]] = []
    for number in numbers:
        if groups and number == groups[-1][1] + 1:
            groups[-1][1] = number
        else:
            groups.append([number, number])
    text = ", ".join(
        str(a) if a == b else f"{a}\u2013{b}" if b > a + 1 else f"{a}, {b}"
        for a, b in groups[:shown]
    )
    if len(groups) > shown:
        text += f", \u2026 ({len(numbers)} in all)"
    return text


def location(trace_file: str, lines: list[int]) -> str:
    """``file:line`` (first line) or the file alone."""
    return f"{trace_file}:{lines[0]}" if lines else trace_file


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def category_title(category: str) -> str:
    return CATEGORY_TITLES.get(category, category.replace("_", " ").capitalize())


_MD_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "\\": "\\\\",
        "`": "\\`",
        "*": "\\*",
        "_": "\\_",
        "[": "\\[",
        "]": "\\]",
        "(": "\\(",
        ")": "\\)",
        "!": "\\!",
        "|": "\\|",
        "~": "\\~",
        "{": "\\{",
        "}": "\\}",
        "$": "\\$",
        # A zero-width space after @ and # stops mentions (@user, @org/team) and issue links
        # (#123, owner/repo#123) without changing what a reader sees.
        "@": "@&#8203;",
        "#": "#&#8203;",
    }
)
_AUTOLINK_RE = re.compile(r"(?i)(://|www\.|gh-(?=\d))")


#: What makes a line's start a block (a list item ``- x``, ``+ x``, ``1. x``, ``1) x``, a rule
#: ``---``, a setext underline ``===``): its marker is backslash-escaped.
_BLOCK_START_RE = re.compile(r"[-+=]|\d{1,9}(?=[.)])")
#: Spaces at either end: four at a line's start make a code block, and one inside ``**…**``
#: undoes the emphasis around it. Written as character references, they are only text.
_EDGE_SPACES_RE = re.compile(r"^ +| +$")


def md(value: Any) -> str:
    """Untrusted text as inline GitHub-flavoured Markdown that shows exactly that text.

    HTML is entity-escaped, Markdown punctuation backslash-escaped (pipes too, so it is safe in
    table cells), mentions, issue references and autolinks are broken by a zero-width space,
    and what would open a block where the text starts a line (a list or rule marker, leading
    spaces) is escaped too.
    """
    text = clean(value).translate(_MD_ESCAPES)
    text = _AUTOLINK_RE.sub(lambda m: m.group(0)[:-1] + "&#8203;" + m.group(0)[-1], text)
    text = _EDGE_SPACES_RE.sub(lambda m: "&#32;" * len(m.group(0)), text)
    start = _BLOCK_START_RE.match(text)
    if start is not None:
        at = start.end() if start.group(0)[0].isdigit() else 0
        text = f"{text[:at]}\\{text[at:]}"
    return text


def clean_all(value: Any, limit: int | None = None) -> Any:
    """:func:`abw.text.clean` applied to every string (keys too) of JSON-like data: the one
    field escaper of the JSON formats (SARIF), so no field, hashes and versions read from a
    report included, can carry a control character. With ``limit``, every value string is
    also :func:`shorten`-ed to at most that many characters (in the same walk)."""
    if isinstance(value, str):
        text = clean_block(value)
        return text if limit is None else shorten(text, limit)
    if isinstance(value, dict):
        return {clean(k): clean_all(v, limit) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_all(v, limit) for v in value]
    return value


_HTML_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "'": "&#39;",
        "@": "@&#8203;",
        "#": "#&#8203;",
    }
)


def md_html(value: Any) -> str:
    """Untrusted text inside a raw HTML block of GitHub Markdown (a ``<summary>`` line).

    Markdown escapes are not processed there (``\\_`` would show its backslash), so only
    entities are used; mentions, issue references and autolinks are broken as in :func:`md`.
    """
    text = clean(value).translate(_HTML_ESCAPES)
    return _AUTOLINK_RE.sub(lambda m: m.group(0)[:-1] + "&#8203;" + m.group(0)[-1], text)


#: What a link target keeps as is: RFC 3986's reserved and unreserved characters and ``%``, less
#: ``(`` and ``)``, which would end a Markdown link. The rest (whitespace, controls, quotes,
#: ``<``, ``>``, backslashes, non-ASCII) is percent-encoded.
_URL_SAFE = "/:?#[]@!$&'*+,;=-._~%"


def safe_url(url: str | None, *, relative: bool = True) -> str | None:
    """A link target safe in every format: http(s) URLs (and relative ones when ``relative``),
    percent-encoded so it cannot end a Markdown link or an HTML attribute; anything else
    (``javascript:``, ``data:``, ...) is None. The one URL check of every renderer."""
    if not url:
        return None
    first = url.split("/", 1)[0]
    scheme = first.split(":", 1)[0].lower() if ":" in first else ""
    if scheme not in ("http", "https") and (scheme or not relative):
        return None
    return quote(url, safe=_URL_SAFE)


#: The three distribution-level diff metrics: the gate's diff_shape rule, label, DiffResult field.
DIFF_METRICS: tuple[tuple[str, str, str], ...] = (
    ("path_edit_distance", "Path edit distance (mean)", "path_edit_distance_mean"),
    ("fingerprint_distance", "Fingerprint distance", "fingerprint_distance"),
    ("tool_jaccard", "Tool Jaccard distance", "tool_jaccard_distance"),
)


_SHAPE_INDEX: list[tuple[GateReport, dict[str | None, dict[str, Check]]]] = []


def diff_shape_checks(report: GateReport, scenario_id: str | None) -> dict[str, Check]:
    """A scenario's diff_shape checks by rule (the gate gives each metric of DIFF_METRICS one).

    The checks are indexed by scenario once per report (the last report rendered), so a
    renderer asking for every scenario's checks is linear in the scenarios, not quadratic."""
    if not _SHAPE_INDEX or _SHAPE_INDEX[0][0] is not report:
        index: dict[str | None, dict[str, Check]] = {}
        for check in report.checks:
            if check.category == "diff_shape":
                index.setdefault(check.scenario_id, {})[check.rule] = check
        _SHAPE_INDEX[:] = [(report, index)]
    return dict(_SHAPE_INDEX[0][1].get(scenario_id, {}))


def thresholds(limits: dict[str, Any]) -> tuple[float | None, float | None]:
    """The ``warn`` and ``fail`` thresholds in a diff_shape check's ``limits`` (None if absent)."""
    warn, fail = limits.get("warn"), limits.get("fail")
    return (
        float(warn) if is_number(warn) else None,
        float(fail) if is_number(fail) else None,
    )
