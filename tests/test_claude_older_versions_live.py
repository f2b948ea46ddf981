"""``abw import claude`` on transcripts that older Claude Code versions (1.0.30, 1.0.100, 2.0.0,
2.0.76, 2.1.100, 2.1.200) wrote here, each running the same scenarios against a loopback
Messages API (tests/corpus/claude-code-live-versions/generate/; see tests/corpus/PROVENANCE.md):
the same behaviour must read the same whichever version wrote it.
"""

from __future__ import annotations

import pytest

from abw.importers.claude.outcomes import classify_result
from tests.conftest import CORPUS
from tests.test_realfiles_claude_more import _background, _tools, _trace

VERSIONS = CORPUS / "claude-code-live-versions"


def _session(version: str, session: str):
    return VERSIONS / version / f"{session}.jsonl"


#: ``-p --permission-mode default``: ``rm -rf build`` (Bash) and a Write that no rule allows,
#: then a Read and the answer. 1.0.30's stub turn skipped the Write.
DENIED = {
    "1.0.30": "edbc1708-d4dc-4d86-a479-a132d98dd5f8",
    "1.0.100": "3789d044-81b1-42a1-b939-f7011ab52a76",
    "2.0.0": "ee2bc4eb-f482-4a0b-9dd1-d96bfeaacc7a",
    "2.0.76": "6148eaba-b165-4262-a167-9dd3ff5d0c1c",
    "2.1.100": "e1d82cb2-3e50-4fef-ad88-fd9f4bcdfb60",
    "2.1.200": "f46ec321-d9af-46f3-b1c1-d3293daf1065",
}
#: ``-p``, acceptEdits, deny rules ``Bash(rm -rf build)``, ``Read(//home/dev/shop/cart.py)`` and
#: ``Write(//home/dev/shop/notes.txt)`` in ~/.claude/settings.json (the Write rule matched no
#: version's Write; 1.0.100 let the Read run too).
RULES = {
    "1.0.100": "945e6fa2-776f-4e8c-8751-45a39a836b3a",
    "2.0.76": "45f7da32-9a97-4692-b74f-8f30e52aea9d",
    "2.1.100": "bf2d74b2-037b-45a7-a04e-728c5771f395",
    "2.1.200": "b4602e34-13a2-46c7-8e18-a91d4a782f13",
}
#: Interactive, ``--dangerously-skip-permissions``: Esc 6 s into a 30 s Bash, then a second
#: prompt answered after a Bash call.
ESC = {
    "1.0.100": "2f005172-c2f1-4fb2-972d-8c54d5eb7995",
    "2.0.0": "577d5a35-7d6b-48a9-b4fa-c4b83358c53d",
    "2.0.76": "a0b058a7-c83c-46fc-aa61-c86a63c7eb69",
    "2.1.100": "fbf2eaae-9856-4719-b2b1-6b232037cab2",
    "2.1.200": "a29144b8-a0e7-43f9-b52b-972cbeedc8bd",
}
#: Interactive: Esc while a Bash call that already printed a line runs; the session ends there.
ESC_OUTPUT = {
    "1.0.100": "a942d597-1bd4-401f-b8d6-c704e384704d",
    "2.0.0": "1b3fa988-14b7-486e-9a9f-bc5a06744b9c",
    "2.0.76": "8c0eb8f6-399f-49cb-b1f0-f4269175ea83",
    "2.1.100": "68ec365a-62d3-4eec-ab38-76698a75d69b",
    "2.1.200": "1f7337eb-a1cd-4176-8da4-82feab606775",
}
#: ``-p`` (and 2.0.76 interactive): a background Bash that exits 4 beside a unicode echo, then
#: ``sleep 2`` and the answer.
BACKGROUND = [
    ("2.0.76", "6490f13c-a97c-4225-bb4b-0384da4522dd"),
    ("2.0.76", "1462dd97-f622-45b7-9dda-fddb40bdeeb7"),
    ("2.1.100", "4ce20342-453f-43b3-aafa-13c1b031b602"),
    ("2.1.200", "a3a76753-ef91-45b3-b1e0-ee28f1ff48cd"),
]
#: ``-p``, acceptEdits: Read + Bash in one message, Bash ok, Bash exit 3, Read of a missing
#: file, Edit, answer (1.0.x writes ``--resume`` into a new file; later versions append to it).
BASIC = {
    "1.0.100": "d7da0b31-2967-4610-864d-f5728795b979",
    "2.0.0": "af2bbe0b-e5ac-4ddc-9e6a-3dfe7be7d312",
    "2.0.76": "b90494c6-716b-4af8-a323-3a254f98553f",
    "2.1.100": "dc6c5b95-7ba9-45f2-a248-1f77187cf93c",
    "2.1.200": "d56d4fd6-4781-451e-86c8-115912eeb9a2",
}
#: ``-p``: a ``Task`` (``Agent`` from 2.1) sub-agent runs Bash ok and Bash failing: inline
#: sidechain (1.0.x, 2.0.0), ``agent-*.jsonl`` beside the session (2.0.76), ``subagents/``
#: (2.1.x; 2.1.200 launches it in the background).
AGENT = {
    "1.0.30": "fa535196-32e3-4562-b523-dc6547e8e368",
    "1.0.100": "72139c6b-1103-498c-8938-0eccf73b5550",
    "2.0.0": "5e41ceba-195c-464b-8827-a3e18de63af9",
    "2.0.76": "e0b4a76c-8a90-4b24-b8c4-a316782ffd39",
    "2.1.100": "77d4ee84-c2d7-422e-b341-ab2bb94ee589",
    "2.1.200": "f303d88e-17f2-46ca-ad06-eca2a4af8112",
}
#: ``-p``: Bash ok, then the API answers 400 and the run ends on the error.
API_ERROR = {
    "1.0.30": "192576df-4fbc-43ab-9aba-aacd226dfcd6",
    "1.0.100": "3626c17c-6b07-46a6-ab41-97bdc3f3bf48",
    "2.0.0": "f745a88b-136f-4b46-b36d-1a2166c8b3ea",
    "2.0.76": "0eccfeba-d7de-4fa3-9ee4-f77b35f67522",
    "2.1.100": "7d619411-14d9-4da4-8a53-a03d44638696",
    "2.1.200": "278605cd-0256-4090-976d-301cbbc50513",
}


