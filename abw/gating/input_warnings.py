"""Warnings about inputs that look wrong: they never change a verdict, they say why it may mislead.

- ``platform_mix``: baseline and candidate runs come from different agent platforms;
- ``version_mix``: the candidate was recorded with agent CLI versions the baseline never used
  (a new CLI can rename tools: Codex's ``shell`` became ``exec_command``);
- ``duplicate_trace_id``: several files of one side carry the same ``trace_id``; each file
  from another recording still counts as one run, so the statistics may count one run many
  times (a candidate file that is a copy of another — byte for byte, or the same recording
  imported again: the same trace id and ``source_hash`` — is the same run: the statistics count
  it once, and the warning says how many there are);
- ``shared_runs``: candidate runs that are baseline runs too (the same trace id: a candidate
  folder inside the baseline folder, a session imported on both sides, or the baseline
  itself), compared with themselves;
- ``one_sided_scenario``: a scenario has runs on one side only, so nothing of it is compared;
- ``baseline_spread``: a scenario's baseline runs differ from each other as much as a failing
  candidate would: they are probably not repeated runs of one task.

Semantics and the decisions behind them: docs/semantics.md ("Input warnings").
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from abw.diffing import Symbols, group_by_scenario, mean_distance, path_names, scenario_key
from abw.gating.common import scenario_text
from abw.gating.sequence import RECORDING
from abw.gating.summary import RUN_ORDER
from abw.models.report import DiffResult, InputWarning
from abw.models.spec import Thresholds
from abw.text import plural
from abw.traceio import TraceFile

# A run here is its summary (abw.gating.summary.RunHead): path, trace_id, sha256, source_hash,
# scenario_id, platform, agent_version; only the baseline spread reads the baseline runs' paths.

#: Files named as examples in one warning.
EXAMPLES = 3
#: Baseline runs of one scenario compared pairwise for ``baseline_spread`` (the first, in run
#: order): enough to tell repeated runs from unrelated sessions, bounded in cost.
SPREAD_RUNS = 100


def _by_scenario(runs: list[Any]) -> dict[str | None, list[Any]]:
    """Runs grouped by scenario, groups and runs in a stable order (as group_by_scenario)."""
    groups: dict[str | None, list[Any]] = {}
    for run in runs:
        groups.setdefault(run.scenario_id, []).append(run)
    return {key: sorted(groups[key], key=RUN_ORDER) for key in sorted(groups, key=scenario_key)}


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def version_key(text: str) -> tuple[Any, ...]:
    """Sort key that reads runs of digits as numbers: 1.0.30 before 1.0.100, 0.80.0 before
    0.142.4 (plain text order put them the other way round); the text itself breaks ties."""
    parts = _DIGITS.split(text)
    return (tuple((i % 2, int(p) if i % 2 else p) for i, p in enumerate(parts)), text)


_DIGITS = re.compile(r"([0-9]+)")


def _counted(values: Iterable[str], shown: int = 6) -> str:
    """``a (3 runs), b (1 run)`` in version order (:func:`version_key`), the first ``shown``."""
    counts = Counter(values)
    names = sorted(counts, key=version_key)
    text = ", ".join(f"{value} ({plural(counts[value], 'run')})" for value in names[:shown])
    return text + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _platforms(baseline: list[Any], candidate: list[Any]) -> list[InputWarning]:
    base = [t.platform for t in baseline]
    cand = [t.platform for t in candidate]
    if set(cand) <= set(base):
        return _scenario_platforms(baseline, candidate)
    return [
        InputWarning(
            kind="platform_mix",
            message=(
                f"Baseline and candidate come from different agent platforms: baseline "
                f"{_counted(base)}; candidate {_counted(cand)}. Tool names differ between "
                "platforms, so required tools, order rules and the diff compare different "
                "vocabularies."
            ),
        )
    ]


def _scenario_platforms(baseline: list[Any], candidate: list[Any]) -> list[InputWarning]:
    """The sides hold the same platforms, but some scenario's candidate runs come from a
    platform its own baseline runs do not (platforms swapped between scenarios): the same
    warning, for those scenarios."""
    base: dict[Any, set[str]] = defaultdict(set)
    for run in baseline:
        base[run.scenario_id].add(run.platform)
    mixed: dict[Any, list[str]] = defaultdict(list)
    for run in candidate:
        if base.get(run.scenario_id) and run.platform not in base[run.scenario_id]:
            mixed[run.scenario_id].append(run.platform)
    if not mixed:
        return []
    scenarios = sorted(mixed, key=scenario_key)
    shown = "; ".join(
        f"{scenario_text(sid)}: baseline {', '.join(sorted(base[sid]))}, candidate "
        f"{_counted(mixed[sid])}"
        for sid in scenarios[:EXAMPLES]
    )
    more = f"; and {len(scenarios) - EXAMPLES} more" if len(scenarios) > EXAMPLES else ""
    return [
        InputWarning(
            kind="platform_mix",
            message=(
                "Within a scenario, candidate runs come from an agent platform its baseline runs "
                f"do not ({shown}{more}). Tool names differ between platforms, so required "
                "tools, order rules and the diff compare different vocabularies there."
            ),
        )
    ]


#: Tool names a version warning lists of each side (new, missing) before counting the rest.
RENAMED_SHOWN = 4
#: The version of a side whose runs record none (Codex before 0.2x wrote none): a version of
#: its own, so a baseline of such runs and a candidate that names its version are told apart.
UNRECORDED = "version unrecorded"


def _side(runs: list[Any], platform: str) -> list[tuple[Any, str]]:
    """(scenario, version) of ``platform``'s runs on one side. Where some record a version, a
    run that records none (a summary-only transcript) is left out, as it says nothing; where
    none does, each is :data:`UNRECORDED`."""
    mine = [run for run in runs if run.platform == platform]
    if not any(run.agent_version for run in mine):
        return [(run.scenario_id, UNRECORDED) for run in mine]
    return [(run.scenario_id, run.agent_version) for run in mine if run.agent_version]


def _version_sets(runs: list[Any], platform: str) -> dict[str | None, set[str]]:
    """The agent versions of ``platform``'s runs, by scenario (:func:`_side`)."""
    found: dict[str | None, set[str]] = defaultdict(set)
    for sid, version in _side(runs, platform):
        found[sid].add(version)
    return found


