"""Real SWE-agent (EnIGMA), mini-swe-agent (1.x, 2.x) and OpenHands files, imported and checked
against what the raw file itself says (tests/corpus/PROVENANCE.md names them)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from abw.hashing import content_hash
from abw.importers import get_importer
from abw.importers.base import ImportOptions
from abw.models.trace import Trace
from abw.traceio import render_trace
from tests.conftest import CORPUS
from tests.importkit import cli_import_one, import_trace

#: SWE-agent 0.7 (EnIGMA, CTF mode) demonstration: five ``submit``s answered ``Wrong flag!``.
EPS = CORPUS / "swe-agent" / "enigma" / "SWE-agent__enigma_demo_ctf_crypto_eps__3ea751c0.traj"
MINI = CORPUS / "mini-swe-agent"
#: mini-swe-agent 2.4.6 run with its default ``mini.yaml`` (replies rendered as JSON).
MINI_JSON = MINI / "gen__mini-swe-agent-2.4.6__mini-yaml-json-replies.traj.json"
#: mini-swe-agent 2.2.7 on SWE-bench (``<returncode>`` replies), two commands killed at 60 s.
MINI_TIMEOUTS = MINI / "miniswe2__pvlib__pvlib-python-1072.traj.json"


def _import(path: Path, **kwargs: Any) -> Trace:
    return import_trace("swe-agent", path, **kwargs)


def _replies(path: Path) -> list[dict[str, Any]]:
    """The ``extra`` of each ``tool`` reply, in order (one per executed call)."""
    messages = json.loads(path.read_text())["messages"]
    return [m["extra"] for m in messages if m["role"] == "tool"]


def _expected(extra: dict[str, Any]) -> str:
    """The outcome a reply's recorded exit says: killed at the timeout, else its return code."""
    if extra.get("exception_type") == "TimeoutExpired":
        return "timeout"
    return "ok" if extra["returncode"] == 0 else "error"


def test_enigma_wrong_flag_submit_is_an_error():
    """EnIGMA answers a ``submit`` of the wrong flag ``Wrong flag!`` and the run goes on: those
    submits failed (they were read as ok, as if the run had submitted five times)."""
    steps = json.loads(EPS.read_text())["trajectory"]
    expected = [
        "error" if s["observation"] == "Wrong flag!" else "ok"
        for s in steps
        if s["action"].startswith("submit")
    ]
    assert expected == ["error"] * 5 + ["ok"]
    trace = _import(EPS)
    assert [s.outcome for s in trace.path() if s.name == "submit"] == expected
    assert trace.run.final_status == "success"  # info.exit_status: submitted


def test_a_submitted_patch_that_reads_like_an_error_is_no_failed_submit(tmp_path):
    """SWE-agent shows the submission (the patch) as the submitting step's observation; a patch
    that adds ``raise FileNotFoundError("No such file or directory")`` made that step an error
    in a run that submitted."""
    path = CORPUS / "swe-agent" / "sweagent__pydicom__pydicom-1458.traj"
    document = json.loads(path.read_text())
    line = '+        raise FileNotFoundError(f"No such file or directory: {path}")\n'
    patch = document["info"]["submission"] + line
    document["info"]["submission"] = document["trajectory"][-1]["observation"] = patch
    changed = tmp_path / path.name
    changed.write_text(json.dumps(document))
    before, after = _import(path), _import(changed)
    assert [s.outcome for s in after.path()] == [s.outcome for s in before.path()]
    assert after.path()[-1].name == "submit" and after.path()[-1].outcome == "ok"
    assert after.run.final_status == "success"


def test_mini_json_replies_are_judged_by_their_recorded_return_code():
    """The ``mini`` CLI's default config (2.x ``mini.yaml``) renders a reply as JSON, without
    ``<returncode>``: a command that exited 1 and one killed at its timeout were read as ok.
    2.x records the code in the reply's ``extra.returncode``."""
    replies = _replies(MINI_JSON)
    messages = json.loads(MINI_JSON.read_text())["messages"]
    assert not any("<returncode>" in m["content"] for m in messages if m["role"] == "tool")
    trace = _import(MINI_JSON)
    spans = trace.path()
    executed = replies[:-1]  # the last reply: the submitting call, "action was not executed"
    assert replies[-1]["exception_info"] == "action was not executed"
    assert [s.outcome for s in spans[: len(executed)]] == [_expected(x) for x in executed]
    assert [s.outcome for s in spans] == ["error", "timeout", "ok", "ok"]  # ok: submitted
    codes = [s.attributes.get("exit_code") for s in spans]
    assert codes == [x["returncode"] for x in executed] + [None]
    assert trace.run.final_status == "success"
    assert "hello.txt" not in render_trace(trace)


