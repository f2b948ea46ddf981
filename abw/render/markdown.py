"""GitHub-flavoured Markdown for PR comments and the job summary.

The output fits ``max_chars`` (65,536 for a PR comment; callers writing the step summary pass
1 MiB). Size is measured in UTF-8 bytes, which is never less than the count GitHub applies
(characters or UTF-16 units), so one number works for both limits. When the report is too long it
is cut between blocks — never inside a table header, a code fence or a ``<details>`` block — and
a note says so and links the full report. Every string from the report goes through
:func:`abw.render.common.md`, so trace data cannot ping people, link issues or inject HTML.
"""

from __future__ import annotations

from abw.errors import AbwInputError
from abw.models.report import Check, DiffResult, GateReport, SampleStatistics
from abw.render.common import (
    DIFF_METRICS,
    VERDICT_EMOJI,
    category_title,
    checks_by_category,
    decision_bounds,
    diff_shape_checks,
    fmt_num,
    fmt_pct,
    fold_numbers,
    location,
    md,
    md_html,
    safe_url,
    shorten,
    summary_text,
    thresholds,
    verdict_counts,
    worst_first,
)
from abw.text import plural

MAX_CHARS = 65_536
DASH = "\u2014"
EVIDENCE_ROWS = 50
NAME_LIMIT = 120
_SPRT_WORDS = {
    "accept_h0": "accept H0 (pass rate acceptable)",
    "accept_h1": "accept H1 (pass rate degraded)",
    "continue": "continue (undecided)",
    "truncated": "truncated at max runs",
    "disabled": "disabled",
}


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _link(url: str) -> str:
    """A Markdown link destination: :func:`safe_url`'s text (callers pass one already checked),
    with ``&`` backslash-escaped so no entity in it is decoded."""
    return url.replace("&", "\\&")


def _name(value: object, limit: int = NAME_LIMIT) -> str:
    return md(shorten(str(value), limit)) if value is not None else "\u2014"


def _html_name(value: object, limit: int = NAME_LIMIT) -> str:
    """:func:`_name` for a raw HTML line (``<summary>``), where Markdown escapes show."""
    return md_html(shorten(str(value), limit)) if value is not None else "\u2014"


def _head(report: GateReport, title: str, details_url: str | None) -> str:
    counts = verdict_counts(report.checks)
    candidates = sum(r.role == "candidate" for r in report.runs)
    baselines = sum(r.role == "baseline" for r in report.runs)
    tally = " \u00b7 ".join(
        f"{n} {word}"
        for n, word in (
            (counts["FAIL"], "failed"),
            (counts["INCONCLUSIVE"], "inconclusive"),
            (counts["WARN"], "warned"),
            (counts["PASS"], "passed"),
        )
        if n
    )
    lines = [
        f"## {VERDICT_EMOJI[report.verdict]} {md(title)}: **{report.verdict}** "
        f"\u2014 {_name(report.spec_id)}",
        "",
        f"> {md(shorten(summary_text(report), 1000))}",
        "",
        f"**Checks:** {tally or 'none'} \u2014 **Runs:** {candidates} candidate, "
        f"{baselines} baseline"
        + (f" \u2014 [Full report]({_link(details_url)})" if details_url else ""),
        *_input_warnings(report),
    ]
    return "\n".join(lines)


def _input_warnings(report: GateReport, shown: int = 5) -> list[str]:
    """A warning block for inputs that look wrong (they never change the verdict)."""
    warnings = report.input_warnings
    if not warnings:
        return []
    lines = ["", "> [!WARNING]", "> **Input warnings** (they do not change the verdict):"]
    lines += [f"> - {md(shorten(w.message, 600))}" for w in warnings[:shown]]
    if len(warnings) > shown:
        lines.append(f"> - \u2026 and {len(warnings) - shown} more in the full report")
    return lines


class HeadingTooLong(AbwInputError, ValueError):
    """``max_chars`` is too small for the parts that always stay (heading, summary, input
    warnings, footer): bad input, one line and exit code 2 in the CLI."""


Block = tuple[str, str]  # (separator before it, text); "\n" continues a table


def _table(header: str, rows: list[str]) -> list[Block]:
    """A table as cut points: the header travels with the first row, rows follow one by one."""
    if not rows:
        return []
    return [("\n\n", header + "\n" + rows[0]), *(("\n", row) for row in rows[1:])]


def _checks_rows(checks: list[Check]) -> list[str]:
    rows = []
    for check in checks:
        row = (
            f"| {VERDICT_EMOJI[check.verdict]} | {_name(check.id)} | "
            f"{md(category_title(check.category))} | {_name(check.message, 400)} |"
        )
        rows.append(row)
    return rows


_CHECKS_HEADER = "| | Check | Category | Why |\n|:-:|---|---|---|"


def _checks_table(checks: list[Check]) -> list[Block]:
    return _table(_CHECKS_HEADER, _checks_rows(checks))


