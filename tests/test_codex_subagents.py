"""Codex sub-agents (``spawn_agent``): a child thread's rollout lies beside its parent's, its
first ``session_meta`` naming the parent (``source.subagent.thread_spawn.parent_thread_id``).

As for Claude Code's subagents, a child is no run of its own: its spans are folded into the
parent's trace right after the ``spawn_agent`` call that started it, and the parent's history a
forked child starts with is context, not its work. The corpus files are generated from the shape
the openai/codex source writes (tests/corpus/PROVENANCE.md, section codex-subagents)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from abw.hashing import sha256_hex
from abw.importers import get_importer
from abw.importers.base import ImportOptions
from tests.conftest import CORPUS, one_line
from tests.importkit import import_traces

FOLDER = CORPUS / "codex-subagents"
PARENT_ID = "019e1dea-c02a-71b3-b87f-67812459e1d9"
EXPLORER_ID = "019e1deb-59ab-7ec3-8731-5825d1566f6d"  # spawned plainly (call_spawnA)
FORKED_ID = "019e1deb-6a10-7d42-9b1e-0c4f1a2b3c4d"  # spawned with fork_context (call_spawnB)
PARENT = FOLDER / f"gen__rollout-2026-05-12T10-00-00-{PARENT_ID}.jsonl"
EXPLORER = FOLDER / f"gen__rollout-2026-05-12T10-00-02-{EXPLORER_ID}.jsonl"
FORKED = FOLDER / f"gen__rollout-2026-05-12T10-00-02-{FORKED_ID}.jsonl"


def _folder_traces(folder: Path, options: ImportOptions | None = None) -> list:
    importer = get_importer("codex")
    options = options or ImportOptions()
    return [t for path in importer.discover(folder) for t in import_traces(importer, path, options)]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_folder_with_a_parent_and_its_sub_agents_is_one_run():
    """Each child rollout was imported as a run of its own: one task with two sub-agents
    counted as three runs, and the parent's path held only the two spawn calls."""
    (trace,) = _folder_traces(FOLDER)
    assert trace.run.trace_id == PARENT_ID
    assert trace.run.final_status == "success"
    files = trace.source.model_dump()["subagent_files"]
    assert files == [
        {"file": EXPLORER.name, "sha256": sha256_hex(EXPLORER.read_bytes())},
        {"file": FORKED.name, "sha256": sha256_hex(FORKED.read_bytes())},
    ]


def test_a_sub_agents_spans_follow_its_spawn_call_with_it_as_their_parent():
    (trace,) = _folder_traces(FOLDER)
    spans = trace.spans
    spawn_a = next(s for s in spans if s.span_id == "call_spawnA")
    spawn_b = next(s for s in spans if s.span_id == "call_spawnB")
    explorer = [s for s in spans if s.attributes.get("agent_id") == EXPLORER_ID]
    forked = [s for s in spans if s.attributes.get("agent_id") == FORKED_ID]
    # right after their spawn call, in their own file order, the parent's next span after them
    assert [s.ordinal for s in explorer] == list(range(spawn_a.ordinal + 1, spawn_a.ordinal + 8))
    assert [s.ordinal for s in forked] == list(range(spawn_b.ordinal + 1, spawn_b.ordinal + 10))
    assert {s.parent_span_id for s in explorer} == {"call_spawnA"}
    assert {s.parent_span_id for s in forked} == {"call_spawnB"}
    assert {s.attributes["agent"] for s in explorer + forked} == {"subagent"}
    assert {s.attributes.get("agent_role") for s in explorer} == {"explorer"}
    assert all("agent_role" not in s.attributes for s in forked)  # (spawned without a role)
    assert {s.source_ref.file for s in explorer} == {EXPLORER.name}
    assert {s.source_ref.file for s in forked} == {FORKED.name}
    # each span's line is its own file's: the explorer's failing `sed` (exit 2) is its line 11
    failed = [
        (s.name, s.outcome, s.attributes.get("exit_code"), s.source_ref.line) for s in explorer
    ]
    assert ("exec_command", "error", 2, 11) in failed
    # the parent's own spans are unchanged: no agent attributes, its own file
    own = [s for s in spans if s.attributes.get("agent") is None]
    assert {s.source_ref.file for s in own} == {PARENT.name}
    assert [s.name for s in trace.path() if s.attributes.get("agent") is None] == [
        "spawn_agent",
        "spawn_agent",
        "wait_agent",
        "exec_command",
    ]


