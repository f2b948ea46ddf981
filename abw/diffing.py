"""``abw diff``: how far candidate paths moved from the baseline, per scenario.

Semantics (docs/semantics.md): the path of a run is its non-``llm`` spans in ordinal order.
Each candidate run is compared with its nearest baseline run by Levenshtein distance on tool
names divided by the longer length; fingerprint distance is the Euclidean distance between the
mean per-run tool-call count vectors; tool Jaccard distance is 1 - |Tb & Tc| / |Tb | Tc|; the
first divergent step is where a candidate path leaves the prefix tree of the baseline paths.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rapidfuzz.distance import Levenshtein

from abw.limits import MAX_TRACE_SPANS
from abw.models.report import DiffResult, Divergence, RunDistance
from abw.sharedfields import built, shared
from abw.traceio import TraceFile

END = "<end>"
_CACHES = ("_measured",)


def run_sort_key(trace_file: TraceFile) -> tuple[str, str, str]:
    """Order runs by what they are, never by the order they were passed in."""
    return (trace_file.trace.run.trace_id, trace_file.sha256, trace_file.path)


def path_names(trace_file: TraceFile) -> list[str]:
    """Tool names along the run's path (non-llm spans by ordinal)."""
    return [span.name for span in trace_file.path_spans]


def scenario_key(scenario_id: str | None) -> tuple[int, str]:
    """Sort key for scenario ids: None first, then by text."""
    return (0, "") if scenario_id is None else (1, scenario_id)


def group_by_scenario(traces: Iterable[TraceFile]) -> dict[str | None, list[TraceFile]]:
    """Runs grouped by ``run.scenario_id``, groups and runs in a stable order."""
    groups: dict[str | None, list[TraceFile]] = {}
    for trace_file in traces:
        groups.setdefault(trace_file.trace.run.scenario_id, []).append(trace_file)
    return {key: sorted(groups[key], key=run_sort_key) for key in sorted(groups, key=scenario_key)}


#: A path as the ids of its tool names: one character per id (rapidfuzz reads a str in C, with
#: no conversion: 2.6x faster than a tuple of ints), or, where more ids than characters could
#: occur, the tuple of ids. Either kind has the ids' equality and order (tuples and strings
#: compare item by item, a prefix first), so distances, nearest runs and ties are the same.
PathCode = str | tuple[int, ...]
_CHARACTERS = 0x110000  # code points a str can hold


def pack(ids: list[int], bound: int) -> PathCode:
    """``ids`` as a :data:`PathCode`: a str when every id of the codes compared with it is
    below ``bound`` <= the code points, else the tuple (decided by the bound, never per path,
    so codes compared with each other are of one kind)."""
    return "".join(map(chr, ids)) if bound <= _CHARACTERS else tuple(ids)


class Symbols:
    """Tool names interned to ints in sorted order, so distances never depend on str hashing."""

    def __init__(self, names: Iterable[str]) -> None:
        self.ids = {name: index for index, name in enumerate(sorted(set(names)))}

    def encode(self, path: list[str]) -> PathCode:
        ids = self.ids
        return pack([ids[name] for name in path], len(ids))


def normalized_edit_distance(a: list[str], b: list[str]) -> float:
    """Levenshtein distance / max(len); two empty paths are at distance 0."""
    symbols = Symbols([*a, *b])
    return float(Levenshtein.normalized_distance(symbols.encode(a), symbols.encode(b)))


