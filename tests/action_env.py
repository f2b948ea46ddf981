"""Helpers for the Action tests: a simulated runner environment and hand-built gate reports."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from abw.gating.ledger import inputs_digest
from abw.models.report import (
    Check,
    EvidenceItem,
    EvidenceLedger,
    GateReport,
    InputFile,
    Inputs,
    RunStatus,
    SampleStatistics,
    SprtState,
    ToolInfo,
    Violation,
)

REPO = Path(__file__).resolve().parents[1]
HEAD_SHA = "a" * 40
MERGE_SHA = "b" * 40


def make_report(
    verdict: str = "FAIL", violations: int = 1, message_chars: int = 0, extra_checks: int = 0
) -> GateReport:
    """A small but complete gate report; ``violations`` located findings on the order check,
    plus ``extra_checks`` more checks with that verdict (to make a long report)."""
    check_verdict = verdict if verdict != "PASS" else "PASS"
    extra = "x" * message_chars
    checks = [
        Check(
            id="behavior_contract.required_order[0]",
            rule="required_order",
            category="behavior_contract" if verdict == "FAIL" else "diff_shape",
            verdict=check_verdict,
            message=f"refund_commit ran before policy_check.{extra}",
            hard=verdict == "FAIL",
            runs_checked=max(violations, 1),
            violations=[
                Violation(
                    trace_id=f"run-{i:04d}",
                    trace_file=f"traces/candidate/run-{i:04d}.json",
                    span_ordinals=[3, 5],
                    span_lines=[9 + i % 7, 11],
                    message="refund_commit at ordinal 3 has no earlier policy_check",
                )
                for i in range(violations if verdict != "PASS" else 0)
            ],
        )
    ]
    checks += [
        Check(
            id=f"behavior_contract.required_tools[{i}]",
            rule="required_tools",
            category="behavior_contract",
            verdict=verdict,
            message=f"Tool number {i} of the contract was missing in some runs. {extra}",
            hard=True,
            violations=[
                Violation(
                    trace_id=f"run-{i:04d}",
                    trace_file=f"traces/candidate/run-{i:04d}.json",
                    message=f"tool_{i} never succeeded",
                )
            ],
        )
        for i in range(extra_checks)
    ]
    return GateReport(
        tool=ToolInfo(version="0.1.0"),
        verdict=verdict,
        summary=f"{verdict}: 1 check decided the verdict.",
        spec_id="refund-policy",
        checks=checks,
        diff=[],
        statistics=[
            SampleStatistics(
                n=3,
                k=3,
                pass_rate=1.0,
                z=1.96,
                threshold=0.7,
                wilson_lower=0.44,
                wilson_upper=1.0,
                wilson_decision="inconclusive",
                min_runs=1,
                sprt=SprtState(enabled=False, decision="disabled"),
            )
        ],
        runs=[
            RunStatus(
                role="candidate",
                trace_id="run-0000",
                trace_file="traces/candidate/run-0000.json",
                passed=verdict != "FAIL",
                path_length=4,
                errors=0,
                retries=0,
            )
        ],
        evidence_ledger=EvidenceLedger(
            used=[EvidenceItem(kind="tool_trajectory", description="observable tool calls")],
            advisory=[],
            never_used=[EvidenceItem(kind="private_reasoning", description="never read")],
        ),
        inputs=Inputs(
            spec_file="behavior.yaml",
            spec_sha256="c" * 64,
            traces=[
                InputFile(
                    role="candidate",
                    file="traces/candidate/run-0000.json",
                    sha256="d" * 64,
                    trace_id="run-0000",
                )
            ],
            digest=inputs_digest("c" * 64, ["d" * 64]),
        ),
    )


def parse_outputs(text: str) -> dict[str, str]:
    """Parse ``$GITHUB_OUTPUT`` written in the ``name<<delimiter`` heredoc form."""
    outputs: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = re.fullmatch(r"([A-Za-z0-9_-]+)<<(ghadelimiter_[0-9a-f-]{36})", lines[i])
        if not match:
            assert lines[i] == "", f"unexpected output line {lines[i]!r}"
            i += 1
            continue
        name, delimiter = match.groups()
        end = lines.index(delimiter, i + 1)
        outputs[name] = "\n".join(lines[i + 1 : end])
        i = end + 1
    return outputs


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


@dataclass
class Runner:
    """A simulated runner: workspace, event file, file-command files and INPUT_* variables."""

    root: Path
    api_url: str
    repository: str = "octo/agents"
    event_name: str = "pull_request"
    pr_number: int | None = 7
    head_repo: str | None = None
    #: the runner's event payload as given (else one built from the fields above)
    payload: dict | None = None
    #: what $GITHUB_OUTPUT / $GITHUB_STEP_SUMMARY already hold when the step starts
    output_prefix: str = ""
    summary_prefix: str = ""
    #: RLIMIT_FSIZE for the step (a disk that fills up at this file size), None for none
    file_size_limit: int | None = None
    head_sha: str = HEAD_SHA

    def __post_init__(self) -> None:
        self.workspace = self.root / "workspace"
        self.workspace.mkdir(parents=True, exist_ok=True)
        self.files = self.root / "runner"
        self.files.mkdir(exist_ok=True)

    def event(self) -> dict:
        if self.payload is not None:
            return self.payload
        if self.event_name not in ("pull_request", "pull_request_target") or not self.pr_number:
            return {"ref": "refs/heads/main", "after": MERGE_SHA}
        return {
            "action": "synchronize",
            "number": self.pr_number,
            "pull_request": {
                "number": self.pr_number,
                "head": {
                    "sha": self.head_sha,
                    "repo": {"full_name": self.head_repo or self.repository},
                },
                "base": {"sha": "f" * 40, "repo": {"full_name": self.repository}},
            },
        }

    def _limits(self) -> None:
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.file_size_limit, self.file_size_limit))

    def run(
        self,
        inputs: dict[str, str],
        cwd: Path | None = None,
        script: Path | None = None,
        **extra_env: str,
    ) -> Result:
        """Run ``entrypoint.py`` as a subprocess, like the container's ENTRYPOINT does."""
        event_path = self.files / "event.json"
        event_path.write_text(json.dumps(self.event()), encoding="utf-8")
        output = self.files / "output.txt"
        summary = self.files / "summary.md"
        output.write_text(self.output_prefix, encoding="utf-8")
        summary.write_text(self.summary_prefix, encoding="utf-8")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.files),
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_EVENT_NAME": self.event_name,
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_API_URL": self.api_url,
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_REPOSITORY": self.repository,
            "GITHUB_RUN_ID": "4242",
            "GITHUB_SHA": MERGE_SHA,
            "ABW_GITHUB_BACKOFF": "0.05",
            "ABW_GITHUB_WRITE_INTERVAL": "0",
            "ABW_GITHUB_TIMEOUT": "10",
            "INPUT_GITHUB-TOKEN": "ghs_faketoken123",
            "INPUT_CHECK-NAME": "abw gate",
            **{f"INPUT_{k.replace(' ', '_').upper()}": v for k, v in inputs.items()},
            **extra_env,
        }
        proc = subprocess.run(
            [sys.executable, str(script or REPO / "entrypoint.py")],
            cwd=cwd or self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            preexec_fn=self._limits if self.file_size_limit else None,
        )
        return Result(
            proc.returncode,
            proc.stdout,
            proc.stderr,
            parse_outputs(output.read_text(encoding="utf-8")),
            summary.read_text(encoding="utf-8"),
        )