def test_mini_command_killed_at_its_timeout_is_a_timeout():
    """A SWE-bench run's commands killed after 60 s (``<returncode>-1</returncode>`` and
    ``extra.exception_type: TimeoutExpired``) timed out; they were plain errors."""
    replies = _replies(MINI_TIMEOUTS)
    assert sum(x.get("exception_type") == "TimeoutExpired" for x in replies) == 2
    spans = _import(MINI_TIMEOUTS).path()
    assert len(spans) == len(replies) == 15
    assert [s.outcome for s in spans] == [_expected(x) for x in replies]
    assert [s.attributes["exit_code"] for s in spans] == [x["returncode"] for x in replies]


#: A real OpenHands V1 conversation (OpenHands CLI), one event a file.
OH_EVENTS = sorted((CORPUS / "openhands" / "v1-events").glob("event-*.json"))
#: A real OpenHands evaluation output (V0 EvalOutputs, one a line).
OH_EVAL = CORPUS / "openhands" / "openhands__multi_swe_bench_output.jsonl"


def _one_line_error(code: int, err: str) -> str:
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def test_an_empty_evaluation_output_is_refused(run_cli, tmp_path):
    """The harness writes ``output.jsonl`` a line per finished instance: one left empty (no
    instance finished) imported as no run at all, exit 0."""
    assert len(get_importer("openhands").import_file(OH_EVAL, ImportOptions())) == 3
    empty = tmp_path / "eval" / "output.jsonl"
    empty.parent.mkdir()
    empty.write_bytes(b"\n")
    for given in (empty, empty.parent):
        out = tmp_path / "out"
        code, _, err = run_cli("import", "openhands", "--input", given, "--out", out)
        assert "output.jsonl: the file is empty" in _one_line_error(code, err)
        assert not out.exists()


def test_v1_events_written_one_a_line_are_one_conversation(run_cli, tmp_path):
    """V1 events of a conversation given as JSON Lines (not an evaluation's EvalOutputs) are
    read as the conversation they are: the spans of its folder, each at its line (they were
    refused, saying to import a folder there may be none of)."""
    path = tmp_path / "events.jsonl"
    lines = [json.dumps(json.loads(p.read_text())) for p in OH_EVENTS]
    path.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli("import", "openhands", "--input", path, "--out", tmp_path / "o")
    assert code == 0, err
    (trace,) = get_importer("openhands").import_file(path, ImportOptions())
    (folder,) = get_importer("openhands").import_file(OH_EVENTS[0].parent, ImportOptions())
    assert _spans(trace) == _spans(folder)
    assert [s.source_ref.line for s in trace.spans] == [3, 3, 5]


#: mini-swe-agent 2.2.7 on SWE-bench: the model's 26th answer was a tool call with unparsable
#: arguments, never run; 2.x records no message of it, only the format error's ``user`` message.
MINI_FORMAT_ERROR = MINI / "SWE-agent__mini-2.2.7-format-error__pvlib__pvlib-python-1606.traj.json"
#: mini-swe-agent 1.15.0 (Gemini 3 Pro, SWE-bench): an answer with two ```bash blocks (a format
#: error, nothing run) and a command killed at the 60 s timeout (a reply with no return code).
MINI_1X = MINI / "gruckion__mini-1.15.0-gemini-3-pro__matplotlib__matplotlib-25287.traj.json"
#: mini-swe-agent 1.x's ``action_regex`` (its ``AgentConfig`` default; the config sets none).
_ACTION_1X = re.compile(r"```bash\s*\n(.*?)\n```", re.DOTALL)


def _messages(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text())["messages"]


def _message_lines(path: Path) -> list[int]:
    """The raw line each message of a ``{"messages": [...]}`` file (``indent=2``) opens on."""
    lines = path.read_text().splitlines()
    first = lines.index('  "messages": [')
    last = lines.index("  ],", first)
    return [n for n in range(first + 1, last + 1) if lines[n - 1] == "    {"]