class _Trie:
    """A node of the baseline paths' prefix tree."""

    __slots__ = ("children", "codes", "terminal", "through")

    def __init__(self) -> None:
        self.children: dict[str, _Trie] = {}
        self.terminal = 0  # baseline paths ending here
        self.through: list[int] = []  # indices into BaselineShape.items of the paths through here
        # their codes: listed the first time a candidate leaves the tree here
        self.codes: list[PathCode] | None = None

    def insert(self, path: list[str]) -> None:
        node = self
        for name in path:
            child = node.children.get(name)
            if child is None:
                child = node.children[name] = _Trie()
            node = child
        node.terminal += 1

    def pass_through(self, path: list[str], index: int) -> None:
        """Note item ``index`` on every node of ``path`` (an inserted path), the root too."""
        node = self
        node.through.append(index)
        for name in path:
            node = node.children[name]
            node.through.append(index)

    def alternatives(self) -> list[str]:
        return sorted(self.children) + ([END] if self.terminal else [])


_Departure = tuple[int, _Trie, list[str]]  # (step, the node it leaves from, nearest sharer)
_Measured = tuple[float, str | None, _Departure | None]  # (distance, nearest run, departure)


class BaselineShape:
    """One scenario's baseline paths, as every candidate run of the scenario is measured against
    them: its nearest baseline run and where it leaves the baseline prefix tree. Built once per
    scenario (by the gate's driver, and on each worker from the broadcast baseline).

    Tool names are interned to ints in sorted order over the baseline's names; a name the
    baseline never used gets an id past them. Distances only read which ids are equal, and ties
    between baseline paths compare their ids in name order, so each candidate run is measured
    exactly as against the ids of the whole scenario.
    """

    def __init__(self, runs: list[TraceFile]) -> None:
        runs = sorted(runs, key=run_sort_key)
        self.runs = len(runs)
        self.paths = [path_names(t) for t in runs]
        self.tools = frozenset(name for path in self.paths for name in path)
        self.ids = {name: index for index, name in enumerate(sorted(self.tools))}
        first: dict[PathCode, str] = {}
        for path, trace_file in zip(self.paths, runs, strict=True):
            first.setdefault(self.encode(path), trace_file.trace.run.trace_id)
        self.unique = list(first)  # distinct baseline paths, in run order
        self.nearest_ids = list(first.values())
        self.trie = _Trie()
        for path in self.paths:
            self.trie.insert(path)
        self.items = sorted(
            {tuple(p): (p, self.encode(p)) for p in self.paths}.values(), key=lambda i: i[1]
        )
        for index, (names, _) in enumerate(self.items):
            self.trie.pass_through(names, index)  # (in items order: each node's list ascends)
        self.totals: dict[str, int] = {}
        for path in self.paths:
            for name in path:
                self.totals[name] = self.totals.get(name, 0) + 1
        # per distinct candidate path (its names): distance, nearest baseline run, departure
        self._measured: dict[tuple[str, ...], _Measured] = {}

    def __getstate__(self) -> dict[str, Any]:  # the caches stay behind
        return {k: v for k, v in self.__dict__.items() if k not in _CACHES}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _measured={})

    def encode(self, path: list[str]) -> PathCode:
        """``path`` as ids (:func:`pack`); names the baseline never used get distinct ids past
        its own (at most a path's length of them: the bound)."""
        ids = self.ids
        code = list(map(ids.get, path))  # (a builtin method: map is the fastest)
        if None in code:
            extra: dict[str, int] = {}
            code = [
                ids[name] if name in ids else extra.setdefault(name, len(ids) + len(extra))
                for name in path
            ]
        return pack(code, len(ids) + MAX_TRACE_SPANS)  # type: ignore[arg-type]

    def _nearest(self, encoded: PathCode) -> tuple[float, str | None]:
        from rapidfuzz.process import extractOne

        if not self.unique:
            return 1.0, None
        # the smallest distance, and of equal ones the first: rapidfuzz's C loop, no numpy
        _, distance, best = extractOne(encoded, self.unique, scorer=Levenshtein.normalized_distance)
        return float(distance), self.nearest_ids[best]

    def _departure(self, path: list[str], code: PathCode) -> _Departure | None:
        node, step = self.trie, 0
        while step < len(path) and path[step] in node.children:
            node = node.children[path[step]]
            step += 1
        if step == len(path) and node.terminal:
            return None
        # of the baseline paths through this node (sharing the prefix), the nearest; of equal
        # ones the smallest in id order, the first in self.items: rapidfuzz's C loop
        through = node.through
        if node.codes is None:
            node.codes = [self.items[i][1] for i in through]
        codes = node.codes
        nearest: list[str] = []
        if through:
            from rapidfuzz.process import extractOne

            best = extractOne(code, codes, scorer=Levenshtein.normalized_distance)[2]
            nearest = self.items[through[best]][0]
        return step, node, nearest

    def measure(self, trace_file: TraceFile, path: list[str] | None = None) -> RunShape:
        """One candidate run against this baseline: its nearest baseline run (ties go to the
        first in run order; (1.0, None) without a baseline) and where its path leaves the
        baseline prefix tree, each found once per distinct path."""
        names = path_names(trace_file) if path is None else path
        key = tuple(names)
        found = self._measured.get(key)
        if found is None:
            code = self.encode(names)
            found = self._measured[key] = (*self._nearest(code), self._departure(names, code))
        distance, nearest, departure = found
        return RunShape(
            trace_file.trace.run.trace_id,
            trace_file.path,
            distance,
            nearest,
            None if departure is None else _make_divergence(trace_file, names, *departure),
        )


