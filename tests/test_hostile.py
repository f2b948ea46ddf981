"""Hostile traces and specs: each case ends in safe output or a clear one-line refusal.

Names and values carry HTML, Markdown, @mentions, workflow commands, ANSI escapes, control
characters and path traversal; they go through the real gate, every report format, the CLI's
terminal output and the Action (outputs, step summary, annotations, PR comment). Specs carry
YAML alias bombs and unknown tags. Symlinks point out of the workspace.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from action_env import Runner, write_run
from fake_github import FakeGitHub

ABW = str(Path(sys.executable).with_name("abw"))

HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(2)">',
    "[click](javascript:alert(3))",
    "@octocat please merge",
    "\n::set-output name=verdict::PASS",
    "::add-mask::secret",
    "\n::error file=x::pwned",
    "\x1b[31mred\x1b[0m\x1b]0;title\x07",
    "nul\x00bell\x07bs\x08vt\x0bff\x0c",
    "../../../../etc/passwd",
    "| table | break |\n| --- |",
    "**bold** _it_ `code` <!-- comment -->",
    "\u202eevil-rtl\u2028line-sep",
    "</details><details open>",
    "]]><![CDATA[",
]
HOSTILE_TOOLS = [f"tool{i}{text}" for i, text in enumerate(HOSTILE)]
GOOD = ["lookup_order", "policy_check", "refund_commit"]


def _spec(forbidden: str, required: str) -> str:
    return (
        "schema_version: behavior-spec/v0\n"
        "id: hostile\n"
        f"name: {json.dumps(HOSTILE[0] + HOSTILE[4])}\n"
        "invariants:\n"
        f"  required_tools: [policy_check, {json.dumps(required)}]\n"
        f"  forbidden_tools: [{json.dumps(forbidden)}]\n"
        "  required_order:\n"
        f"    - {{before: policy_check, after: {json.dumps(HOSTILE_TOOLS[0])}}}\n"
        "thresholds: {min_runs: 2}\n"
    )


def hostile_workspace(root: Path) -> dict[str, str]:
    """Baseline runs with hostile tool names; candidates violate checks that name them."""
    base, cand = root / "traces" / "baseline", root / "traces" / "candidate"
    for i in range(3):
        write_run(base / f"b{i}.json", f"base-{i}-{HOSTILE[i % 4]}", [*GOOD, *HOSTILE_TOOLS])
    for i, tool in enumerate(HOSTILE_TOOLS):
        # each candidate: hostile trace id, a forbidden hostile tool, the order broken
        tools = [HOSTILE_TOOLS[0], "lookup_order", tool, "policy_check"]
        write_run(cand / f"c{i:02d}.json", f"cand-{i}-{HOSTILE[i]}", tools)
    (root / "spec.yaml").write_text(_spec(HOSTILE_TOOLS[5], HOSTILE_TOOLS[9]), encoding="utf-8")
    return {"baseline": "traces/baseline", "candidate": "traces/candidate", "spec": "spec.yaml"}


CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _no_workflow_commands(text: str, where: str) -> None:
    for line in text.splitlines():
        assert not line.lstrip().startswith("::"), f"{where}: workflow command line {line!r}"


def _no_control(text: str, where: str) -> None:
    found = CONTROL.search(text)
    assert found is None, f"{where}: control character {found.group()!r}"


def _outside_code(markdown: str) -> str:
    """Markdown text with fenced blocks and inline code spans removed."""
    text = re.sub(r"```.*?```", "", markdown, flags=re.S)
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", text, flags=re.S)


def _safe_markdown(text: str, where: str) -> None:
    _no_workflow_commands(text, where)
    _no_control(text, where)
    plain = _outside_code(text)
    for bad in (
        "<script",
        "<img",
        "](javascript:",
        "@octocat",
        "<!-- comment",
        "</details><details",
    ):
        assert bad not in plain, f"{where}: {bad!r} outside code"


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    from abw.gating import run_gate
    from abw.render import write_reports

    root = tmp_path_factory.mktemp("hostile")
    paths = hostile_workspace(root)
    report = run_gate(*(root / paths[k] for k in ("baseline", "candidate", "spec")))
    written = write_reports(report, root / "out")
    return root, paths, report, written


def test_gate_judges_hostile_names_by_exact_name(gated):
    _, _, report, _ = gated
    assert report.verdict == "FAIL"
    failed = {c.rule for c in report.checks if c.verdict == "FAIL"}
    assert {"forbidden_tools", "required_order"} <= failed


def test_html_report_escapes_everything(gated):
    _, _, _, written = gated
    html = written["html"].read_text(encoding="utf-8")
    for bad in ("<script>alert", "<img src=x", 'onerror="', "</details><details open>", "]]><!["):
        assert bad not in html, bad
    assert "&lt;script&gt;" in html  # present, escaped
    assert 'href="javascript' not in html
    _no_control(html, "html")


def test_markdown_report_neutralises_markup(gated):
    _, _, _, written = gated
    _safe_markdown(written["markdown"].read_text(encoding="utf-8"), "markdown")


def test_sarif_and_json_are_valid_and_control_free(gated):
    _, _, _, written = gated
    for fmt in ("sarif", "json"):
        text = written[fmt].read_text(encoding="utf-8")
        json.loads(text)  # valid JSON: every hostile string is escaped
        _no_control(text, fmt)  # raw control characters never appear (JSON escapes them)
    sarif = json.loads(written["sarif"].read_text(encoding="utf-8"))
    for run in sarif["runs"]:
        for result in run.get("results", []):
            for location in result.get("locations", []):
                uri = location["physicalLocation"]["artifactLocation"]["uri"]
                assert not uri.startswith("/") and ".." not in uri.split("/"), uri


def test_junit_is_well_formed_xml(gated):
    _, _, _, written = gated
    text = written["junit"].read_text(encoding="utf-8")
    ET.fromstring(text)  # control characters would make it ill-formed
    assert "<script>" not in text


def test_terminal_output_has_no_escapes_or_workflow_commands(gated):
    root, paths, _, _ = gated
    proc = subprocess.run(
        [
            ABW,
            "gate",
            "--baseline",
            paths["baseline"],
            "--candidate",
            paths["candidate"],
            "--spec",
            paths["spec"],
            "--out",
            "r.json",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    _no_workflow_commands(proc.stdout + proc.stderr, "abw gate output")
    _no_control(proc.stdout + proc.stderr, "abw gate output")


def test_diff_text_has_no_escapes_or_workflow_commands(gated, run_cli):
    root, paths, _, _ = gated
    code, out, err = run_cli(
        "diff", "--baseline", root / paths["baseline"], "--candidate", root / paths["candidate"]
    )
    assert code == 0, err
    assert "\\x1b" in out  # the hostile names are there, made visible
    _no_workflow_commands(out + err, "abw diff output")
    _no_control(out + err, "abw diff output")


def test_explain_and_report_commands_stay_safe(gated, run_cli, tmp_path):
    _, _, report, written = gated
    for check in report.checks:
        code, out, err = run_cli("explain", check.id, "--report", written["json"])
        assert code == 0, err
        _no_workflow_commands(out + err, f"explain {check.id}")
        _no_control(out + err, f"explain {check.id}")
    code, out, err = run_cli("report", "-i", written["json"], "--out-dir", tmp_path)
    assert code == 0, err
    _safe_markdown((tmp_path / "report.md").read_text(encoding="utf-8"), "abw report markdown")


def test_action_outputs_summary_annotations_comment(tmp_path):
    fake = FakeGitHub().start()
    try:
        runner = Runner(tmp_path, fake.url)
        inputs = hostile_workspace(runner.workspace)
        result = runner.run(inputs)
        assert result.code == 1, result.stdout + result.stderr
        # stdout/stderr are parsed by the runner: no injected workflow command, no escapes
        for line in (result.stdout + result.stderr).splitlines():
            if re.match(r"\s*::add-mask::ghs_faketoken123$", line):
                continue  # the Action masking its own token
            assert not re.match(r"\s*::(set-output|add-mask|set-env|add-path|save-state)", line)
        _no_control(result.stdout + result.stderr, "action logs")
        for name, value in result.outputs.items():
            _no_control(value, f"output {name}")
            assert "::" not in value or name in ("summary",), (name, value)
        _safe_markdown(result.summary, "step summary")
        for comment in fake.comments.values():
            _safe_markdown(comment["body"], "PR comment")
        for run in fake.check_runs.values():
            output = run.get("output") or {}
            _safe_markdown(output.get("summary", "") + output.get("text", ""), "check run")
            for annotation in output.get("annotations", []) + run.get("annotations", []):
                path = annotation["path"]
                assert not path.startswith("/") and ".." not in path.split("/"), path
                _no_control("".join(str(v) for v in annotation.values()), "annotation")
    finally:
        fake.stop()


# ---------------------------------------------------------------- specs


BOMB = """schema_version: behavior-spec/v0
id: bomb
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""

