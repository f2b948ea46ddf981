"""The CLI on real sessions: byte-identical renders whichever command wrote them, the diff's run
list, folders for validate, hints for raw exports, plurals and the import listing."""

from __future__ import annotations

import shutil

import pytest
from conftest import BASELINE_SESSIONS, CANDIDATE_SESSIONS, CORPUS, REPO, copy_sessions

from abw.render import FILE_NAMES

CLAUDE = CORPUS / "claude-code"


@pytest.fixture
def sessions(tmp_path, run_cli):
    """Six real Claude sessions as baseline and six as candidate, imported under one scenario."""
    raw_b = copy_sessions(tmp_path / "raw" / "base", BASELINE_SESSIONS)
    raw_c = copy_sessions(tmp_path / "raw" / "cand", CANDIDATE_SESSIONS)
    base, cand = tmp_path / "traces" / "baseline", tmp_path / "traces" / "candidate"
    for raw, out in ((raw_b, base), (raw_c, cand)):
        code, _, err = run_cli("import", "claude", "--input", raw, "--out", out, "-q")
        assert code == 0, err
    spec = tmp_path / "behavior.yaml"
    assert run_cli("spec", "init", "--baseline", base, "--out", spec)[0] == 0
    return tmp_path, base, cand, spec


def test_gate_report_dir_and_report_out_dir_are_byte_identical(sessions, run_cli):
    tmp, base, cand, spec = sessions
    gate_dir, report_dir = tmp / "from-gate", tmp / "from-report"
    code, _, err = run_cli(
        "gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--report-dir", gate_dir
    )
    assert code in (1, 3), err
    code, _, err = run_cli(
        "report", "--input", gate_dir / "gate-report.json", "--out-dir", report_dir
    )
    assert code == 0, err
    for name in FILE_NAMES.values():
        assert (gate_dir / name).read_bytes() == (report_dir / name).read_bytes(), name


def test_diff_lists_every_diverging_run_by_trace_id_and_file(sessions, run_cli):
    _tmp, base, cand, _ = sessions
    code, out, _ = run_cli("diff", "--baseline", base, "--candidate", cand)
    assert code == 0
    listed = out.split("diverging runs", 1)[1].splitlines()
    assert listed[0].split() == ["6", "of", "6"]
    rows = [line for line in listed[1:] if line.startswith("    ")]
    assert len(rows) == 6
    for name in CANDIDATE_SESSIONS:
        assert sum(f"{cand / name}.json" in row for row in rows) == 1, name


def test_diff_of_a_scenario_with_no_candidate_runs_says_so(sessions, run_cli):
    tmp, base, _cand, _ = sessions
    other = tmp / "other"
    code, _, err = run_cli(
        "import", "claude", "--input", CLAUDE / "spotter__short.jsonl", "--out", other,
        "--scenario-id", "another-task", "-q",
    )  # fmt: skip
    assert code == 0, err
    code, out, _ = run_cli("diff", "--baseline", base, "--candidate", other)
    assert code == 0
    assert "every candidate path is a baseline path" not in out
    assert out.splitlines() == [
        "scenario (none): 6 baseline runs, 0 candidate runs",
        "  no candidate runs for this scenario: nothing to compare",
        "scenario another-task: 0 baseline runs, 1 candidate run",
        "  no baseline runs for this scenario: nothing to compare",
    ]


def test_validate_accepts_a_folder_like_fingerprint(sessions, run_cli):
    _, base, _, _ = sessions
    code, out, err = run_cli("validate", base)
    assert code == 0, err
    assert out.count(": ok") == len(BASELINE_SESSIONS)
    code, out, _ = run_cli("fingerprint", base)
    assert code == 0 and len(out.splitlines()) == len(BASELINE_SESSIONS)


