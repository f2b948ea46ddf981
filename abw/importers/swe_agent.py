"""SWE-agent ``.traj`` files (0.x and 1.x), and mini-swe-agent ``*.traj.json``.

Each trajectory step is an llm span (the response/thought) followed by one tool span. The tool is
the step's SWE-agent command (``create``, ``edit``, ``open``, ``find_file``, ``submit``, ...);
anything else is a shell command, named ``bash`` (``--bash-tool-labels`` rename it; the command text
itself is never kept). There is no exit code: the status is read from fixed texts the tools print
(``Traceback``, ``command not found``, the linter's ``Your proposed edit has introduced new syntax
error(s)``, EnIGMA's ``Wrong flag!`` for a CTF ``submit`` it refused: the run goes on); a command
SWE-agent stopped at its time limit (0.x: a line ``EXECUTION TIMED OUT``; 1.x: ``The command '…' was
cancelled because it took more than N seconds.``) timed out. ``info.exit_status`` gives the run's
outcome (``submitted``, and mini-swe-agent's ``Submitted``, are success; ``skipped``,
``exit_forfeit`` and ``exit_command``, a run stopped on purpose, cancelled; any other exit an
error). A file that holds only ``history`` (SWE-agent's demonstrations) is read from its assistant
messages' ``action`` and the replies to them.

mini-swe-agent writes either ``{"messages": [...], "info": ...}`` or (its older runs, which its own
inspector still reads) a bare list of messages. In its text-based form (1.x, and 2.x's
``*_textbased`` models) the command is the one fenced block of an assistant message
(```` ```mswea_bash_command ````, ```` ```bash ````, or ``<mswea_bash_command>``; 2.x records the
command it parsed, by its ``action_regex``, in ``extra.actions``: that one is read), its status
the next message's ``<returncode>`` (1.x: a reply that says the command ``timed out and has been
killed`` has none: a timeout). A 1.x message with no block or several ran nothing: the reply is a
format error, and its llm span fails (``error_type: FormatError``); 2.x records no such message,
only the format error's ``user`` message (``extra.interrupt_type: FormatError``), which stands for
the model turn as a failed llm span. In its tool-calling form (2.x, ``trajectory_format``
``mini-swe-agent-1.1``) every entry of an assistant message's ``tool_calls`` is a tool span named by
its function (``bash``, a shell call), answered by the ``tool`` message with its ``tool_call_id``
(else the next unanswered call, in order); the call that submitted (a tool call, or 2.x's
text-based command) is answered by the ``exit`` message (``Submitted``) instead. A reply's exit
code is its ``extra.returncode`` (2.x; the ``mini`` CLI's default config writes the reply as
JSON), else its ``<returncode>``; one whose
``extra.exception_type`` is ``TimeoutExpired`` (killed at the timeout) timed out. The commands a
person declined in confirm mode (``UserRejection``; 1.x ``Command not executed. …``) are
rejected, those a ^C stopped (``UserInterruption``; 1.x ``Interrupted by user: …``)
interrupted. A new task a person gives when the agent submits (``UserNewTask``) answers the
submitting call as the ``exit`` message does.
Its llm spans are named by ``info.config.model.model_name`` (else the response's ``model``).
2.x's Responses API models (``litellm_response``, ``openrouter_response``, ``portkey_response``)
record the model's answer as the API's ``response`` object (``object: response``: its ``output``
items of ``type: function_call`` are the tool calls, by ``call_id``) and each reply as a
``function_call_output`` item (``call_id``, ``output``): read as the assistant and ``tool``
messages they stand for.
A ``messages`` document with nothing of mini-swe-agent in it (no command, no tool call, no
``trajectory_format`` or ``info``, roles other than system/user/assistant/tool/exit: a Gemini
CLI session) is refused.

SWE-agent's llm spans are named by the ``agent.model.name`` of its ``replay_config`` (1.x writes
that config as a JSON string), else ``model``. ``source_ref.line`` is the raw line each step (or
message) starts on. ``run.replayed`` says the actions were not a model's: the run's
``model_stats`` record no tokens at all (a replay or a human demonstration). SWE-agent 1.x writes
``replay_config`` on *every* run — it is the config to replay it with — so that key alone says
nothing.

``--argument-fields`` needs structured arguments: only function-calling trajectories have them
(``history`` assistant messages with ``tool_calls``, paired with steps by their ``action``, and
mini-swe-agent 2.x's ``tool_calls``); a plain command string (0.x, text-based mini-swe-agent,
thought-action 1.x) has none to pick from.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from abw.errors import AbwInputError
from abw.importers.base import Importer, ImportOptions, export_files
from abw.importers.common import (
    fenced_blocks,
    fenced_spans,
    identifier,
    instance_scenario,
    warn_instance_scenario,
)
from abw.importers.rawio import (
    BOM,
    as_dict,
    decode_json_string,
    held_fields,
    load_json,
    read_raw,
)
from abw.importers.spans import ABSENT, SHELL_TOOLS, Draft, exit_outcome, finish, make_trace
from abw.jsonlocate import value_lines
from abw.reader import MalformedJson, parse_json

if TYPE_CHECKING:
    from abw.models.trace import Trace

#: SWE-agent commands that only read or navigate (file viewer and search tools).
RETRIEVERS = frozenset(
    {
        "open",
        "goto",
        "scroll_up",
        "scroll_down",
        "find_file",
        "search_file",
        "search_dir",
        "filemap",
    }
)
#: Commands of SWE-agent's own tool bundles (everything else is a bash command).
SWE_COMMANDS = RETRIEVERS | frozenset(
    {
        "create",
        "edit",
        "insert",
        "submit",
        "str_replace_editor",
        "view_image",
        "exit_forfeit",
        "skip",
        "forfeit",
    }
)
_FAILURES = (
    re.compile(r"^Traceback \(most recent call last\)", re.MULTILINE),
    re.compile(r"command not found"),
    re.compile(r"Your proposed edit has introduced new syntax error"),
    re.compile(r"No such file or directory"),
    re.compile(r"^(?:Error|ERROR)\b", re.MULTILINE),
    re.compile(r"^Usage: ", re.MULTILINE),
    re.compile(r"^Wrong flag!", re.MULTILINE),  # EnIGMA (CTF mode) refused a ``submit``
)
#: What SWE-agent writes in the observation of a command it stopped at its time limit: 0.x
#: appends a line ``EXECUTION TIMED OUT`` (EnIGMA's goes on ``BECAUSE NO OUTPUT WAS PRODUCED FOR
#: MORE THAN N SECONDS.``, or ``AND INTERRUPT FAILED. …``); 1.x answers with its
#: ``command_cancelled_timeout_template``, ``The command 'CMD' was cancelled because it took more
#: than N seconds. …`` (the command, quoted, may span lines: only its end is matched).
_TIMED_OUT_LINE = re.compile(r"^EXECUTION TIMED OUT\b", re.MULTILINE)
_CANCELLED = re.compile(r"' was cancelled because it took more than \d+(?:\.\d+)? seconds\.")
#: Commands that end the run: a run's ``history`` holds no observation of them.
_TERMINAL = frozenset({"submit", "exit_forfeit", "skip", "forfeit"})
_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
_BASH_OPEN = re.compile(r"```(?:mswea_bash_command|bash|sh)\s*\n")
#: The opener of each kind of fenced block (a message's blocks count by the kind of its first).
_FENCES = {
    f"```{kind}": re.compile(rf"```{kind}\s*\n") for kind in ("mswea_bash_command", "bash", "sh")
}
_BASH_CLOSE = re.compile(r"\n```")
_TAG_OPEN, _TAG_CLOSE = "<mswea_bash_command>", "</mswea_bash_command>"
#: ``info.exit_status`` of a run that submitted: SWE-agent's, and mini-swe-agent's (whose status
#: is the name of the exception that ended the run; ``LimitsExceeded``, ``Timeout``: errors).
_SUBMITTED = frozenset({"submitted", "Submitted"})
#: The roles of mini-swe-agent's messages (``exit`` ends a run: its ``extra.exit_status``).
_MINI_ROLES = frozenset({"system", "user", "assistant", "tool", "exit"})
#: What mini-swe-agent's environments look for in a command's output to submit.
_SUBMIT_MARK = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
#: ``extra.exception_info`` of the reply to a call mini-swe-agent did not run (user rejection).
_NOT_EXECUTED = "action was not executed"
#: ``extra.exception_type`` of a command mini-swe-agent's environment killed at its timeout.
_TIMED_OUT = "TimeoutExpired"
#: How mini-swe-agent 1.x's ``timeout_template`` answers a command killed at its timeout (no
#: return code): ``The last command <command>CMD</command> timed out and has been killed.``
_KILLED = ("The last command <command>", "</command> timed out and has been killed.")
#: How mini-swe-agent's interactive agent records a person declining the commands (confirm
#: mode) or stopping a step (^C): 2.x's ``extra.interrupt_type``, and the text 1.x's
#: ``NonTerminatingException`` message opens with (it records no type).
_STOP_OUTCOMES = {"UserRejection": "rejected", "UserInterruption": "interrupted"}
_STOPPED_TEXTS = {
    "UserRejection": "Command not executed.",
    "UserInterruption": "Interrupted by user:",
}
#: The exception mini-swe-agent raises when a model's answer holds no command it can run (no
#: tool call, unparsable arguments, not exactly one command block).
_FORMAT_ERROR = "FormatError"
#: ``extra.interrupt_type`` of the new task a person types when the interactive agent submits
#: (``confirm_exit``): the run goes on, the submitting call ran.
_NEW_TASK = "UserNewTask"


def bash_command(text: str) -> str | None:
    """The command of the first ```bash / ```sh / ```mswea_bash_command block or
    ``<mswea_bash_command>`` element, whichever starts first; linear in ``len(text)``
    (abw.importers.common.fenced_spans; the lazy regex was quadratic)."""
    commands = bash_commands(text)
    return commands[0] if commands else None


def bash_commands(text: str) -> list[str]:
    """Every command block of the kind that starts first (```bash, ```sh,
    ```mswea_bash_command or ``<mswea_bash_command>``), in order; linear in ``len(text)``.
    mini-swe-agent's action regex finds all the blocks of its one kind and runs a command only
    when it finds exactly one (else its reply is a format error)."""
    fenced = next(fenced_spans(text, _BASH_OPEN, _BASH_CLOSE), None)
    tags: list[tuple[int, str]] = []
    start = text.find(_TAG_OPEN)
    while start >= 0:
        end = text.find(_TAG_CLOSE, start + len(_TAG_OPEN))
        if end < 0:
            break
        tags.append((start, text[start + len(_TAG_OPEN) : end]))
        start = text.find(_TAG_OPEN, end + len(_TAG_CLOSE))
    if fenced is None or (tags and tags[0][0] < fenced[0]):
        return [command for _, command in tags]
    fence = next(f for f in _FENCES if text.startswith(f, fenced[0]))
    return list(fenced_blocks(text, _FENCES[fence], _BASH_CLOSE))


#: The content kinds a trajectory can hold; ``removed_fields`` names those a file does hold.
REMOVED_FIELDS = (
    "trajectory.action",
    "trajectory.observation",
    "trajectory.response",
    "trajectory.thought",
    "trajectory.state",
    "history",
    "info.submission",
    "info.edited_files30",
    "replay_config",
    "messages.content",
    "messages.tool_calls",
    "messages.extra",
    "messages.output",
    "info.traceback",
    "info.exception_str",
)


def observation_outcome(text: Any) -> str:
    """timeout when SWE-agent stopped the command at its time limit (:data:`_TIMED_OUT_LINE`,
    :data:`_CANCELLED`), else error when the observation holds one of the fixed failure texts,
    else ok."""
    if not isinstance(text, str):
        return "ok"
    if _TIMED_OUT_LINE.search(text):
        return "timeout"
    cancelled = _CANCELLED.search(text)
    if cancelled and text.rfind("The command '", 0, cancelled.start()) >= 0:
        return "timeout"
    head = text[:4000]
    return "error" if any(p.search(head) for p in _FAILURES) else "ok"


#: ``info.exit_status`` of a run stopped on purpose, with nothing submitted: skipped, given up
#: (``exit_forfeit``), or ended by the ``exit`` its agent typed (1.x's ``exit_command``: the
#: model's, or a human's ^D in ``human`` mode).
_STOPPED = frozenset({"skipped", "exit_forfeit", "exit_command"})


def _final_status(exit_status: Any) -> str:
    """The run's status from ``info.exit_status``: submitted -> success, stopped on purpose
    (:data:`_STOPPED`) -> cancelled, any other exit (a limit, an error) -> error."""
    if not isinstance(exit_status, str) or not exit_status:
        return "unknown"
    if exit_status in _SUBMITTED:
        return "success"
    if exit_status in _STOPPED:
        return "cancelled"
    return "error"


class SweAgentImporter(Importer):
    name: ClassVar[str] = "swe-agent"
    platform: ClassVar[str] = "swe_agent"
    export_format: ClassVar[str] = "swe-agent-traj"
    help: ClassVar[str] = (
        "SWE-agent .traj files (0.x, 1.x) and mini-swe-agent *.traj.json. --argument-fields "
        "reads function-calling trajectories' tool_calls arguments."
    )
    supports_argument_fields: ClassVar[bool] = True
    suffixes: ClassVar[tuple[str, ...]] = (".traj", ".json")

    def discover(self, folder: Path) -> list[Path]:
        """``*.traj`` and ``*.traj.json`` files; a run folder's other JSON (preds, results,
        configs) is not a trajectory."""
        return export_files(folder, ("*.traj", "*.traj.json"))

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        raw = read_raw(path)
        document = _load(raw, path)
        bare = _message_list(document)
        if bare:  # mini-swe-agent's bare list of messages
            document = {"messages": document}
            lines = {("messages", *key): line for key, line in value_lines(raw, 1).items()}
        else:
            lines = value_lines(raw, 2)
        if isinstance(document, dict) and isinstance(document.get("messages"), list):
            drafts, final_text = _mini(document, options, path, lines)
            _check_mini(document, drafts, path, lines, bare)
        elif isinstance(document, dict) and isinstance(document.get("trajectory"), list):
            drafts, final_text = _steps(document, options, path, lines)
        elif isinstance(document, dict) and isinstance(document.get("history"), list):
            drafts, final_text = _history(document, options, path, lines), None
        else:
            raise AbwInputError(
                "not a SWE-agent trajectory: expected an object with trajectory[] (or "
                "history[] or messages[]), or a list of {role, content} messages",
                file=path,
                field="trajectory",
            )
        info = as_dict(document.get("info"))
        if options.argument_fields and not any("arguments" in d.attributes for d in drafts):
            options.warn(
                f"{path.name}: no argument fields extracted (argument fields are read only from "
                "function-calling trajectories' tool_calls, and none matched)"
            )
        extra = {"replayed": True} if _no_model_tokens(info, drafts) else {}
        given = options
        options = instance_scenario(options, document.get("instance_id"))  # mini-swe-agent 2.x
        traces = [
            make_trace(
                platform=self.platform,
                export_format=self.export_format,
                raw=raw,
                trace_id=path.name.removesuffix(".json").removesuffix(".traj"),
                spans=finish(drafts, path),
                options=options,
                final_status=_final_status(info.get("exit_status")),
                final_output=final_text,
                final_text=final_text,
                removed_fields=held_fields(document, REMOVED_FIELDS),
                extra_run=extra,
            )
        ]
        warn_instance_scenario(given, traces, path.name)
        return traces


def _load(raw: bytes, path: Path) -> Any:
    """The file's one JSON document; JSON Lines (a JSON object on each line) is refused as no
    trajectory rather than as invalid JSON."""
    try:
        return load_json(raw, path)
    except MalformedJson:
        if _json_lines(raw, path):
            raise AbwInputError(
                "not a SWE-agent trajectory: JSON Lines given (a JSON object on each line); "
                "expected one JSON document",
                file=path,
                field="trajectory",
            ) from None
        raise


def _json_lines(raw: bytes, path: Path) -> bool:
    """The first two non-blank lines are each a JSON object of their own."""
    lines = [line for line in raw.removeprefix(BOM).split(b"\n") if line.strip()][:2]
    try:
        return len(lines) == 2 and all(isinstance(parse_json(x, path), dict) for x in lines)
    except AbwInputError:
        return False


def _message_list(document: Any) -> bool:
    """A non-empty list of ``{role, ...}`` objects (mini-swe-agent's older trajectories)."""
    return (
        isinstance(document, list)
        and bool(document)
        and all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in document)
    )


