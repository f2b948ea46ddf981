"""The refund-policy example end to end: import -> spec init -> review -> diff -> gate -> reports.

The example lives in ``examples/refund-policy/`` of a clone: Claude Code transcripts written by
``generate.py`` for a baseline and three candidates. Everything here is deterministic: imports
record a fixed ``exported_at``, so the same transcripts give byte-identical traces and reports.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from abw.errors import AbwInputError

EXPORTED_AT = "2026-06-01T00:00:00Z"
SETS = ("baseline", "good", "regressed", "small")
#: What each candidate is built to show.
EXPECTED = {"good": "PASS", "regressed": "FAIL", "small": "INCONCLUSIVE"}
ACCEPTED_ORDER = "{before: policy_check, after: refund_commit},"
REVIEWED_OUTPUT = """output:
  # Reviewed: the answer every run must give for ticket T-5812.
  required_fields: [decision, order_id, refund_amount, fraud_check_passed]
  expected:
    decision: refund_approved
    order_id: A-1042
    refund_amount: 1200
    fraud_check_passed: true
"""


def find_example(explicit: Path | None = None) -> Path:
    """The example folder: given, next to the package in a clone, or under the current folder."""
    candidates = (
        [explicit]
        if explicit is not None
        else [
            Path(__file__).resolve().parents[1] / "examples" / "refund-policy",
            Path.cwd() / "examples" / "refund-policy",
        ]
    )
    for folder in candidates:
        if (folder / "generate.py").is_file() and (folder / "transcripts").is_dir():
            return folder
    raise AbwInputError(
        "the refund-policy example was not found (run from a clone of abw or pass --example)",
        file=candidates[0],
    )


def load_generator(example: Path) -> ModuleType:
    """The example's ``generate.py`` as a module (its labels and output fields)."""
    spec = importlib.util.spec_from_file_location("abw_refund_example", example / "generate.py")
    if spec is None or spec.loader is None:
        raise AbwInputError("cannot load the example generator", file=example / "generate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def import_set(transcripts: Path, out: Path, generator: ModuleType) -> list[Path]:
    """Import one folder of transcripts with the real Claude importer into ``out``."""
    from abw.importers import get_importer
    from abw.importers.base import ImportOptions
    from abw.importers.common import parse_labels, parse_output_fields
    from abw.traceio import write_trace

    importer = get_importer("claude")
    options = ImportOptions(
        scenario_id=generator.SCENARIO_ID,
        environment="demo",
        labels=parse_labels(generator.BASH_TOOL_LABELS),
        output_fields=parse_output_fields(generator.OUTPUT_FIELDS),
        exported_at=EXPORTED_AT,
    )
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.json"):
        old.unlink()
    written = []
    for path in importer.discover(transcripts):
        (trace,) = importer.import_file(path, options)
        written.append(write_trace(trace, out / f"{path.stem}.json"))
    return written


def review(generated: str) -> str:
    """The reviewed spec: ``spec init`` output with the two edits a person makes.

    It accepts the suggested order constraint policy_check before refund_commit and states the
    expected answer fields.
    """
    accepted = generated.replace("# " + ACCEPTED_ORDER, ACCEPTED_ORDER)
    start = accepted.find("output:\n")
    end = accepted.find("\nthresholds:")
    if accepted == generated or start < 0 or end < 0:
        raise AbwInputError("spec init output changed shape; update abw.demo.review")
    return accepted[:start] + REVIEWED_OUTPUT + accepted[end:]


def build_spec(baseline: Path, out: Path) -> tuple[Path, Path]:
    """spec init -> ``behavior.generated.yaml``; the reviewed version -> ``behavior.yaml``."""
    from abw.atomic import write_atomic
    from abw.spec_init import spec_init
    from abw.traceio import load_traces

    generated = spec_init(
        load_traces(baseline), "supportbot-refund-behavior", "SupportBot refund behavior"
    )
    generated_path = write_atomic(out / "behavior.generated.yaml", generated)
    reviewed_path = write_atomic(out / "behavior.yaml", review(generated))
    return generated_path, reviewed_path


def build_example(example: Path) -> None:
    """Refresh the committed traces and reviewed spec of the example from its transcripts."""
    generator = load_generator(example)
    for name in SETS:
        import_set(example / "transcripts" / name, example / "traces" / name, generator)
    generated, _ = build_spec(example / "traces" / "baseline", example)
    generated.unlink()


@dataclass
class Outcome:
    candidate: str
    verdict: str
    expected: str
    summary: str
    folder: Path
    files: dict[str, Path]


def run_demo(
    out: Path, example: Path | None = None, formats: tuple[str, ...] | None = None
) -> tuple[list[Outcome], dict[str, Path]]:
    """Run the whole example into ``out``; returns each candidate's outcome and the key files."""
    from abw.atomic import write_atomic
    from abw.cli.diff_cmd import format_text
    from abw.diffing import diff
    from abw.gating import report_json, run_gate
    from abw.traceio import load_traces

    example = find_example(example)
    generator = load_generator(example)
    traces = out / "traces"
    for name in SETS:
        import_set(example / "transcripts" / name, traces / name, generator)
    generated, reviewed = build_spec(traces / "baseline", out)
    render = importlib.util.find_spec("abw.render") is not None
    outcomes = []
    baseline = load_traces(traces / "baseline")
    for name, expected in EXPECTED.items():
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        files: dict[str, Path] = {}
        diff_text = format_text(diff(baseline, load_traces(traces / name)))
        files["diff"] = write_atomic(folder / "diff.txt", diff_text)
        report = run_gate(traces / "baseline", traces / name, reviewed)
        files["json"] = write_atomic(folder / "gate-report.json", report_json(report))
        if render:
            from abw.render import write_reports

            options = {} if formats is None else {"formats": formats}
            files.update(write_reports(report, folder, **options))
        outcomes.append(Outcome(name, report.verdict, expected, report.summary, folder, files))
    return outcomes, {"traces": traces, "generated_spec": generated, "spec": reviewed}
