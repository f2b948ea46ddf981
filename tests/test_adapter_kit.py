"""The adapter kit on every built-in importer and the example adapter; the kit can fail; the
example adapter registers through the ``abw.importers`` entry-point group."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from abw.adapter_kit import (
    CANARY,
    AdapterKit,
    check_determinism,
    check_schema,
    find_leaks,
    inject_canaries,
    run_adapter_kit,
)
from abw.importers.base import ImportOptions
from tests.conftest import CORPUS, REPO
from tests.importkit import claude_corpus_runs

pytest_plugins = ("pytester",)

EXAMPLE = REPO / "examples" / "adapter"
sys.path.insert(0, str(EXAMPLE / "src"))

from abw_example_adapter import StepsImporter  # noqa: E402

SAMPLES: dict[str, list[Path]] = {
    "codex": sorted((CORPUS / "codex").glob("*.jsonl")),
    "otel": sorted((CORPUS / "otel").glob("*")),
    "any-agent": sorted((CORPUS / "any-agent").glob("*.json")),
    "openai-agents": sorted((CORPUS / "openai-agents").glob("*.json")),
    "langsmith": sorted((CORPUS / "langsmith").glob("*.json")),
    "gemini": sorted((CORPUS / "gemini-cli").glob("*session-*.json")),
    "openhands": sorted((CORPUS / "openhands").glob("*.json")),
    "swe-agent": sorted((CORPUS / "swe-agent").glob("*.traj"))
    + sorted((CORPUS / "mini-swe-agent").glob("*.traj.json")),
    "claude": claude_corpus_runs(),
}
#: Raw keys an importer keeps on purpose (identities, not content).
KEEP = {
    "gemini": ("agent_name",),  # delegate_to_agent's subagent: the handoff's name
    "openhands": ("action",),  # the action kind (run, edit, ...): an enum
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_importer_passes_the_kit_on_the_corpus(name):
    samples = SAMPLES[name]
    assert samples, name
    report = run_adapter_kit(
        name,
        samples,
        keep=KEEP.get(name, ()),
        # Claude Code reads subagent transcripts next to the session file
        relocatable=name != "claude",
    )
    report.raise_if_failed()
    assert report.traces >= len(samples)


class TestExampleAdapter(AdapterKit):
    """The documented way: subclass the kit (runs its four checks as tests)."""

    importer = StepsImporter
    samples = sorted((EXAMPLE / "samples").glob("*.jsonl"))


# ----------------------------------------------------------------- the kit can fail


class _Leaky(StepsImporter):
    """Copies each step's raw input into an attribute: a redaction bug."""

    def import_file(self, path, options):
        traces = super().import_file(path, options)
        steps = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
        inputs = [s.get("input") for s in steps if s.get("type") != "final"]
        for trace in traces:
            for span, value in zip(trace.spans, inputs, strict=False):
                span.attributes["debug_input"] = (
                    value if isinstance(value, str) else json.dumps(value)
                )
        return traces


class _Clock(StepsImporter):
    """Stamps each import with a counter: not deterministic."""

    calls = 0

    def import_file(self, path, options):
        traces = super().import_file(path, options)
        _Clock.calls += 1
        for trace in traces:
            trace.run.trace_id = f"{trace.run.trace_id}-{_Clock.calls}"
        return traces


class _Gappy(StepsImporter):
    """Numbers its spans from 1 and gives a bogus hash: schema/invariant bugs."""

    def import_file(self, path, options):
        traces = super().import_file(path, options)
        for trace in traces:
            for span in trace.spans:
                span.ordinal += 1
            trace.spans[0].input_hash = "not-a-hash"
        return traces


SAMPLE = EXAMPLE / "samples" / "refund-run.jsonl"


def test_kit_catches_a_leak():
    report = run_adapter_kit(_Leaky(), [SAMPLE])
    assert not report.ok
    assert any("planted content leaked" in p for p in report.problems)
    assert any(
        "raw content copied into spans[0].attributes.debug_input" in p for p in report.problems
    )
    with pytest.raises(AssertionError, match="problem"):
        report.raise_if_failed()


def test_kit_catches_nondeterminism():
    problems = check_determinism(_Clock(), SAMPLE)
    assert problems and "differ" in problems[0]


def test_kit_catches_schema_problems():
    report = run_adapter_kit(_Gappy(), [SAMPLE], checks=("schema",))
    text = "\n".join(report.problems)
    assert "ordinals are not 0.." in text
    assert "not SHA-256 hex" in text or "schema" in text