def _no_model_tokens(info: dict[str, Any], drafts: list[Draft]) -> bool:
    """The run took steps but its model exchanged no tokens: a replay or a human demonstration
    (SWE-agent's replay and human models report 0), not a model's run."""
    stats = as_dict(info.get("model_stats"))
    counts = [stats.get("tokens_sent"), stats.get("tokens_received")]
    recorded = all(isinstance(c, int) and not isinstance(c, bool) for c in counts)
    return recorded and counts == [0, 0] and any(d.type != "llm" for d in drafts)


def _tool(command: str) -> str:
    head = command.strip().split(maxsplit=1)
    first = head[0] if head else ""
    return first if first in SWE_COMMANDS else "bash"


def _model(document: dict[str, Any], path: Path, lines: dict[tuple, int]) -> str:
    """The model a SWE-agent run was configured with, a plain identifier: ``agent.model.name``
    of its ``replay_config`` (an object before 1.0; from 1.0 on, that object as a JSON string)
    or ``config``; else ``model``."""
    key = "replay_config" if document.get("replay_config") else "config"
    config = decode_json_string(document.get(key), path, lines.get((key,)))
    name = as_dict(as_dict(as_dict(config).get("agent")).get("model")).get("name")
    return identifier(name) or "model"


def _function_calls(
    document: dict[str, Any], path: Path, lines: dict[tuple, int]
) -> list[tuple[str, str, Any]]:
    """``(action, function name, arguments)`` of each assistant message in ``history`` that made
    exactly one function call, in order (function-calling trajectories only)."""
    calls = []
    history = document.get("history") if isinstance(document.get("history"), list) else []
    for index, message in enumerate(history):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        call = _one_call(message)
        if call is not None and isinstance(message.get("action"), str):
            line = lines.get(("history", index))
            arguments = decode_json_string(call[1], path, line)
            calls.append((message["action"], call[0], arguments))
    return calls