@dataclass(frozen=True, slots=True)
class RunShape:
    """What the diff needs of one candidate run (BaselineShape.measure)."""

    trace_id: str
    path: str  # the trace file
    distance: float
    nearest: str | None  # trace id of the nearest baseline run
    divergence: Divergence | None


def _make_divergence(
    trace_file: TraceFile, path: list[str], step: int, node: _Trie, baseline_path: list[str]
) -> Divergence:
    spans = trace_file.path_spans
    return shared(
        Divergence(
            trace_id=trace_file.trace.run.trace_id,
            trace_file=trace_file.path,
            step=step,
            span_ordinal=spans[step].ordinal if step < len(spans) else None,
            candidate_tool=path[step] if step < len(path) else None,
            baseline_alternatives=node.alternatives(),
            common_prefix=path[:step],
            candidate_path=path,
            baseline_path=baseline_path,
        )
    )


def diff_result(
    scenario_id: str | None, shape: BaselineShape, runs: list[Any], totals: dict[str, int]
) -> DiffResult:
    """The diff of one scenario from its baseline shape and its candidate runs' measures
    (:class:`RunShape` or anything with its fields), in run order; ``totals``: how often each
    tool appears on those runs' paths, summed over the runs. With runs on one side only, every
    comparison (distances, tool changes, divergences) is None: each side's own tool means stay."""
    tools_b, tools_c = set(shape.tools), {name for name, count in totals.items() if count}
    tools = sorted(tools_b | tools_c)
    both = bool(runs) and shape.runs > 0
    per_run = [
        built(
            RunDistance,
            {
                "trace_id": r.trace_id,
                "trace_file": r.path,
                "nearest_baseline_trace_id": r.nearest,
                "path_edit_distance": r.distance if both else None,
            },
        )
        for r in runs
    ]

    def means(counts: dict[str, int], n: int) -> dict[str, float]:
        return {t: counts.get(t, 0) / n for t in tools} if n else dict.fromkeys(tools, 0.0)

    mean_b = means(shape.totals, shape.runs)
    mean_c = means(totals, len(runs))
    divergences = [r.divergence for r in runs if r.divergence is not None] if both else []
    return DiffResult(
        scenario_id=scenario_id,
        baseline_runs=shape.runs,
        candidate_runs=len(runs),
        per_run=per_run,
        baseline_tool_means={t: v for t, v in mean_b.items() if t in tools_b},
        candidate_tool_means={t: v for t, v in mean_c.items() if t in tools_c},
        first_divergence=min(
            divergences, key=lambda d: (d.step, d.trace_id, d.trace_file), default=None
        ),
        divergences=divergences,
        **_comparison(
            [r.distance for r in runs],
            {t: Fraction(shape.totals.get(t, 0), shape.runs or 1) for t in tools},
            {t: Fraction(totals.get(t, 0), len(runs) or 1) for t in tools},
            tools_b,
            tools_c,
        )
        if both
        else dict.fromkeys(_COMPARED),
    )