def test_mini_2x_format_error_is_a_failed_model_turn():
    """The model answer mini-swe-agent 2.x could not parse is billed but recorded only as the
    ``user`` message of its ``FormatError``: that model turn was dropped (one llm span fewer, the
    error invisible). It is an llm span of its own, at that message, failed."""
    messages = _messages(MINI_FORMAT_ERROR)
    errors = [
        n
        for n, m in enumerate(messages)
        if m.get("extra", {}).get("interrupt_type") == "FormatError"
    ]
    assert len(errors) == 1 and messages[errors[0] - 1]["role"] == "tool"
    turns = sum(m["role"] == "assistant" for m in messages) + len(errors)
    trace = _import(MINI_FORMAT_ERROR)
    llms = [s for s in trace.spans if s.type == "llm"]
    api_calls = json.loads(MINI_FORMAT_ERROR.read_text())["info"]["model_stats"]["api_calls"]
    assert len(llms) == turns == api_calls == 85  # every model call the run paid for
    (failed,) = [s for s in llms if s.status == "error"]
    assert failed.outcome == "error" and failed.attributes == {"error_type": "FormatError"}
    assert failed.name == "deepseek/deepseek-chat" == llms[0].name
    assert failed.source_ref.line == _message_lines(MINI_FORMAT_ERROR)[errors[0]]
    before, after = trace.spans[failed.ordinal - 1], trace.spans[failed.ordinal + 1]
    assert (before.type, after.type) == ("tool", "llm")  # between the two turns around it
    assert len(trace.path()) == sum(len(m.get("tool_calls") or []) for m in messages)
    assert trace.run.final_status == "success"


def test_mini_1x_format_error_runs_nothing_and_a_killed_command_timed_out():
    """mini-swe-agent 1.x runs an answer's command only when its action regex finds exactly one
    block: an answer with two was read as a bash call that succeeded (the format error's reply
    holds no failure text). A command killed at the timeout is answered ``The last command
    <command>…</command> timed out and has been killed.`` with no return code: it read ok."""
    messages = _messages(MINI_1X)
    expected, failed_turns = [], []
    for n, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        actions = _ACTION_1X.findall(message["content"])
        reply = messages[n + 1]["content"]
        if len(actions) != 1:
            assert reply.startswith("Please always provide EXACTLY ONE action")
            failed_turns.append(n)
        elif reply.startswith(f"The last command <command>{actions[0].strip()}</command> timed"):
            expected.append("timeout")
        else:
            code = re.match(r"<returncode>(-?\d+)</returncode>", reply)
            expected.append(("ok" if code[1] == "0" else "error") if code else "ok")  # submitted
    assert len(failed_turns) == 1 and expected.count("timeout") == 1
    trace = _import(MINI_1X)
    spans = trace.path()
    assert [s.outcome for s in spans] == expected
    assert all(s.name == "bash" for s in spans)
    llms = [s for s in trace.spans if s.type == "llm"]
    api_calls = json.loads(MINI_1X.read_text())["info"]["model_stats"]["api_calls"]
    assert len(llms) == sum(m["role"] == "assistant" for m in messages) == api_calls
    lines = _message_lines(MINI_1X)
    failed = [s for s in llms if s.status == "error"]
    assert [s.source_ref.line for s in failed] == [lines[n] for n in failed_turns]
    assert failed[0].attributes["error_type"] == "FormatError"
    assert "timed out" not in render_trace(trace) and "pytest" not in render_trace(trace)
    assert trace.run.final_status == "success"


#: What ``openhands --headless --json`` prints around the events (OpenHands-CLI
#: ``conversation_runner.py`` and ``textual_app.py``'s headless summary; its banner first).
_CONSOLE_HEAD = [
    "\x1b[37mInitializing agent\x1b[0m\x1b[33m...\x1b[0m",
    "\x1b[32m✓ Agent initialized with model: anthropic/claude-sonnet-4-5\x1b[0m",
]
_CONSOLE_TAIL = [
    "Agent finished",
    "",
    "\x1b[92m──── \x1b[0mCONVERSATION SUMMARY\x1b[92m ────\x1b[0m",
    "\x1b[1mNumber of agent messages:\x1b[0m \x1b[1;36m1\x1b[0m",
    "\x1b[1mLast message sent by the agent:\x1b[0m",
    "\x1b[36m│\x1b[0m The command printed hello world. \x1b[36m│\x1b[0m",
    "Goodbye! 👋",
    "Conversation ID: 0df665ddb0234473",
    "Hint: run openhands --resume 0df665dd-b023-4473 to resume this",
    "conversation.",
]


def _spans(trace: Any) -> list[tuple[Any, ...]]:
    return [
        (s.type, s.name, s.status, s.outcome, s.input_hash, s.output_hash, s.attributes, s.span_id)
        for s in trace.spans
    ]