@pytest.mark.parametrize("command", ["validate", "gate"])
def test_a_raw_transcript_is_answered_with_the_import_command(sessions, run_cli, command):
    tmp, _base, cand, spec = sessions
    raw = tmp / "raw" / "base" / "agentcmd__full-session-five.jsonl"
    args = ["validate", raw] if command == "validate" else [
        "gate", "--baseline", raw, "--candidate", cand, "--spec", spec
    ]  # fmt: skip
    code, _, err = run_cli(*args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "Claude Code transcript" in err
    assert f"import it first with `abw import claude --input {raw} --out traces/`" in err


def test_a_folder_of_raw_rollouts_is_answered_with_the_import_command(tmp_path, run_cli):
    raw = tmp_path / "sessions"
    raw.mkdir()
    for path in sorted((CORPUS / "codex").glob("agentcmd__*.jsonl"))[:2]:
        shutil.copy(path, raw)
    spec = REPO / "examples" / "refund-policy" / "behavior.yaml"
    code, _, err = run_cli("gate", "--baseline", raw, "--candidate", raw, "--spec", spec)
    assert code == 2
    assert "it holds 2 raw export files" in err
    assert f"abw import codex --input {raw} --out traces/" in err


def test_plural_forms_follow_the_count(tmp_path, run_cli):
    from abw.text import noun, plural

    assert [plural(n, "retry") for n in (0, 1, 2)] == ["0 retries", "1 retry", "2 retries"]
    assert plural(1, "error span") == "1 error span" and noun(3, "key") == "keys"
    example = REPO / "examples" / "refund-policy"
    code, out, _ = run_cli(
        "gate", "--baseline", example / "traces" / "baseline",
        "--candidate", example / "traces" / "good",
        "--spec", example / "behavior.yaml", "--out", tmp_path / "r.json",
    )  # fmt: skip
    assert code == 0, out
    import json

    checks = {c["id"]: c for c in json.loads((tmp_path / "r.json").read_text())["checks"]}
    assert checks["operational_quality.max_retries"]["message"].endswith("at most 1 retry.")
    assert checks["operational_quality.max_errors"]["message"].endswith("at most 1 error span.")
    assert "candidate run(s)" not in out and "all 16 checks passed over 20 candidate runs" in out


def test_import_counts_its_traces_in_english(tmp_path, run_cli):
    code, _, err = run_cli(
        "import", "claude", "--input", CLAUDE / "spotter__short.jsonl", "--out", tmp_path / "t"
    )
    assert code == 0 and err.strip().endswith(f"wrote 1 trace to {tmp_path / 't'}")


def test_one_passed_check_reads_as_english():
    from abw.gating import run_gate
    from abw.render.markdown import render_markdown

    example = REPO / "examples" / "refund-policy"
    report = run_gate(
        example / "traces" / "baseline", example / "traces" / "regressed", example / "behavior.yaml"
    )
    failed = next(c for c in report.checks if c.verdict == "FAIL")
    passed = next(c for c in report.checks if c.verdict == "PASS")
    text = render_markdown(report.model_copy(update={"checks": [failed, passed]}))
    assert "1 check passed" in text and "1 checks" not in text


def test_import_help_lists_every_description_in_full(run_cli):
    from abw.importers import get_importer, importer_targets

    code, out, _ = run_cli("import", "--help")
    assert code == 0
    listing = "".join(out.split("Commands:", 1)[1].split())  # wrapping may break at a hyphen
    for name in importer_targets():
        assert "".join(get_importer(name).help.split()) in listing, name


def _commands(group, ctx, prefix=()):
    """Every command of the CLI, with the words that run it."""
    import click

    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from _commands(command, click.Context(command, parent=ctx), (*prefix, name))
        else:
            yield (*prefix, name), command


#: Options naming where a command writes; ``abw explain --report`` names a report it reads.
WRITTEN = {"--out", "--out-dir", "--report", "--report-dir"}
READ = {(("explain",), "--report")}


def _path_params():
    """Every (command words, option) of the CLI whose type is a click.Path, with its type."""
    import click

    from abw.cli import cli

    return {
        (words, param.opts[0]): param.type
        for words, command in _commands(cli, click.Context(cli))
        for param in command.params
        if isinstance(param.type, click.Path)
    }


def test_every_output_option_refuses_standard_output():
    """``--out -`` wrote a file named ``-`` in the working folder: every option abw writes to is
    an OutputPath, which refuses ``-``."""
    from abw.cli.options import OutputPath

    outputs = {key: kind for key, kind in _path_params().items() if key[1] in WRITTEN}
    assert len(outputs) >= 15, outputs  # every importer's --out, gate's, report's, spec's...
    plain = [key for key, kind in outputs.items() if not isinstance(kind, OutputPath)]
    assert sorted(plain) == sorted(READ)


def test_every_path_refuses_an_empty_one():
    """``--report-dir ""`` (``--report-dir "$REPORTS"``, the variable unset) wrote the reports
    into the working folder, and ``import --out ""`` the traces: every path is a PathParam,
    which refuses an empty one."""
    from abw.cli.options import PathParam

    paths = _path_params()
    assert len(paths) >= 40, paths
    assert [key for key, kind in paths.items() if not isinstance(kind, PathParam)] == []


@pytest.mark.parametrize(
    "args",
    [
        ["gate", "--spec", "{spec}", "--baseline", "{base}", "--candidate", "{cand}", "--out", "-"],
        ["gate", "--spec", "{spec}", "--baseline", "{base}", "--candidate", "{cand}",
         "--report-dir", "-"],
        ["diff", "--baseline", "{base}", "--candidate", "{cand}", "--out", "-"],
        ["spec", "init", "--baseline", "{base}", "--out", "-"],
        ["import", "claude", "--input", "{raw}", "--out", "-"],
    ],
)  # fmt: skip
def test_out_dash_is_refused_and_writes_nothing(sessions, run_cli, monkeypatch, args):
    root, base, cand, spec = sessions
    work = root / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    names = {"spec": spec, "base": base, "cand": cand, "raw": root / "raw" / "cand"}
    code, out, err = run_cli(*(arg.format(**names) for arg in args))
    assert code == 2, (out, err)
    assert "'-' (standard output) is not supported" in err, err
    assert not list(work.iterdir())  # no file named "-"


@pytest.mark.parametrize(
    "args",
    [
        ["gate", "--spec", "{spec}", "--baseline", "{base}", "--candidate", "{cand}",
         "--report-dir", ""],
        ["gate", "--spec", "{spec}", "--baseline", "", "--candidate", "{cand}"],
        ["import", "claude", "--input", "{raw}", "--out", ""],
        ["report", "--input", "", "--out-dir", "reports"],
        ["validate", ""],
    ],
)  # fmt: skip
def test_an_empty_path_is_refused_and_writes_nothing(sessions, run_cli, monkeypatch, args):
    root, base, cand, spec = sessions
    work = root / "work"
    work.mkdir()
    shutil.copy(spec, work / "behavior.yaml")  # something a reader of "" would find there
    monkeypatch.chdir(work)
    names = {"spec": spec, "base": base, "cand": cand, "raw": root / "raw" / "cand"}
    code, out, err = run_cli(*(arg.format(**names) for arg in args))
    assert code == 2, (out, err)
    assert "empty path (an unset variable?)" in err, err
    assert sorted(path.name for path in work.iterdir()) == ["behavior.yaml"]


def test_output_checks_on_runs_imported_without_output_fields_say_how_to_extract_them(
    tmp_path, run_cli
):
    """A first gate of the example's transcripts imported without ``--output-fields`` FAILs
    every output check (nothing was extracted); each violation said only "the run has no
    canonical_output", and now says how the fields get there."""
    import json

    example = REPO / "examples" / "refund-policy"
    sets = {}
    for role in ("baseline", "good"):
        sets[role] = tmp_path / role
        args = ["import", "claude", "--input", example / "transcripts" / role]
        code, _, err = run_cli(*args, "--out", sets[role], "-q")
        assert code == 0, err
    report = tmp_path / "r.json"
    code, _, _ = run_cli(
        "gate", "--baseline", sets["baseline"], "--candidate", sets["good"],
        "--spec", example / "behavior.yaml", "--out", report,
    )  # fmt: skip
    assert code == 1
    output_checks = [
        c for c in json.loads(report.read_text())["checks"] if c["category"] == "output_eval"
    ]
    assert {c["verdict"] for c in output_checks} == {"FAIL"} and len(output_checks) == 2
    for check in output_checks:
        assert {v["message"].split(";")[0] for v in check["violations"]} == {
            "the run has no canonical_output: no output field was extracted at import "
            "(name the fields with abw import --output-fields)"
        }
        assert check["message"].endswith(
            "Note: no run has output fields (44 runs): they are extracted at import, when "
            "named (abw import --output-fields)."
        ), check["message"]
        assert check["measured"]["unseen_output_fields"]


def _gate_example(run_cli, tmp_path, spec, candidate="good"):
    """The example's baseline against one of its candidate sets under ``spec``: (exit code,
    terminal text, the report's JSON)."""
    import json

    traces = REPO / "examples" / "refund-policy" / "traces"
    report = tmp_path / "gate-report.json"
    code, out, _ = run_cli(
        "gate", "--baseline", traces / "baseline", "--candidate", traces / candidate,
        "--spec", spec, "--out", report,
    )  # fmt: skip
    return code, out, json.loads(report.read_text())


def test_an_output_field_no_run_holds_is_named_with_the_nearest_ones(tmp_path, run_cli):
    """``expected: {decsion: ...}`` FAILed every run ("decsion is missing"), the typo left for
    the reader to see; the check now says no run holds it and names the nearest field, as a
    tool name matching no span does (abw.gating.vacuity)."""
    import json

    example = REPO / "examples" / "refund-policy"
    text = (example / "behavior.yaml").read_text()
    spec = tmp_path / "typo.yaml"
    spec.write_text(
        text.replace("    decision:", "    decsion:", 1).replace(
            "fraud_check_passed]", "fraud_check_passed, refund_amout]", 1
        )
    )
    code, out, document = _gate_example(run_cli, tmp_path, spec)
    assert code == 1
    checks = {c["id"]: c for c in document["checks"]}
    assert checks["output_eval.expected"]["message"].endswith(
        "Note: decsion is in no run's output (44 runs); did you mean decision?"
    )
    assert checks["output_eval.required_fields"]["message"].endswith(
        "Note: refund_amout is in no run's output (44 runs); did you mean refund_amount?"
    )
    assert checks["output_eval.expected"]["measured"]["unseen_output_fields"] == ["decsion"]
    assert "did you mean decision?" in out  # the terminal line too
    # a field some run holds gets no note, even when runs differ on it
    _, out, document = _gate_example(run_cli, tmp_path, example / "behavior.yaml", "regressed")
    messages = [c["message"] for c in document["checks"] if c["category"] == "output_eval"]
    assert "Note:" not in json.dumps(messages), out


def test_an_output_field_no_run_holds_never_passes_under_baseline_violations_warn(
    tmp_path, run_cli
):
    """With ``baseline_violations: warn`` a field no run holds is "already in the baseline" in
    every run: the check only WARNed and every run counted as passing, so a typo went through
    as a vacuous tool name must not. It is INCONCLUSIVE, as that one is."""

    example = REPO / "examples" / "refund-policy"
    text = (example / "behavior.yaml").read_text().replace("    decision:", "    decsion:", 1)
    spec = tmp_path / "typo.yaml"
    spec.write_text(text + "baseline_violations: warn\n")
    code, _, document = _gate_example(run_cli, tmp_path, spec)
    assert code == 3
    (check,) = [c for c in document["checks"] if c["id"] == "output_eval.expected"]
    assert check["verdict"] == "INCONCLUSIVE" and document["verdict"] == "INCONCLUSIVE"
    assert check["message"] == (
        "Vacuous: decsion is in no run's output (44 runs); did you mean decision? This check "
        "cannot decide anything until the spec names a real output field."
    )
    assert check["measured"]["unseen_output_fields"] == ["decsion"]
