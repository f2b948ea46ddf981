"""Recording order, the hash chain over it, and continuity with an earlier gate.

Sequential statistics read a scenario's candidate runs in *recording order*: the run's start
time (``run.started_at`` when given, else its earliest span ``started_at``), trace id breaking
ties.
Adding later runs appends to the sequence and never reshuffles it. A
scenario where some run carries no time falls back to trace-id order, and its guarantee then
holds only for a single look (a new run's random trace id may sort anywhere).

The chain is H_0 = 64 zeros, H_i = sha256(H_{i-1} || key_i) over the ordered runs' keys
(:func:`run_key`: the SHA-256 of the trace id, hex text), so (n, H_n) of an earlier report
fixes that report's whole sequence: the current sequence extends it exactly when its own H at
position n equals it. A run is known by its trace id, not its file's bytes: a recording
imported again (another ``exported_at``) is the run the earlier gate saw.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from operator import attrgetter
from typing import Any, Literal, TypeVar

from abw.semantics import start_time
from abw.traceio import TraceFile

GENESIS = "0" * 64
Order = Literal["recording", "trace_id"]
#: Restarts are counted up to here. Restart k is tested at 2^-(k+1) of the level, so the
#: sequences before this count spend all but 2^-30 of it; a sequence at this count (the 30th
#: restart, or any later one) is given no level and decides nothing
#: (abw.gating.sample_sufficiency.statistics), so the levels never sum past alpha. A count
#: read from elsewhere (a comment's marker) is capped too, so a forged one can neither make
#: the level's arithmetic huge nor go below zero.
MAX_RESTARTS = 30
_HEAD = re.compile(r"[0-9a-f]{64}")
#: The run order (abw.diffing.run_sort_key) of run summaries, as a sort key (one C call a
#: run, no Python frame)
RUN_ORDER = attrgetter("trace_id", "sha256", "path")
#: What makes two run files one recording (:func:`once_each`): its trace id and source hash
RECORDING = attrgetter("trace_id", "source_hash")


def started_at(trace_file: TraceFile) -> datetime | None:
    """When the run started: ``run.started_at`` when the recorder knew it (abw sample records
    when it launched the agent, so a run that left no transcript keeps its place), else its
    earliest span time (abw.semantics.start_time); None if neither is given."""
    run = trace_file.trace.run
    own = start_time([run]) if run.started_at else None  # the same reading as a span's time
    return own if own is not None else start_time(trace_file.trace.spans)


def recording_order(runs: list[TraceFile]) -> tuple[list[TraceFile], Order]:
    """The runs in recording order, or in trace-id order when any run has no start time."""
    return in_recording_order(
        runs, [started_at(t) for t in runs], lambda t: (t.trace.run.trace_id, t.sha256, t.path)
    )


T = TypeVar("T")


def in_recording_order(
    runs: list[T], times: list[datetime | None], identity: Callable[[T], tuple[str, ...]]
) -> tuple[list[T], Order]:
    """:func:`recording_order` of any runs, given their start times and identities
    (trace id, file SHA-256, file)."""
    if all(t is not None for t in times):  # (no run yet: nothing is out of order)
        keyed = sorted(zip(times, runs, strict=True), key=lambda p: (p[0], *identity(p[1])))
        return [t for _, t in keyed], "recording"
    return sorted(runs, key=identity), "trace_id"


def once_each(runs: list[T], failing: Container[str] = ()) -> list[T]:
    """One file for each recording: the sequential statistics count a run once, whether its
    files are byte-for-byte copies or the same recording imported again (the same trace id
    and ``source_hash``; only ``exported_at`` or the import's options differ). Counted again,
    60 copies of one passing run PASSed. The file that stands for a recording is the first in
    run order of those whose path is in ``failing``, else the first: a run does not pass while
    one import of it fails. Files that only share a trace id each count (an exporter may
    reuse ids)."""
    chosen: dict[tuple[str, str], T] = {}
    for run in sorted(runs, key=RUN_ORDER):
        key = RECORDING(run)
        kept = chosen.get(key)
        if kept is None or (kept.path not in failing and run.path in failing):  # type: ignore[attr-defined]
            chosen[key] = run
    return list(chosen.values())


def run_key(trace_id: str) -> str:
    """A run's key in the hash chain and in ``left_out``: the SHA-256 of its trace id (hex)."""
    return hashlib.sha256(trace_id.encode("utf-8", "surrogatepass")).hexdigest()


def chain(digests: list[str]) -> list[str]:
    """H_1 .. H_n (H_0 = GENESIS is not listed)."""
    out: list[str] = []
    head = GENESIS
    for digest in digests:
        head = hashlib.sha256((head + digest).encode("ascii")).hexdigest()
        out.append(head)
    return out


@dataclass(frozen=True)
class Previous:
    """What an earlier gate recorded for one scenario."""

    n: int
    chain: str
    restarts: int = 0
    digests: tuple[str, ...] | None = None  # the earlier runs' keys, when its report is at hand
    #: further (n, H_n) claimed for the same restart count (several sticky-comment markers,
    #: not all of them abw's): the sequence extends the earlier one only if it extends each
    claims: tuple[tuple[int, str], ...] = ()
    #: what judged the earlier runs, when its report is at hand: its spec's SHA-256, and per
    #: run key whether that run passed (the baseline and abw's version can change that)
    spec_sha256: str | None = None
    outcomes: tuple[tuple[str, bool], ...] = ()
    #: the earlier record had no room for this scenario's chain (a marker's ``u``):
    #: ``restarts`` is then the count it may have spent, and the sequence restarts past it
    unlisted: bool = False
    #: the run keys the earlier sequence left out (seen by a look before it restarted): they
    #: never count in this scenario's sequence again (a report before the keys were trace ids
    #: lists file SHA-256s: those are matched too)
    left_out: tuple[str, ...] = ()


@dataclass(frozen=True)
class Continuity:
    status: Literal["new", "extends", "restarted"]
    restarts: int
    message: str
    #: runs the earlier gate saw, to leave out of the restarted sequence: their outcomes were
    #: known when runs were removed, replaced or reordered (re-testing them would let a look
    #: that drops its failing runs buy a PASS)
    seen: tuple[str, ...] = ()


def continuity(
    current: list[str],
    previous: Previous | None,
    *,
    spec_sha256: str | None = None,
    outcomes: Mapping[str, bool] | None = None,
) -> Continuity:
    """Whether ``current`` (ordered run keys) extends ``previous``; a restart otherwise.

    A sequence judged anew is no extension either: a spec other than the earlier gate's
    (``spec_sha256``), or an earlier run that passes or fails differently now (``outcomes``:
    per run key, whether the run passed here)."""
    if previous is None:
        return Continuity("new", 0, "no earlier gate was given: this sequence starts here.")
    if previous.unlisted:
        return _restarted(
            previous,
            "the earlier gate's record had no room for this scenario's run chain, so earlier "
            "restarts may have spent its level",
        )
    heads = chain(current)

    def extended(n: int, head: str) -> bool:
        return n == 0 or (0 < n <= len(heads) and heads[n - 1] == head)

    why = "runs were removed, replaced or reordered"
    if all(extended(n, head) for n, head in ((previous.n, previous.chain), *previous.claims)):
        why = _judged_anew(previous, spec_sha256, outcomes or {})
        if why is None:
            added = len(current) - previous.n
            return Continuity(
                "extends",
                min(max(previous.restarts, 0), MAX_RESTARTS),
                f"extends the earlier gate's {previous.n} run(s) with {added} new run(s).",
            )
        return _unless_passing_now(
            _restarted(previous, _not_extended(previous, why)), previous, outcomes or {}
        )
    if previous.claims and extended(previous.n, previous.chain):
        why = "earlier gates disagree on its runs (another comment carries this gate's marker)"
    elif previous.digests is not None:
        left_out = set(previous.left_out)  # (not in ``current`` either: not missing)
        earlier = Counter(d for d in previous.digests if d not in left_out)
        seen = (Counter(current) & earlier).total()
        gone = (earlier - Counter(current)).total()  # (copies counted)
        if not gone and _inserted(current, previous):  # (none removed: the earlier runs
            why = (  # count on, unless one that failed passes now)
                f"{len(current) - previous.n} new run(s) sort before its last run (by start "
                "time, or trace id where a run has none), so they do not append to it"
            )
            restart = _restarted(previous, _not_extended(previous, why))
            return _unless_passing_now(restart, previous, outcomes or {})
        if gone:
            why = f"{gone} earlier run(s) are missing (removed or replaced)"
        elif len(current) >= previous.n:
            why = "the earlier runs are all present but in a different order (reordered)"
        restart = _restarted(previous, _not_extended(previous, why))
        here = f"The {seen} run(s)" if seen else "None of the runs"
        message = (
            f"{restart.message} {here} the earlier gate saw are left out of the restarted "
            "sequence, now and should they come back: their outcomes were known when runs "
            "were removed, replaced or reordered, and only runs recorded since count."
        )
        return replace(restart, message=message, seen=tuple(previous.digests))
    elif len(current) < previous.n:
        why = f"it has {len(current)} run(s), fewer than the earlier {previous.n} (removed)"
    return _restarted(previous, _not_extended(previous, why))


def _not_extended(previous: Previous, why: str) -> str:
    return f"does not extend the earlier gate's {previous.n} run(s): {why}"


def _restarted(previous: Previous, reason: str) -> Continuity:
    """A restart, one count past the earlier one, for ``reason``."""
    restarts = min(max(previous.restarts, 0) + 1, MAX_RESTARTS)
    return Continuity(
        "restarted",
        restarts,
        f"{reason}; the sequence restarts (restart {restarts}) and is tested at a spent-down "
        "level.",
    )


def _unless_passing_now(
    restart: Continuity, previous: Previous, outcomes: Mapping[str, bool]
) -> Continuity:
    """``restart``, which re-tests the earlier runs (judged anew, or new runs inserted among
    them), unless one that failed passes now (its failing import deleted, another baseline or
    a spec edited with its outcomes known): then the runs the earlier gate saw are left out,
    as if the failing ones had been removed, for a restart that re-tested them would buy a
    PASS."""
    passing_now = [d for d, passed in previous.outcomes if not passed and outcomes.get(d)]
    if not passing_now or previous.digests is None:
        return restart
    message = (
        f"{restart.message} {len(passing_now)} earlier run(s) that failed pass now, so the runs "
        "the earlier gate saw are left out of the restarted sequence, as if the failing ones "
        "had been removed: a run's failure never turns into a pass by another import of it, "
        "another baseline or another spec; only runs recorded since count."
    )
    return replace(restart, message=message, seen=tuple(previous.digests))


def _judged_anew(
    previous: Previous, spec_sha256: str | None, outcomes: Mapping[str, bool]
) -> str | None:
    """Why the earlier runs are judged otherwise than the earlier gate judged them, if they
    are: a test of other outcomes, or at another tau or level, is another test."""
    if previous.n and spec_sha256 and previous.spec_sha256 not in (None, spec_sha256):
        return "the spec changed since the earlier gate (its SHA-256 differs)"
    changed = {d for d, passed in previous.outcomes if outcomes.get(d, passed) != passed}
    if changed:
        return (
            f"{len(changed)} earlier run(s) pass or fail differently now (the baseline, "
            "--strict or abw's version changed, or an import of them was removed or added)"
        )
    return None


def carried(
    previous: Mapping[str | None, Previous] | None, present: Iterable[str | None]
) -> set[str | None]:
    """The scenarios an earlier gate spent looks on (runs in its sequence, or a restart) that
    have no run on either side now: each stays in the report with its sequence (restarted,
    its restart count kept), so dropping a scenario's runs from both sets between looks can
    never give it back a level it spent."""
    return {sid for sid, p in (previous or {}).items() if p.n or p.restarts} - set(present)


def _inserted(current: list[str], previous: Previous) -> bool:
    """Whether the earlier runs, all present, keep their order and only new runs sorted
    among them (the earlier runs' own chain is unchanged)."""
    left = Counter(previous.digests or ())
    kept = []
    for digest in current:
        if left[digest]:
            left[digest] -= 1
            kept.append(digest)
    heads = chain(kept)
    return len(current) > previous.n and bool(heads) and heads[-1] == previous.chain


def previous_from_report(report: Any) -> dict[str | None, Previous]:
    """Per scenario, what an earlier gate report (a validated
    :class:`~abw.models.report.GateReport`) recorded."""
    keys: dict[str | None, list[str]] = {}
    for item in report.inputs.traces:
        if item.role == "candidate":
            keys.setdefault(item.scenario_id, []).append(run_key(item.trace_id))
    outcomes: dict[str | None, dict[str, bool]] = {}
    for run in report.runs:
        if run.role == "candidate" and run.passed is not None:
            held = outcomes.setdefault(run.scenario_id, {})
            key = run_key(run.trace_id)  # (a key passes when each run of it passes)
            held[key] = held.get(key, True) and run.passed
    return {
        stats.scenario_id: Previous(
            n=stats.sequence.n,
            chain=stats.sequence.chain,
            restarts=stats.sequence.restarts,
            digests=tuple(dict.fromkeys(keys.get(stats.scenario_id, []))),  # (once each)
            spec_sha256=report.inputs.spec_sha256,
            outcomes=tuple(sorted(outcomes.get(stats.scenario_id, {}).items())),
            left_out=tuple(stats.sequence.left_out),
        )
        for stats in report.statistics
        if stats.sequence is not None
    }


@dataclass(frozen=True)
class Marker:
    """What one sticky-comment marker says: the candidate its gate judged, the sequences it
    lists, and ``unlisted``: the restart count each scenario it does not list may have spent
    (None when it lists every scenario its gate spent looks on)."""

    candidate: str = ""
    sequences: Mapping[str | None, Previous] = field(default_factory=dict)
    unlisted: int | None = None


def encode_marker(
    statistics: list[Any],
    candidate: str = "",
    spec_sha256: str = "",
    *,
    room: int | None = None,
    unlisted: int | None = None,
) -> str:
    """Every scenario's chain as one marker token: base64url of
    ``{"c": candidate, "s": [[sid, n, H_n, k], ...]}``, with ``"h": spec_sha256`` when given
    (a later gate under another spec restarts the sequences); ``candidate`` names what was
    gated (the Action uses the commit SHA).

    A token longer than ``room`` characters lists the rows that fit, in order, and writes
    ``"u"``: the largest restart count of those left out and of ``unlisted`` (what the earlier
    marker said of the scenarios it did not list). A later gate restarts each scenario the
    token does not list past that count (:func:`merge_previous`), so a marker with no room
    for a chain, whatever made its scenario ids long or many, never loosens a later test."""
    import base64
    import json

    def dumps(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=True)

    rows = [
        [s.scenario_id, s.sequence.n, s.sequence.chain, s.sequence.restarts]
        for s in statistics
        if s.sequence is not None
    ]
    document: dict[str, Any] = {"c": candidate, "s": rows}
    if _HEAD.fullmatch(spec_sha256):  # (a published report's own hash may be anything)
        document["h"] = spec_sha256
    if unlisted is not None:
        document["u"] = min(max(unlisted, 0), MAX_RESTARTS)
    text = dumps(document)
    if room is not None and _b64_length(len(text)) > room:
        fixed = len(dumps({**document, "s": [], "u": MAX_RESTARTS}))
        kept, left_out, size = [], [], fixed
        for row in rows:
            extra = len(dumps(row)) + (1 if kept else 0)
            if _b64_length(size + extra) <= room:
                kept.append(row)
                size += extra
            else:
                left_out.append(row[3])
        document["s"] = kept
        document["u"] = min(max([*left_out, document.get("u", 0)]), MAX_RESTARTS)
        text = dumps(document)
    return base64.urlsafe_b64encode(text.encode("ascii")).decode("ascii").rstrip("=")


def _b64_length(n: int) -> int:
    """Characters of unpadded base64 for ``n`` bytes."""
    return (4 * n + 2) // 3


def decode_marker(token: str) -> Marker:
    """The inverse of :func:`encode_marker`; a token that is not exactly what
    :func:`encode_marker` writes (unreadable, a negative or non-integer count, a chain or spec
    hash that is no SHA-256, a scenario twice) gives ``Marker()``: no earlier gate. A marker
    without a spec hash (abw before it wrote one) judges no spec change. A count above
    :data:`MAX_RESTARTS` reads as that many."""
    import base64
    import binascii

    from abw.errors import AbwInputError
    from abw.reader import parse_json

    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        document = parse_json(raw.decode("ascii"), "the run chain marker")
        candidate, rows, spec = document["c"], document["s"], document.get("h")
        unlisted = document.get("u")
        if not isinstance(candidate, str) or not isinstance(rows, list):
            return Marker()
        if spec is not None and not (isinstance(spec, str) and _HEAD.fullmatch(spec)):
            return Marker()
        if unlisted is not None and not _count(unlisted):
            return Marker()
        sequences: dict[str | None, Previous] = {}
        for row in rows:
            sid, n, head, restarts = row
            if not (
                (sid is None or isinstance(sid, str))
                and _count(n)
                and _count(restarts)
                and isinstance(head, str)
                and _HEAD.fullmatch(head)
                and sid not in sequences
            ):
                return Marker()
            sequences[sid] = Previous(n, head, min(restarts, MAX_RESTARTS), spec_sha256=spec)
        capped = None if unlisted is None else min(unlisted, MAX_RESTARTS)
        return Marker(candidate, sequences, capped)
    except (AbwInputError, ValueError, TypeError, KeyError, binascii.Error, UnicodeDecodeError):
        return Marker()


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def merge_previous(
    markers: list[Marker], scenarios: Iterable[str | None] = ()
) -> dict[str | None, Previous]:
    """What several markers for the same candidate say together, per scenario (those they
    list, and ``scenarios``: the ones gated now), read so that a marker someone else wrote can
    only make the gate stricter.

    A marker is not authenticated: every workflow of a repository comments as the same bot, so
    another one may carry this gate's marker with any chain. The restart count is the largest
    any marker claims (a sequence's level is spent by every restart that ever happened, and the
    genuine marker is among them), and the sequence extends the earlier one only if it extends
    every marker with that count (:attr:`Previous.claims`); otherwise it restarts, one count
    higher. A forged marker can therefore restart a sequence at a spent-down level, never give
    it back a level an earlier restart spent. A scenario that a marker with ``unlisted`` does
    not list is unknown to it: it restarts past every count claimed for it."""
    merged: dict[str | None, Previous] = {}
    for marker in markers:
        for sid, previous in marker.sequences.items():
            held = merged.get(sid)
            if held is None or previous.restarts > held.restarts:
                merged[sid] = previous
            elif previous.restarts == held.restarts and (previous.n, previous.chain) not in (
                (held.n, held.chain),
                *held.claims,
            ):
                merged[sid] = replace(held, claims=(*held.claims, (previous.n, previous.chain)))
    for sid in [*merged, *(s for s in dict.fromkeys(scenarios) if s not in merged)]:
        floors = [m.unlisted for m in markers if m.unlisted is not None and sid not in m.sequences]
        if floors:
            held = merged.get(sid)
            spent = max([*floors, held.restarts if held else 0])
            merged[sid] = Previous(0, GENESIS, spent, unlisted=True)
    return merged


def unlisted_floor(markers: list[Marker]) -> int | None:
    """The count a later marker must write for the scenarios it does not list, so that what
    these markers left unknown stays unknown (None: they left nothing unknown)."""
    floors = [m.unlisted for m in markers if m.unlisted is not None]
    return max(floors) if floors else None