def _headless_json(tmp_path: Path, events: list[dict[str, Any]] | None = None) -> Path:
    """The corpus conversation as ``openhands --headless --json`` prints it: its
    ``json_callback`` writes each event but the ``SystemPromptEvent`` on a line of its own
    (``json.dumps(event.model_dump(), ensure_ascii=False)``), among its console lines."""
    events = events or [json.loads(p.read_text()) for p in OH_EVENTS]
    printed = [
        json.dumps(e, ensure_ascii=False) for e in events if e["kind"] != "SystemPromptEvent"
    ]
    path = tmp_path / "run.jsonl"
    lines = [*_CONSOLE_HEAD, printed[0], "Agent is working", *printed[1:], *_CONSOLE_TAIL]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_openhands_headless_json_output_is_one_conversation(run_cli, tmp_path):
    """``openhands --headless --json`` streams the conversation's V1 events one a line among
    its console lines: it was refused at its first line ("invalid JSON"), or, the console
    lines removed, with advice to import a folder. It is the conversation of those events:
    the spans of its folder, at their lines; the console's text (the agent's last message in
    the summary) is never read."""
    path = _headless_json(tmp_path)
    for name in ("run.jsonl", "run.json", "run.log"):
        given = path.rename(tmp_path / name)
        code, _, err = run_cli(
            "import", "openhands", "--input", given, "--out", tmp_path / "o" / name
        )
        assert code == 0, err
        path = given
    (trace,) = get_importer("openhands").import_file(path, ImportOptions())
    (folder,) = get_importer("openhands").import_file(OH_EVENTS[0].parent, ImportOptions())
    assert _spans(trace) == _spans(folder)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [s.source_ref.line for s in trace.spans] == [5, 5, 7]
    assert json.loads(lines[4])["kind"] == "ActionEvent"
    assert json.loads(lines[6])["kind"] == "MessageEvent"
    assert trace.run.final_status == folder.run.final_status == "success"
    assert "hello world" not in render_trace(trace)


