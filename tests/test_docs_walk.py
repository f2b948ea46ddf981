"""The docs, read as a new user follows them: every ``abw`` command they show exists with the
options they give it, every link resolves, the Action's inputs table is action.yml's, every
rules and scenarios snippet loads, the library snippets run, and the messages they quote are
the ones abw prints. (docs/guide.md's walk-through runs in tests/test_guide.py.)"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import click
import pytest
import yaml
from conftest import REPO

EXAMPLE = REPO / "examples" / "refund-policy"
DOCS = [
    REPO / "README.md",
    *sorted(path for path in (REPO / "docs").glob("*.md") if path.name != "performance.md"),
]
#: Subcommands a doc shows that only exist once installed: the example adapter package.
PLUGINS = {"steps-jsonl"}  # examples/adapter


def _blocks(text: str, lang: str = r"[a-z]*") -> list[tuple[int, str]]:
    """(first line, body) of every fenced code block of ``lang``."""
    found = re.finditer(rf"^ *```{lang}\n(.*?)^ *```", text, re.S | re.M)
    return [(text[: m.start()].count("\n") + 1, m.group(1)) for m in found]


def _command_lines(text: str) -> list[tuple[int, str]]:
    """Shell lines of the code blocks (continuations joined, comments cut) and inline code."""
    lines = []
    for start, body in _blocks(text):
        current = ""
        for raw in body.splitlines():
            part = "" if raw.lstrip().startswith("#") else raw.split(" #")[0].rstrip()
            current = f"{current} {part.strip()}" if current else part
            if current.endswith("\\"):
                current = current[:-1]
                continue
            lines.append((start, current))
            current = ""
    inline = re.finditer(r"`(abw[^`]*)`", text)
    return lines + [(text[: m.start()].count("\n") + 1, m.group(1)) for m in inline]


def _command(path: list[str]) -> click.Command | None:
    from abw.cli import cli

    command: click.Command | None = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = command.get_command(click.Context(command), name)
    return command


def _problems_of(line: str) -> list[str]:
    """What is wrong with each ``abw`` invocation on one line: an unknown subcommand or option."""
    problems = []
    for match in re.finditer(r"(?:^|[\s;(&|])abw(-latent)?\s+([^|;&)]*)", line):
        if line.lstrip().startswith(("from ", "import ")):
            continue
        try:
            words = shlex.split(match.group(2))
        except ValueError:
            words = match.group(2).split()
        path = ["latent"] if match.group(1) else []  # abw-latent is abw latent
        command = _command(path)
        while isinstance(command, click.Group) and words and not words[0].startswith("-"):
            if words[0] in ("...", "…") or words[0].startswith("<") or words[0] in PLUGINS:
                break
            found = _command([*path, words[0]])
            if found is None:
                problems.append(f"no command abw {' '.join([*path, words[0]])}")
                break
            path, command = [*path, words.pop(0)], found
        if command is None or isinstance(command, click.Group):
            continue
        names = {name for param in command.params for name in param.opts + param.secondary_opts}
        for word in words:
            option = word.strip("[]'\"`").split("=")[0]
            if option.startswith("--") and len(option) > 2 and option not in names:
                problems.append(f"abw {' '.join(path)}: no option {option}")
    return problems


def test_every_abw_command_in_the_docs_exists_with_its_options():
    problems = [
        f"{doc.name}:{start}: {problem}"
        for doc in DOCS
        for start, line in _command_lines(doc.read_text())
        for problem in _problems_of(line)
    ]
    assert not problems, "\n".join(problems)


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown file (code blocks skipped)."""
    text = re.sub(r"^ *```.*?^ *```", "", path.read_text(), flags=re.S | re.M)
    anchors, seen = set(), {}
    for heading in re.findall(r"^#+\s+(.*)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def test_every_link_in_the_docs_resolves():
    broken = []
    for doc in DOCS:
        text = doc.read_text()
        for match in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = match.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            name, _, anchor = target.partition("#")
            path = (doc.parent / name) if name else doc
            where = f"{doc.name}:{text[: match.start()].count(chr(10)) + 1}: {target}"
            if not path.exists():
                broken.append(f"{where}: no such file")
            elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
                broken.append(f"{where}: no such heading")
    assert not broken, "\n".join(broken)


def test_the_action_inputs_table_is_action_yml():
    action = yaml.safe_load((REPO / "action.yml").read_text())
    text = (REPO / "docs" / "action.md").read_text()
    table = text[text.index("## Inputs") : text.index("## Outputs")]
    documented = {}
    for row in re.findall(r"^\| (`.*)$", table, re.M):
        names_cell, default_cell = row.split(" | ")[:2]
        names = re.findall(r"`([^`]+)`", names_cell)
        if names[0] == "conclusion-pass":  # `conclusion-pass` / `-warn` / ...
            names = ["conclusion-pass", *(f"conclusion{n}" for n in names[1:])]
        defaults = re.findall(r"`([^`]+)`", default_cell) or [""]
        if len(defaults) != len(names):  # one default for several names
            defaults = defaults[:1] * len(names)
        documented.update(zip(names, defaults, strict=True))
    assert sorted(documented) == sorted(action["inputs"])
    for name, spec in action["inputs"].items():
        default = str(spec.get("default", ""))
        if default:  # an empty default is computed (sarif-category) or means "none"
            assert documented[name] == default, name
    outputs = text[text.index("## Outputs") : text.index("## What happens")]
    assert set(action["outputs"]) <= set(re.findall(r"`([a-z-]+)`", outputs))


def test_every_rules_and_scenarios_snippet_loads(tmp_path):
    from abw.sample.scenarios import load_scenarios
    from abw.specio import load_spec

    base = (EXAMPLE / "behavior.yaml").read_text()
    loaded = 0
    for doc in DOCS:
        for start, body in _blocks(doc.read_text(), "ya?ml"):
            document = yaml.safe_load(body)
            if not isinstance(document, dict):
                continue
            path = tmp_path / f"{doc.stem}-{start}.yaml"
            if set(document) <= {"rules", "assertions"}:
                path.write_text(base + "\n" + body)
                load_spec(path)
            elif set(document) == {"scenarios"}:
                path.write_text(body)
                load_scenarios(path)
            else:
                continue
            loaded += 1
    assert loaded >= 5


@pytest.fixture
def workspace(tmp_path, monkeypatch, run_cli) -> Path:
    """The folder the README's and docs' library snippets expect: traces, spec, gate report."""
    for role, source in (("baseline", "baseline"), ("candidate", "regressed")):
        shutil.copytree(EXAMPLE / "traces" / source, tmp_path / "traces" / role)
    shutil.copy(EXAMPLE / "behavior.yaml", tmp_path / "behavior.yaml")
    monkeypatch.chdir(tmp_path)
    args = ("--baseline", "traces/baseline", "--candidate", "traces/candidate")
    assert run_cli("gate", *args, "--spec", "behavior.yaml", "--out", "gate-report.json")[0] == 1
    return tmp_path


def test_the_library_snippets_run_as_written(workspace, capsys):
    ran = []
    for doc in DOCS:
        for start, body in _blocks(doc.read_text(), "python"):
            if body.startswith(("from abw import", "from pathlib import Path\n\nfrom abw.render")):
                exec(compile(body, f"{doc.name}:{start}", "exec"), {})
                ran.append(f"{doc.name}:{start}")
    assert len(ran) >= 3, ran
    assert "FAIL" in capsys.readouterr().out
    assert (workspace / "reports" / "report.html").is_file()


def test_the_example_files_the_mcp_server_serves_exist():
    from abw.mcp_server import EXAMPLE_DIR, EXAMPLE_FILES

    assert all((EXAMPLE_DIR / name).is_file() for name in EXAMPLE_FILES)
    resources = (REPO / "docs" / "mcp.md").read_text().split("**Resources**")[1].split("\n\n")[0]
    assert all(f"`{name}`" in resources for name in EXAMPLE_FILES)


def _quoted(doc: str, pattern: str) -> str:
    """The one message ``doc`` quotes that matches ``pattern``."""
    (found,) = re.findall(rf"`({pattern}[^`]*)`", (REPO / "docs" / doc).read_text())
    return found


def _lines_as_n(text: str) -> str:
    return re.sub(r"\d+", "N", text)


def test_the_repeated_key_of_a_claude_record_reads_as_quoted(tmp_path, run_cli):
    quoted = _quoted("reliability.md", r"session\.jsonl:\d+: ")
    source = sorted((EXAMPLE / "transcripts" / "baseline").glob("*.jsonl"))[0]
    lines = source.read_text().splitlines(keepends=True)
    lines[1] = lines[1].replace('"type":', '"type": "user", "type":', 1)
    (tmp_path / "session.jsonl").write_text("".join(lines))
    code, _, err = run_cli(
        "import", "claude", "--input", tmp_path / "session.jsonl", "--out", tmp_path / "t.json"
    )
    assert code == 2
    message = err.strip().removeprefix("abw: error: ").replace(f"{tmp_path}/", "")
    assert _lines_as_n(message) == _lines_as_n(quoted)


def test_a_lone_surrogate_in_a_trace_reads_as_quoted(tmp_path, run_cli):
    quoted = _quoted("reliability.md", r"good-00\.json:\d+: ")
    line = int(quoted.split(":")[1])
    source = sorted((EXAMPLE / "traces" / "good").glob("good-00-*.json"))[0]
    lines = source.read_text().splitlines(keepends=True)
    lines[line - 1] = re.sub(r'("name": "[^"]*)"', r'\1\\ud800"', lines[line - 1], count=1)
    (tmp_path / "good-00.json").write_text("".join(lines))
    code, out, err = run_cli("validate", tmp_path / "good-00.json")
    assert code == 2
    shown = (out + err).strip().replace(f"{tmp_path}/", "")
    assert shown.startswith(quoted.removesuffix("…").rstrip()), shown


def test_a_contract_clause_error_reads_as_quoted(tmp_path, run_cli):
    quoted = _quoted("contracts.md", r"contract\.json(?::\d+)?: governance")
    text = (EXAMPLE / "contract.json").read_text()
    clause = json.loads(text)["governance"]["hard"][0]["id"]
    at = text.index('"params": {', text.index(f'"id": "{clause}"')) + len('"params": {')
    (tmp_path / "contract.json").write_text(f'{text[:at]}"within": 3, {text[at:]}')
    code, out, err = run_cli("contract", "compile", tmp_path / "contract.json")
    assert code == 2 and not out
    message = err.strip().removeprefix("abw: error: ").replace(f"{tmp_path}/", "")
    assert _lines_as_n(message) == _lines_as_n(quoted)