def test_a_forked_sub_agent_is_its_own_work_only_not_the_parents_history_it_copied():
    """A child spawned with ``fork_context`` starts its rollout with a copy of the parent's
    history (the parent's ``session_meta``, its prompt, both spawn calls); read as the child's
    work it repeated the parent's spawn calls in the child and counted them twice."""
    records = _lines(FORKED)
    assert records[1]["type"] == "session_meta" and records[1]["payload"]["id"] == PARENT_ID
    (trace,) = _folder_traces(FOLDER)
    forked = [s for s in trace.spans if s.attributes.get("agent_id") == FORKED_ID]
    # its own work starts at line 14 (after the copy and Codex's note on the spawn call, line 13)
    assert min(s.source_ref.line for s in forked) == 18
    assert [(s.name, s.outcome) for s in forked if s.type != "llm"] == [
        ("apply_patch", "ok"),
        ("exec_command", "error"),
        ("apply_patch", "ok"),
        ("exec_command", "ok"),
    ]
    assert [s.name for s in trace.spans].count("spawn_agent") == 2


def test_a_sub_agent_rollout_given_alone_is_imported_on_its_own_with_a_warning():
    options = ImportOptions()
    (trace,) = get_importer("codex").import_file(FORKED, options)
    assert trace.run.trace_id == FORKED_ID
    assert options.warnings == [
        f"{FORKED.name}: a sub-agent thread (agent {FORKED_ID} of thread {PARENT_ID}), "
        "imported on its own: import its folder to fold it into its parent's run"
    ]
    # still only its own work (the copy is told apart without the parent's rollout)
    assert [s.name for s in trace.path()] == [
        "apply_patch",
        "exec_command",
        "apply_patch",
        "exec_command",
    ]
    assert {s.attributes["agent"] for s in trace.spans} == {"subagent"}


def test_a_sub_agent_whose_parent_is_not_in_the_folder_is_a_run_with_a_warning(tmp_path):
    shutil.copy(EXPLORER, tmp_path / EXPLORER.name)
    options = ImportOptions()
    (trace,) = _folder_traces(tmp_path, options)
    assert trace.run.trace_id == EXPLORER_ID
    assert options.warnings == [
        f"{EXPLORER.name}: a sub-agent thread (agent {EXPLORER_ID} of thread {PARENT_ID}), "
        "imported on its own: its parent's rollout is not in its folder"
    ]


def test_a_spawn_call_whose_sub_agent_rollout_is_missing_is_warned_about(tmp_path):
    shutil.copy(PARENT, tmp_path / PARENT.name)
    shutil.copy(EXPLORER, tmp_path / EXPLORER.name)
    options = ImportOptions()
    (trace,) = _folder_traces(tmp_path, options)
    assert options.warnings == [
        f"{PARENT.name}:11: no rollout found beside it for sub-agent {FORKED_ID}; "
        "its spans are missing"
    ]
    assert {s.attributes.get("agent_id") for s in trace.spans} == {None, EXPLORER_ID}


def test_a_users_fork_of_a_session_is_a_run_of_its_own(tmp_path):
    """``codex fork`` / ``/fork``: a thread forked from a session by the user (``forked_from_id``,
    ``source: "cli"``) is a run, imported as before, even beside the session it came from."""
    shutil.copy(PARENT, tmp_path / PARENT.name)
    records = _lines(PARENT)
    meta = dict(records[0], payload={"id": "019e1e00-0000-7000-8000-00000000f0f0"})
    meta["payload"] |= {"forked_from_id": PARENT_ID}
    meta["payload"] |= {k: v for k, v in records[0]["payload"].items() if k != "id"}
    fork = tmp_path / "rollout-2026-05-12T11-00-00-019e1e00-0000-7000-8000-00000000f0f0.jsonl"
    fork.write_text("".join(json.dumps(r) + "\n" for r in [meta, *records]))
    traces = _folder_traces(tmp_path)
    assert sorted(t.run.trace_id for t in traces) == [
        PARENT_ID,
        "019e1e00-0000-7000-8000-00000000f0f0",
    ]
    (forked,) = [t for t in traces if t.run.trace_id != PARENT_ID]
    alone = get_importer("codex").import_file(fork, ImportOptions())[0]
    assert forked.model_dump() == alone.model_dump()
    assert all("agent" not in s.attributes for s in forked.spans)


