"""Check that a gate report judges exactly the given inputs, and that it agrees with itself.

A ``gate-report/v0`` lists the SHA-256 of its spec and of every trace it read, per role, and a
digest over them. Verification recomputes those hashes from the files on disk and compares:
the same spec, the same baseline traces, the same candidate traces (as multisets of hashes —
file names may differ between machines), and a digest that matches both the listed hashes and
the recomputed ones. When they match, it gates the inputs again and compares what the report
says with what the gate gives (:data:`_EVIDENCE`).

:func:`consistency_problems` checks a report against itself: the top-level ``verdict`` must be
the worst of its checks' verdicts, the ``summary`` must lead with that verdict, a hard check
that lists violating runs cannot PASS, the inputs digest must be the one its listed hashes
give (an edited report hides a file so), each scenario's sequence counts its ``n`` runs, and
each input file's run and scenario are the ones ``runs[]`` gives it. Every reader of an
earlier report refuses one that fails this (the Action does not publish it), and ``abw
verify-report`` reports it, each problem naming the field that disagrees.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.hashing import file_sha256
from abw.text import plural

ROLES = ("baseline", "candidate")


@dataclass
class Verification:
    """The outcome: ``ok`` when the report judges exactly these inputs; ``problems`` otherwise."""

    ok: bool
    digest: str
    problems: list[str] = field(default_factory=list)
    traces_checked: int = 0


VERDICTS = ("FAIL", "INCONCLUSIVE", "WARN", "PASS")


def _shown(value: Any) -> str:
    from abw.text import clean

    return clean(str(value))[:80]


def consistency_problems(document: dict[str, Any]) -> list[str]:
    """Where a gate report (as JSON data) contradicts itself: ``field: why`` lines, or none."""
    checks = document.get("checks")
    if not isinstance(checks, list):
        return ["checks: not a list of checks"]
    problems: list[str] = []
    verdicts: list[str] = []
    first: dict[Any, int] = {}  # a check id -> the index it is listed at first
    for index, check in enumerate(checks):
        check_id = check.get("id") if isinstance(check, dict) else None
        if isinstance(check_id, str) and first.setdefault(check_id, index) != index:
            problems.append(
                f"checks[{index}].id: {_shown(check_id)} is listed twice (first as "
                f"checks[{first[check_id]}]); a reader sees one of them"
            )
        verdict = check.get("verdict") if isinstance(check, dict) else None
        if verdict not in VERDICTS:
            problems.append(f"checks[{index}].verdict: {_shown(verdict)!r} is not a verdict")
            continue
        verdicts.append(verdict)
        violations = check.get("violations")
        if check.get("hard") is True and verdict == "PASS" and violations:
            problems.append(
                f"checks[{index}].verdict: hard check {_shown(check.get('id'))} says PASS but "
                f"lists {plural(len(violations), 'violating run')}"
            )
    worst = next((v for v in VERDICTS if v in verdicts), "PASS")
    verdict = document.get("verdict")
    if verdict != worst:
        deciding = next(
            (f" ({_shown(c.get('id'))} is {worst})" for c in checks if c.get("verdict") == worst),
            "",
        )
        problems.append(
            f"verdict: the report says {_shown(verdict)} but its checks give {worst}{deciding}"
        )
    summary = document.get("summary")
    lead = summary.split(":", 1)[0].strip() if isinstance(summary, str) else None
    if lead != worst:
        problems.append(
            f"summary: it leads with {_shown(lead)!r}, but the verdict of the checks is {worst}"
        )
    problems += _sequence_problems(document.get("statistics"))
    problems += _listing_problems(document.get("inputs"), document.get("runs"))
    if not _digest_agrees(document.get("inputs")):
        problems.append(
            "inputs.digest: does not match the spec and trace hashes the report lists "
            "(edited report)"
        )
    return problems


def _sequence_problems(statistics: Any) -> list[str]:
    """Where a scenario's sequence counts other runs than its pass-rate test (``n``): the
    sequence is what a later gate's ``--previous`` continues."""
    problems = []
    for index, stats in enumerate(statistics if isinstance(statistics, list) else []):
        state = stats.get("sequence") if isinstance(stats, dict) else None
        if isinstance(state, dict) and state.get("n") != stats.get("n"):
            problems.append(
                f"statistics[{index}].sequence.n: {_shown(state.get('n'))}, but the scenario's "
                f"test counted n = {_shown(stats.get('n'))} runs"
            )
    return problems