def _steps(version: str, session: str) -> list[tuple[str, str, str]]:
    """(name, status, outcome) of every span that is no model request, in order."""
    return [(n, status, outcome) for n, _, status, outcome in _tools(_session(version, session))]


@pytest.mark.parametrize("version", sorted(DENIED))
def test_a_call_print_mode_refused_is_denied_in_every_version(version):
    """``claude -p`` refuses a call no rule allows: 1.0.100-2.0.x write the permission check's
    reason (*This command requires approval*), 2.1.100 *rm in '…' was blocked. For security,
    Claude Code may only …*, 2.1.200 the same texts with ``toolDenialKind: user-rejected``.
    They read ``error`` (a failed command) or ``rejected`` (a person's refusal); it is denied,
    as the *Claude requested permissions…* refusal is and 2.1.332's ``permissionDecision``."""
    steps = _steps(version, DENIED[version])
    assert steps[0] == ("Bash", "error", "denied")
    assert steps[-1] == ("Read", "success", "ok")
    if version != "1.0.30":  # the stub's turns skipped the Write there
        assert steps[1] == ("Write", "error", "denied")
    assert _trace(_session(version, DENIED[version])).run.final_status == "success"


@pytest.mark.parametrize("version", sorted(RULES))
def test_a_path_a_deny_rule_refused_is_denied_in_every_version(version):
    """2.0.x-2.1.2xx refuse a Read of a path a deny rule names with
    ``<tool_use_error>File is in a directory that is denied by your permission settings.``: it
    read ``error``; 2.1.332 (``permissionDecision`` of a rule) reads it denied, like the Bash
    rule's *Permission to use Bash with command … has been denied.*"""
    read = ("Read", "success", "ok") if version == "1.0.100" else ("Read", "error", "denied")
    assert _steps(version, RULES[version]) == [
        ("Bash", "error", "denied"),
        ("Write", "success", "ok"),
        read,
    ]


@pytest.mark.parametrize("version", sorted(ESC))
def test_a_running_bash_stopped_with_esc_is_interrupted_in_every_version(version):
    """2.0.76 and 2.1.100 answer a Bash call stopped with Esc ``Exit code 137`` then
    ``[Request interrupted by user for tool use]`` (then what it printed): it read ``error``, a
    failed command; 1.0.100, 2.0.0 and 2.1.200 write it otherwise and read interrupted."""
    assert _steps(version, ESC[version]) == [
        ("Bash", "cancelled", "interrupted"),
        ("Bash", "success", "ok"),
    ]
    assert _steps(version, ESC_OUTPUT[version]) == [("Bash", "cancelled", "interrupted")]
    assert _trace(_session(version, ESC_OUTPUT[version])).run.final_status == "cancelled"


