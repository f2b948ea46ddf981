"""Validate any of the five document kinds; the kind is read from ``schema_version``."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from abw.documents import Source, is_yaml, read_source
from abw.errors import AbwInputError
from abw.limits import MAX_TRACE_BYTES, MAX_TRACE_OBJECTS
from abw.models import CONTRACT_SCHEMA, REPORT_SCHEMA, SPEC_SCHEMA, TRACE_SCHEMA, TRAJECTORY_SCHEMA
from abw.models.registry import KINDS, json_schema


@dataclass(frozen=True)
class Problem:
    file: str
    path: str  # JSON path, e.g. $.spans[3].status
    message: str
    location: tuple[str | int, ...] = ()  # the path's member names and item indexes
    line: int | None = None  # where that value is in the file, when known

    def one_line(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.path}: {self.message}"


def json_path(parts: Any) -> str:
    """``['spans', 3, 'status']`` -> ``$.spans[3].status``."""
    text = "$"
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def read_report(
    path: Path, limit: int = MAX_TRACE_BYTES, shown: str | None = None, *, consistent: bool = True
) -> Any:
    """A ``gate-report/v0`` file, validated by the report model: every reader of an earlier
    report (``abw report``, ``explain``, ``verify-report``, ``gate --previous``, the Action's
    ``report`` input) takes it from here, so a wrong value is always one line naming the file
    (as ``shown``, else ``path``), the line and the field, exit 2. A report that contradicts
    itself (an edited verdict: :func:`abw.verify_report.consistency_problems`) is refused the
    same way unless ``consistent`` is False (``verify-report``, which lists every problem)."""
    from pydantic import ValidationError

    from abw.errors import from_validation_error, require_schema_version
    from abw.models.report import GateReport

    name = path if shown is None else shown
    source = read_source(path, limit, "the gate report")
    document = source.document
    if not isinstance(document, dict):
        raise AbwInputError("not a gate-report/v0: a gate report is a JSON object", file=name)
    require_schema_version(document, REPORT_SCHEMA, file=name, line_of=source.line_of)
    try:
        report = GateReport.model_validate(document, strict=True)  # (exact, as the schema)
    except ValidationError as exc:
        error = from_validation_error(exc, file=name, line_of=source.line_of, document=document)
        error.message = f"not a gate-report/v0: {error.message}"
        raise error from None
    if consistent:
        contradiction = self_contradiction(report, name)
        if contradiction is not None:
            raise contradiction
    return report


def self_contradiction(report: Any, file: str | Path) -> AbwInputError | None:
    """The error for a report that contradicts itself (an edited verdict:
    :func:`abw.verify_report.consistency_problems`), naming its first problem; None when it
    agrees with itself."""
    from abw.verify_report import consistency_problems

    row = {"role", "trace_file", "trace_id", "scenario_id"}  # (what it reads of a run row)
    parts = {"verdict": True, "summary": True, "checks": True, "inputs": True}
    parts |= {"statistics": True, "runs": {"__all__": row}}  # what it compares, nothing more
    problems = consistency_problems(report.model_dump(mode="json", include=parts))
    if not problems:
        return None
    where, _, why = problems[0].partition(": ")
    more = f" ({len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
    return AbwInputError(
        f"refused: the report contradicts itself: {why}{more}", file=file, field=where
    )


def load_document(path: Path) -> Any:
    """A document as :func:`read_document` reads it."""
    return read_document(path).document


LineOf = Callable[[Sequence[str | int]], int | None]


def validate_document(document: Any, file: str, line_of: LineOf | None = None) -> list[Problem]:
    """Every problem of one parsed document against the schema its ``schema_version`` names;
    ``line_of`` (:meth:`abw.documents.Source.line_of`) gives each problem its line."""
    problems = _problems(document, file)
    if line_of is None:
        return problems
    return [replace(p, line=line_of(p.location)) for p in problems]


def _problems(document: Any, file: str) -> list[Problem]:
    import jsonschema

    if not isinstance(document, dict):
        return [Problem(file, "$", "expected an object with a schema_version")]
    schema_id = document.get("schema_version")
    if not isinstance(schema_id, str) or schema_id not in KINDS:
        known = ", ".join(sorted(KINDS))
        message = f"unknown schema {schema_id!r} (known: {known})"
        return [Problem(file, "$.schema_version", message, ("schema_version",))]
    validator = jsonschema.Draft202012Validator(json_schema(schema_id))
    errors = sorted(
        validator.iter_errors(document), key=lambda e: [str(p) for p in e.absolute_path]
    )
    loader = _loader_problems(document, schema_id, file)
    return _precise(errors, loader, file) if errors else loader


def _precise(errors: list[Any], loader: list[Problem], file: str) -> list[Problem]:
    """Each JSON Schema error as a problem, said once; one about a place that holds one of the
    loader's problems (a union no member of which matches, the object holding an unknown key,
    a value outside an enumeration) gives way to the loader's problem, which names the key
    or value at fault, its line and what it should be, as the gate does; then the loader's
    problems no schema can state (a count rule's min above its max)."""
    problems: list[Problem] = []
    for error in errors:
        path = tuple(error.absolute_path)
        precise = [p for p in loader if any(p.location[: len(b)] == b for b in _blamed(error))]
        problem = precise[0] if precise else Problem(file, json_path(path), error.message, path)
        if problem not in problems:
            problems.append(problem)
    return problems + [p for p in loader if p not in problems]  # (what no schema can say)


def _blamed(error: Any) -> list[tuple[str | int, ...]]:
    """The places a JSON Schema error is about: its value's, or for a key the object does not
    allow, each such key's (the object's other members are not at fault)."""
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        return [(*path, key) for key in error.instance if key not in known]
    return [path]


#: How a loader words a key its kind does not allow, where it is not pydantic's wording
_UNKNOWN_KEY = {CONTRACT_SCHEMA: "unknown key"}


def _loader_problems(document: dict[str, Any], schema_id: str, file: str) -> list[Problem]:
    """What the loader of this kind refuses beyond its JSON Schema (repeated span ordinals,
    the span limit, a spec's cross-field rules): one loader, one set of rules, for the gate,
    ``fingerprint``, ``abw validate`` and the MCP tool alike."""
    from pydantic import ValidationError

    from abw.errors import from_validation_error

    try:
        if schema_id == TRACE_SCHEMA:
            from abw.traceio import trace_from_document

            trace_from_document(document, file)
        elif schema_id == SPEC_SCHEMA:
            from abw.specio import spec_from_document

            spec_from_document(document, file)
        else:
            try:
                loaded = KINDS[schema_id].model().model_validate(document)
            except ValidationError as exc:
                raise from_validation_error(
                    exc, file=file, document=document, unknown_key=_UNKNOWN_KEY.get(schema_id)
                ) from None
            if schema_id == TRAJECTORY_SCHEMA:  # ok only when the gate can project it
                from abw.latent_summary import refuse_odd_vectors

                refuse_odd_vectors(loaded, file)
            elif schema_id == CONTRACT_SCHEMA:  # ok only when it compiles, as for the gate
                from abw.contract import compile_contract

                compile_contract(loaded, file=file)
            elif schema_id == REPORT_SCHEMA:  # ok only when it agrees with itself, as for readers
                contradiction = self_contradiction(loaded, file)
                if contradiction is not None:
                    raise contradiction
    except AbwInputError as exc:
        problems = []
        for each in (exc, *exc.others):  # (the document's problems at other places too)
            # spans.4.status, or a contract clause's governance.hard[0].params.within
            names = re.findall(r"[^.\[\]]+", each.field or "")
            parts = [int(p) if p.isdigit() else p for p in names]
            problems.append(Problem(file, json_path(parts), each.message, tuple(parts)))
        return problems
    return []


def validate_file(path: Path) -> list[Problem]:
    """Every problem of one file, read as the readers of its kind read it: a spec as the gate
    reads specs (YAML whatever its suffix, at most 1 MiB), a trace under the gate's limit on
    JSON objects; so a file said ok is one they accept."""
    source = read_document(path)
    return validate_document(source.document, str(path), source.line_of)


def read_document(path: Path) -> Source:
    """``path`` read by its suffix (:func:`abw.documents.read_source`), or, for a spec (or a
    file only the spec reader reads: YAML named ``.json``, a byte order mark), by the gate's
    spec reader (:func:`abw.specio.read_spec_source`); a trace's JSON objects counted as the
    gate counts them."""
    from abw.specio import MAX_SPEC_BYTES, read_spec_source

    try:
        source = read_source(path)
    except AbwInputError:
        try:
            spec = read_spec_source(path)
        except AbwInputError:
            spec = None
        if spec is None or _kind(spec.document) != SPEC_SCHEMA:
            raise
        return spec
    kind = _kind(source.document)
    if kind == SPEC_SCHEMA and is_yaml(path) and len(source.raw) <= MAX_SPEC_BYTES:
        return replace(source, yaml=True)  # (already what the gate's spec reader reads)
    if kind == SPEC_SCHEMA:
        return read_spec_source(path)
    if kind == TRACE_SCHEMA and source.raw.count(b"{") > MAX_TRACE_OBJECTS:
        from abw.reader import parse_json  # (braces in strings count too: the reader decides)

        parse_json(source.raw, path, max_objects=MAX_TRACE_OBJECTS, what="the trace")
    return source


def _kind(document: Any) -> Any:
    return document.get("schema_version") if isinstance(document, dict) else None