def _one_call(message: dict[str, Any]) -> tuple[str, Any] | None:
    """``(function name, arguments)`` when an assistant message made exactly one function
    call, else None."""
    tool_calls = message.get("tool_calls")
    if not isinstance(tool_calls, list) or len(tool_calls) != 1:
        return None
    function = tool_calls[0].get("function") if isinstance(tool_calls[0], dict) else None
    if not isinstance(function, dict):
        return None
    return str(function.get("name")), function.get("arguments")


def _steps(
    document: dict[str, Any], options: ImportOptions, path: Path, lines: dict[tuple, int]
) -> tuple[list[Draft], str | None]:
    drafts: list[Draft] = []
    model = _model(document, path, lines)
    calls = _function_calls(document, path, lines) if options.argument_fields else []
    next_call = 0
    for index, step in enumerate(document["trajectory"]):
        if not isinstance(step, dict):
            raise AbwInputError("a step is not an object", file=path, field=f"trajectory.{index}")
        line = lines.get(("trajectory", index))
        llm = Draft((index, 0), "llm", model, "ok", output=step.get("response", ABSENT))
        llm.line = line
        drafts.append(llm)
        action = step.get("action")
        if not isinstance(action, str) or not action.strip():
            continue
        draft = _action_draft((index, 1), action, line, options)
        draft.output = step.get("observation", ABSENT)
        draft.outcome = observation_outcome(step.get("observation"))
        # the next function call made with this step's action, when it called this tool
        found = next((i for i in range(next_call, len(calls)) if calls[i][0] == action), None)
        if found is not None:
            next_call = found + 1
            if calls[found][1] == draft.name:
                draft.keep_arguments(options.argument_fields, calls[found][2], path)
        seconds = step.get("execution_time")
        try:
            if seconds is not None:
                draft.duration_ms = round(float(seconds) * 1000, 3)
        except (TypeError, ValueError, OverflowError):  # an exact integer beyond a double
            pass
        drafts.append(draft)
    info = as_dict(document.get("info"))
    submission = info.get("submission")
    return drafts, submission if isinstance(submission, str) else None


