"""One-line errors and safe outputs across the CLI: click's usage errors (three or four lines of
``Usage:``/``Try``/``Error:``) are one line naming the command and the option; every write error
names the output option and the path given (a hidden staging file was named instead); the spec
writers refuse to replace an existing file without ``--force`` and a name ``abw validate`` would
read as JSON; a YAML anchor is refused like an alias."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import click
import pytest
from conftest import CORPUS, REPO, example_gate, one_line

EXAMPLE = REPO / "examples" / "refund-policy"
TRACES = EXAMPLE / "traces"
SPEC = EXAMPLE / "behavior.yaml"
CONTRACT = EXAMPLE / "contract.json"
PEER = CORPUS / "agent-invariants" / "agent-invariants.json"
GOOD = EXAMPLE / "transcripts" / "good"


def _all_commands(group: click.Group, ctx: click.Context, words: tuple[str, ...] = ()):
    """Every command of the CLI with the words that run it."""
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from _all_commands(command, click.Context(command, parent=ctx), (*words, name))
        elif command is not None:
            yield (*words, name), command


def _commands(required: bool = False) -> list[tuple[str, ...]]:
    """The words of every command (with ``required``, of those with a required parameter)."""
    from abw.cli import cli

    return [
        words
        for words, command in _all_commands(cli, click.Context(cli))
        if not required or any(param.required for param in command.params)
    ]


# ---------------------------------------------------------------- usage errors: one line


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["gate", "--bogus"], "abw gate: error: --bogus: no such option (did you mean --out?)"),
        ([*example_gate("good"), "--workers", "0"],
         "abw gate: error: --workers: 0 is not in the range x>=1"),
        (["gate"], "abw gate: error: --baseline: missing option"),
        (["validate"], "abw validate: error: FILES: missing argument"),
        (["gate", "--out"], "abw gate: error: --out: requires an argument"),
        (["import", "claude", "--quiet=1"],
         "abw import claude: error: --quiet: does not take a value"),
        (["diff", "--baseline", "a", "--candidate", "b", "extra"],
         "abw diff: error: got unexpected extra argument (extra)"),
        ([*example_gate("good"), "--fail-on", "x"],
         "abw gate: error: --fail-on: 'x' is not one of 'fail', 'warn'"),
        (["report", "-i", ""],
         "abw report: error: --input: empty path (an unset variable?): give a file or folder"),
        (["spec", "init", "--baseline", "b", "--out", "-"],
         "abw spec init: error: --out: '-' (standard output) is not supported: give a file or "
         "folder path"),
        (["bogus"], "abw: error: no such command 'bogus'"),
        (["import", "bogus"], "abw import: error: no such command 'bogus'"),
        (["--bogus"], "abw: error: --bogus: no such option"),
    ],
)  # fmt: skip
def test_a_usage_error_is_one_line_naming_the_command_and_option(run_cli, args, line):
    code, out, err = run_cli(*args)
    assert (code, out, one_line(err)) == (2, "", line + "\n")


@pytest.mark.parametrize("words", _commands(), ids=" ".join)
def test_every_command_answers_an_unknown_option_in_one_line(run_cli, words):
    code, _, err = run_cli(*words, "--no-such-option")
    assert code == 2
    assert one_line(err) == f"abw {' '.join(words)}: error: --no-such-option: no such option\n"


@pytest.mark.parametrize("words", _commands(required=True), ids=" ".join)
def test_every_command_without_its_required_arguments_says_which_in_one_line(run_cli, words):
    code, _, err = run_cli(*words)
    assert code == 2
    assert one_line(err).startswith(f"abw {' '.join(words)}: error: ")
    assert ": missing option\n" in err or ": missing argument\n" in err


def test_abw_latent_usage_errors_are_one_line_too(capsys):
    from abw.cli import run
    from abw.cli.latent_cmd import latent

    assert run(latent, ["--bogus"], prog_name="abw-latent") == 2
    assert one_line(capsys.readouterr().err) == "abw-latent: error: --bogus: no such option\n"
    assert run(latent, ["demo", "--layer", "x"], prog_name="abw-latent") == 2
    err = capsys.readouterr().err
    assert one_line(err) == "abw-latent demo: error: --layer: 'x' is not a valid integer\n"


def test_help_is_unchanged(run_cli):
    code, out, err = run_cli("gate", "--help")
    assert code == 0 and err == "" and out.startswith("Usage: abw gate [OPTIONS]\n")
    code, _, err = run_cli("spec")  # a bare group shows its help, as click does
    assert code == 2 and err.startswith("Usage: abw spec [OPTIONS] COMMAND [ARGS]...\n")


# ---------------------------------------------------------------- write errors name the option

ENOSPC = "cannot write: no space left on the device"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["diff", "--baseline", TRACES / "baseline", "--candidate", TRACES / "good"], 2),
        (["contract", "compile", CONTRACT], 2),
        (["spec", "convert", PEER], 2),
        (["spec", "init", "--baseline", TRACES / "baseline"], 2),
        ([*example_gate("regressed")], 1),
    ],
)
def test_a_full_disk_under_out_is_named_with_the_option(run_cli, args, code):
    """``--out /dev/full``: the disk is full. diff, contract compile and spec convert named the
    file but not the option."""
    found, _, err = run_cli(*args, "--out", "/dev/full")
    assert found == code
    notes = [line for line in err.splitlines(True) if line.startswith("abw: not expressed")]
    assert one_line(err.removeprefix("".join(notes))) == f"abw: error: /dev/full: --out: {ENOSPC}\n"


@pytest.fixture
def full_disk(monkeypatch):
    """Every atomic write fails as on a full disk (at its fsync)."""
    import abw.atomic

    def fsync(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(abw.atomic.os, "fsync", fsync)


def test_report_write_errors_name_out_and_out_dir(run_cli, tmp_path, full_disk):
    """``abw report`` named the file of a failed write, not --out or --out-dir."""
    source = _report(tmp_path)
    code, _, err = run_cli("report", "--input", source, "--out", tmp_path / "r.html")
    assert code == 2 and one_line(err) == f"abw: error: {tmp_path / 'r.html'}: --out: {ENOSPC}\n"
    code, _, err = run_cli("report", "--input", source, "--out-dir", tmp_path / "rr")
    # every format is tried (one that cannot be written costs no other): a line each
    lines = err.splitlines()
    assert code == 2 and len(lines) == 5, err
    assert lines[0] == f"abw: error: {tmp_path / 'rr' / 'gate-report.json'}: --out-dir: {ENOSPC}"
    assert all(line.endswith(f": --out-dir: {ENOSPC}") for line in lines)


def _report(folder: Path) -> Path:
    """A gate report of the example's good candidate, written without abw.atomic."""
    from abw.gating import report_chunks, run_gate

    path = folder / "input-report.json"
    if not path.exists():
        report = run_gate(TRACES / "baseline", TRACES / "good", SPEC)
        path.write_bytes(b"".join(report_chunks(report)))
    return path


