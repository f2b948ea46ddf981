"""Check that ``abw gate --latent`` kept the verdict and added the advisory evidence.

    python benchmarks/latent_gate_check.py PLAIN_DIR LATENT_DIR PLAIN_EXIT LATENT_EXIT

Each folder is a ``--report-dir`` of the same gate, without and with ``--latent``. The exit
codes, verdicts, checks and statistics must be equal; the report with latent evidence must carry
``evidence_ledger.latent`` and its HTML the projection plot. Prints one line, exits 1 otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path

from abw.models.report import GateReport

PLOT_CAPTION = "Hidden-state trajectories projected to two dimensions"


def problems(plain_dir: Path, latent_dir: Path, plain_exit: int, latent_exit: int) -> list[str]:
    """What differs between the two gates, or is missing from the latent one."""
    plain, latent = (
        GateReport.model_validate_json((folder / "gate-report.json").read_bytes())
        for folder in (plain_dir, latent_dir)
    )
    found = []
    if plain_exit != latent_exit:
        found.append(f"exit code {plain_exit} without --latent, {latent_exit} with it")
    if plain.verdict != latent.verdict:
        found.append(f"verdict {plain.verdict} without --latent, {latent.verdict} with it")
    if plain.checks != latent.checks or plain.statistics != latent.statistics:
        found.append("the checks or statistics differ")
    advisory = latent.evidence_ledger.latent
    if advisory is None:
        found.append("the report has no evidence_ledger.latent")
    elif not advisory.projections:
        found.append("the latent evidence has no projections")
    html = (latent_dir / "report.html").read_text(encoding="utf-8")
    if PLOT_CAPTION not in html or "<svg" not in html:
        found.append("report.html has no latent plot")
    return found


def main() -> None:
    plain_dir, latent_dir, plain_exit, latent_exit = sys.argv[1:5]
    found = problems(Path(plain_dir), Path(latent_dir), int(plain_exit), int(latent_exit))
    if found:
        sys.exit("latent gate check FAILED: " + "; ".join(found))
    report = GateReport.model_validate_json((Path(latent_dir) / "gate-report.json").read_bytes())
    advisory = report.evidence_ledger.latent
    assert advisory is not None
    print(
        f"latent gate check: verdict {report.verdict} (exit {latent_exit}) with and without "
        f"--latent; advisory evidence from {advisory.baseline_trajectories} baseline and "
        f"{advisory.candidate_trajectories} candidate trajectories, plot present"
    )


if __name__ == "__main__":
    main()