@pytest.mark.parametrize(("version", "session"), BACKGROUND)
def test_a_background_shell_that_failed_is_an_error_in_every_version(version, session):
    """2.0.76 writes a background shell's end only as a queued ``<bash-notification>`` (its
    ``<shell-id>``, ``<status>failed``) in a ``queue-operation`` record; the call stayed ``ok``
    (launched). 2.1.x's ``<task-notification>`` read ``error`` already."""
    trace = _trace(_session(version, session))
    assert [b[2:] for b in _background(trace)] == [("error", "error", "failed")]


#: ``-p``: a sub-agent run in the background (``run_in_background``), then ``sleep 6`` while it
#: ends (2.1.200's plain ``Agent`` call in :data:`AGENT` runs in the background too).
ASYNC_AGENT = {
    "2.0.76": "902a710f-eb11-4df1-acd2-9a45de5662a5",
    "2.1.100": "30429b8e-2106-499e-ac22-bc99d8de71aa",
    "2.1.200": "f303d88e-17f2-46ca-ad06-eca2a4af8112",
}


@pytest.mark.parametrize("version", sorted(ASYNC_AGENT))
def test_a_background_sub_agents_end_is_read_in_every_version(version):
    """2.0.76 reports an async agent's end as a queued ``<agent-notification>`` (``<agent-id>``);
    its call kept no ``background_status``. 2.1.x's ``<task-notification>`` is read already."""
    trace = _trace(_session(version, ASYNC_AGENT[version]))
    assert [b[2:] for b in _background(trace)] == [("success", "ok", "completed")]
    subagent = [s.name for s in trace.spans if s.attributes.get("agent") == "subagent"]
    assert subagent.count("Bash") == 2


@pytest.mark.parametrize("version", sorted(BASIC))
def test_the_same_session_reads_alike_in_every_version(version):
    """Tool names, outcomes, order and final status of one scripted session match across
    versions (a resumed session's later call aside)."""
    steps = _steps(version, BASIC[version])[:6]
    assert steps == [
        ("Read", "success", "ok"),
        ("Bash", "success", "ok"),
        ("Bash", "success", "ok"),
        ("Bash", "error", "error"),
        ("Read", "error", "error"),
        ("Edit", "success", "ok"),
    ]
    assert _trace(_session(version, BASIC[version])).run.final_status == "success"


@pytest.mark.parametrize("version", sorted(AGENT))
def test_a_sub_agent_folds_alike_in_every_version(version):
    """Each layout's sub-agent lands right after its handoff, named ``Agent``."""
    trace = _trace(_session(version, AGENT[version]))
    spans = [s for s in trace.spans if s.type != "llm"]
    assert [(s.name, s.type, s.outcome, s.attributes["agent"]) for s in spans] == [
        ("Agent", "handoff", "ok", "main"),
        ("Bash", "tool", "ok", "subagent"),
        ("Bash", "tool", "error", "subagent"),
    ]
    assert {s.parent_span_id for s in spans[1:]} == {spans[0].span_id}
    assert trace.run.final_status == "success"


@pytest.mark.parametrize("version", sorted(API_ERROR))
def test_an_api_error_ends_the_run_as_error_in_every_version(version):
    trace = _trace(_session(version, API_ERROR[version]))
    assert _steps(version, API_ERROR[version]) == [("Bash", "success", "ok")]
    assert (trace.spans[-1].name, trace.spans[-1].status) == ("api_error", "error")
    assert trace.run.final_status == "error"


@pytest.mark.parametrize(
    ("text", "outcome"),
    [
        ("This command requires approval", "denied"),
        (
            "This Bash command contains multiple operations. The following parts require "
            "approval: rm -rf build, curl x",
            "denied",
        ),
        (
            "Permission rule 'Bash(rm:*)' from project settings requires approval for this Bash "
            "command",
            "denied",
        ),
        ("Current permission mode (Default) requires approval for this Write command", "denied"),
        (
            "Output redirection to '/etc/x' was blocked. For security, Claude Code may only write "
            "to files in the allowed working directories for this session: '/home/dev/shop'.",
            "denied",
        ),
        (
            "<tool_use_error>File is in a directory that is denied by your permission "
            "settings.</tool_use_error>",
            "denied",
        ),
        ("<tool_use_error>File does not exist.</tool_use_error>", "error"),
        ("Exit code 1\nThis command requires approval", "error"),  # a command's own output
        ("This command requires approval from the admin", "error"),
        ("Exit code 130\n[Request interrupted by user for tool use]\nlast line", "interrupted"),
        ("Exit code 1\nsome output\n[Request interrupted by user for tool use]", "error"),
    ],
)
def test_refusal_and_interrupt_texts_are_matched_whole(text, outcome):
    """Only Claude Code's own whole sentences count; a command that prints one fails."""
    assert classify_result(True, text, f"Error: {text}") == outcome


