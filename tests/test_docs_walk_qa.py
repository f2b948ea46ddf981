"""The docs walked as a new user on real files: outputs that would overwrite an input or land
in a trace folder (gate, sample, report, import), an empty scenario id, the bounds the reports
draw against tau, check ids on an explain miss, lines of validate's findings, spec init on
incomplete runs, raw-export hints, a misspelt spec key, and a trace changed after its gate."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from conftest import CORPUS, REPO, example_gate, one_line

EXAMPLE = REPO / "examples" / "refund-policy"
JAEGER = CORPUS / "otel" / "packetpanic__jaeger_get-inventory.json"


@pytest.fixture
def candidate(tmp_path) -> Path:
    """Twelve good runs of the example: every one passes, too few for the default rule."""
    folder = tmp_path / "candidate"
    folder.mkdir()
    for path in sorted((EXAMPLE / "traces" / "good").glob("*.json"))[:12]:
        shutil.copy(path, folder)
    return folder


def test_gate_refuses_an_out_that_is_its_spec(run_cli, tmp_path, candidate):
    spec = tmp_path / "behavior.yaml"
    shutil.copy(EXAMPLE / "behavior.yaml", spec)
    before = spec.read_bytes()
    args = example_gate(candidate)
    args[args.index("--spec") + 1] = str(spec)
    code, _, err = run_cli(*args, "--out", spec)
    assert code == 2
    assert one_line(err).endswith(
        f"{spec}: --out: it is the --spec file; the report would overwrite it\n"
    )
    assert spec.read_bytes() == before


@pytest.mark.parametrize("option", ["--out", "--report-dir"])
def test_gate_refuses_a_report_inside_the_candidate_folder(run_cli, candidate, option):
    target = candidate / ("gate-report.json" if option == "--out" else "reports")
    code, _, err = run_cli(*example_gate(candidate), option, target)
    assert code == 2
    assert f"{option}: inside the --candidate folder {candidate}" in one_line(err)
    assert not (candidate / "gate-report.json").exists() and not (candidate / "reports").exists()
    # the folder stays a folder of traces: the next gate reads it
    assert run_cli(*example_gate(candidate), "-q")[0] == 3


def test_gate_writes_a_report_into_a_hidden_folder_of_the_candidate(run_cli, candidate):
    code, _, _ = run_cli(*example_gate(candidate), "--out", candidate / ".abw" / "g.json", "-q")
    assert code == 3 and run_cli(*example_gate(candidate), "-q")[0] == 3


def test_sample_refuses_a_report_inside_its_out_folder(run_cli, tmp_path):
    scenarios = tmp_path / "scenarios.yaml"
    scenarios.write_text(
        "scenarios:\n  - id: refund-policy\n"
        f"    run: python {REPO / 'examples' / 'sample' / 'claude_agent.py'} --transcript "
        "{transcript}\n    importer: claude\n"
    )
    out = tmp_path / "traces"
    code, _, err = run_cli(
        "sample", "--scenarios", scenarios, "--baseline", EXAMPLE / "traces" / "baseline",
        "--spec", EXAMPLE / "behavior.yaml", "--out", out, "--report", out / "gate-report.json",
    )  # fmt: skip
    assert code == 2
    assert "--report: inside the --out folder" in one_line(err)
    assert not out.exists()  # refused before any agent run


def test_import_folder_never_overwrites_a_raw_export_there(run_cli, tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    export = folder / "spans.json"
    shutil.copy(JAEGER, export)
    code, _, err = run_cli("import", "otel", "--input", folder, "--out", folder)
    assert code == 2
    assert one_line(err).endswith(
        f"{export}: --out: exists and is not an agent-behavior-trace/v0 file; "
        "refusing to overwrite it\n"
    )
    assert export.read_bytes() == JAEGER.read_bytes()
    assert sorted(p.name for p in folder.iterdir()) == ["spans.json"]


@pytest.mark.parametrize("scenario", ["", " ", "refund-policy "])
def test_import_refuses_an_empty_scenario_id(run_cli, tmp_path, scenario):
    session = CORPUS / "claude-code" / "spotter__short.jsonl"
    out = tmp_path / "traces"
    code, _, err = run_cli(
        "import", "claude", "--input", session, "--out", out, "--scenario-id", scenario
    )
    assert code == 2
    assert f"--scenario-id: {scenario!r}: empty or with spaces around it" in one_line(err)
    assert not out.exists()


def test_reports_draw_the_bounds_that_decide(run_cli, tmp_path, candidate):
    """12 of 12 passing: Wilson's single-look bounds clear tau = 0.7, the confidence sequence
    that decides does not; the PR comment and the HTML show the sequence, not a passing bar."""
    reports = tmp_path / "reports"
    code, _, _ = run_cli(*example_gate(candidate), "--report-dir", reports, "-q")
    assert code == 3
    row = next(
        line
        for line in (reports / "report.md").read_text().splitlines()
        if line.startswith("| refund-policy | 12/12 |")
    )
    assert "[0.648, 1] <sub>confidence sequence</sub>" in row and "0.757" not in row
    html = (reports / "report.html").read_text()
    assert "Bounds of the deciding rule (confidence sequence) [0.648, 1]" in html
    assert 'stroke="#1a7f37" stroke-width="10"' not in html  # no green (passing) bar


def test_explain_miss_says_how_many_checks_there_are(run_cli, tmp_path, candidate):
    report = tmp_path / "gate-report.json"
    run_cli(*example_gate(candidate), "--out", report, "-q")
    code, _, err = run_cli("explain", "zzz", "--report", report)
    assert code == 2
    assert one_line(err).endswith(", \u2026 (16 in all)\n")


def test_validate_names_the_line_of_a_vacuous_name(run_cli, tmp_path):
    """``abw validate --baseline`` on a spec whose names no run shows: each finding names the
    line of the part it is about, as every other refusal does."""
    spec = tmp_path / "behavior.yaml"
    spec.write_text(
        "schema_version: behavior-spec/v0\nid: t\ninvariants:\n"
        "  required_tools: [policy_check]\n"
        "  required_order:\n    - {before: policy_check, after: refund_comit}\n"
        "rules:\n  - {kind: count, tool: clasify, max: 3}\n"
    )
    code, _, err = run_cli("validate", "--baseline", EXAMPLE / "traces" / "baseline", spec)
    assert code == 2
    assert err.splitlines() == [
        f"{spec}:6: invariants.required_order[0]: refund_comit matches no span in 24 runs; "
        "did you mean refund_commit?",
        f"{spec}:8: rules[0] (count): clasify matches no span in 24 runs; did you mean classify?",
    ]


def test_spec_init_says_when_baseline_runs_did_not_complete(run_cli, tmp_path):
    """Real Claude Code sessions, two cancelled and two failed: spec init still reads them (no
    tool is required then), and now says so instead of a bare '0 required tools'."""
    code, _, _ = run_cli(
        "import", "claude", "--input", CORPUS / "claude-code-live" / "shop",
        "--out", tmp_path / "traces", "--scenario-id", "shop", "-q",
    )  # fmt: skip
    assert code == 0
    spec = tmp_path / "behavior.yaml"
    code, out, err = run_cli("spec", "init", "--baseline", tmp_path / "traces", "--out", spec)
    assert code == 0 and "0 required tools" in out
    assert one_line(err) == (
        f"warning: {spec}: 4 of 11 baseline runs did not complete (2 cancelled, 2 error); their "
        "spans count too (required_tools holds only what they also did, the budgets cover their "
        "errors): re-record or remove them unless they are the behavior you accept\n"
    )


@pytest.mark.parametrize(
    ("given", "hint"),
    [
        # a folder of Gemini CLI JSON Lines sessions was sent to `abw import claude`
        (CORPUS / "gemini-cli-live", "`abw import gemini --input {given} --out traces/`"),
        # whole JSON documents written over many lines had no hint at all
        (
            CORPUS / "gemini-cli" / "codemie__session-2025-12-01T21-45-5b959dae.json",
            "this looks like a Gemini CLI session, not an abw document: import it first with "
            "`abw import gemini --input {given} --out traces/`",
        ),
        (JAEGER, "this looks like an OpenTelemetry export, not an abw document"),
        # a Claude Code project folder: the gate stopped at a subagent's .meta.json, unhinted
        (
            CORPUS / "claude-code-live" / "shop",
            "this looks like a Claude Code subagent's metadata, not an abw document: import it "
            "first with `abw import claude --input {given} --out traces/`",
        ),
    ],
)
def test_a_raw_export_given_as_traces_names_its_importer(run_cli, tmp_path, given, hint):
    code, _, err = run_cli(*example_gate(given), "-q")
    assert code == 2
    assert hint.format(given=given) in one_line(err)


@pytest.mark.parametrize(
    ("part", "field", "meant"),
    [
        ("invariants:\n  required_order:\n    - {before: classify, afer: refund_commit}\n",
         "invariants.required_order.0.afer", "after"),
        ("rules:\n  - {kind: precedence, befor: policy_check, after: refund_commit}\n",
         "rules.0.befor", "before"),
    ],
)  # fmt: skip
def test_a_misspelt_spec_key_is_named_not_the_key_it_hides(
    run_cli, tmp_path, candidate, part, field, meant
):
    """A spec typo `afer:` was refused as '...after: Field required' on the line, never naming
    the key the user actually wrote."""
    spec = tmp_path / "behavior.yaml"
    spec.write_text(f"schema_version: behavior-spec/v0\nid: t\n{part}")
    args = example_gate(candidate)
    args[args.index("--spec") + 1] = str(spec)
    code, _, err = run_cli(*args)
    assert code == 2
    line = part.count("\n") + 2
    assert one_line(err) == (
        f"abw: error: {spec}:{line}: {field}: unknown key (specs fail closed); "
        f"did you mean {meant}?\n"
    )


def test_report_refuses_to_render_a_view_over_its_input(run_cli, tmp_path, candidate):
    """`abw report -i r.json -o r.json --format markdown` replaced the gate report (its inputs'
    hashes, the sequence --previous and verify-report need) with its Markdown view."""
    report = tmp_path / "gate-report.json"
    run_cli(*example_gate(candidate), "--out", report, "-q")
    before = report.read_bytes()
    code, _, err = run_cli("report", "-i", report, "-o", report, "--format", "markdown")
    assert code == 2
    assert one_line(err).endswith(
        f"{report}: --out: it is the --input file; the report would overwrite it\n"
    )
    assert report.read_bytes() == before
    assert run_cli("report", "-i", report, "-o", report)[0] == 0  # the JSON view is itself
    assert report.read_bytes() == before


def test_diff_refuses_an_out_over_its_trace_or_inside_its_trace_folder(run_cli, candidate):
    """`abw diff --out` replaced a --candidate trace with the diff (exit 0), or left a JSON
    diff in the --candidate folder, where the next gate stopped at it (not a trace)."""
    baseline = EXAMPLE / "traces" / "baseline"
    trace = sorted(candidate.glob("*.json"))[0]
    before = trace.read_bytes()
    code, _, err = run_cli(
        "diff", "--baseline", baseline, "--candidate", trace, "--format", "json", "--out", trace
    )
    assert code == 2
    assert one_line(err).endswith(
        f"{trace}: --out: it is the --candidate file; the diff would overwrite it\n"
    )
    assert trace.read_bytes() == before
    inside = candidate / "diff.json"
    code, _, err = run_cli(
        "diff",
        "--baseline",
        baseline,
        "--candidate",
        candidate,
        "--format",
        "json",
        "--out",
        inside,
    )
    assert code == 2 and f"--out: inside the --candidate folder {candidate}" in one_line(err)
    assert not inside.exists() and run_cli(*example_gate(candidate), "-q")[0] == 3
    text = candidate / "diff.txt"  # (no trace folder walk reads it)
    assert run_cli("diff", "--baseline", baseline, "--candidate", candidate, "--out", text)[0] == 0


@pytest.mark.parametrize("command", [("contract", "compile"), ("spec", "convert")])
def test_a_spec_is_never_written_over_the_contract_it_is_made_from(run_cli, tmp_path, command):
    """`abw contract compile c.yaml --out c.yaml --force` replaced the contract with the spec."""
    source = (
        EXAMPLE / "contract.json"
        if command[0] == "contract"
        else CORPUS / "behaviorlock" / "behaviorlock__readme_behaviorlock.json"
    )
    contract = tmp_path / "contract.yaml"
    shutil.copy(source, contract)  # (JSON is YAML: the name alone is a spec's)
    before = contract.read_bytes()
    code, _, err = run_cli(*command, contract, "--out", contract, "--force")
    assert code == 2
    assert one_line(err).endswith(
        f"{contract}: --out: it is the CONTRACT file; the spec would overwrite it\n"
    )
    assert contract.read_bytes() == before


def test_verify_report_names_a_trace_that_changed_in_place(run_cli, tmp_path, candidate):
    """A trace re-imported after the gate (same file, new bytes) was two contradicting lines:
    the file 'is not among the traces the report judged' and the report judged it, 'which is
    not in' the folder that holds it."""
    report = tmp_path / "gate-report.json"
    run_cli(*example_gate(candidate), "--out", report, "-q")
    victim = sorted(candidate.glob("*.json"))[3]
    judged = hashlib.sha256(victim.read_bytes()).hexdigest()[:12]
    victim.write_bytes(victim.read_bytes().replace(b"\n}", b" \n}"))
    now = hashlib.sha256(victim.read_bytes()).hexdigest()[:12]
    args = example_gate(candidate)[1:]
    code, out, _ = run_cli("verify-report", report, *args)
    assert code == 1
    assert out.splitlines() == [
        f"mismatch: candidate: {victim} changed since the gate: sha256 {now}, the report "
        f"judged {judged}"
    ]


