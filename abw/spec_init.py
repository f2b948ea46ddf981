"""``abw spec init``: a ``behavior-spec/v0`` computed from baseline traces.

Rules (docs/semantics.md): required_tools = tools with a successful span in *every* baseline run;
max_path_length = ceil(1.25 x the longest baseline path); max_errors / max_retries = the
baseline maxima; thresholds = the seed defaults. Order constraints cannot be inferred safely,
so the pairs that held in every baseline run are written as commented suggestions inside the
``required_order`` flow list: uncommenting any of them keeps the YAML valid. A generated spec
passes its own baseline.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from abw.models.spec import WILDCARDS, Invariants, Spec, Thresholds
from abw.semantics import literal_pattern, order_violations, successes
from abw.traceio import TraceFile


@dataclass
class Inferred:
    """What the baseline shows, before it is written as YAML."""

    runs: int
    required_tools: list[str]
    max_path_length: int
    max_errors: int
    max_retries: int
    order_suggestions: list[tuple[str, str]] = field(default_factory=list)


def _tools_in_every_run(baseline: list[TraceFile]) -> list[str]:
    """The tools with a successful span in every run; a name of spaces only (a trace may hold
    one) is no tool a spec can name."""
    sets = [{s.name for s in t.path_spans if s.status == "success"} for t in baseline]
    common = set.intersection(*sets) if sets else set()
    return sorted(name for name in common if name.strip())


def _first_success(trace_file: TraceFile, tool: str) -> int:
    return successes(trace_file.ordered_spans, tool)[0].ordinal


#: Past this many pairs only the transitive reduction is suggested, to keep the YAML readable.
MAX_SUGGESTIONS = 40


def order_suggestions(baseline: list[TraceFile], tools: list[str]) -> list[tuple[str, str]]:
    """Pairs (A, B) of always-present tools where every successful B follows a successful A in
    every baseline run, ordered by where A and then B first succeed.

    Past :data:`MAX_SUGGESTIONS` pairs, only the transitive reduction is kept (A->C is dropped
    when A->B and B->C hold; accepting those two implies it).
    """
    holds = {
        (a, b)
        for a in tools
        for b in tools
        if a != b
        and all(
            not order_violations(t.ordered_spans, literal_pattern(a), literal_pattern(b))
            for t in baseline
        )
    }
    if len(holds) > MAX_SUGGESTIONS:
        holds = {
            (a, b)
            for (a, b) in holds
            if not any((a, c) in holds and (c, b) in holds for c in tools)
        }

    # Sums of first-success ordinals over the same runs: integers, so order-independent.
    total = {tool: sum(_first_success(t, tool) for t in baseline) for tool in tools}
    return sorted(holds, key=lambda pair: (total[pair[0]], total[pair[1]], *pair))


def infer(baseline: list[TraceFile]) -> Inferred:
    """The invariants the baseline supports."""
    from abw.errors import AbwInputError

    if not baseline:
        raise AbwInputError("no baseline traces were given", field="baseline")
    tools = _tools_in_every_run(baseline)
    longest = max(len(t.path_spans) for t in baseline)
    return Inferred(
        runs=len(baseline),
        required_tools=tools,
        max_path_length=(5 * longest + 3) // 4,  # ceil(1.25 * longest), exactly
        max_errors=max(len(t.error_spans) for t in baseline),
        max_retries=max(len(t.retry_spans) for t in baseline),
        order_suggestions=order_suggestions(baseline, tools),
    )


def build_spec(inferred: Inferred, spec_id: str, name: str | None = None) -> Spec:
    """The spec the YAML describes (without the commented suggestions)."""
    return Spec(
        id=spec_id,
        name=name,
        invariants=Invariants(
            required_tools=_exact_names(inferred.required_tools),
            max_path_length=inferred.max_path_length,
            max_errors=inferred.max_errors,
            max_retries=inferred.max_retries,
        ),
        rules=[_required_rule(t) for t in _wildcard_names(inferred.required_tools)],
    )


def _exact_names(tools: list[str]) -> list[str]:
    """The tools ``required_tools`` can hold: names without a wildcard (``*``, ``?``)."""
    return [t for t in tools if not WILDCARDS.intersection(t)]


def _wildcard_names(tools: list[str]) -> list[str]:
    """The tools named with a wildcard: required through an exact ``count`` rule instead."""
    return [t for t in tools if WILDCARDS.intersection(t)]


def _required_rule(tool: str) -> dict[str, object]:
    """The rule requiring a successful span of exactly ``tool`` in every run."""
    return {"kind": "count", "tool": literal_pattern(tool), "min": 1, "count_status": "success"}


def _scalar(value: object) -> str:
    """A YAML scalar; JSON strings are valid YAML and quote anything ambiguous."""
    if (
        isinstance(value, str)
        and value.replace("_", "").replace("-", "").replace(".", "").isalnum()
        and value.lower() not in {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}
        and not value[0].isdigit()
        and not value.startswith(("-", "."))
    ):
        return value
    return _YAML_UNSAFE.sub(
        lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False)
    )


#: Characters a YAML double-quoted scalar may not hold raw: C0/C1 controls and DEL (JSON leaves
#: DEL and C1 raw), NEL and the line/paragraph separators (YAML line breaks), surrogates, BOM.
_YAML_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
)


def _pattern(name: str) -> str:
    """A YAML scalar of the glob that matches exactly ``name``."""
    return _scalar(literal_pattern(name))


def render_yaml(inferred: Inferred, spec_id: str, name: str | None = None) -> str:
    """The spec as commented YAML, deterministic for the same baseline."""
    defaults = Thresholds()
    sprt = defaults.sprt
    lines = [
        f"# behavior-spec/v0 generated by `abw spec init` from {inferred.runs} baseline run(s).",
        "# Review it, accept the order constraints that are rules, then lock it in review.",
        "schema_version: behavior-spec/v0",
        f"id: {_scalar(spec_id)}",
    ]
    if name:
        lines.append(f"name: {_scalar(name)}")
    lines += [
        "",
        "invariants:",
        "  # Tools with a successful span in every baseline run.",
        "  required_tools: ["
        + ", ".join(_scalar(t) for t in _exact_names(inferred.required_tools))
        + "]",
        "  forbidden_tools: []",
        "  # Precedence: every successful `after` needs a successful `before` earlier (globs ok).",
    ]
    if inferred.order_suggestions:
        lines += [
            "  # These held in every baseline run; uncomment the ones that are rules:",
            "  required_order: [",
            *(
                f"    # {{before: {_pattern(a)}, after: {_pattern(b)}}},"
                for a, b in inferred.order_suggestions
            ),
            "  ]",
        ]
    else:
        lines.append("  required_order: []")
    lines += [
        "  # ceil(1.25 x the longest baseline path); baseline maxima for errors and retries.",
        f"  max_path_length: {inferred.max_path_length}",
        f"  max_errors: {inferred.max_errors}",
        f"  max_retries: {inferred.max_retries}",
        "",
        "output:",
        "  # Fields of run.canonical_output every run must have, and values they must equal.",
        "  required_fields: []",
        "  expected: {}",
        "",
        "thresholds:",
        "  # Trajectory shape against the baseline: WARN past *_warn, FAIL past *_fail.",
        f"  path_edit_distance_warn: {defaults.path_edit_distance_warn}",
        f"  path_edit_distance_fail: {defaults.path_edit_distance_fail}",
        f"  fingerprint_distance_warn: {defaults.fingerprint_distance_warn}",
        f"  fingerprint_distance_fail: {defaults.fingerprint_distance_fail}",
        f"  tool_jaccard_warn: {defaults.tool_jaccard_warn}",
        f"  tool_jaccard_fail: {defaults.tool_jaccard_fail}",
        "  # The pass rate (runs that completed and passed every hard check) against tau =",
        "  # min_wilson_pass_rate; fewer runs than min_runs is INCONCLUSIVE. failing_runs: forbid",
        "  # -> one violating run FAILs its check; tolerate -> violations WARN, the rate decides.",
        "  # sequential: anytime -> a confidence sequence in recording order, valid however often",
        "  # you look or re-gate (false FAIL, false PASS each <= alpha over all scenarios);",
        "  # fixed -> Wilson bounds at the z below: approximate, for a single look only.",
        f"  min_runs: {defaults.min_runs}",
        f"  min_wilson_pass_rate: {defaults.min_wilson_pass_rate}",
        f"  failing_runs: {defaults.failing_runs}",
        f"  sequential: {defaults.sequential}",
        f"  alpha: {defaults.alpha}",
        f"  wilson_z: {defaults.wilson_z}",
        "  sprt:",
        "    # Wald's SPRT on exact integer counts (failing_runs: tolerate only); Ville's",
        "    # boundaries hold for any stopping rule; INCONCLUSIVE past max_runs.",
        f"    enabled: {'true' if sprt.enabled else 'false'}",
        f"    alpha: {sprt.alpha}",
        f"    beta: {sprt.beta}",
        f"    p0: {sprt.p0}",
        f"    p1: {sprt.p1}",
        f"    max_runs: {sprt.max_runs}",
        f"    boundaries: {sprt.boundaries}",
    ]
    if globbed := _wildcard_names(inferred.required_tools):
        lines += [
            "",
            "rules:",
            "  # Required tools whose names hold * or ? (required_tools refuses them).",
        ]
        lines += [
            f"  - {{kind: count, tool: {_pattern(t)}, min: 1, count_status: success}}"
            for t in globbed
        ]
    return "\n".join(lines) + "\n"


def spec_init(baseline: list[TraceFile], spec_id: str, name: str | None = None) -> str:
    """YAML text of the spec the baseline supports."""
    return render_yaml(infer(baseline), spec_id, name)