def _listing_problems(inputs: Any, runs: Any) -> list[str]:
    """Where an input file's run or scenario (what ``--previous`` reads of the earlier runs)
    is not the one ``runs[]`` gives the same file."""
    rows = {}
    for run in runs if isinstance(runs, list) else []:
        if isinstance(run, dict):
            rows[(run.get("role"), run.get("trace_file"))] = run
    traces = inputs.get("traces") if isinstance(inputs, dict) else None
    problems = []
    for index, item in enumerate(traces if isinstance(traces, list) else []):
        if not isinstance(item, dict):
            continue
        run = rows.get((item.get("role"), item.get("file")))
        if run is None:
            problems.append(f"inputs.traces[{index}].file: runs[] lists no run of this file")
            continue
        for key in ("trace_id", "scenario_id"):
            if item.get(key) != run.get(key):
                problems.append(
                    f"inputs.traces[{index}].{key}: {_shown(item.get(key))}, but runs[] gives "
                    f"its file {_shown(run.get(key))}"
                )
    return problems


def _digest_agrees(inputs: Any) -> bool:
    """Whether an ``inputs`` block's digest is the one its listed hashes give (a block too
    malformed to tell is left to the report's schema and :func:`_report_inputs`)."""
    from abw.gating.ledger import inputs_digest

    if not isinstance(inputs, dict):
        return True
    traces, spec_hash = inputs.get("traces"), inputs.get("spec_sha256")
    hashes = (
        [t.get("sha256") for t in traces if isinstance(t, dict)] if isinstance(traces, list) else []
    )
    if not isinstance(spec_hash, str) or not all(isinstance(h, str) for h in hashes):
        return True
    return inputs_digest(spec_hash, hashes) == inputs.get("digest")


def _report_document(report_path: Path) -> dict[str, Any]:
    """The report as JSON data, once its model has validated it (abw.validate.read_report):
    what is compared below is what a valid report says."""
    from abw.validate import read_report

    report = read_report(report_path, consistent=False)  # its problems are listed below
    return report.model_dump(mode="json")  # type: ignore[no-any-return]


def _report_inputs(report_path: Path, document: dict[str, Any]) -> dict[str, Any]:
    inputs = document.get("inputs")
    ok = (
        isinstance(inputs, dict)
        and isinstance(inputs.get("spec_sha256"), str)
        and isinstance(inputs.get("digest"), str)
        and isinstance(inputs.get("traces"), list)
        and all(
            isinstance(t, dict) and t.get("role") in ROLES and isinstance(t.get("sha256"), str)
            for t in inputs["traces"]
        )
    )
    if not ok:
        raise AbwInputError(
            "the report has no valid inputs block", file=report_path, field="inputs"
        )
    return inputs


def _hashes(folder: Path) -> dict[str, str]:
    """path -> SHA-256 of every trace file the gate would read from ``folder``."""
    from abw.traceio import trace_paths

    return {str(path): file_sha256(path) for path in trace_paths(folder)}


def _set_problems(
    role: str, folder: str | Path, on_disk: dict[str, str], entries: list[dict[str, Any]]
) -> list[str]:
    """One line per trace of ``folder`` (path -> SHA-256) the report's ``entries`` of ``role``
    do not account for: a file whose bytes changed since the gate (same path, another hash),
    a file the report never judged, a file it judged that is gone."""
    present, reported = Counter(on_disk.values()), Counter(t["sha256"] for t in entries)
    extra, missing = present - reported, reported - present
    problems = []
    entries = sorted(entries, key=lambda t: (str(t.get("file")), t["sha256"]))
    for entry in entries:
        now = on_disk.get(str(entry.get("file")))
        if now is not None and missing[entry["sha256"]] and extra[now]:
            missing[entry["sha256"]] -= 1
            extra[now] -= 1
            problems.append(
                f"{role}: {entry.get('file')} changed since the gate: sha256 {now[:12]}, the "
                f"report judged {entry['sha256'][:12]}"
            )
    for path, digest in sorted(on_disk.items()):
        if extra[digest]:
            extra[digest] -= 1
            problems.append(f"{role}: {path} is not among the traces the report judged")
    for entry in entries:
        if missing[entry["sha256"]]:
            missing[entry["sha256"]] -= 1
            problems.append(
                f"{role}: the report judged {entry.get('file')} "
                f"(sha256 {entry['sha256'][:12]}), which is not in {folder}"
            )
    return problems


