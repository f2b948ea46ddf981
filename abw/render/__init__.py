"""Views of a ``gate-report/v0``: HTML, Markdown, SARIF 2.1.0, JUnit XML and the JSON itself.

Each format presents the report; none recomputes a verdict. The same report renders to
byte-identical output.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from abw.models.report import GateReport

FORMATS: tuple[str, ...] = ("json", "html", "markdown", "sarif", "junit")
FILE_NAMES: dict[str, str] = {
    "json": "gate-report.json",
    "html": "report.html",
    "markdown": "report.md",
    "sarif": "report.sarif",
    "junit": "report.junit.xml",
}
# Longest suffix first, so report.junit.xml is junit, not an unknown .xml.
_EXTENSIONS: tuple[tuple[str, str], ...] = (
    (".sarif.json", "sarif"),
    (".junit.xml", "junit"),
    (".html", "html"),
    (".htm", "html"),
    (".md", "markdown"),
    (".markdown", "markdown"),
    (".sarif", "sarif"),
    (".xml", "junit"),
    (".json", "json"),
)
_ALIASES = {"md": "markdown", "xml": "junit", "htm": "html"}
#: The keyword options each format accepts (see each renderer's docstring).
OPTIONS: dict[str, frozenset[str]] = {
    "json": frozenset(),
    "html": frozenset({"details_url", "title"}),
    "markdown": frozenset({"details_url", "max_chars", "title"}),
    "sarif": frozenset({"category", "base_dir", "max_results", "max_gzip_bytes"}),
    "junit": frozenset({"details_url"}),
}


def render_json(report: GateReport) -> str:
    """The report itself, exactly as ``abw gate`` writes ``gate-report.json``."""
    from abw.gating import report_json

    return report_json(report)


def load_report(path: str | Path) -> GateReport:
    """Read and validate a ``gate-report/v0`` file (abw.validate.read_report); bad input
    raises AbwInputError."""
    from abw.validate import read_report

    return read_report(Path(path))


def _renderer(fmt: str) -> Callable[..., str]:
    if fmt == "json":
        return render_json
    if fmt == "html":
        from abw.render.html import render_html

        return render_html
    if fmt == "markdown":
        from abw.render.markdown import render_markdown

        return render_markdown
    if fmt == "sarif":
        from abw.render.sarif import render_sarif

        return render_sarif
    if fmt == "junit":
        from abw.render.junit import render_junit

        return render_junit
    raise ValueError(f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")


def normalize_format(fmt: str) -> str:
    """``md`` -> ``markdown``; raises ValueError for an unknown name."""
    name = _ALIASES.get(fmt.lower(), fmt.lower())
    if name not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")
    return name


def format_for_path(path: str | Path) -> str | None:
    """The format a file name implies by its extension, or None."""
    name = Path(path).name.lower()
    for suffix, fmt in _EXTENSIONS:
        if name.endswith(suffix):
            return fmt
    return None


def known_options() -> set[str]:
    """Every keyword option some format accepts."""
    return set().union(*OPTIONS.values())


def canonical(report: GateReport) -> GateReport:
    """The report exactly as ``abw report`` reads it back from ``gate-report.json``: every
    mapping in sorted-key order, whatever order the gate built it in. Rendering from it makes
    ``abw gate --report-dir`` and ``abw report --out-dir`` write the same bytes."""
    import json

    # json.loads, not model_validate_json: report text may hold lone surrogates (made visible
    # by every renderer), which pydantic's JSON parser refuses.
    return GateReport.model_validate(json.loads(render_json(report)))


def _render(report: GateReport, name: str, options: dict[str, Any]) -> str:
    unknown = set(options) - known_options()
    if unknown:
        raise TypeError(f"unknown report option(s): {', '.join(sorted(unknown))}")
    accepted = OPTIONS[name]
    return _renderer(name)(report, **{k: v for k, v in options.items() if k in accepted})


def render(report: GateReport, fmt: str, **options: Any) -> str:
    """Render ``report`` as ``fmt`` (html|markdown|sarif|junit|json), from its canonical form.

    Options meant for other formats are ignored, so one set of options can be passed to every
    format; an option no format knows is an error.
    """
    return _render(canonical(report), normalize_format(fmt), options)


def write_reports(
    report: GateReport,
    out_dir: Path,
    formats: Iterable[str] = FORMATS,
    **options: Any,
) -> dict[str, Path]:
    """Write each format into ``out_dir`` under its standard file name; returns fmt -> path."""
    from abw.atomic import write_atomic

    report = canonical(report)
    written: dict[str, Path] = {}
    for fmt in formats:
        name = normalize_format(fmt)
        written[name] = write_atomic(
            Path(out_dir) / FILE_NAMES[name], _render(report, name, options)
        )
    return written


__all__ = [
    "FILE_NAMES",
    "FORMATS",
    "OPTIONS",
    "canonical",
    "format_for_path",
    "load_report",
    "normalize_format",
    "render",
    "render_json",
    "write_reports",
]
