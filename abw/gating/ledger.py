"""The evidence ledger, the inputs block (hashes and digest) and the one-sentence summary."""

from __future__ import annotations

from abw.hashing import sha256_hex
from abw.models.report import (
    Check,
    EvidenceItem,
    EvidenceLedger,
    InputFile,
    Inputs,
    LatentAdvisory,
    Role,
    Verdict,
)
from abw.text import plural
from abw.traceio import TraceFile


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
                description="Per-run pass counts: Wilson bounds and, when enabled, Wald's SPRT.",
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


def inputs(spec_file: str, spec_sha256: str, roles: list[tuple[Role, list[TraceFile]]]) -> Inputs:
    """Every file the gate read with its SHA-256, in (role, file) order."""
    files = [
        InputFile(
            role=role,
            file=t.path,
            sha256=t.sha256,
            trace_id=t.trace.run.trace_id,
            scenario_id=t.trace.run.scenario_id,
        )
        for role, traces in roles
        for t in traces
    ]
    files.sort(key=lambda f: (f.role, f.file, f.sha256))
    return Inputs(
        spec_file=spec_file,
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
        "WARN": "WARN: hard checks pass but a soft threshold was exceeded",
    }[verdict]
    return f"{lead}; {first.id}: {first.message}{others}"
