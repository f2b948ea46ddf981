"""Gate a refund agent inside its own test suite with the abw pytest plugin (pytest-abw).

The plugin comes with abw (entry point ``pytest11``): the ``abw_gate`` fixture gates the runs a
test produced against the baseline under the reviewed behavior spec, and fails the test with the
gate's reasons. Run it with::

    pytest examples/pytest

``test_good_candidate_passes`` passes. ``test_regressed_candidate_is_blocked`` FAILS on purpose:
in 3 of its 20 runs the agent commits the refund *before* the fraud-policy check, while its
final JSON answer is identical to the baseline's. The failure message names the violated
contract and the runs and spans that broke it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from abw.importers import get_importer
from abw.importers.base import ImportOptions
from abw.importers.common import parse_labels, parse_output_fields

EXAMPLE = Path(__file__).resolve().parent.parent / "refund-policy"


def run_refund_agent(variant: str) -> list:
    """Stand-in for running the agent on the refund ticket 20 times in this test.

    A real suite would run the agent here and import each new transcript. This one imports the
    recorded Claude Code transcripts of ``variant`` with the same options as the baseline.
    """
    claude = get_importer("claude")
    options = ImportOptions(
        scenario_id="refund-policy",
        environment="demo",
        labels=parse_labels("classify,lookup_order,policy_check:guardrail,refund_commit"),
        output_fields=parse_output_fields(
            "decision,order_id,refund_amount,currency,fraud_check_passed"
        ),
        exported_at="2026-06-01T00:00:00Z",
    )
    transcripts = sorted((EXAMPLE / "transcripts" / variant).glob("*.jsonl"))
    return [trace for path in transcripts for trace in claude.import_file(path, options)]


GATE = pytest.mark.abw(
    baseline=EXAMPLE / "traces" / "baseline",
    spec=EXAMPLE / "behavior.yaml",
)


@GATE
def test_good_candidate_passes(abw_gate):
    report = abw_gate(run_refund_agent("good"))
    assert report.verdict in ("PASS", "WARN")


@GATE
def test_regressed_candidate_is_blocked(abw_gate):
    abw_gate(run_refund_agent("regressed"))  # fails: refund_commit before policy_check
