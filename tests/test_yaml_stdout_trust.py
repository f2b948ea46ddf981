"""Spec YAML printed to standard output (``abw contract compile``, ``abw spec convert``
without ``--out``) reaches CI logs: no name from a contract may become a workflow command
there, and no name may end a header comment and add to the document."""

from __future__ import annotations

import json

import pytest
import yaml
from test_hostile import HOSTILE

from abw.specio import load_spec
from abw.text import clean_block, log_yaml
from tests.conftest import CORPUS, REPO

COMMANDS = ["##[error]pwned", "::error file=x::pwned", "a::b", "##[stop-commands]x", ":::##[x"]
NAMES = [*COMMANDS, *(h for h in HOSTILE if "::" in h or "##[" in h or "\n" in h)]


def _safe_for_a_log(text: str) -> None:
    assert "##[" not in text
    assert not any(line.lstrip().startswith("::") for line in text.splitlines())
    assert "::" not in text


def _same_documents(stdout: str, written: str) -> None:
    assert yaml.safe_load(stdout) == yaml.safe_load(written)


CONTROLS = [
    "refund \u202egnp.exe\u202c",
    "a\u2066b\u2069",
    "x\x1b[31my",
    "a\x85b",
    "p\u2028q",
    "\u200fz",
]


@pytest.mark.parametrize("name", [*NAMES, *CONTROLS])
def test_contract_compile_prints_commands_and_controls_escaped_with_the_same_data(
    tmp_path, run_cli, name
):
    """Workflow commands and controls in a contract's names are escaped on standard output
    (bidirectional controls, "Trojan source", reached it raw: PyYAML writes them as they
    are), and the document is the one ``--out`` writes."""
    contract = json.loads((REPO / "examples" / "refund-policy" / "contract.json").read_text())
    contract["invariants"]["hard"][0]["params"]["tool"] = name
    contract["name"] = name
    if name in NAMES:
        contract["id"] = name
    path = tmp_path / "contract.json"
    path.write_text(json.dumps(contract))
    code, stdout, err = run_cli("contract", "compile", path)
    assert code == 0, err
    _safe_for_a_log(stdout)
    assert clean_block(stdout) == stdout and "\u2028" not in stdout
    out = tmp_path / "spec.yaml"
    code, _, err = run_cli("contract", "compile", path, "--out", out)
    assert code == 0, err
    _same_documents(stdout, out.read_text())
    spec, _ = load_spec(out)
    assert name in spec.invariants.required_tools
    assert spec.id == name or name in CONTROLS


@pytest.mark.parametrize("name", NAMES)
def test_spec_convert_header_notes_stay_comments(tmp_path, run_cli, name):
    contract = json.loads((CORPUS / "agent-invariants" / "agent-invariants.json").read_text())
    contract["rules"].append({"id": name, "kind": "event_budget", "max_events": 10})
    path = tmp_path / "contract.json"
    path.write_text(json.dumps(contract))
    code, stdout, err = run_cli("spec", "convert", path)
    assert code == 0, err
    _safe_for_a_log(stdout + err)
    out = tmp_path / "spec.yaml"
    code, _, err = run_cli("spec", "convert", path, "--out", out)
    assert code == 0, err
    written = out.read_text()
    _same_documents(stdout, written)
    header = written[: written.index("schema_version:")]
    assert all(line.startswith("#") for line in header.splitlines())
    plain = json.loads((CORPUS / "agent-invariants" / "agent-invariants.json").read_text())
    plain["rules"].append({"id": "benign", "kind": "event_budget", "max_events": 10})
    benign = tmp_path / "benign.json"
    benign.write_text(json.dumps(plain))
    code, benign_out, _ = run_cli("spec", "convert", benign)
    assert yaml.safe_load(stdout) == yaml.safe_load(benign_out)  # the name added nothing


def test_log_yaml_refuses_what_it_cannot_escape_in_place():
    assert log_yaml("a: b\n") == "a: b\n"
    assert log_yaml('a: "x::y"\n') == 'a: "x:\\x3ay"\n'
    assert log_yaml("a: x::y\n") is None  # a plain scalar has no escapes
    assert log_yaml("# ##[group] in a comment\na: 1\n") == "# #\\x23[group] in a comment\na: 1\n"