def _action_draft(
    key: tuple[int, int], action: str, line: int | None, options: ImportOptions
) -> Draft:
    """The tool span of a step's ``action`` (its output and outcome are the caller's to set):
    a SWE-agent command by name, a reader's a retriever span, anything else ``bash``."""
    name = _tool(action)
    draft = Draft(key, "retriever" if name in RETRIEVERS else "tool", name, None, action)
    draft.line = line
    if name == "bash":
        draft.mark_shell(options.labels, action)
    return draft


def _history(
    document: dict[str, Any], options: ImportOptions, path: Path, lines: dict[tuple, int]
) -> list[Draft]:
    """A trajectory that holds only ``history`` (SWE-agent's demonstrations): each assistant
    message is an llm span, its ``action`` a tool span whose observation is the next ``tool``
    or ``user`` message (``incomplete`` when none follows, but for the command that ended the
    run: ``submit`` and the like are never answered). Messages marked ``is_demo`` (the
    in-context demonstration a run's history starts with) are not the run's own steps."""
    drafts: list[Draft] = []
    model = _model(document, path, lines)
    pending: Draft | None = None
    for index, message in enumerate(document["history"]):
        if not isinstance(message, dict):
            raise AbwInputError("a message is not an object", file=path, field=f"history.{index}")
        if message.get("is_demo") is True:
            continue
        role = message.get("role")
        line = lines.get(("history", index))
        if role == "assistant":
            llm = Draft((index, 0), "llm", model, "ok", output=message.get("content", ABSENT))
            llm.line = line
            drafts.append(llm)
            pending = None
            action = message.get("action")
            if not isinstance(action, str) or not action.strip():
                continue
            pending = _action_draft((index, 1), action, line, options)
            # a run's history holds no observation of the command that ended it
            pending.outcome = "ok" if pending.name in _TERMINAL else "incomplete"
            call = _one_call(message)
            if call is not None and options.argument_fields and call[0] == pending.name:
                pending.keep_arguments(options.argument_fields, call[1], path)
            drafts.append(pending)
        elif role in ("tool", "user") and pending is not None:
            pending.output = message.get("content", ABSENT)
            pending.outcome = observation_outcome(message.get("content"))
            pending = None
    return drafts