def _evidence(check: Check, details_url: str | None) -> str:
    n = len(check.violations)
    head = (
        f"<details><summary>{VERDICT_EMOJI[check.verdict]} <b>{_html_name(check.id)}</b> \u2014 "
        f"{n} violating run{'s' if n != 1 else ''}</summary>\n\n"
        f"{md(check.message)}\n\n"
        "| Run | Location | Spans | Why |\n|---|---|---|---|"
    )
    rows = [
        f"| {_name(v.trace_id)} | {_name(location(v.trace_file, v.span_lines), 200)} | "
        f"{fold_numbers(v.span_ordinals) or DASH} | "
        f"{_name(v.message, 300)} |"
        for v in check.violations[:EVIDENCE_ROWS]
    ]
    tail = ""
    if n > EVIDENCE_ROWS:
        more = f"\u2026 and {n - EVIDENCE_ROWS} more violating runs"
        where = f"the [full report]({_link(details_url)})" if details_url else "the full report"
        tail = f"\n\n_{more} in {where}._"
    return head + "\n" + "\n".join(rows) + tail + "\n\n</details>"


def _threshold_cell(value: float | None, check: Check | None) -> str:
    text = fmt_num(None if value is None else float(value))
    if check is None:
        return text
    warn, fail = thresholds(check.limits)
    limits = ", ".join(
        f"{word} {fmt_num(v)}" for word, v in (("warn", warn), ("fail", fail)) if v is not None
    )
    mark = "" if check.verdict == "PASS" else f" {VERDICT_EMOJI[check.verdict]}"
    return f"{text}{mark}" + (f" <sub>({limits})</sub>" if limits else "")


def _diff_blocks(report: GateReport) -> list[Block]:
    if not report.diff:
        return []
    header = (
        "### Difference from baseline\n\n"
        "| Scenario | Runs (base/cand) | Path edit distance mean / max | Fingerprint | "
        "Tool Jaccard | New tools | Missing tools |\n|---|---|---|---|---|---|---|"
    )
    rows = []
    for d in report.diff:
        sid = d.scenario_id
        shape = diff_shape_checks(report, sid)
        cells = [_threshold_cell(getattr(d, attr), shape.get(key)) for key, _, attr in DIFF_METRICS]

        def tools(names: list[str] | None) -> str:
            if names is None:  # (runs on one side only: nothing compared)
                return DASH
            shown = ", ".join(_name(t, 60) for t in names[:8])
            return (shown + (f" +{len(names) - 8}" if len(names) > 8 else "")) or "\u2014"

        rows.append(
            f"| {_name(sid)} | {d.baseline_runs}/{d.candidate_runs} | "
            f"{cells[0]} / {fmt_num(d.path_edit_distance_max)} | {cells[1]} | {cells[2]} | "
            f"{tools(d.tools_new)} | {tools(d.tools_missing)} |"
        )
    return _table(header, rows)


def _divergence_block(d: DiffResult) -> str | None:
    div = d.first_divergence
    if div is None:
        return None
    base, cand = div.baseline_path, div.candidate_path
    alternatives = ", ".join(_html_name(a, 60) for a in div.baseline_alternatives) or "\u2014"
    where = (
        f"run {_name(div.trace_id)} ({_name(location(div.trace_file, []), 200)}), step {div.step}"
        + (f", span ordinal {div.span_ordinal}" if div.span_ordinal is not None else "")
    )
    took = (
        _html_name(div.candidate_tool, 60)
        if div.candidate_tool is not None
        else "<i>(path ended)</i>"
    )
    rows = ["| Step | Baseline | Candidate |", "|--:|---|---|"]
    last = min(max(len(base), len(cand)), div.step + 6)
    for i in range(last):
        b = _name(base[i], 60) if i < len(base) else "*(end)*"
        c = _name(cand[i], 60) if i < len(cand) else "*(end)*"
        if i == div.step:
            rows.append(f"| **{i}** \u2192 | **{b}** | **{c}** \u274c |")
        else:
            rows.append(f"| {i} | {b} | {c} |")
    if max(len(base), len(cand)) > last:
        rows.append("| \u2026 | | |")
    return (
        f"<details><summary>First divergent step \u2014 scenario {_html_name(d.scenario_id)}: "
        f"candidate took {took} where the baseline took "
        f"{'one of ' if len(div.baseline_alternatives) > 1 else ''}{alternatives}</summary>\n\n"
        f"{where}; {len(d.divergences)} of {d.candidate_runs} candidate runs diverge.\n\n"
        + "\n".join(rows)
        + "\n\n</details>"
    )


_RULE_WORDS = {
    "confidence_sequence": "confidence sequence",
    "wilson": "Wilson",
    "sprt": "SPRT",
}


def _execution_blocks(report: GateReport) -> list[Block]:
    """How the candidate runs ended, per scenario (only when some did not complete)."""
    if not any(e.incomplete_runs for e in report.execution):
        return []
    header = (
        "### Execution status (incomplete runs)\n\n"
        "| Scenario | Completed | Error | Cancelled | Unknown |\n|---|--:|--:|--:|--:|"
    )
    rows = [
        f"| {_name(e.scenario_id)} | {e.completed}/{e.runs} | {e.error} | {e.cancelled} | "
        f"{e.unknown} |"
        for e in report.execution
    ]
    return _table(header, rows)


