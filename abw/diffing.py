"""``abw diff``: how far candidate paths moved from the baseline, per scenario.

Semantics (docs/semantics.md): the path of a run is its non-``llm`` spans in ordinal order.
Each candidate run is compared with its nearest baseline run by Levenshtein distance on tool
names divided by the longer length; fingerprint distance is the Euclidean distance between the
mean per-run tool-call count vectors; tool Jaccard distance is 1 - |Tb & Tc| / |Tb | Tc|; the
first divergent step is where a candidate path leaves the prefix tree of the baseline paths.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz.distance import Levenshtein

from abw.models.report import DiffResult, Divergence, RunDistance
from abw.traceio import TraceFile

END = "<end>"


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


class Symbols:
    """Tool names interned to ints in sorted order, so distances never depend on str hashing."""

    def __init__(self, names: Iterable[str]) -> None:
        self.ids = {name: index for index, name in enumerate(sorted(set(names)))}

    def encode(self, path: list[str]) -> tuple[int, ...]:
        return tuple(self.ids[name] for name in path)


def normalized_edit_distance(a: list[str], b: list[str]) -> float:
    """Levenshtein distance / max(len); two empty paths are at distance 0."""
    symbols = Symbols([*a, *b])
    return float(Levenshtein.normalized_distance(symbols.encode(a), symbols.encode(b)))


@dataclass
class _Trie:
    children: dict[str, _Trie] = field(default_factory=dict)
    terminal: int = 0

    def insert(self, path: list[str]) -> None:
        node = self
        for name in path:
            node = node.children.setdefault(name, _Trie())
        node.terminal += 1

    def alternatives(self) -> list[str]:
        return sorted(self.children) + ([END] if self.terminal else [])


def nearest_baseline(
    candidates: list[tuple[int, ...]], baseline: list[tuple[tuple[int, ...], TraceFile]]
) -> dict[tuple[int, ...], tuple[float, TraceFile | None]]:
    """Nearest baseline run for each distinct candidate path; ties go to the first baseline run
    in run order. Distance 1.0 and no run when there is no baseline.

    Distances are computed once per pair of distinct paths (rapidfuzz ``cdist`` on interned
    tool ids), so repeated paths cost nothing.
    """
    import numpy as np
    from rapidfuzz.process import cdist

    unique_c = list(dict.fromkeys(candidates))
    first_run: dict[tuple[int, ...], TraceFile] = {}
    for encoded, trace_file in baseline:
        first_run.setdefault(encoded, trace_file)
    unique_b = list(first_run)
    if not unique_b:
        return {c: (1.0, None) for c in unique_c}
    matrix = cdist(
        unique_c, unique_b, scorer=Levenshtein.normalized_distance, workers=1, dtype=np.float64
    )
    result: dict[tuple[int, ...], tuple[float, TraceFile | None]] = {}
    for row, encoded in zip(matrix, unique_c, strict=True):
        distances = [float(d) for d in row]
        best = min(range(len(unique_b)), key=lambda j: (distances[j], j))
        result[encoded] = (distances[best], first_run[unique_b[best]])
    return result


def _divergence(
    trace_file: TraceFile,
    path: list[str],
    trie: _Trie,
    baseline: list[tuple[list[str], tuple[int, ...]]],
    encode: Any,
) -> Divergence | None:
    """Where ``path`` (``trace_file``'s tool names) leaves the baseline prefix tree."""
    node, step = trie, 0
    while step < len(path) and path[step] in node.children:
        node = node.children[path[step]]
        step += 1
    if step == len(path) and node.terminal:
        return None  # the whole path is a baseline path
    prefix = path[:step]
    sharing = [(names, enc) for names, enc in baseline if names[:step] == prefix]
    candidate_enc = encode(path)
    nearest = min(
        sharing,
        key=lambda item: (Levenshtein.normalized_distance(candidate_enc, item[1]), item[1]),
        default=([], ()),
    )[0]
    return _make_divergence(trace_file, path, step, node, nearest)


def _make_divergence(
    trace_file: TraceFile, path: list[str], step: int, node: _Trie, baseline_path: list[str]
) -> Divergence:
    spans = trace_file.path_spans
    return Divergence(
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


def _mean_counts(paths: list[list[str]], tools: list[str]) -> dict[str, float]:
    if not paths:
        return dict.fromkeys(tools, 0.0)
    totals = dict.fromkeys(tools, 0)
    for path in paths:
        for name in path:
            totals[name] += 1
    return {name: totals[name] / len(paths) for name in tools}


def diff_scenario(
    scenario_id: str | None, baseline: list[TraceFile], candidate: list[TraceFile]
) -> DiffResult:
    """The diff of one scenario's candidate runs against its baseline runs."""
    baseline = sorted(baseline, key=run_sort_key)
    candidate = sorted(candidate, key=run_sort_key)
    base_paths = [path_names(t) for t in baseline]
    cand_paths = [path_names(t) for t in candidate]
    tools_b = {name for path in base_paths for name in path}
    tools_c = {name for path in cand_paths for name in path}
    tools = sorted(tools_b | tools_c)
    symbols = Symbols(tools)
    encoded_base = [(symbols.encode(p), t) for p, t in zip(base_paths, baseline, strict=True)]

    per_run: list[RunDistance] = []
    encoded_cand = [symbols.encode(p) for p in cand_paths]
    nearest_of = nearest_baseline(encoded_cand, encoded_base)
    for encoded, trace_file in zip(encoded_cand, candidate, strict=True):
        distance, nearest = nearest_of[encoded]
        per_run.append(
            RunDistance(
                trace_id=trace_file.trace.run.trace_id,
                trace_file=trace_file.path,
                nearest_baseline_trace_id=nearest.trace.run.trace_id if nearest else None,
                path_edit_distance=distance,
            )
        )
    distances = [r.path_edit_distance for r in per_run]

    mean_b = _mean_counts(base_paths, tools)
    mean_c = _mean_counts(cand_paths, tools)
    fingerprint = math.sqrt(sum((mean_b[t] - mean_c[t]) ** 2 for t in tools))
    union = tools_b | tools_c
    jaccard = 1.0 - len(tools_b & tools_c) / len(union) if union else 0.0

    trie = _Trie()
    for path in base_paths:
        trie.insert(path)
    baseline_items = sorted(
        {tuple(p): (p, symbols.encode(p)) for p in base_paths}.values(), key=lambda i: i[1]
    )
    divergences = [
        d
        for t, path in zip(candidate, cand_paths, strict=True)
        if (d := _divergence(t, path, trie, baseline_items, symbols.encode)) is not None
    ]
    first = min(divergences, key=lambda d: (d.step, d.trace_id, d.trace_file), default=None)
    return DiffResult(
        scenario_id=scenario_id,
        baseline_runs=len(baseline),
        candidate_runs=len(candidate),
        path_edit_distance_mean=sum(distances) / len(distances) if distances else 0.0,
        path_edit_distance_max=max(distances, default=0.0),
        per_run=per_run,
        fingerprint_distance=fingerprint,
        tool_jaccard_distance=jaccard,
        baseline_tool_means={t: v for t, v in mean_b.items() if t in tools_b},
        candidate_tool_means={t: v for t, v in mean_c.items() if t in tools_c},
        tools_new=sorted(tools_c - tools_b),
        tools_missing=sorted(tools_b - tools_c),
        first_divergence=first,
        divergences=divergences,
    )


def diff(baseline: list[TraceFile], candidate: list[TraceFile]) -> list[DiffResult]:
    """One :class:`DiffResult` per scenario id found in either set, in a stable order."""
    base_groups = group_by_scenario(baseline)
    cand_groups = group_by_scenario(candidate)
    scenarios = sorted(set(base_groups) | set(cand_groups), key=scenario_key)
    return [diff_scenario(s, base_groups.get(s, []), cand_groups.get(s, [])) for s in scenarios]