def test_a_full_disk_importing_a_folder_names_out_not_the_staging_file(
    run_cli, tmp_path, full_disk
):
    """The hidden staging file (``.traces.abw-staging-XXXX/good-00-….json``) was named."""
    out = tmp_path / "traces"
    code, _, err = run_cli("import", "claude", "--input", GOOD, "--out", out, "-q")
    assert code == 2
    line = one_line(err)
    assert line.startswith(f"abw: error: {out}/") and f": --out: {ENOSPC}" in line, line
    assert "abw-staging" not in line
    assert sorted(os.listdir(tmp_path)) == []  # nothing left behind


def test_a_full_disk_importing_one_file_names_out(run_cli, tmp_path, full_disk):
    out = tmp_path / "one.json"
    code, _, err = run_cli("import", "claude", "--input", next(GOOD.iterdir()), "--out", out)
    assert code == 2 and one_line(err) == f"abw: error: {out}: --out: {ENOSPC}\n"


def test_an_existing_trace_as_out_for_a_folder_is_named(run_cli, tmp_path):
    out = tmp_path / "run.json"
    shutil.copy(next((TRACES / "good").iterdir()), out)
    before = out.read_bytes()
    code, _, err = run_cli("import", "claude", "--input", GOOD, "--out", out)
    assert code == 2
    assert one_line(err) == (
        f"abw: error: {out}: --out: a folder of exports: --out must be a folder\n"
    )
    assert out.read_bytes() == before


# ---------------------------------------------------------------- spec outputs

SPEC_WRITERS = {
    "spec init": ["spec", "init", "--baseline", TRACES / "baseline"],
    "spec convert": ["spec", "convert", PEER],
    "contract compile": ["contract", "compile", CONTRACT],
}