def verify_report(
    report_path: str | Path,
    baseline: str | Path,
    candidate: str | Path,
    spec: str | Path,
    *,
    strict: bool = False,
    previous: str | Path | None = None,
) -> Verification:
    """Compare the report's ``inputs`` with the hashes of ``spec``, ``baseline``, ``candidate``,
    check the report against itself, and (when the hashes match) gate the inputs again.

    ``spec`` is the spec (or contract) file given to the gate; ``strict`` and ``previous`` as
    ``abw gate --strict`` / ``--previous``. A report whose sequences continued an earlier gate
    can only be gated again with that gate's report as ``previous`` (its spent levels decide
    the verdict); without it, AbwInputError says so. Bad input raises AbwInputError.
    """
    from abw.gating.ledger import inputs_digest

    document = _report_document(Path(report_path))
    inputs = _report_inputs(Path(report_path), document)
    spec_path = Path(spec)
    if not spec_path.is_file():
        raise AbwInputError("spec file not found", file=spec_path)
    problems: list[str] = []
    spec_hash = file_sha256(spec_path)
    if spec_hash != inputs["spec_sha256"]:
        problems.append(
            f"spec: {spec_path} has sha256 {spec_hash[:12]}, the report judged "
            f"{inputs['spec_sha256'][:12]}"
        )
    listed = inputs["traces"]
    actual_hashes: list[str] = []
    checked = 0
    for role, folder in zip(ROLES, (baseline, candidate), strict=True):
        on_disk = _hashes(Path(folder))
        checked += len(on_disk)
        actual_hashes += on_disk.values()
        problems += _set_problems(role, folder, on_disk, [t for t in listed if t["role"] == role])
    actual_digest = inputs_digest(spec_hash, actual_hashes)
    if actual_digest != inputs["digest"] and not problems and _digest_agrees(inputs):
        problems.append("the inputs digest differs from the one recomputed from these files")
    consistency = consistency_problems(document)
    if not problems and not consistency:
        if previous is None and _continued(document):
            raise AbwInputError(
                "the report continued an earlier gate's sequence (its levels were spent down); "
                "give that gate's report with --previous to gate these inputs again",
                file=report_path,
                field="statistics[].sequence",
            )
        problems = _regate_problems(document, baseline, candidate, spec_path, strict, previous)
    return Verification(
        not (problems or consistency), actual_digest, consistency + problems, checked
    )


def _continued(document: dict[str, Any]) -> bool:
    """Whether any scenario's sequence extended or restarted an earlier gate's."""
    for stats in document.get("statistics") or []:
        state = stats.get("sequence") if isinstance(stats, dict) else None
        if isinstance(state, dict) and (
            state.get("continuity", "new") != "new" or state.get("restarts", 0)
        ):
            return True
    return False