def _version_scenarios(baseline: list[Any], candidate: list[Any], platform: str) -> list[Any]:
    """Scenarios whose candidate runs use a version their own baseline runs never did: a
    baseline recorded over several versions hides such a scenario from the sets as a whole."""
    base, cand = _version_sets(baseline, platform), _version_sets(candidate, platform)
    return sorted(
        (sid for sid, versions in cand.items() if base.get(sid) and not versions <= base[sid]),
        key=scenario_key,
    )


def _names(names: Iterable[str]) -> str:
    names = sorted(names)
    shown = ", ".join(names[:RENAMED_SHOWN])
    more = len(names) - RENAMED_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def _renamed(diffs: Iterable[DiffResult], scenarios: list[Any]) -> str:
    """Why the version matters, with what it may explain here: the scenarios whose candidate
    runs call tools their baseline runs never did *and* no longer call some the baseline did
    (one tool renamed shows as both), each such pair named once with its scenarios."""
    wanted = set(scenarios)
    pairs: dict[tuple[str, str], list[Any]] = {}
    for diff in diffs:
        if diff.scenario_id in wanted and diff.tools_new and diff.tools_missing:
            pair = (_names(diff.tools_new), _names(diff.tools_missing))
            pairs.setdefault(pair, []).append(diff.scenario_id)
    text = "A new CLI version can rename or reshape tools"
    if not pairs:
        return f"{text} (Codex's shell became exec_command)"
    shown = [
        f"new {new}, missing {missing}{_where(sids)}"
        for (new, missing), sids in list(pairs.items())[:2]
    ]
    more = f"; and {len(pairs) - 2} more" if len(pairs) > 2 else ""
    return f"{text}, and a renamed tool is new and missing at once (here: {'; '.join(shown)}{more})"


def _of(runs: list[Any], platform: str, scenarios: set[Any] | None = None) -> list[str]:
    """The versions of ``platform``'s runs (:func:`_side`; of ``scenarios`` only, when given)."""
    return [v for sid, v in _side(runs, platform) if scenarios is None or sid in scenarios]