def _mini(
    document: dict[str, Any], options: ImportOptions, path: Path, lines: dict[tuple, int]
) -> tuple[list[Draft], str | None]:
    """mini-swe-agent: each assistant message an llm span, then its ``tool_calls`` (2.x) or its
    one fenced command block (text-based) as tool spans (module docstring)."""
    drafts: list[Draft] = []
    pending: Draft | None = None  # the fenced command the next user message answers
    unparsed: Draft | None = None  # a text-based turn with no single command (1.x)
    waiting: list[tuple[Any, Draft]] = []  # (tool_call_id, span) of the calls not answered yet
    final_text = None
    model = _config_model(document)
    for index, message in enumerate(document["messages"]):
        if not isinstance(message, dict):
            continue
        message = _chat_form(message)
        role, content = message.get("role"), message.get("content")
        text = _text(content)
        line = lines.get(("messages", index))
        turn, unparsed = unparsed, None
        if role == "assistant":
            name = model or _response_model(message) or "model"
            llm = Draft((index, 0), "llm", name, "ok", output=content)
            llm.line = line
            drafts.append(llm)
            final_text = text or final_text
            calls = _mini_calls(message, (index, line), options, path)
            waiting.extend(calls)
            drafts.extend(draft for _, draft in calls)
            commands = [] if calls else _commands(message, text)
            if len(commands) == 1:
                pending = Draft((index, 1), "tool", "bash", "incomplete", commands[0])
                pending.line = line
                pending.mark_shell(options.labels, commands[0])
                drafts.append(pending)
            elif not calls:
                unparsed = llm  # nothing was run: a reply to it is 1.x's format error
        elif role == "tool":
            _answer_call(waiting, message)
        elif role == "exit" or (role == "user" and _interrupt(message) == _NEW_TASK):
            if pending is not None:  # (2.x text-based: the command that submitted)
                waiting.append((None, pending))
                pending = None
            _answer_submit(waiting, message)
        elif role == "user" and (pending or waiting) and (stopped := _stopped(message, text)):
            _stop(pending, waiting, stopped, message)
            pending = None
        elif role == "user" and _interrupt(message) == _FORMAT_ERROR:
            drafts.append(_unparsed_turn((index, 0), message, model, line))
        elif role == "user" and turn is not None and _interrupt(message) is None:
            _format_error(turn)
        elif role == "user" and pending is not None:
            _settle(pending, content, text, message.get("extra"))
            pending = None
    return drafts, final_text


