"""The evidence ledger, the inputs block (hashes and digest) and the one-sentence summary."""

from __future__ import annotations

from operator import attrgetter
from pathlib import PurePath
from statistics import NormalDist
from typing import Any

from abw.hashing import sha256_hex
from abw.models.report import (
    Check,
    EvidenceItem,
    EvidenceLedger,
    InputFile,
    Inputs,
    LatentAdvisory,
    Multiplicity,
    Role,
    Verdict,
)
from abw.models.spec import Thresholds
from abw.sharedfields import built
from abw.text import plural


def evidence_ledger(latent: LatentAdvisory | None, output_checked: bool) -> EvidenceLedger:
    """What the verdict rests on, what is shown only as advice, and what is never read."""
    output_use = (
        "Fields named in the spec are compared with run.canonical_output."
        if output_checked
        else "Available in run.canonical_output; this spec names no output fields to check."
    )
    return EvidenceLedger(
        used=[
            EvidenceItem(
                kind="observable_tool_trajectory",
                description="Tool, guardrail and other non-llm spans: their names, order "
                "(ordinals) and status, as recorded in the traces.",
            ),
            EvidenceItem(kind="canonical_output_fields", description=output_use),
            EvidenceItem(
                kind="sample_statistics",
                description="Per-run pass counts in recording order: an anytime-valid "
                "confidence sequence (or Wilson bounds with sequential: fixed, or the SPRT), "
                "one error budget over all scenarios.",
            ),
        ],
        advisory=[
            EvidenceItem(
                kind="open_model_representation_trajectory",
                description=(
                    "Hidden-state entropy/velocity/curvature from a local open-weight model; "
                    + (
                        "attached below, shown only, never changes the verdict."
                        if latent is not None
                        else "not supplied for this report; it never changes the verdict."
                    )
                ),
            )
        ],
        never_used=[
            EvidenceItem(
                kind="private_reasoning",
                description="Chain-of-thought or thinking text is never read or stored.",
            ),
            EvidenceItem(
                kind="hosted_model_internals",
                description="Hidden states, logits or weights of hosted models (Claude, Codex, "
                "...) are not accessible and are never used.",
            ),
            EvidenceItem(
                kind="raw_content",
                description="Prompts, tool inputs and outputs, paths and commands exist only as "
                "SHA-256 hashes; raw text is never used.",
            ),
        ],
        latent=latent,
    )


def inputs_digest(spec_sha256: str, trace_sha256s: list[str]) -> str:
    """SHA-256 of the spec hash and every trace hash, sorted, joined by newlines."""
    return sha256_hex("\n".join(sorted([spec_sha256, *trace_sha256s])))


def inputs(spec_file: str, spec_sha256: str, roles: list[tuple[Role, list[Any]]]) -> Inputs:
    """Every file the gate read with its SHA-256, in (role, file) order (the runs: their
    summaries, abw.gating.summary.RunHead). The spec's path is named as a path names it
    (``./behavior.yaml`` as ``behavior.yaml``), as the trace folders' walk names the runs: the
    CLI, the library and the MCP server, given the same path, write the same bytes."""
    files = [
        built(
            InputFile,
            {
                "role": role,
                "file": t.path,
                "sha256": t.sha256,
                "trace_id": t.trace_id,
                "scenario_id": t.scenario_id,
            },
        )
        for role, traces in roles
        for t in traces
    ]
    files.sort(key=attrgetter("role", "file", "sha256"))
    return Inputs(
        spec_file=str(PurePath(spec_file)) if spec_file else spec_file,
        spec_sha256=spec_sha256,
        traces=files,
        digest=inputs_digest(spec_sha256, [f.sha256 for f in files]),
    )


def summary(verdict: Verdict, checks: list[Check], candidate_runs: int) -> str:
    """One sentence: the verdict and the check that decided it."""
    deciding = [c for c in checks if c.verdict == verdict]
    if verdict == "PASS":
        return (
            f"PASS: all {plural(len(checks), 'check')} passed over "
            f"{plural(candidate_runs, 'candidate run')}."
        )
    first = deciding[0]
    others = f" ({len(deciding) - 1} more)" if len(deciding) > 1 else ""
    lead = {
        "FAIL": "FAIL: do not ship",
        "INCONCLUSIVE": "INCONCLUSIVE: not enough evidence",
        "WARN": "WARN: no check failed, but one needs review",
    }[verdict]
    return f"{lead}; {first.id}: {first.message}{others}"


def multiplicity(thresholds: Thresholds, scenarios: int) -> Multiplicity:
    """The correction that keeps the whole gate's false-FAIL rate within its budget, in one
    sentence that agrees with the levels ``statistics[]`` shows: a sequential rule spends a
    scenario's share over its restarts (the first sequence gets half), and under
    ``failing_runs: forbid`` no FAIL side is tested."""
    if thresholds.sprt.enabled:
        alpha, what = thresholds.sprt.alpha, "sprt.alpha"
    elif thresholds.sequential == "fixed":
        alpha = NormalDist().cdf(-thresholds.wilson_z)
        what = "the one-sided level of wilson_z"
    else:
        alpha, what = thresholds.alpha, "alpha"
    spent = thresholds.sprt.enabled or thresholds.sequential != "fixed"
    share = alpha / max(scenarios, 1)
    first = (
        f" over all its sequences (the first at half of it, {share / 2:.4g}; each restart at "
        "half the one before)"
        if spent
        else ""
    )
    if scenarios <= 1:
        return Multiplicity(
            method="none",
            scenarios=scenarios,
            alpha=alpha,
            message=f"One scenario: its pass-rate test uses the whole budget ({what} = "
            f"{alpha:.4g}){first}.",
        )
    if thresholds.failing_runs == "forbid":
        fail_side = (
            "the FAIL side is not tested (failing_runs: forbid: a failing run FAILs its hard "
            "check), so it needs no correction"
        )
    else:
        within = (
            "stays within"
            if spent
            else "is meant to stay within (Wilson's interval is approximate)"
        )
        fail_side = (
            f"each scenario's FAIL side is tested at {what}/{scenarios} = {share:.4g}{first}, "
            f"so a false FAIL of the gate as a whole {within} {alpha:.4g}"
        )
    return Multiplicity(
        method="bonferroni",
        scenarios=scenarios,
        alpha=alpha,
        message=f"Bonferroni over {scenarios} scenarios: {fail_side}; a PASS needs every "
        "scenario to PASS, so the PASS side needs no correction.",
    )