def _v2(tmp_path: Path) -> tuple[Path, Path]:
    """Multi-agent v2 (``task_name`` instead of a thread id in the spawn output) in paginated
    history mode: every line numbered (``ordinal``); the child's own work starts at
    ``subagent_history_start_ordinal``, the lines below it being the parent's copied history."""
    parent_id, child_id = (
        "019f0000-0000-7000-8000-0000000000aa",
        "019f0000-0000-7000-8000-0000000000bb",
    )

    def line(ordinal, kind, payload):
        return {
            "timestamp": "2026-07-01T10:00:00.000Z",
            "ordinal": ordinal,
            "type": kind,
            "payload": payload,
        }

    prompt = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go"}]}
    spawn = {
        "type": "function_call",
        "name": "spawn_agent",
        "arguments": json.dumps({"message": "Inspect", "task_name": "inspect_pkg"}),
        "call_id": "call_v2",
    }
    parent = [
        line(
            0,
            "session_meta",
            {
                "session_id": parent_id,
                "id": parent_id,
                "source": "cli",
                "thread_source": "user",
                "multi_agent_version": "v2",
            },
        ),
        line(1, "turn_context", {"turn_id": "t1", "model": "gpt-5.6"}),
        line(2, "response_item", prompt),
        line(3, "response_item", spawn),
        line(
            4,
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "call_v2",
                "output": json.dumps({"task_name": "/root/inspect_pkg", "nickname": "Helmholtz"}),
            },
        ),
        line(
            5,
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "done"}],
            },
        ),
    ]
    source = {
        "subagent": {
            "thread_spawn": {
                "parent_thread_id": parent_id,
                "depth": 1,
                "agent_path": "/root/inspect_pkg",
                "agent_nickname": "Helmholtz",
                "agent_role": "worker",
            }
        }
    }
    child = [
        line(
            0,
            "session_meta",
            {
                "session_id": parent_id,
                "id": child_id,
                "forked_from_id": parent_id,
                "parent_thread_id": parent_id,
                "source": source,
                "thread_source": "subagent",
                "agent_nickname": "Helmholtz",
                "agent_path": "/root/inspect_pkg",
                "agent_role": "worker",
                "subagent_history_start_ordinal": 5,
            },
        ),
        line(1, "session_meta", parent[0]["payload"]),
        line(2, "turn_context", {"turn_id": "t1", "model": "gpt-5.6"}),
        line(3, "response_item", prompt),
        line(4, "response_item", spawn),
        line(5, "turn_context", {"turn_id": "c1", "model": "gpt-5.6"}),
        line(
            6,
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": "ls"}),
                "call_id": "call_ls",
            },
        ),
        line(
            7,
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "call_ls",
                "output": "Process exited with code 0\nOutput:\nsrc",
            },
        ),
    ]
    paths = []
    for name, records in (
        ("rollout-2026-07-01T10-00-00-p.jsonl", parent),
        ("rollout-2026-07-01T10-00-01-c.jsonl", child),
    ):
        paths.append(tmp_path / name)
        paths[-1].write_text("".join(json.dumps(r) + "\n" for r in records))
    return paths[0], paths[1]


def test_multi_agent_v2_links_by_task_name_and_leaves_out_lines_below_the_childs_start(tmp_path):
    _, child = _v2(tmp_path)
    options = ImportOptions()
    (trace,) = _folder_traces(tmp_path, options)
    assert options.warnings == []
    assert [(s.name, s.parent_span_id, s.attributes.get("agent_role")) for s in trace.path()] == [
        ("spawn_agent", None, None),
        ("exec_command", "call_v2", "worker"),
    ]
    (ls,) = [s for s in trace.spans if s.name == "exec_command"]
    assert (ls.source_ref.file, ls.source_ref.line) == (child.name, 7)


def test_the_folded_trace_keeps_no_sub_agent_content_and_is_deterministic(tmp_path):
    importer = get_importer("codex")
    first = importer.import_file(PARENT, ImportOptions(exported_at="2026-01-01T00:00:00Z"))[0]
    again = get_importer("codex").import_file(
        PARENT, ImportOptions(exported_at="2026-01-01T00:00:00Z")
    )[0]
    text = first.model_dump_json()
    assert text == again.model_dump_json()
    for raw in ("tests/test_empty.py", "parser.py", "pytest", "Parfit", "Hume", "/home/user"):
        assert raw not in text, raw
    assert "message.content" in first.redaction.removed_fields


def test_a_broken_line_in_a_sub_agent_rollout_is_a_one_line_error_naming_it(tmp_path, run_cli):
    for path in (PARENT, EXPLORER, FORKED):
        shutil.copy(path, tmp_path / path.name)
    broken = tmp_path / EXPLORER.name
    lines = broken.read_text().splitlines(keepends=True)
    lines[8] = lines[8][:40] + "\n"
    broken.write_text("".join(lines))
    code, _, err = run_cli("import", "codex", "--input", tmp_path, "--out", tmp_path / "out")
    assert code == 2
    assert EXPLORER.name in one_line(err) and ":9" in err
    assert not (tmp_path / "out").exists()
