"""Views of a ``gate-report/v0``: HTML, Markdown, SARIF 2.1.0, JUnit XML and the JSON itself.

Each format presents the report; none recomputes a verdict. The same report renders to
byte-identical output.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from abw.errors import AbwInputError, os_input_error
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
    raises AbwInputError. A file whose mappings are in sorted-key order (as ``abw gate`` writes
    them) is already :func:`canonical`, and is remembered so, so rendering it skips the copy."""
    from abw.validate import read_report

    report = read_report(Path(path))
    return _known_canonical(report) if _keys_sorted(report) else report


def _known_canonical(report: GateReport) -> GateReport:
    """Remember ``report`` as :func:`canonical` (for as long as it lives); returns it."""
    key = id(report)
    _CANONICAL[key] = weakref.ref(report, lambda _ref: _CANONICAL.pop(key, None))
    return report


#: id -> weak reference of each report known to be canonical (read from sorted JSON).
_CANONICAL: dict[int, weakref.ref[GateReport]] = {}
#: Models whose mapping fields are being worked out (a model that holds itself).
_MAPPING_PENDING: set[type] = set()


@cache
def _mapping_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``model`` whose values may hold a mapping (a dict, Any, or such a model)."""
    _MAPPING_PENDING.add(model)
    found = tuple(
        name for name, field in model.model_fields.items() if _may_hold_mapping(field.annotation)
    )
    _MAPPING_PENDING.discard(model)
    return found


def _may_hold_mapping(annotation: Any) -> bool:
    if annotation is Any or get_origin(annotation) in (dict, Mapping):
        return True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation in _MAPPING_PENDING or bool(_mapping_fields(annotation))
    return any(_may_hold_mapping(arg) for arg in get_args(annotation))


def _keys_sorted(value: Any) -> bool:
    """Whether every mapping in ``value`` (a model, list or dict, recursively) is in
    sorted-key order, the order :func:`render_json` writes."""
    if isinstance(value, BaseModel):
        return all(_keys_sorted(getattr(value, f)) for f in _mapping_fields(type(value)))
    if isinstance(value, dict):
        keys = list(value)
        return keys == sorted(keys) and all(_keys_sorted(v) for v in value.values())
    if isinstance(value, list):
        return all(_keys_sorted(v) for v in value)
    return True


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
    ``abw gate --report-dir`` and ``abw report --out-dir`` write the same bytes. The copy is
    remembered as canonical: rendering it again (format by format) makes no further copy."""
    import json

    known = _CANONICAL.get(id(report))
    if known is not None and known() is report:
        return report
    # json.loads, not model_validate_json: report text may hold lone surrogates (made visible
    # by every renderer), which pydantic's JSON parser refuses.
    return _known_canonical(GateReport.model_validate(json.loads(render_json(report))))


def _render_options_check(options: dict[str, Any]) -> None:
    unknown = set(options) - known_options()
    if unknown:
        raise TypeError(f"unknown report option(s): {', '.join(sorted(unknown))}")


def _render(report: GateReport, name: str, options: dict[str, Any]) -> str:
    _render_options_check(options)
    accepted = OPTIONS[name]
    return _renderer(name)(report, **{k: v for k, v in options.items() if k in accepted})


def render(report: GateReport, fmt: str, **options: Any) -> str:
    """Render ``report`` as ``fmt`` (html|markdown|sarif|junit|json), from its canonical form.

    Options meant for other formats are ignored, so one set of options can be passed to every
    format; an option no format knows is an error.
    """
    return _render(canonical(report), normalize_format(fmt), options)


def report_paths(out_dir: Path, formats: Iterable[str] = FORMATS) -> dict[str, Path]:
    """Where :func:`write_reports` puts each format under ``out_dir``: fmt -> path."""
    names = [normalize_format(fmt) for fmt in formats]
    return {name: Path(out_dir) / FILE_NAMES[name] for name in names}


def write_reports(
    report: GateReport,
    out_dir: Path,
    formats: Iterable[str] = FORMATS,
    *,
    failures: list[AbwInputError] | None = None,
    field: str | None = None,
    **options: Any,
) -> dict[str, Path]:
    """Write each format into ``out_dir`` under its standard file name; returns fmt -> path.

    A file that cannot be written (a full disk) costs no other: every format is tried, and
    the earlier file of a failed one is removed, so no report of an earlier gate is left
    beside this gate's, reading as current. Each failure (naming ``field``, the option that
    gave ``out_dir``, where it names none) is appended to ``failures`` when a list is given;
    else, after every format was tried, the first is raised."""
    from abw.atomic import write_atomic

    if isinstance(formats, str):  # (one format, not its letters)
        formats = (formats,)
    report = canonical(report)
    written: dict[str, Path] = {}
    failed: list[AbwInputError] = []
    for name, path in report_paths(out_dir, formats).items():
        try:
            written[name] = write_atomic(path, payload(report, name, options))
        except (AbwInputError, OSError) as exc:
            error = exc if isinstance(exc, AbwInputError) else os_input_error(exc)
            error.field = error.field or field
            failed.append(error)
            with contextlib.suppress(OSError):
                if path.is_file() and not path.is_symlink():
                    path.unlink()  # (an earlier gate's, else read as this one's)
    if failures is not None:
        failures += failed
    elif failed:
        raise failed[0]
    return written


def payload(report: GateReport, fmt: str, options: dict[str, Any]) -> str | Iterator[bytes]:
    """What a file of format ``fmt`` holds: :func:`render`'s text, except JSON, which comes as
    the gate's own pieces of bytes (the same bytes, several times faster than the text)."""
    name = normalize_format(fmt)
    if name != "json":
        return _render(canonical(report), name, options)
    _render_options_check(options)
    from abw.gating import report_chunks

    return report_chunks(canonical(report))


__all__ = [
    "FILE_NAMES",
    "FORMATS",
    "OPTIONS",
    "canonical",
    "format_for_path",
    "load_report",
    "normalize_format",
    "payload",
    "render",
    "render_json",
    "report_paths",
    "write_reports",
]