def test_kit_catches_an_inconsistent_status():
    (trace,) = StepsImporter().import_file(SAMPLE, ImportOptions())
    trace.spans[1].status = "success"
    trace.spans[1].outcome = "error"
    assert any("does not match outcome" in p for p in check_schema(trace))


def test_find_leaks_sees_a_copied_command(tmp_path):
    raw = b'{"cmd": "rm -rf /srv/data", "name": "shell"}'
    (trace,) = StepsImporter().import_file(SAMPLE, ImportOptions())
    assert find_leaks(trace, raw) == []
    trace.run.environment = "ran rm -rf /srv/data today"
    assert find_leaks(trace, raw) == ["raw content copied into run.environment: 'rm -rf /srv/data'"]


def test_find_leaks_sees_a_command_copied_into_the_action_attribute():
    """``attributes.action`` was exempt as an identity: an importer that wrote a whole action
    object there (OpenHands V1's, its command text included) passed the kit."""
    raw = b'{"action": {"command": "curl -u user:secret https://x"}, "kind": "ActionEvent"}'
    (trace,) = StepsImporter().import_file(SAMPLE, ImportOptions())
    trace.spans[0].attributes["action"] = "{'command': 'curl -u user:secret https://x'}"
    assert find_leaks(trace, raw) == [
        "raw content copied into spans[0].attributes.action: 'curl -u user:secret https://x'"
    ]


def test_inject_canaries_keeps_structure():
    document = {
        "type": "response_item",
        "payload": {
            "type": "function_call",
            "name": "shell",
            "arguments": json.dumps({"command": ["bash", "-lc", "ls"]}),
            "call_id": "c1",
        },
        "attributes": [{"key": "input.value", "value": {"stringValue": "secret"}}],
    }
    planted = inject_canaries(document)
    assert planted["payload"]["name"] == "shell" and planted["payload"]["call_id"] == "c1"
    args = json.loads(planted["payload"]["arguments"])
    assert all(CANARY in part for part in args["command"])
    assert CANARY in planted["attributes"][0]["value"]["stringValue"]


# ----------------------------------------------------------------- the entry point


@pytest.fixture
def installed_example(tmp_path, monkeypatch):
    """Install the example adapter for this test only: a dist-info on a temporary sys.path."""
    site = tmp_path / "site"
    dist = site / "abw_example_adapter-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: abw-example-adapter\nVersion: 0.1.0\n"
    )
    pyproject = (EXAMPLE / "pyproject.toml").read_text()
    assert 'steps-jsonl = "abw_example_adapter:StepsImporter"' in pyproject
    (dist / "entry_points.txt").write_text(
        "[abw.importers]\nsteps-jsonl = abw_example_adapter:StepsImporter\n"
    )
    monkeypatch.syspath_prepend(str(site))
    return site


def test_example_adapter_appears_in_import_help_and_imports(installed_example, run_cli, tmp_path):
    code, out, _ = run_cli("import", "--help")
    assert code == 0 and "steps-jsonl" in out
    out_file = tmp_path / "trace.json"
    code, _, err = run_cli(
        "import", "steps-jsonl", "--input", SAMPLE, "--out", out_file, "--output-fields", "decision"
    )
    assert code == 0, err
    trace = json.loads(out_file.read_text())
    assert [s["name"] for s in trace["spans"]] == [
        "gpt-4o-mini",
        "lookup_order",
        "policy_check",
        "refund_commit",
        "refund_commit",
    ]
    assert trace["run"]["canonical_output"] == {"decision": "refund_approved"}
    assert "4242" not in out_file.read_text()
    run = run_adapter_kit("steps-jsonl", [SAMPLE])  # the kit resolves registered names too
    assert run.ok, run.problems


def test_example_adapter_is_absent_without_installation(run_cli):
    code, out, _ = run_cli("import", "--help")
    assert code == 0 and "steps-jsonl" not in out and "codex" in out


def test_example_adapter_own_tests_run_under_pytest(pytester):
    pytester.syspathinsert(str(EXAMPLE / "src"))
    test_file = EXAMPLE / "tests" / "test_steps_adapter.py"
    pytester.makepyfile(
        test_steps_adapter=test_file.read_text().replace(
            'Path(__file__).parent.parent / "samples"', f"Path({str(EXAMPLE / 'samples')!r})"
        )
    )
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)