def _commands(message: dict[str, Any], text: str) -> list[str]:
    """The commands of a text-based answer: those 2.x parsed from it and ran (its
    ``extra.actions``: by the model's ``action_regex``, which other fenced blocks, a
    ```` ```bash ```` example, do not match), else its command blocks (1.x)."""
    actions = as_dict(message.get("extra")).get("actions")
    found = [as_dict(a).get("command") for a in _list(actions)]
    if found and all(isinstance(command, str) for command in found):
        return found
    return bash_commands(text)


def _chat_form(message: dict[str, Any]) -> dict[str, Any]:
    """A Responses API item as the chat message it stands for: a ``response`` object is the
    assistant message (its ``output_text`` parts the content, its ``function_call`` items the
    ``tool_calls``), a ``function_call_output`` the ``tool`` message; any other unchanged."""
    if message.get("object") == "response" and "role" not in message:
        items = [as_dict(item) for item in _list(message.get("output"))]
        calls = [_chat_call(item) for item in items if item.get("type") == "function_call"]
        parts = [p for i in items if i.get("type") == "message" for p in _list(i.get("content"))]
        extra = {**as_dict(message.get("extra")), "response": {"model": message.get("model")}}
        return {"role": "assistant", "content": parts or None, "tool_calls": calls, "extra": extra}
    if message.get("type") == "function_call_output" and "role" not in message:
        reply = {"role": "tool", "tool_call_id": message.get("call_id")}
        return reply | {"content": message.get("output"), "extra": message.get("extra")}
    return message


def _list(value: Any) -> list[Any]:
    """``value`` when it is a JSON array, else ``[]``."""
    return value if isinstance(value, list) else []