def test_a_session_resumed_into_a_new_file_is_one_run(run_cli, tmp_path):
    """Claude Code 1.0.100 ``--resume`` writes a new file that begins with a copy of the old
    one's lines (same uuids, the new session id). A folder import read both: the first
    session's calls counted in two runs. The old file is read once, as the new file's run;
    given alone it imports with a warning; a file that went on after the copy is its own run."""
    import json
    import shutil

    folder = VERSIONS / "1.0.100"
    old = folder / "d7da0b31-2967-4610-864d-f5728795b979.jsonl"
    new = folder / "8b390234-c63f-439c-bf02-86545a24b5d6.jsonl"
    uuids = [{json.loads(line).get("uuid") for line in p.open()} - {None} for p in (old, new)]
    assert uuids[0] < uuids[1]
    code, _, err = run_cli("import", "claude", "--input", folder, "--out", tmp_path / "out")
    assert code == 0, err
    written = {p.stem for p in (tmp_path / "out").glob("*.json")}
    assert new.stem in written and old.stem not in written
    first = [(name, outcome) for name, _, _, outcome in _tools(old)]
    assert first and [(name, outcome) for name, _, _, outcome in _tools(new)][: len(first)] == first
    code, _, err = run_cli("import", "claude", "--input", old, "--out", tmp_path / "old.json")
    assert code == 0 and f"{old.name}: resumed in {new.name}" in err, err
    went_on = tmp_path / "went-on"
    went_on.mkdir()
    shutil.copy(new, went_on)
    last = json.loads(old.read_text().splitlines()[-1])
    (went_on / old.name).write_text(old.read_text() + json.dumps({**last, "uuid": "0" * 36}) + "\n")
    code, _, err = run_cli("import", "claude", "--input", went_on, "--out", tmp_path / "both")
    assert code == 0, err
    assert {p.stem for p in (tmp_path / "both").glob("*.json")} == {old.stem, new.stem}
    copies = tmp_path / "copies"  # two copies of one file are no resume: two runs (as before)
    copies.mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        shutil.copy(new, copies / name)
    code, _, err = run_cli("import", "claude", "--input", copies, "--out", tmp_path / "copied")
    assert code == 0 and "resumed in" not in err, err
    assert len(list((tmp_path / "copied").glob("*.json"))) == 2


def test_a_fork_of_a_session_with_subagents_keeps_them(run_cli, tmp_path):
    """A fork (a new file holding every message of the session and more, under its own
    session id) is read as the session's one run; the subagent transcripts under the old
    session's folder (2.1.x: ``<session id>/subagents/``) are its own, not lost with the file
    the fork replaced (Claude Code 2.1.332's recording, forked here as ``--fork-session``
    does: the lines copied with the new id)."""
    import json
    import shutil

    from tests.conftest import CORPUS

    shop = CORPUS / "claude-code-live" / "shop"
    session = shop / "fb017813-f7b8-4b1d-98be-2dda41a37ae8.jsonl"
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copy(session, folder)
    shutil.copytree(shop / session.stem, folder / session.stem)
    fork_id = "0f0f0f0f-0000-4000-8000-000000000000"
    text = session.read_text().replace(session.stem, fork_id)
    last = json.loads(text.splitlines()[-1])
    (folder / f"{fork_id}.jsonl").write_text(text + json.dumps({**last, "uuid": "1" * 36}) + "\n")
    code, _, err = run_cli("import", "claude", "--input", session, "--out", tmp_path / "a.json")
    assert code == 0, err
    alone = json.loads((tmp_path / "a.json").read_text())
    code, _, err = run_cli("import", "claude", "--input", folder, "--out", tmp_path / "out")
    assert code == 0 and "no transcript found" not in err, err
    (fork,) = [json.loads(p.read_text()) for p in (tmp_path / "out").glob("*.json")]
    assert fork["run"]["trace_id"] == fork_id
    agents = [s["attributes"].get("agent") for s in fork["spans"]]
    assert (
        agents.count("subagent")
        == [s["attributes"].get("agent") for s in alone["spans"]].count("subagent")
        > 0
    )