SPEC_YAML = """\
schema_version: behavior-spec/v0
id: refund-policy
invariants:
  required_tools: [lookup_order, policy_check, refund_commit]
  required_order:
    - {before: policy_check, after: refund_commit}
  max_path_length: 8
thresholds:
  path_edit_distance_warn: 0.1
  path_edit_distance_fail: 0.6
  fingerprint_distance_warn: 0.5
  fingerprint_distance_fail: 5.0
  tool_jaccard_warn: 0.1
  tool_jaccard_fail: 0.6
  min_runs: 3
  min_wilson_pass_rate: 0.5
"""
GOOD_PATH = ["lookup_order", "policy_check", "refund_commit"]
CANDIDATES = {
    # verdict -> (runs, path); 8 all-pass runs are the fewest the anytime rule PASSes at tau 0.5
    "PASS": (8, GOOD_PATH),
    "WARN": (8, ["lookup_order", "policy_check", "log_event", "refund_commit"]),
    "FAIL": (5, ["lookup_order", "refund_commit", "policy_check"]),
    "INCONCLUSIVE": (1, GOOD_PATH),
}


def write_run(path: Path, trace_id: str, tools: list[str], scenario: str = "refund") -> None:
    """One small synthetic trace (an llm span, then the tool path) in the one-span-a-line layout."""
    from abw.hashing import sha256_hex
    from abw.models.trace import Run, Source, Span, Trace
    from abw.traceio import write_trace

    spans = [Span(span_id=f"{trace_id}-0", ordinal=0, type="llm", name="model", status="success")]
    for ordinal, tool in enumerate(tools, start=1):
        spans.append(
            Span(
                span_id=f"{trace_id}-{ordinal}",
                ordinal=ordinal,
                type="tool",
                name=tool,
                status="success",
                input_hash=sha256_hex(f"{trace_id}:{ordinal}"),
            )
        )
    trace = Trace(
        source=Source(platform="test", export_format="synthetic", source_hash=sha256_hex(trace_id)),
        run=Run(trace_id=trace_id, scenario_id=scenario, final_status="success"),
        spans=spans,
    )
    write_trace(trace, path)


def write_gate_workspace(workspace: Path, verdict: str, extra_runs: int = 0) -> dict[str, str]:
    """Baseline, a candidate meant to give ``verdict`` and a spec; returns the path inputs."""
    for i in range(5):
        write_run(workspace / "traces" / "baseline" / f"b{i}.json", f"base-{i}", GOOD_PATH)
    runs, path = CANDIDATES[verdict]
    for i in range(runs + extra_runs):
        write_run(workspace / "traces" / "candidate" / f"c{i:03d}.json", f"cand-{i:03d}", path)
    (workspace / "behavior.yaml").write_text(SPEC_YAML, encoding="utf-8")
    return {"baseline": "traces/baseline", "candidate": "traces/candidate", "spec": "behavior.yaml"}


def publish(runner: Runner, report, **inputs: str):
    """Run the Action in published-report mode on ``report`` (written into the workspace)."""
    (runner.workspace / "reports").mkdir(exist_ok=True)
    (runner.workspace / "reports" / "in.json").write_text(report.model_dump_json())
    return runner.run({"report": "reports/in.json", **inputs})
