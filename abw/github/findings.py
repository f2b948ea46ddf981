"""The gate report's findings as located annotations (trace file + line), worst first.

Every text of a finding (path, title, message) is :func:`abw.text.clean`-ed once, here, so the
check run's annotations show control characters, terminal escapes and bidirectional overrides
as visible ``\\xNN`` text, as the workflow-command annotations (:mod:`abw.github.commands`) do.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from abw.models.report import VERDICT_SEVERITY, GateReport
from abw.render.common import fold_numbers, shorten
from abw.text import clean

#: check verdict -> (workflow-command level, check-run annotation level)
LEVELS = {
    "FAIL": ("error", "failure"),
    "INCONCLUSIVE": ("warning", "warning"),
    "WARN": ("warning", "warning"),
}
#: GitHub: an annotation message is at most 64 KB, counted in bytes (UTF-8), not characters.
MESSAGE_LIMIT_BYTES = 64 * 1024 - 1
TITLE_LIMIT = 255


def clip_bytes(text: str, limit: int = MESSAGE_LIMIT_BYTES) -> str:
    """At most ``limit`` bytes of UTF-8, cut at a character boundary with an ellipsis."""
    if len(text.encode("utf-8")) <= limit:
        return text
    from abw.github.clip import cut_utf8

    return cut_utf8(text, limit - len("\u2026".encode())) + "\u2026"


@dataclass(frozen=True)
class Finding:
    """One annotation: where, how bad, and the plain sentence why."""

    verdict: str
    check_id: str
    path: str
    line: int
    title: str
    message: str

    @property
    def command_level(self) -> str:
        return LEVELS[self.verdict][0]

    @property
    def check_level(self) -> str:
        return LEVELS[self.verdict][1]

    def as_check_annotation(self) -> dict[str, object]:
        """The Checks API annotation object."""
        return {
            "path": self.path,
            "start_line": self.line,
            "end_line": self.line,
            "annotation_level": self.check_level,
            "title": self.title,
            "message": self.message,
        }


def repo_path(path: str, workspace: Path | None = None) -> str:
    """A path as GitHub wants it in annotations: relative to the repository, ``/``-separated."""
    candidate = Path(path)
    if candidate.is_absolute() and workspace is not None:
        try:
            candidate = candidate.resolve().relative_to(workspace)
        except ValueError:
            return PurePosixPath(path).name
    text = candidate.as_posix()
    while text.startswith("./"):
        text = text[2:]
    return text


def findings(report: GateReport, workspace: Path | None = None) -> list[Finding]:
    """Every non-passing check as findings: one per violating run, else one at the spec file."""
    rank = {verdict: index for index, verdict in enumerate(VERDICT_SEVERITY)}
    spec_path = clean(repo_path(report.inputs.spec_file, workspace))
    found: list[Finding] = []
    for check in report.checks:
        if check.verdict not in LEVELS:
            continue
        title = shorten(clean(f"{check.verdict}: {check.id}"), TITLE_LIMIT)
        if not check.violations:
            found.append(
                Finding(
                    check.verdict,
                    check.id,
                    spec_path,
                    1,
                    title,
                    clip_bytes(clean(check.message)),
                )
            )
            continue
        for violation in check.violations:
            line = min(violation.span_lines) if violation.span_lines else 1
            ordinals = fold_numbers(violation.span_ordinals)
            spans = f" (span ordinals {ordinals})" if ordinals else ""
            message = f"{check.message} Run {violation.trace_id}{spans}: {violation.message}"
            found.append(
                Finding(
                    check.verdict,
                    check.id,
                    clean(repo_path(violation.trace_file, workspace)),
                    max(line, 1),
                    title,
                    clip_bytes(clean(message)),
                )
            )
    found.sort(key=lambda f: (rank[f.verdict], f.check_id, f.path, f.line))
    return found


def top_for_commands(items: list[Finding], per_level: int) -> list[Finding]:
    """At most ``per_level`` errors and as many warnings (GitHub shows 10 of each a step)."""
    counts: dict[str, int] = {}
    chosen = []
    for item in items:
        level = item.command_level
        if counts.get(level, 0) < per_level:
            counts[level] = counts.get(level, 0) + 1
            chosen.append(item)
    return chosen