@pytest.mark.parametrize("writer", sorted(SPEC_WRITERS))
def test_no_spec_writer_replaces_a_reviewed_spec_without_force(run_cli, tmp_path, writer):
    """spec convert and contract compile overwrote an existing behavior.yaml; spec init
    refused. All three refuse now, before any work, and write with --force."""
    out = tmp_path / "behavior.yaml"
    shutil.copy(SPEC, out)
    code, _, err = run_cli(*SPEC_WRITERS[writer], "--out", out)
    assert code == 2
    assert one_line(err).endswith(f"{out}: --out: exists; pass --force to overwrite it\n")
    assert out.read_bytes() == SPEC.read_bytes()
    code, _, err = run_cli(*SPEC_WRITERS[writer], "--out", out, "--force")
    assert code == 0, err
    assert out.read_bytes() != SPEC.read_bytes()
    assert run_cli("validate", out)[0] == 0


@pytest.mark.parametrize("writer", sorted(SPEC_WRITERS))
@pytest.mark.parametrize("name", ["behavior.json", "behavior", "behavior.txt"])
def test_a_spec_goes_only_where_validate_reads_yaml(run_cli, tmp_path, writer, name):
    """``spec init --out x.json`` wrote YAML that the gate read as a spec but ``abw validate``
    as invalid JSON: a spec is written only to a .yaml/.yml name."""
    out = tmp_path / name
    code, _, err = run_cli(*SPEC_WRITERS[writer], "--out", out)
    assert code == 2
    line = one_line(err)
    assert line.endswith(f"{out}: --out: a behavior spec is YAML: name the file .yaml or .yml\n")
    assert not out.exists()


def test_a_yml_spec_is_read_alike_by_validate_and_the_gate(run_cli, tmp_path):
    out = tmp_path / "behavior.YML"
    assert run_cli(*SPEC_WRITERS["spec init"], "--out", out)[0] == 0
    code, stdout, _ = run_cli("validate", out)
    assert code == 0 and stdout == f"{out}: ok\n"
    gate = example_gate("good")
    assert run_cli(*gate[:-1], out, "-q")[0] == 0


def test_spec_init_into_a_pipe_ends(tmp_path):
    """``abw spec init --out /dev/stdout | …`` read its --out back for the vacuity check: from
    a pipe, which it held open itself, so it waited forever."""
    import subprocess
    import sys

    abw = str(Path(sys.executable).with_name("abw"))
    args = ["spec", "init", "--baseline", str(TRACES / "baseline"), "--out", "/dev/stdout"]
    result = subprocess.run([abw, *args], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# behavior-spec/v0 generated by `abw spec init`")
    assert "wrote /dev/stdout: 4 required tools" in result.stdout


def test_a_spec_writer_refuses_a_folder_before_any_work(run_cli, tmp_path):
    code, _, err = run_cli(*SPEC_WRITERS["contract compile"], "--out", tmp_path)
    assert code == 2
    assert one_line(err) == f"abw: error: {tmp_path}: --out: expected a file, found a folder\n"


# ---------------------------------------------------------------- YAML anchors


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("schema_version: behavior-spec/v0\nid: &name refund\n",
         ":2: YAML anchors (&name) are not allowed in abw documents"),
        ("schema_version: behavior-spec/v0\nid: x\ninvariants: &inv\n  required_tools: [a]\n",
         ":3: YAML anchors (&inv) are not allowed in abw documents"),
    ],
)  # fmt: skip
def test_an_anchor_without_an_alias_is_refused_like_an_alias(run_cli, tmp_path, text, message):
    """docs/reliability.md says specs allow no anchors/aliases; an anchor alone was accepted."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(text, encoding="utf-8")
    code, _, err = run_cli(*example_gate("good")[:-1], spec)
    assert code == 2 and one_line(err) == f"abw: error: {spec}{message}\n"
    code, _, err = run_cli("validate", spec)
    assert code == 2 and one_line(err) == f"{spec}{message}\n"


def test_no_yaml_the_project_ships_uses_an_anchor():
    from abw.yamlreader import parse_yaml

    shipped = [*REPO.glob("examples/**/*.yaml"), *REPO.glob("examples/**/*.yml")]
    assert shipped
    for path in shipped:
        parse_yaml(path.read_text(encoding="utf-8"), path)  # raises on an anchor