def test_openhands_headless_json_with_a_broken_event_names_its_line(run_cli, tmp_path):
    """An event line cut short before the last line, or a JSON object among the events that is
    none, is refused naming the file and the line: never a conversation with an event less."""
    path = _headless_json(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "cut.jsonl"
    broken.write_text("\n".join([*lines[:5], lines[5][:40], *lines[6:]]) + "\n")
    code, _, err = run_cli("import", "openhands", "--input", broken, "--out", tmp_path / "a")
    assert "cut.jsonl:6: invalid JSON" in _one_line_error(code, err)
    odd = tmp_path / "odd.jsonl"
    odd.write_text("\n".join([*lines[:5], '{"id": "x"}', *lines[6:]]) + "\n")
    code, _, err = run_cli("import", "openhands", "--input", odd, "--out", tmp_path / "b")
    assert "odd.jsonl:6: kind: not an OpenHands event" in _one_line_error(code, err)
    last = tmp_path / "last.jsonl"  # the stream killed while it printed its last event
    last.write_text("\n".join([*lines[:6], lines[6][:40]]) + "\n")
    code, _, err = run_cli("import", "openhands", "--input", last, "--out", tmp_path / "c")
    assert code == 0 and "last.jsonl:7: skipped a cut-off last line" in err


#: mini-swe-agent 2.4.6 (generated, its model on loopback): the second answer's tool call has
#: unparsable arguments; 2.4+ records that answer in the format error's ``extra.response``.
MINI_FORMAT_ERROR_246 = MINI / "gen__mini-swe-agent-2.4.6__format-error.traj.json"


def test_mini_246_format_error_turn_is_its_recorded_answer():
    """Each model call is one llm span (``info.model_stats.api_calls``), the unparsable one
    failed, its output the answer 2.4+ keeps in the format error's ``extra.response``."""
    document = json.loads(MINI_FORMAT_ERROR_246.read_text())
    (error,) = [m for m in document["messages"] if m.get("extra", {}).get("interrupt_type")]
    answer = error["extra"]["response"]["choices"][0]["message"]
    assert "Unterminated string" in error["content"] and answer["tool_calls"]
    trace = _import(MINI_FORMAT_ERROR_246)
    llms = [s for s in trace.spans if s.type == "llm"]
    assert len(llms) == document["info"]["model_stats"]["api_calls"] == 4
    assert [s.status for s in llms] == ["success", "error", "success", "success"]
    assert llms[1].output_hash == content_hash(answer["content"])
    assert [s.outcome for s in trace.path()] == ["ok", "ok", "ok"]  # the bad call never ran


ENIGMA = CORPUS / "swe-agent" / "enigma"
#: SWE-agent 0.7 (EnIGMA) demonstrations, each with one command stopped at its time limit:
#: ``katy`` appends ``EXECUTION TIMED OUT`` to an empty output, ``BabyTimeCapsule`` its
#: ``… BECAUSE NO OUTPUT WAS PRODUCED FOR MORE THAN 60.0 SECONDS.`` after 2 KB of output.
ENIGMA_TIMEOUTS = [
    ENIGMA / "SWE-agent__enigma_demo_ctf_crypto_katy__3ea751c0.traj",
    ENIGMA / "SWE-agent__enigma_demo_ctf_crypto_BabyTimeCapsule__3ea751c0.traj",
]


def _timed_out_steps(steps: list[dict[str, Any]]) -> list[int]:
    return [
        i
        for i, step in enumerate(steps)
        if re.search(r"^EXECUTION TIMED OUT", step["observation"], re.MULTILINE)
    ]


def test_swe_agent_command_stopped_at_its_time_limit_is_a_timeout():
    """SWE-agent writes no exit code: a command it stopped at its time limit was read ok (the
    gate saw a hung command succeed). 0.x says so with a line ``EXECUTION TIMED OUT``."""
    for path in ENIGMA_TIMEOUTS:
        steps = json.loads(path.read_text())["trajectory"]
        expected = _timed_out_steps(steps)
        assert len(expected) == 1, path.name
        trace = _import(path)
        tools = [s for s in trace.spans if s.type != "llm"]  # one a step
        assert len(tools) == len(steps)
        assert [i for i, s in enumerate(tools) if s.outcome == "timeout"] == expected
        assert tools[expected[0]].status == "error"
        assert trace.run.final_status == "success"  # the run went on and submitted


def test_swe_agent_1x_cancelled_command_is_a_timeout(tmp_path):
    """1.x answers such a command with its ``command_cancelled_timeout_template`` (the
    katy step, its observation as 1.x writes it: the command quoted, over two lines)."""
    document = json.loads(ENIGMA_TIMEOUTS[0].read_text())
    (at,) = _timed_out_steps(document["trajectory"])
    step = document["trajectory"][at]
    step["action"] = "python recover_flag.py \\\n  --verbose"
    step["observation"] = (
        f"The command '{step['action']}' was cancelled because it took more than 30 "
        "seconds. Please try a different command that completes more quickly. Note: A "
        "common source of this error is if the command is interactive or requires user "
        "input (it is impossible to receive user input in the current environment, so the "
        "command will never complete)."
    )
    path = tmp_path / "cancelled.traj"
    path.write_text(json.dumps(document))
    tools = [s for s in _import(path).spans if s.type != "llm"]
    assert [i for i, s in enumerate(tools) if s.outcome == "timeout"] == [at]


#: An OpenHands V1 (software-agent-sdk, September 2025) conversation as its agent server
#: persisted it (``<id>/event_service/{meta.json, base_state.json, events/}``): 93 events, one
#: ``Condensation`` (the LLM-summarising condenser forgot 43 events).
OH_SERVER = CORPUS / "openhands" / "OpenHands__benchmarks__agent-server-a27a4099"


def test_openhands_agent_server_conversations_with_a_condensation(run_cli, tmp_path):
    """A folder of the agent server's conversations was refused at its ``meta.json`` ("not an
    OpenHands trajectory"), and each conversation named ``event_service`` (two would write one
    file); a ``Condensation`` left no span: the context cut was invisible. Each is one
    conversation named after its folder, the condensation a ``memory`` span ``compaction``
    (as a Claude Code or Codex compaction) at its event; the condenser's call is no agent
    turn (llm spans: one per response the agent acted on)."""
    files = sorted((OH_SERVER / "event_service" / "events").glob("event-*.json"))
    events = [json.loads(p.read_text()) for p in files]
    (at,) = [i for i, e in enumerate(events) if e["kind"] == "Condensation"]
    condensation = events[at]
    conversations = tmp_path / "conversations"
    for name in ("0c0ffee1", "0c0ffee2"):
        shutil.copytree(OH_SERVER, conversations / name)
    code, _, err = run_cli("import", "openhands", "--input", conversations, "--out", tmp_path / "o")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["0c0ffee1.json", "0c0ffee2.json"]

    (trace,) = get_importer("openhands").import_file(OH_SERVER, ImportOptions())
    (memory,) = [s for s in trace.spans if s.type == "memory"]
    assert (memory.name, memory.status, memory.span_id) == (
        "compaction",
        "success",
        f"event-{condensation['id']}",
    )
    forgotten = len(condensation["forgotten_event_ids"])
    assert forgotten == 43
    assert memory.attributes == {"trigger": "auto", "forgotten_events": forgotten}
    assert memory.input_hash == content_hash(condensation["summary"])
    assert memory.source_ref.file == files[at].name
    before = {p.name for p in files[:at]}
    assert all((s.source_ref.file in before) == (s.ordinal < memory.ordinal) for s in trace.spans)
    responses = {e["llm_response_id"] for e in events if e.get("llm_response_id")}
    assert len([s for s in trace.spans if s.type == "llm"]) == len(responses)
    assert trace.run.final_status == "success"  # a FinishAction
    rendered = render_trace(trace)
    meta = json.loads((OH_SERVER / "event_service" / "meta.json").read_text())
    for raw in (condensation["summary"][:40], meta["agent"]["llm"]["base_url"]):
        assert raw not in rendered


#: OpenDevin's evaluation output of May 2024 (logic_reasoning, ProntoQA, CodeActAgent): its
#: ``history`` is a list of ``[action, observation]`` pairs; no model response is recorded.
OH_PAIRS = CORPUS / "openhands" / "OpenHands__opendevin-v1.5__logic_reasoning_ProntoQA_output.jsonl"


def test_opendevin_history_of_action_observation_pairs():
    """It was refused ("expected a JSON array of events": it is one, of pairs), and its
    actions had no llm span (there is no model response to count them by). Each instance is
    a run; each agent action (a message, a cell, ``finish``) answered one model call."""
    instances = [json.loads(line) for line in OH_PAIRS.read_text().splitlines()]
    traces = get_importer("openhands").import_file(OH_PAIRS, ImportOptions())
    assert len(traces) == len(instances) == 6
    for line, (instance, trace) in enumerate(zip(instances, traces, strict=True), 1):
        expected = []
        model = (instance.get("metadata") or {}).get("model_name", "llm")  # (3 lines: none)
        for action, _ in instance["history"]:
            if action["source"] == "agent":
                expected.append(("llm", model))
                if action["action"] != "message":
                    expected.append(("tool", action["action"]))
        assert [(s.type, s.name) for s in trace.spans] == expected
        answered = {o.get("cause") for _, o in instance["history"]}
        cells = [a for a, _ in instance["history"] if a["action"] == "run_ipython"]
        assert cells and all(a["id"] in answered for a in cells)
        assert all(s.outcome == "ok" for s in trace.spans)
        assert {s.source_ref.line for s in trace.spans} == {line}
        assert trace.run.final_status == "success"  # each ends in finish
        rendered = render_trace(trace)
        assert all(a["args"]["code"] not in rendered for a in cells)


#: OpenDevin's gorilla (APIBench, torch hub) evaluation output of May 2024, its first 5 lines:
#: ``{question_id: 1, text, correct, hallucination, metadata, history, error}`` (no instance_id).
OH_GORILLA = (
    CORPUS / "openhands" / "OpenHands__opendevin-v1.5__gorilla_torch_output_head5__fc7b6bba.jsonl"
)


def test_opendevin_outputs_name_their_task_by_id_and_question_id():
    """OpenDevin's benchmarks of mid-2024 wrote records of their own, naming the task by ``id``
    (logic_reasoning) or ``question_id`` (gorilla, a number), not ``instance_id``: their runs
    had no scenario, so a baseline and a candidate evaluation were not paired by task. The key
    is the scenario (``--scenario-id`` does not override it), as an instance id is."""
    for path, key in ((OH_PAIRS, "id"), (OH_GORILLA, "question_id")):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        assert all("instance_id" not in r for r in records)
        options = ImportOptions(scenario_id="mine")
        traces = get_importer("openhands").import_file(path, options)
        scenarios = [t.run.scenario_id for t in traces]
        assert scenarios == [str(r[key]) for r in records]
        assert len(set(scenarios)) == len(records)
        assert options.warnings == [
            f"{path.name}: an evaluation's instance id is the scenario of its run; "
            "--scenario-id does not override it"
        ]


#: Leaves of an evaluation output's events that name a model, not content.
_OH_NOT_CONTENT = {"llm_metrics.accumulated_token_usage.model"}


def _oh_content_leaves(value: Any, path: list[str]):
    """Dotted paths of the strings in ``value`` that look like content (12+ characters, with a
    space or a slash); lists are looked through."""
    if isinstance(value, str):
        if len(value) >= 12 and (" " in value or "/" in value):
            yield ".".join(path)
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from _oh_content_leaves(inner, [*path, key])
    elif isinstance(value, list):
        for inner in value:
            yield from _oh_content_leaves(inner, path)


def test_openhands_removed_fields_name_every_content_kind_an_evaluation_held():
    """An evaluation output's ``redaction.removed_fields`` named its events' content and
    EvalOutput's fields, but not what OpenDevin's records held besides: the model's answer
    (``final_message``, ``messages``: logic_reasoning; ``text``: gorilla), nor the run's
    ``error`` (a stack trace, a limit). Every content-like string of every evaluation output
    in the corpus falls under a field it names."""
    outputs = sorted((CORPUS / "openhands").glob("*output*.jsonl"))
    assert {OH_PAIRS, OH_GORILLA} <= set(outputs)
    for path in outputs:
        traces = get_importer("openhands").import_file(path, ImportOptions())
        records = [json.loads(line) for line in path.read_text().splitlines()]
        for trace, record in zip(traces, records, strict=True):
            removed = set(trace.redaction.removed_fields)
            history = record.get("history") or []
            events = [e for pair in history for e in pair] if path == OH_PAIRS else history
            leaves = {
                *_oh_content_leaves({k: v for k, v in record.items() if k != "history"}, []),
                *(leaf for event in events for leaf in _oh_content_leaves(event, [])),
            }
            unnamed = {
                leaf
                for leaf in leaves - _OH_NOT_CONTENT
                if not any(leaf == name or leaf.startswith(name + ".") for name in removed)
            }
            assert unnamed == set(), (path.name, unnamed)
            held = {k for k in ("final_message", "messages", "text", "error") if record.get(k)}
            assert held <= removed, (path.name, held - removed)
    (first, *_) = get_importer("openhands").import_file(OH_PAIRS, ImportOptions())
    assert {"final_message", "messages"} <= set(first.redaction.removed_fields)


def test_openhands_conversation_with_no_event_yet_is_skipped(run_cli, tmp_path):
    """A conversation just created holds its ``base_state.json`` (the agent server's
    ``meta.json`` too) and no event file yet: a folder import failed on it ("not an OpenHands
    trajectory"), its other conversations with it; with an ``events/`` that holds only the
    event log's lock it was dropped without a word. It is skipped, with a warning naming it;
    its ``base_state.json`` given alone is refused, naming the folder to import."""
    conversations = tmp_path / "conversations"
    shutil.copytree(OH_SERVER, conversations / "done")
    state = OH_SERVER / "event_service"
    new = conversations / "new" / "event_service"
    new.mkdir(parents=True)
    for name in ("base_state.json", "meta.json"):
        shutil.copy(state / name, new / name)
    locked = conversations / "locked"
    (locked / "events").mkdir(parents=True)
    (locked / "events" / ".eventlog.lock").write_bytes(b"")
    shutil.copy(state / "base_state.json", locked / "base_state.json")
    code, _, err = run_cli("import", "openhands", "--input", conversations, "--out", tmp_path / "o")
    assert code == 0, err
    assert [p.name for p in (tmp_path / "o").iterdir()] == ["done.json"]
    skipped = [line for line in err.splitlines() if "no event yet" in line]
    assert [line.split(": ")[2] for line in skipped] == ["locked", "new"]

    code, _, err = run_cli(
        "import", "openhands", "--input", new / "base_state.json", "--out", tmp_path / "one"
    )
    assert code == 2
    assert "base_state.json" in err and "folder" in err and len(err.strip().splitlines()) == 1


#: SWE-agent 1.1.0 (3ea751c087f3) run by its ``human`` model on a dummy deployment: ``ls``,
#: ``cat README.md``, then ``exit``; ``info.exit_status: exit_command``, nothing submitted.
SWE_EXIT = (
    CORPUS
    / "swe-agent"
    / "exits"
    / "gen__sweagent-1.1.0__human-exit-command__counter-off-by-one.traj"
)


def test_swe_agent_exit_command_is_a_run_stopped_on_purpose():
    """An agent that types ``exit`` (SWE-agent 1.x's ``exit_command``; a human's ^D in
    ``human`` mode) stops the run without submitting, as ``exit_forfeit`` gives up: the run
    read ``error`` (as a cost limit or a crash does), it is ``cancelled``."""
    document = json.loads(SWE_EXIT.read_text())
    assert document["info"]["exit_status"] == "exit_command"
    assert document["info"]["submission"] is None
    assert document["trajectory"][-1]["action"].strip() == "exit"
    trace = _import(SWE_EXIT)
    assert trace.run.final_status == "cancelled"
    assert [(s.name, s.outcome) for s in trace.path()] == [("bash", "ok")] * 3
    assert trace.run.model_extra["replayed"] is True  # (no tokens: a human's actions)


#: OpenHands' Multi-SWE-bench output (V0 EvalMetadata: ``metadata.llm_config.model``).
OH_MULTI = CORPUS / "openhands" / "openhands__multi_swe_bench_output.jsonl"


def _llm_names(trace: Any) -> set[str]:
    return {s.name for s in trace.spans if s.type == "llm"}


def test_openhands_v0_evaluations_name_the_model_their_record_names(tmp_path):
    """V0 events before function calling record no model response, so OpenDevin's evaluations
    named every llm span ``llm``: a candidate evaluation run with another model than its
    baseline showed no change. The model is the one the record names (``metadata.model_name``,
    gorilla's ``model_id`` too; EvalMetadata's ``metadata.llm_config.model``); a model response's
    own ``model`` still wins, and a record that names none stays ``llm``. ``metadata`` is still
    a removed field: all of it but the model (the output folder, the commit, the API's address)
    is dropped."""
    importer = get_importer("openhands")
    for path in (OH_PAIRS, OH_GORILLA):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        traces = importer.import_file(path, ImportOptions())
        named = [(r.get("metadata") or {}).get("model_name", "llm") for r in records]
        assert [_llm_names(t) for t in traces] == [{n} for n in named]
        assert "gpt-4o-2024-05-13" in named
        for record, trace in zip(records, traces, strict=True):
            assert record.get("model_id", named[0]) == named[0]
            if record.get("metadata"):
                assert "metadata" in trace.redaction.removed_fields
                rendered = render_trace(trace)
                assert record["metadata"]["start_time"] not in rendered

    # Multi-SWE-bench: the responses name the model that answered, the config its route
    records = [json.loads(line) for line in OH_MULTI.read_text().splitlines()]
    configured = {r["metadata"]["llm_config"]["model"] for r in records}
    assert configured == {"openai/openrouter-llama-4-maverick"}
    traces = importer.import_file(OH_MULTI, ImportOptions())
    assert all(_llm_names(t) == {"meta-llama/llama-4-maverick"} for t in traces)
    # the same record without the responses' model: the model its EvalMetadata names
    record = records[0]
    for event in record["history"]:
        response = (event.get("tool_call_metadata") or {}).get("model_response") or {}
        response.pop("model", None)
    bare = tmp_path / "output.jsonl"
    bare.write_text(json.dumps(record) + "\n")
    (trace,) = importer.import_file(bare, ImportOptions())
    assert _llm_names(trace) == configured
    rendered = render_trace(trace)
    assert record["metadata"]["llm_config"]["base_url"] not in rendered
    assert "metadata" in trace.redaction.removed_fields


def test_swe_agent_1x_llm_spans_are_named_by_its_replay_config_model():
    """SWE-agent 1.x writes ``replay_config`` as a JSON string (the config to replay the run
    with), not an object: its model went unread and every llm span was named ``model``. It is
    read; the rest of the config stays out of the trace (``replay_config`` a removed field)."""
    document = json.loads(SWE_EXIT.read_text())
    assert isinstance(document["replay_config"], str)
    config = json.loads(document["replay_config"])
    assert config["agent"]["model"]["name"] == "human"
    trace = _import(SWE_EXIT)
    assert _llm_names(trace) == {"human"}
    assert "replay_config" in trace.redaction.removed_fields
    rendered = render_trace(trace)
    assert config["problem_statement"]["text"] not in rendered


def _v0_session(root: Path) -> Path:
    """The real V0 GUI session (``openhands__basic_gui_mode.json``) as OpenHands' V0 file store
    persists it: ``sessions/<id>/events/<n>.json``, one event a file, beside its
    ``event_cache/`` pages (the same events again) and ``metadata.json``."""
    events = json.loads((CORPUS / "openhands" / "openhands__basic_gui_mode.json").read_text())
    session = root / "sessions" / "3f2a9c"
    (session / "events").mkdir(parents=True)
    (session / "event_cache").mkdir()
    for event in events:
        (session / "events" / f"{event['id']}.json").write_text(json.dumps(event))
    (session / "event_cache" / "0-25.json").write_text(json.dumps(events))
    (session / "metadata.json").write_text(json.dumps({"conversation_id": "3f2a9c"}))
    return session


def test_a_v0_session_folder_is_one_run(run_cli, tmp_path):
    """A V0 session on disk was refused file by file ("expected a JSON array of events"): its
    folder is one run, the same spans as its trajectory, each pointing at its event's file."""
    session = _v0_session(tmp_path)
    whole = cli_import_one(
        run_cli,
        "openhands",
        CORPUS / "openhands" / "openhands__basic_gui_mode.json",
        tmp_path / "a",
    )
    for given in (session.parent, session, session / "events"):
        trace = cli_import_one(run_cli, "openhands", given, tmp_path / f"out-{given.name}")
        assert trace["run"]["final_status"] == whole["run"]["final_status"] == "success"
        shown = [(s["type"], s["name"], s["status"]) for s in trace["spans"]]
        assert shown == [(s["type"], s["name"], s["status"]) for s in whole["spans"]]
        assert all(s["source_ref"]["file"].endswith(".json") for s in trace["spans"])
    code, _, err = run_cli(
        "import", "openhands", "--input", session / "events" / "7.json", "--out", tmp_path / "x"
    )
    assert code == 2 and "one event of an OpenHands V0 session" in err, err