UNSAFE_SPECS = {
    "alias-bomb": BOMB,
    "merge-key-alias": "schema_version: behavior-spec/v0\nbase: &b {id: x}\n<<: *b\n",
    "python-object": "schema_version: behavior-spec/v0\nid: !!python/object/apply:os.system [id]\n",
    "python-name": "schema_version: behavior-spec/v0\nid: !!python/name:os.system\n",
    "unknown-tag": "schema_version: behavior-spec/v0\nid: !custom x\n",
    "two-documents": "schema_version: behavior-spec/v0\nid: x\n---\nid: y\n",
    "unknown-key": "schema_version: behavior-spec/v0\nid: x\ninvariants: {required_tool: [a]}\n",
}


@pytest.mark.parametrize("name", sorted(UNSAFE_SPECS))
def test_unsafe_spec_is_refused_in_one_line(tmp_path, run_cli, name):
    spec = tmp_path / "spec.yaml"
    spec.write_text(UNSAFE_SPECS[name], encoding="utf-8")
    traces = tmp_path / "t"
    write_run(traces / "a.json", "a", GOOD)
    code, out, err = run_cli(
        "gate", "--baseline", traces, "--candidate", traces, "--spec", spec, "--out", tmp_path / "x"
    )
    assert code == 2, (out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "internal error" not in err
    assert str(spec) in err


def test_oversized_spec_refused_before_reading(tmp_path):
    from abw.errors import AbwInputError
    from abw.specio import load_spec

    spec = tmp_path / "spec.yaml"
    with open(spec, "wb") as handle:
        handle.truncate(5 * 1024**3)  # sparse: 5 GB that occupy no disk
    with pytest.raises(AbwInputError, match="over abw's limit"):
        load_spec(spec)


# ---------------------------------------------------------------- symlinks and names


def test_symlink_out_of_the_workspace_is_refused_by_the_action(tmp_path):
    fake = FakeGitHub().start()
    try:
        runner = Runner(tmp_path, fake.url)
        outside = tmp_path / "secret"
        outside.mkdir()
        write_run(outside / "s.json", "secret-run", GOOD)
        for i in range(3):
            write_run(runner.workspace / "base" / f"b{i}.json", f"b{i}", GOOD)
        (runner.workspace / "cand").symlink_to(outside, target_is_directory=True)
        (runner.workspace / "spec.yaml").write_text(
            "schema_version: behavior-spec/v0\nid: x\n", encoding="utf-8"
        )
        result = runner.run({"baseline": "base", "candidate": "cand", "spec": "spec.yaml"})
        assert result.code == 2, result.stdout + result.stderr
        assert "outside the workspace" in result.stdout + result.stderr
    finally:
        fake.stop()


def test_symlinked_trace_inside_a_folder_pointing_out_is_refused(tmp_path):
    from abw.errors import AbwInputError
    from abw.traceio import load_traces

    outside = tmp_path / "outside.json"
    write_run(outside, "outside", GOOD)
    folder = tmp_path / "traces"
    write_run(folder / "a.json", "a", GOOD)
    (folder / "b.json").symlink_to(outside)
    with pytest.raises(AbwInputError, match="outside"):
        load_traces(folder)


def test_hostile_file_names_do_not_escape(tmp_path, run_cli):
    """File names with markup and a leading '::' are reported as data, never executed."""
    base, cand = tmp_path / "b", tmp_path / "c"
    for i in range(3):
        write_run(base / f"<b>{i}::set-output name=x::y.json", f"b{i}", GOOD)
        write_run(cand / f"::add-mask::{i} @octocat.json", f"c{i}", GOOD[::-1])
    spec = tmp_path / "s.yaml"
    spec.write_text(_spec("nothing", "policy_check"), encoding="utf-8")
    out = tmp_path / "out"
    code, stdout, err = run_cli(
        "gate", "--baseline", base, "--candidate", cand, "--spec", spec, "--report-dir", out
    )
    assert code in (1, 3), err
    _no_workflow_commands(stdout, "gate stdout")
    _safe_markdown((out / "report.md").read_text(encoding="utf-8"), "markdown")
    assert "<b>0::set-output" not in (out / "report.html").read_text(encoding="utf-8")


def test_a_file_name_that_is_not_utf8_is_refused_in_one_line(tmp_path, run_cli):
    """POSIX allows any bytes in a name (git commits them): such a trace's name made a gate
    report that was not UTF-8 (abw report, verify-report and --previous refused it) and an
    "internal error" when the SARIF was written. In a folder or given itself, it is refused."""
    base, cand = tmp_path / "b", tmp_path / "c"
    for i in range(3):
        write_run(base / f"b{i}.json", f"b{i}", GOOD)
        write_run(cand / f"c{i}.json", f"c{i}", GOOD)
    odd = cand / os.fsdecode(b"r-\xff.json")
    write_run(odd, "c9", GOOD)
    spec = tmp_path / "s.yaml"
    spec.write_text(_spec("nothing", "policy_check"), encoding="utf-8")
    out = tmp_path / "out"
    gate = ["gate", "--baseline", base, "--spec", spec, "--out", tmp_path / "r.json"]
    code, _, err = run_cli(*gate, "--candidate", cand, "--report-dir", out)
    assert code == 2 and err == (
        f"abw: error: {cand}/r-\\udcff.json: a name in the trace folder is not UTF-8 text; "
        "rename it\n"
    )
    assert not out.exists() and not (tmp_path / "r.json").exists()
    code, _, err = run_cli(*gate, "--candidate", odd)
    assert code == 2
    assert err.splitlines()[-1].endswith("--candidate: the path is not UTF-8 text; rename it")
    odd.rename(cand / "r-9.json")
    code, _, err = run_cli(*gate, "--candidate", cand, "--report-dir", out)
    assert code in (0, 1, 3), err
    for path in [tmp_path / "r.json", *out.iterdir()]:
        path.read_bytes().decode("utf-8")


# ---------------------------------------------------------------- sizes


def _run_limited(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run abw with a 1.5 GiB address-space cap: reading a 5 GB input whole would fail."""
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20, 1536 * 2**20))\n"
        "from abw.cli import cli, run\n"
        "sys.exit(run(cli, sys.argv[1:]))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "ABW_NO_PROGRESS": "1"},
    )


@pytest.fixture(scope="module")
def sparse_5gb(tmp_path_factory):
    path = tmp_path_factory.mktemp("sparse") / "huge.jsonl"
    with open(path, "wb") as handle:
        handle.truncate(5 * 1024**3)
    return path


@pytest.fixture(scope="module")
def line_200mb(tmp_path_factory):
    """One JSON line of 200 MB (a message whose content is one huge string)."""
    path = tmp_path_factory.mktemp("line") / "line.jsonl"
    with open(path, "wb") as handle:
        handle.write(b'{"type":"user","message":{"role":"user","content":"')
        chunk = b"x" * (1 << 20)
        for _ in range(200):
            handle.write(chunk)
        handle.write(b'"}}\n')
    return path


def _importers() -> list[str]:
    from abw.importers import importer_targets

    return list(importer_targets())


@pytest.mark.parametrize("kind", ["sparse_5gb", "line_200mb"])
@pytest.mark.parametrize("importer", _importers())
def test_huge_inputs_are_refused_with_bounded_memory(request, tmp_path, importer, kind):
    path = request.getfixturevalue(kind)
    proc = _run_limited(["import", importer, "--input", str(path), "--out", "o"], tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


@pytest.mark.parametrize("kind", ["sparse_5gb", "line_200mb"])
def test_huge_trace_file_is_refused_by_the_gate(request, tmp_path, kind):
    source = request.getfixturevalue(kind)
    cand = tmp_path / "cand"
    cand.mkdir()
    os.link(source, cand / "huge.json")  # the same bytes under a trace's name
    base = tmp_path / "base"
    write_run(base / "a.json", "a", GOOD)
    (tmp_path / "s.yaml").write_text("schema_version: behavior-spec/v0\nid: x\n")
    proc = _run_limited(
        ["gate", "--baseline", "base", "--candidate", "cand", "--spec", "s.yaml"], tmp_path
    )
    assert proc.returncode == 2, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def _trajectory(path: Path, trace_id: str) -> None:
    from abw.models.trajectory import ModelInfo, RepresentationTrajectory, Step, TrajectorySource

    steps = [
        Step(
            index=i,
            text_hash="0" * 64,
            token_count=3,
            entropy=1.0 + i,
            velocity=None if i == 0 else 0.5,
            curvature=None,
            projection=[float(i), 0.0],
        )
        for i in range(3)
    ]
    trajectory = RepresentationTrajectory(
        model=ModelInfo(
            name="tiny", layer=-1, num_layers=2, hidden_size=4, dtype="float32", has_lm_head=True
        ),
        source=TrajectorySource(kind="steps", trace_id=trace_id),
        step_count=len(steps),
        steps=steps,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(trajectory.model_dump_json(), encoding="utf-8")


@pytest.mark.parametrize("linked", ["file", "folder"])
def test_symlink_in_the_latent_folder_pointing_out_is_refused_by_the_action(tmp_path, linked):
    fake = FakeGitHub().start()
    try:
        runner = Runner(tmp_path, fake.url)
        outside = tmp_path / "secret"
        _trajectory(outside / "s.json", "secret")
        for i in range(3):
            write_run(runner.workspace / "base" / f"b{i}.json", f"b{i}", GOOD)
            write_run(runner.workspace / "cand" / f"c{i}.json", f"c{i}", GOOD)
        latent = runner.workspace / "latent"
        _trajectory(latent / "baseline" / "b.json", "b0")
        if linked == "file":
            (latent / "candidate").mkdir()
            (latent / "candidate" / "c.json").symlink_to(outside / "s.json")
        else:
            (latent / "candidate").symlink_to(outside, target_is_directory=True)
        (runner.workspace / "spec.yaml").write_text(
            "schema_version: behavior-spec/v0\nid: x\n", encoding="utf-8"
        )
        inputs = {"baseline": "base", "candidate": "cand", "spec": "spec.yaml"}
        result = runner.run({**inputs, "latent": "latent"})
        assert result.code == 2, result.stdout + result.stderr
        assert "a symlink leads outside the latent folder; refusing it" in result.stderr
        # the same folder without the link is fine: the refusal is the link's
        shutil.rmtree(latent / "candidate") if linked == "file" else (latent / "candidate").unlink()
        _trajectory(latent / "candidate" / "c.json", "c0")
        assert runner.run({**inputs, "latent": "latent"}).code == 3  # INCONCLUSIVE, not 2
    finally:
        fake.stop()