def _chat_call(item: dict[str, Any]) -> dict[str, Any]:
    """A Responses API ``function_call`` item as a chat ``tool_calls`` entry."""
    function = {"name": item.get("name"), "arguments": item.get("arguments", ABSENT)}
    return {"id": item.get("call_id"), "function": function}


def _stopped(message: dict[str, Any], text: str) -> str | None:
    """``rejected`` when a ``user`` message says the person declined the commands (confirm mode:
    2.x ``extra.interrupt_type: UserRejection``, 1.x ``Command not executed. …``),
    ``interrupted`` when they stopped the step (``UserInterruption``, 1.x ``Interrupted by
    user: …``), else None."""
    kind = _interrupt(message)
    if kind is None:
        kind = next((k for k, opening in _STOPPED_TEXTS.items() if text.startswith(opening)), None)
    return _STOP_OUTCOMES.get(kind) if isinstance(kind, str) else None


def _stop(
    pending: Draft | None,
    waiting: list[tuple[Any, Draft]],
    outcome: str,
    message: dict[str, Any],
) -> None:
    """Settle the commands a person declined or stopped: the text-based command waiting for
    its reply, and every tool call left unanswered (2.x answers them ``action was not
    executed``)."""
    for draft in [pending] if pending is not None else [d for _, d in waiting]:
        draft.outcome = outcome
        draft.output = message.get("content", ABSENT)
    waiting.clear()


def _interrupt(message: dict[str, Any]) -> Any:
    """A 2.x ``user`` message's ``extra.interrupt_type`` (why the agent's flow was broken)."""
    return as_dict(message.get("extra")).get("interrupt_type")


def _format_error(llm: Draft) -> None:
    """Mark a model turn whose answer mini-swe-agent could not run (a ``FormatError``)."""
    llm.outcome = "error"
    llm.attributes["error_type"] = _FORMAT_ERROR


def _unparsed_turn(
    key: tuple[int, int], message: dict[str, Any], model: str | None, line: int | None
) -> Draft:
    """The llm span of a model turn 2.x never recorded as a message: its answer held no command
    it could run, and the ``user`` message of the format error (``extra.interrupt_type:
    FormatError``) stands in its place; the answer is its ``extra.model_response`` (text-based)
    or the content of its ``extra.response`` (2.4+; a Responses API answer's ``output``), when
    recorded."""
    extra = as_dict(message.get("extra"))
    name = model or _response_model(message) or "model"
    answer = extra.get("model_response", ABSENT)
    response = as_dict(extra.get("response"))
    if answer is ABSENT and isinstance(response.get("output"), list):  # Responses API
        answer = response["output"]
    elif answer is ABSENT and response:
        choices = response.get("choices")
        first = as_dict(choices[0]) if isinstance(choices, list) and choices else {}
        answer = as_dict(first.get("message")).get("content", ABSENT)
    llm = Draft(key, "llm", name, None, output=answer)
    llm.line = line
    _format_error(llm)
    return llm


def _config_model(document: dict[str, Any]) -> str | None:
    """The model a mini-swe-agent run was configured with (``info.config.model.model_name``),
    when it is a plain identifier (a span name is never free text)."""
    config = as_dict(as_dict(document.get("info")).get("config"))
    return identifier(as_dict(config.get("model")).get("model_name"))


def _response_model(message: dict[str, Any]) -> str | None:
    """The model that wrote an assistant message, by its recorded response (a plain
    identifier)."""
    return identifier(as_dict(as_dict(message.get("extra")).get("response")).get("model"))


def _mini_calls(
    message: dict[str, Any], where: tuple[int, int | None], options: ImportOptions, path: Path
) -> list[tuple[Any, Draft]]:
    """``(tool_call_id, span)`` of each entry of an assistant message's ``tool_calls``; ``where``
    is the message's index and raw line."""
    tool_calls = message.get("tool_calls")
    if not isinstance(tool_calls, list):
        return []
    calls = [call for call in tool_calls if isinstance(call, dict)]
    return [
        (call.get("id"), _call_draft((where[0], 1 + n), call, where[1], options, path))
        for n, call in enumerate(calls)
    ]


def _call_draft(
    key: tuple[int, int], call: dict[str, Any], line: int | None, options: ImportOptions, path: Path
) -> Draft:
    """The tool span of one tool call, ``incomplete`` until a reply settles it: named by its
    function; a shell function (``bash``) is marked as a shell call, its input its ``command``."""
    function = as_dict(call.get("function"))
    name = function.get("name")
    name = name if isinstance(name, str) and name else "tool"
    arguments = decode_json_string(function.get("arguments", ABSENT), path, line)
    command = arguments.get("command") if isinstance(arguments, dict) else None
    shell = name in SHELL_TOOLS
    tool_input = command if shell and isinstance(command, str) else arguments
    draft = Draft(key, "tool", name, "incomplete", tool_input)
    draft.line = line
    if shell:
        draft.mark_shell(options.labels, command)
    if options.argument_fields and arguments is not ABSENT:
        draft.keep_arguments(options.argument_fields, arguments, path)
    return draft