def _where(scenarios: list[Any]) -> str:
    named = ", ".join(scenario_text(s) for s in scenarios[:EXAMPLES])
    more = len(scenarios) - EXAMPLES
    return f" in {named}" + (f" and {more} more" if more > 0 else "")


def _versions(
    baseline: list[Any], candidate: list[Any], diffs: Iterable[DiffResult] = ()
) -> list[InputWarning]:
    diffs = list(diffs)
    found = []
    for platform in sorted({t.platform for t in candidate}):
        base, cand = _of(baseline, platform), _of(candidate, platform)
        scenarios = _version_scenarios(baseline, candidate, platform)
        if not base or not cand or (set(cand) <= set(base) and not scenarios):
            continue
        where = ""
        if set(cand) <= set(base):  # only some scenarios compare two versions: count those
            base, cand = (
                _of(baseline, platform, set(scenarios)),
                _of(candidate, platform, set(scenarios)),
            )
            where = _where(scenarios)
        found.append(
            InputWarning(
                kind="version_mix",
                message=(
                    f"The candidate was recorded with {platform} versions the baseline never "
                    f"used{where}: baseline {_counted(base)}; candidate {_counted(cand)}. "
                    f"{_renamed(diffs, _alone(baseline, candidate, platform, scenarios))}: "
                    "record the baseline with the same version "
                    "before reading shape or required-tool failures as the agent's."
                ),
            )
        )
    return found


def _alone(
    baseline: list[Any], candidate: list[Any], platform: str, scenarios: list[Any]
) -> list[Any]:
    """Those of ``scenarios`` whose runs, on both sides, are all of ``platform``: only there
    are the tools new and missing at once this platform's (a scenario mixing platforms would
    blame one platform's upgrade for another's renamed tools)."""
    others = {t.scenario_id for t in [*baseline, *candidate] if t.platform != platform}
    return [sid for sid in scenarios if sid not in others]


def _duplicates(role: str, traces: list[Any]) -> list[InputWarning]:
    files: dict[str, list[str]] = defaultdict(list)
    for run in traces:
        files[run.trace_id].append(run.path)
    shared = {tid: paths for tid, paths in files.items() if len(paths) > 1}
    if not shared:
        return []
    count = sum(len(paths) for paths in shared.values())
    worst = max(sorted(shared), key=lambda tid: len(shared[tid]))
    distinct = len(set(map(RECORDING, traces)))  # (as the statistics count them)
    copies = len(traces) - distinct
    if role == "candidate" and copies:
        are = "is a copy" if copies == 1 else "are copies"
        counted = (
            f"{copies} of them {are} of another file (byte for byte, or the same recording "
            "imported again: the same trace id and source hash): the same run, counted once "
            f"in the statistics ({plural(distinct, 'candidate run')} in all); remove the copies."
        )
    else:
        counted = (
            f"Each file is counted as a separate run ({plural(len(traces), f'{role} run')} in "
            "all); if they are copies or parts of one run, remove or merge them, or the "
            "statistics count one run many times."
        )
    return [
        InputWarning(
            kind="duplicate_trace_id",
            role=role,  # type: ignore[arg-type]
            message=(
                f"{plural(count, f'{role} file')} share {plural(len(shared), 'trace id')} "
                f"(most: {worst}, {plural(len(shared[worst]), 'file')}). {counted}"
            ),
            files=sorted(shared[worst])[:EXAMPLES],
        )
    ]


def _shared(baseline: list[Any], candidate: list[Any]) -> list[InputWarning]:
    """Candidate runs with a baseline run's trace id: the same run on both sides (identical
    bytes, or the same session imported again, whose ``exported_at`` differs)."""
    base_ids = {run.trace_id for run in baseline}
    shared = sorted((run for run in candidate if run.trace_id in base_ids), key=lambda r: r.path)
    if not shared:
        return []
    base_bytes, cand_bytes = {run.sha256 for run in baseline}, {run.sha256 for run in candidate}
    if base_bytes == cand_bytes:
        message = (
            f"The candidate is the baseline itself ({plural(len(candidate), 'run')}, the same "
            "file bytes): every comparison with the baseline compares a run with itself and "
            "finds no difference, so only rules that need no baseline and the sample size can "
            "fail it. Right for checking a spec against its own baseline, never as a gate."
        )
    else:
        message = (
            f"{plural(len(shared), 'candidate run')} of {len(candidate)} "
            f"{'is a baseline run' if len(shared) == 1 else 'are baseline runs'} too (the same "
            "trace id: is --candidate inside --baseline, or were the baseline's sessions "
            "imported again with the new ones?): such a run is compared with itself, and what "
            "it does reads as baseline behavior. Keep the two sets apart."
        )
    return [
        InputWarning(
            kind="shared_runs",
            role="candidate",
            message=message,
            files=[run.path for run in shared[:EXAMPLES]],
        )
    ]