def _regate_problems(
    document: dict[str, Any],
    baseline: str | Path,
    candidate: str | Path,
    spec: Path,
    strict: bool,
    previous: str | Path | None,
) -> list[str]:
    """Run the gate again on the (hash-verified) inputs, as ``abw gate --spec`` or
    ``--contract`` would (by the file's schema_version); name every verdict that differs."""
    from abw.models import CONTRACT_SCHEMA
    from abw.validate import load_document

    given = load_document(spec)
    if isinstance(given, dict) and given.get("schema_version") == CONTRACT_SCHEMA:
        from abw.contract import run_contract_gate

        again = run_contract_gate(
            str(baseline), str(candidate), str(spec), strict=strict, previous=previous
        )
    else:
        from abw.gating import run_gate

        again = run_gate(str(baseline), str(candidate), str(spec), strict=strict, previous=previous)
    problems = []
    if document.get("verdict") != again.verdict:
        problems.append(
            f"verdict: the report says {_shown(document.get('verdict'))}, the gate gives "
            f"{again.verdict} on these inputs"
        )
    reported = {c.get("id"): (i, c) for i, c in enumerate(document["checks"])}
    produced = {check.id for check in again.checks}
    for index, check in enumerate(document["checks"]):
        if check.get("id") not in produced:
            shown = _shown(check.get("id"))
            problems.append(f"checks[{index}]: the gate gives no check {shown} on these inputs")
    for check in again.checks:
        index, given = reported.get(check.id, (None, {}))
        if index is None:
            problems.append(f"checks: the gate's check {_shown(check.id)} is missing")
        elif given.get("verdict") != check.verdict:
            problems.append(
                f"checks[{index}].verdict: {_shown(check.id)} says {_shown(given.get('verdict'))}, "
                f"the gate gives {check.verdict}"
            )
        elif _runs_of(given.get("violations")) != Counter(v.trace_id for v in check.violations):
            problems.append(
                f"checks[{index}].violations: {_shown(check.id)} names other violating runs "
                f"than the gate ({plural(len(check.violations), 'violation')})"
            )
    problems += _evidence_problems(document, again)
    return problems


def _runs_of(violations: Any) -> Counter[Any]:
    """The trace id of each violation a report lists (as JSON data)."""
    items = violations if isinstance(violations, list) else []
    return Counter(v.get("trace_id") if isinstance(v, dict) else None for v in items)


#: What a scenario's sequence must agree on (not its message's wording)
_SEQUENCE = ("order", "n", "chain", "restarts", "continuity", "left_out")
#: The evidence compared with the gate's, as (where the report's list is, the fields of each
#: item that must agree, what differs): the runs that passed, each scenario's counts for the
#: pass-rate test and its sequence (what a later ``--previous`` continues: its chain, restarts
#: and the runs left out), each input's run and scenario (what ``--previous`` reads of the
#: earlier runs), the kinds of input warnings.
_EVIDENCE = (
    (("runs",), ("role", "trace_id", "passed"), "which runs passed differs from the gate's"),
    (("statistics",), ("scenario_id", "n", "k"), "the runs counted (n, k) differ from the gate's"),
    (
        ("statistics",),
        ("scenario_id", *(f"sequence.{key}" for key in _SEQUENCE)),
        "a sequence (its n, chain, restarts, continuity or runs left out) differs from the "
        "gate's with this --previous",
    ),
    (
        ("inputs", "traces"),
        ("role", "sha256", "trace_id", "scenario_id"),
        "the runs and scenarios of the listed files differ from the gate's",
    ),
    (("input_warnings",), ("kind",), "the input warnings differ from the gate's"),
)


def _evidence_problems(document: dict[str, Any], again: Any) -> list[str]:
    """Where the report's evidence (:data:`_EVIDENCE`) differs from the gate's on the same
    inputs. (File names may be spelled otherwise than when the gate ran, so runs are compared
    by trace id, files by their SHA-256.)"""
    from abw.gating import report_document
    from abw.hashing import canonical_json

    gated_document = report_document(again)
    problems = []
    for where, fields, differs in _EVIDENCE:
        lists = []
        for source in (document, gated_document):
            items: Any = source
            for key in where:
                items = items.get(key) if isinstance(items, dict) else None
            lists.append(
                Counter(
                    canonical_json([_field(item, f) for f in fields])
                    for item in (items if isinstance(items, list) else [])
                    if isinstance(item, dict)
                )
            )
        if lists[0] != lists[1]:
            problems.append(f"{'.'.join(where)}: {differs}")
    return problems


def _field(item: dict[str, Any], dotted: str) -> Any:
    """``item``'s value at ``dotted`` (``sequence.n``); None where a level is missing."""
    value: Any = item
    for key in dotted.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value