def _answer_call(waiting: list[tuple[Any, Draft]], message: dict[str, Any]) -> None:
    """Settle the call a ``tool`` message answers: the one with its ``tool_call_id``, else the
    first unanswered one. A reply saying the call was not run leaves it unanswered."""
    if not waiting or as_dict(message.get("extra")).get("exception_info") == _NOT_EXECUTED:
        return
    call_id = message.get("tool_call_id")
    found = next((n for n, (cid, _) in enumerate(waiting) if cid == call_id), 0)
    _, draft = waiting.pop(found)
    content = message.get("content", ABSENT)
    _settle(draft, content, _text(content), message.get("extra"))


def _answer_submit(waiting: list[tuple[Any, Draft]], message: dict[str, Any]) -> None:
    """An ``exit`` message that says ``Submitted``, or the new task a person gave instead of
    letting the run end (``UserNewTask``), answers the call that submitted (its ``tool`` reply
    says it was not executed): the first unanswered call whose command prints the submit mark,
    else the last unanswered one."""
    extra = as_dict(message.get("extra"))
    status = extra.get("exit_status")
    submitted = isinstance(status, str) and status in _SUBMITTED
    if not waiting or not (submitted or extra.get("interrupt_type") == _NEW_TASK):
        return
    marked = [d for _, d in waiting if isinstance(d.input, str) and _SUBMIT_MARK in d.input]
    draft = marked[0] if marked else waiting[-1][1]
    draft.outcome = "ok"
    waiting[:] = [(cid, d) for cid, d in waiting if d is not draft]


def _settle(draft: Draft, content: Any, text: str, extra: Any = None) -> None:
    """A command's outcome from its reply: the exit code 2.x records in ``extra.returncode``
    (the ``mini`` CLI's default config renders the reply as JSON, with no
    ``<returncode>N</returncode>``), else the text's ``<returncode>``, else the fixed failure
    texts. A command the environment killed for running too long timed out: 2.x says so in
    ``extra.exception_type`` (``TimeoutExpired``), 1.x in its reply's first sentence (no code)."""
    draft.output = content
    details = as_dict(extra)
    command = draft.input.strip() if isinstance(draft.input, str) else None
    killed = command is not None and text.startswith(command.join(_KILLED))
    code = details.get("returncode")
    if not isinstance(code, int) or isinstance(code, bool):
        found = None if killed else _RETURNCODE.search(text)  # (a killed command's output)
        code = int(found.group(1)) if found else None
    if code is not None:
        draft.attributes["exit_code"] = code
    if details.get("exception_type") == _TIMED_OUT or killed:
        draft.outcome = "timeout"
    elif code is not None:
        draft.outcome = exit_outcome(code)
    else:
        draft.outcome = observation_outcome(text)


def _text(content: Any) -> str:
    """The text of a message's content: a string, or the ``text`` of its parts (multimodal)."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "".join(
        p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
    )


def _check_mini(
    document: dict[str, Any], drafts: list[Draft], path: Path, lines: dict[tuple, int], bare: bool
) -> None:
    """Refuse a ``messages`` document with nothing of mini-swe-agent in it: no command or tool
    call, no ``trajectory_format``/``info``, and no messages or one whose role is none of its."""
    fmt = document.get("trajectory_format")
    if any(d.type != "llm" for d in drafts) or isinstance(document.get("info"), dict):
        return
    if isinstance(fmt, str) and fmt.startswith("mini-swe-agent"):
        return
    messages = document["messages"]
    roles = [m.get("role") if isinstance(m, dict) else None for m in messages]
    odd = next(
        (n for n, r in enumerate(roles) if not isinstance(r, str) or r not in _MINI_ROLES), None
    )
    if messages and odd is None:
        return
    what, field = "no messages", "messages"
    if odd is not None:
        what = f"a message whose role is none of {'/'.join(sorted(_MINI_ROLES))}"
        field = f"{'' if bare else 'messages.'}{odd}.role"
    raise AbwInputError(
        f"not a SWE-agent trajectory: no command, no tool call, no mini-swe-agent "
        f"trajectory_format or info, and {what}",
        file=path,
        line=lines.get(("messages", odd)),
        field=field,
    )