#: The DiffResult fields that compare the two sides (None with runs on one side only).
_COMPARED = (
    "path_edit_distance_mean",
    "path_edit_distance_max",
    "fingerprint_distance",
    "tool_jaccard_distance",
    "tools_new",
    "tools_missing",
)


def _comparison(
    distances: list[float],
    mean_b: dict[str, Fraction],
    mean_c: dict[str, Fraction],
    tools_b: set[str],
    tools_c: set[str],
) -> dict[str, Any]:
    """The :data:`_COMPARED` fields of a scenario with runs on both sides, each the double
    nearest its exact value (a figure equal to a threshold as written is equal to it, not a
    rounding error past it: 1 - 17/20 is 0.15, not 0.15000000000000002)."""
    union = tools_b | tools_c
    squares = sum(((mean_b[t] - mean_c[t]) ** 2 for t in union), Fraction(0))
    return {
        "path_edit_distance_mean": mean_distance(distances),
        "path_edit_distance_max": max(distances),
        "fingerprint_distance": _nearest_sqrt(squares),
        "tool_jaccard_distance": len(union - (tools_b & tools_c)) / len(union) if union else 0.0,
        "tools_new": sorted(tools_c - tools_b),
        "tools_missing": sorted(tools_b - tools_c),
    }


def mean_distance(distances: list[float]) -> float:
    """The double nearest the exact mean of path edit distances (at least one)."""
    exact = Counter(map(_exact_distance, distances))
    total = sum((value * count for value, count in exact.items()), Fraction(0))
    return float(total / len(distances))


def _exact_distance(distance: float) -> Fraction:
    """A path edit distance d / L (L <= MAX_TRACE_SPANS) as that fraction: fractions with such
    denominators lie further apart than the rounding of their doubles."""
    return Fraction(distance).limit_denominator(MAX_TRACE_SPANS)


def _nearest_sqrt(value: Fraction) -> float:
    """The double nearest the square root of ``value`` (the midpoints compared exactly)."""
    root = math.sqrt(float(value))
    while (Fraction(root) + Fraction(up := math.nextafter(root, math.inf))) ** 2 < 4 * value:
        root = up
    while root and (Fraction(root) + Fraction(down := math.nextafter(root, 0))) ** 2 > 4 * value:
        root = down
    return root


def tool_totals(paths: Iterable[list[str]]) -> dict[str, int]:
    """How often each tool appears on the given paths."""
    totals: dict[str, int] = {}
    for path in paths:
        for name in path:
            totals[name] = totals.get(name, 0) + 1
    return totals


def diff_scenario(
    scenario_id: str | None, baseline: list[TraceFile], candidate: list[TraceFile]
) -> DiffResult:
    """The diff of one scenario's candidate runs against its baseline runs."""
    shape = BaselineShape(baseline)
    candidate = sorted(candidate, key=run_sort_key)
    paths = [path_names(t) for t in candidate]
    runs = [shape.measure(t, p) for t, p in zip(candidate, paths, strict=True)]
    return diff_result(scenario_id, shape, runs, tool_totals(paths))


def diff(baseline: list[TraceFile], candidate: list[TraceFile]) -> list[DiffResult]:
    """One :class:`DiffResult` per scenario id found in either set, in a stable order."""
    base_groups = group_by_scenario(baseline)
    cand_groups = group_by_scenario(candidate)
    scenarios = sorted(set(base_groups) | set(cand_groups), key=scenario_key)
    return [diff_scenario(s, base_groups.get(s, []), cand_groups.get(s, [])) for s in scenarios]