def _stats_blocks(stats: list[SampleStatistics]) -> list[Block]:
    header = (
        "### Sample statistics\n\n"
        "| Scenario | Passed k/n | Pass rate | Bounds | \u03c4 | Decision (rule) | SPRT | "
        "Runs needed |\n|---|--:|--:|---|--:|---|---|--:|"
    )
    rows = []
    for s in stats:
        looks = "any look" if s.looks == "any" else "single-look"
        rule = f"{s.decision} ({_RULE_WORDS.get(s.rule, s.rule)}, {looks})"
        sprt = _SPRT_WORDS.get(s.sprt.decision, s.sprt.decision) if s.sprt.enabled else "off"
        lower, upper, name = decision_bounds(s)
        bounds = (
            f"[{fmt_num(lower)}, {fmt_num(upper)}] <sub>{name}</sub>"
            if lower is not None
            else "\u2014"
        )
        rows.append(
            f"| {_name(s.scenario_id)} | {s.k}/{s.n} | {fmt_pct(s.pass_rate)} | {bounds} | "
            f"{fmt_num(s.threshold)} | {md(rule)} | "
            f"{md(sprt)} | {fmt_num(s.runs_needed)} |"
        )
    return _table(header, rows)


def _footer(report: GateReport, details_url: str | None) -> str:
    link = f" \u00b7 [full report]({_link(details_url)})" if details_url else ""
    return (
        f"<sub>{_name(report.tool.name, 60)} {_name(report.tool.version, 60)} \u00b7 spec "
        f"{_name(report.spec_id)} (sha256 {_name(report.inputs.spec_sha256[:12])}) \u00b7 "
        f"{len(report.inputs.traces)} traces, inputs digest {_name(report.inputs.digest[:12])}"
        f"{link}</sub>"
    )


def _blocks(report: GateReport, details_url: str | None) -> list[Block]:
    checks = worst_first(report.checks)
    flagged = [c for c in checks if c.verdict != "PASS"]
    passed = [c for c in checks if c.verdict == "PASS"]
    blocks: list[Block] = []
    if flagged:
        blocks += _checks_table(flagged)
    elif passed:
        blocks += _checks_table(passed)
    blocks += _execution_blocks(report)
    blocks += _stats_blocks(report.statistics)
    blocks += _diff_blocks(report)
    blocks += [("\n\n", b) for d in report.diff if (b := _divergence_block(d))]
    evidence = [_evidence(c, details_url) for c in flagged if c.violations]
    if evidence:
        evidence[0] = "### Evidence\n\n" + evidence[0]
        blocks += [("\n\n", text) for text in evidence]
    if flagged and passed:
        by_category = ", ".join(
            f"{md_html(category_title(cat))} {sum(c.verdict == 'PASS' for c in cs)}"
            for cat, cs in checks_by_category(report)
            if any(c.verdict == "PASS" for c in cs)
        )
        table = _CHECKS_HEADER + "\n" + "\n".join(_checks_rows(passed))
        blocks.append(
            (
                "\n\n",
                f"<details><summary>\u2705 {plural(len(passed), 'check')} passed ({by_category})"
                f"</summary>"
                f"\n\n{table}\n\n</details>",
            )
        )
    return blocks


def _join(head: str, blocks: list[Block], footer: str) -> str:
    return head + "".join(sep + text for sep, text in blocks) + "\n\n" + footer + "\n"


def render_markdown(
    report: GateReport,
    *,
    max_chars: int = MAX_CHARS,
    details_url: str | None = None,
    title: str = "abw gate",
) -> str:
    """The report as GitHub Markdown of at most ``max_chars`` (UTF-8 bytes).

    ``details_url`` links the full report (HTML artifact or CI run); ``title`` heads the comment.
    """
    details_url = safe_url(details_url)
    head = _head(report, title, details_url)
    footer = _footer(report, details_url)
    blocks = _blocks(report, details_url)
    full = _join(head, blocks, footer)
    if _size(full) <= max_chars:
        return full
    where = f"the [full report]({_link(details_url)})" if details_url else "the full report"
    sizes = [_size(sep) + _size(text) for sep, text in blocks]
    fixed = _size(head) + _size(footer) + 3  # "\n\n" before the footer, "\n" after it
    total = fixed + sum(sizes)
    for count in range(len(blocks), -1, -1):
        total -= sizes[count] if count < len(blocks) else 0
        left = len(blocks) - count
        note = (
            "\n\n> [!NOTE]\n> This summary was cut to fit GitHub's size limit: "
            f"{left} more part{'s' if left != 1 else ''} of it (checks, tables or evidence) "
            f"are in {where}."
        )
        if total + _size(note) <= max_chars:
            return _join(head, [*blocks[:count], ("", note)], footer)
    raise HeadingTooLong(
        f"{max_chars} bytes cannot hold the report's heading, summary and footer (at least "
        f"{fixed + _size(note)} needed)",
        field="max_chars",
    )
