"""The Action's optional sampling mode: with the ``scenarios`` input, run ``abw sample`` in the
workspace first (the agent's command runs inside the Action's container), then gate and publish
the recorded candidate folder as usual. Docs: docs/sampling.md ("In the Action")."""

from __future__ import annotations

import os
from pathlib import Path

from abw.errors import AbwInputError
from abw.github.commands import Console
from abw.github.inputs import ActionInputs
from abw.github.paths import (
    hand_to_workspace_owner,
    missing_folders,
    relative_posix,
    resolve_in_workspace,
)


def sample_before_gate(inputs: ActionInputs, workspace: Path, console: Console) -> None:
    """Record runs into the ``candidate`` folder until every scenario is decided or the
    ``budget-runs`` / ``max-runs`` limits are spent; one log line per run."""
    from abw.sample.loop import Limits, SampleInterrupted, Sampler
    from abw.sample.text import run_line, sample_summary

    if inputs.report:
        raise AbwInputError("give either scenarios or report, not both", field="scenarios")
    paths = {
        name: relative_posix(resolve_in_workspace(value, workspace, name=name), workspace)
        for name, value in (
            ("scenarios", inputs.scenarios),
            ("baseline", inputs.baseline),
            ("spec", inputs.spec),
        )
    }
    out = resolve_in_workspace(inputs.candidate, workspace, name="candidate", must_exist=False)
    os.chdir(workspace)
    created = missing_folders(out, workspace)
    limits = Limits(max_runs=inputs.max_runs, budget_runs=inputs.budget_runs)
    sampler = Sampler(
        Path(paths["scenarios"]),
        Path(paths["baseline"]),
        Path(paths["spec"]),
        Path(relative_posix(out, workspace)),
        limits,
        on_run=lambda event: console.info(run_line(event)),
    )
    try:
        result = sampler.run()
    except SampleInterrupted as exc:
        console.warning(f"abw sample {exc}; the runs recorded so far are gated", title="abw")
        return
    finally:  # the recorded runs are the workspace owner's, as the report files are
        hand_to_workspace_owner([*created, *out.rglob("*")] if out.exists() else created, workspace)
    for line in sample_summary(result).splitlines():
        console.info(line)