def test_a_path_given_to_read_that_fails_is_a_read_error(run_cli, tmp_path, candidate):
    """A --baseline whose name is too long for the file system said "cannot write"."""
    long = tmp_path / ("a" * 300) / "baseline"
    args = example_gate(candidate)
    args[args.index("--baseline") + 1] = str(long)
    code, _, err = run_cli(*args, "--out", tmp_path / "r.json")
    assert code == 2
    assert one_line(err).endswith(f"{long}: --baseline: cannot read: file name too long\n")
    code, _, err = run_cli(*example_gate(candidate), "--out", long / "r.json")
    assert code == 2 and one_line(err).endswith(": --out: cannot write: file name too long\n")


def test_an_import_moves_no_trace_when_one_target_is_a_folder(run_cli, tmp_path):
    """A folder where one trace goes stopped the import after the traces before it were moved
    into --out: exit 2 with half the result written."""
    sessions = sorted((CORPUS / "claude-code").glob("*.jsonl"))[:3]
    source = tmp_path / "in"
    source.mkdir()
    for path in sessions:
        (source / path.name).write_bytes(path.read_bytes())
    first = tmp_path / "first"
    assert run_cli("import", "claude", "--input", source, "--out", first, "-q")[0] == 0
    names = sorted(p.name for p in first.iterdir())
    out = tmp_path / "out"
    (out / names[-1]).mkdir(parents=True)
    code, _, err = run_cli("import", "claude", "--input", source, "--out", out, "-q")
    assert code == 2 and "expected a file, found a folder" in err
    assert sorted(p.name for p in out.iterdir()) == [names[-1]]