#: (role with runs, role without, what that means) for a scenario only one side has.
_ONE_SIDED = (
    (
        "baseline",
        "candidate",
        "nothing of it was gated. Is its --scenario-id spelled the same on both sides?",
    ),
    (
        "candidate",
        "baseline",
        "its shape cannot be compared. Record baseline runs of the same task under the same "
        "--scenario-id.",
    ),
)


def _one_sided(baseline: list[Any], candidate: list[Any]) -> list[InputWarning]:
    runs = {"baseline": _by_scenario(baseline), "candidate": _by_scenario(candidate)}
    found = []
    for role, other, meaning in _ONE_SIDED:
        for sid, those in runs[role].items():
            if sid in runs[other]:
                continue
            found.append(
                InputWarning(
                    kind="one_sided_scenario",
                    scenario_id=sid,
                    role=role,  # type: ignore[arg-type]
                    message=(
                        f"{_upper_first(scenario_text(sid))} has "
                        f"{plural(len(those), f'{role} run')} and no {other} run: {meaning}"
                    ),
                    files=[t.path for t in those[:EXAMPLES]],
                )
            )
    return found


def baseline_spread(runs: list[TraceFile]) -> float | None:
    """Mean, over baseline runs, of the path edit distance to the nearest *other* baseline run
    (None for fewer than two runs): how far apart repeated runs of one task already are.

    Each nearest distance is found by rapidfuzz's C loop, and the mean is the double nearest
    the exact one (abw.diffing.mean_distance): no numpy on the gate's path."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import extractOne

    paths = [path_names(t) for t in runs[:SPREAD_RUNS]]
    if len(paths) < 2:
        return None
    symbols = Symbols(name for path in paths for name in path)
    encoded = [symbols.encode(path) for path in paths]
    nearest = [
        extractOne(path, encoded[:i] + encoded[i + 1 :], scorer=Levenshtein.normalized_distance)[1]
        for i, path in enumerate(encoded)
    ]
    return mean_distance(nearest)


def _spread(baseline: list[TraceFile], thresholds: Thresholds) -> list[InputWarning]:
    limit = thresholds.path_edit_distance_fail
    found = []
    for sid, runs in group_by_scenario(baseline).items():
        spread = baseline_spread(runs)
        if spread is None or spread <= limit:
            continue
        found.append(
            InputWarning(
                kind="baseline_spread",
                scenario_id=sid,
                role="baseline",
                message=(
                    f"The baseline runs of {scenario_text(sid)} differ from each other by "
                    f"{spread:.3f} on average (path edit distance to the nearest other baseline "
                    f"run), past the fail threshold {limit:g}: they look like different tasks, "
                    "not repeated runs of one. Give each task its own --scenario-id, or the "
                    "shape checks compare unrelated sessions (docs/guide.md)."
                ),
                files=[t.path for t in runs[:EXAMPLES]],
            )
        )
    return found


def input_warnings(
    baseline: list[Any],
    candidate: list[Any],
    thresholds: Thresholds,
    baseline_runs: list[TraceFile],
    diffs: Iterable[DiffResult] = (),
) -> list[InputWarning]:
    """Every warning about the inputs, in a fixed order (kinds as listed above).

    ``baseline`` and ``candidate``: the runs' summaries; ``baseline_runs``: the baseline runs;
    ``diffs``: the scenarios' diffs (the tools a version warning names).
    """
    return [
        *_platforms(baseline, candidate),
        *_versions(baseline, candidate, diffs),
        *_duplicates("baseline", baseline),
        *_duplicates("candidate", candidate),
        *_shared(baseline, candidate),
        *_one_sided(baseline, candidate),
        *_spread(baseline_runs, thresholds),
    ]
