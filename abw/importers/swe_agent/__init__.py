"""SWE-agent ``.traj`` files (0.x and 1.x), and mini-swe-agent ``*.traj.json``.

Each trajectory step is an llm span (the response/thought) followed by one tool span. The tool is
the step's SWE-agent command (``create``, ``edit``, ``open``, ``find_file``, ``submit``, ...);
anything else is a shell command, named ``bash`` (``--bash-tool-labels`` rename it; the command text
itself is never kept). There is no exit code: the status is read from fixed texts the tools print
(``Traceback``, ``command not found``, the linter's ``Your proposed edit has introduced new syntax
error(s)``, EnIGMA's ``Wrong flag!`` for a CTF ``submit`` it refused: the run goes on; not the
step whose observation is ``info.submission``, the patch it submitted: ok); a command
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
killed`` has none: a timeout; nor has the reply to a command that printed the submit mark, which
is the submission itself, a diff, or a person's new task: it submitted, ok). A 1.x message with
no block or several ran nothing: the reply is a format error, and its llm span fails
(``error_type: FormatError``); 2.x records no such message, only the format error's ``user``
message (``extra.interrupt_type: FormatError``), which stands for the model turn as a failed llm
span. In its tool-calling form (2.x, ``trajectory_format``
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
Its llm spans are named by ``info.config.model.model_name`` (else the response's ``model``);
their ``input_tokens``/``output_tokens`` are the recorded response's ``usage`` (2.x, late 1.x).
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
The package, lowest module first: ``outcomes`` (an observation's outcome, the run's status),
``blocks`` (command blocks in text), ``documents`` (a file into its document), ``swe``
(SWE-agent's steps and history), ``responses`` (Responses API items as chat messages),
``replies`` (replies settling mini-swe-agent's calls), ``mini`` (mini-swe-agent's messages);
this module imports a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from abw.errors import AbwInputError
from abw.importers.base import Importer, ImportOptions, export_files
from abw.importers.common import instance_scenario, warn_instance_scenario
from abw.importers.rawio import as_dict, held_fields, read_raw
from abw.importers.spans import finish, make_trace
from abw.importers.swe_agent.blocks import bash_command, bash_commands
from abw.importers.swe_agent.documents import REMOVED_FIELDS, load_document, message_list
from abw.importers.swe_agent.mini import check_mini, read_mini
from abw.importers.swe_agent.outcomes import no_model_tokens, observation_outcome, run_status
from abw.importers.swe_agent.swe import RETRIEVERS, SWE_COMMANDS, read_history, read_steps
from abw.jsonlocate import value_lines

if TYPE_CHECKING:
    from abw.models.trace import Trace


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
        document = load_document(raw, path)
        bare = message_list(document)
        if bare:  # mini-swe-agent's bare list of messages
            document = {"messages": document}
            lines = {("messages", *key): line for key, line in value_lines(raw, 1).items()}
        else:
            lines = value_lines(raw, 2)
        if isinstance(document, dict) and isinstance(document.get("messages"), list):
            drafts, final_text = read_mini(document, options, path, lines)
            check_mini(document, drafts, path, lines, bare)
        elif isinstance(document, dict) and isinstance(document.get("trajectory"), list):
            drafts, final_text = read_steps(document, options, path, lines)
        elif isinstance(document, dict) and isinstance(document.get("history"), list):
            drafts, final_text = read_history(document, options, path, lines), None
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
        extra = {"replayed": True} if no_model_tokens(info, drafts) else {}
        given = options
        options = instance_scenario(options, document.get("instance_id"))  # mini-swe-agent 2.x
        traces = [
            make_trace(
                platform=self.platform,
                export_format=self.export_format,
                raw=raw,
                trace_id=_trace_id(path, raw),
                spans=finish(drafts, path),
                options=options,
                final_status=run_status(info.get("exit_status")),
                final_output=final_text,
                final_text=final_text,
                removed_fields=held_fields(document, REMOVED_FIELDS),
                extra_run=extra,
            )
        ]
        warn_instance_scenario(given, traces, path.name)
        return traces


__all__ = [
    "REMOVED_FIELDS",
    "RETRIEVERS",
    "SWE_COMMANDS",
    "SweAgentImporter",
    "bash_command",
    "bash_commands",
    "observation_outcome",
]


def _trace_id(path: Path, raw: bytes) -> str:
    """The file's name without ``.traj`` and 12 hex digits of its SHA-256: SWE-agent and
    mini-swe-agent name every run of a task after its instance (``<instance>/<instance>.traj``),
    so the name alone gave every run of one task one id (a baseline and a candidate run of it
    read as the same run)."""
    from abw.hashing import sha256_hex

    return f"{path.name.removesuffix('.json').removesuffix('.traj')}-{sha256_hex(raw)[:12]}"
