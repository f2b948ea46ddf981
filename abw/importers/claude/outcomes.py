"""How a Claude Code tool call is typed and how its result is classified.

Only fixed marker strings written by Claude Code itself are matched; the content they are
found in is never stored. The status behind each outcome is the table every importer shares,
:data:`abw.importers.spans.OUTCOME_STATUS`.
"""

from __future__ import annotations

import math
import re
from typing import Any

#: Tools that fetch information without changing anything.
RETRIEVER_TOOLS = frozenset(
    {"Read", "Grep", "Glob", "LS", "WebSearch", "WebFetch", "NotebookRead", "ToolSearch"}
)
#: Tools that keep the agent's own working memory (to-do lists).
MEMORY_TOOLS = frozenset(
    {"TodoWrite", "TodoRead", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet"}
)
#: Tools that hand work to a subagent.
HANDOFF_TOOLS = frozenset({"Task", "Agent"})
#: Tools that run a shell command (``--bash-tool-labels`` applies to them); ``PowerShell`` is
#: Claude Code's shell tool on Windows.
SHELL_TOOLS = frozenset({"Bash", "PowerShell"})
#: Tools Claude Code renamed, old name -> the name a span gets whichever version wrote the call
#: (``attributes.tool`` keeps the raw one): the subagent tool ``Task`` is ``Agent`` since 2.1.63,
#: as in Claude Code's own telemetry, so runs of two versions name the delegation alike.
CANONICAL_TOOL_NAMES = {"Task": "Agent"}
#: The final ``status`` of a background task (an ``Agent`` launched async, a ``Bash``/
#: ``PowerShell`` call with ``run_in_background``) -> the outcome of the call that launched it.
BACKGROUND_OUTCOMES = {"completed": "ok", "failed": "error", "killed": "interrupted"}
#: The ``toolUseResult.status`` of a call that launched a background task named by its
#: ``taskId`` (a ``Workflow`` run, 2.1.2xx; an ``Agent`` sent to a remote session).
LAUNCHED_STATUSES = frozenset({"async_launched", "remote_launched"})
#: The tool that watches a command's output lines as a background task (2.1.3xx: its result is
#: ``{taskId, timeoutMs, persistent}``; the task ends ``completed``, or ``failed`` when the
#: command exits non-zero).
MONITOR_TOOL = "Monitor"
#: The tool that stops a background task (its result names the ``task_id`` it stopped: killed).
STOP_TOOL = "TaskStop"
#: What stopped a background shell before 2.1 (``KillBash``, then ``KillShell``): their result
#: ``{"success": true, "shell_id": …}``. The poll was ``BashOutput``: ``{"shellId", "status"}``.
KILL_SHELL_TOOLS = frozenset({"KillBash", "KillShell"})
#: The heads of the user line Claude Code writes when a background task ends: a
#: ``<task-notification>`` (2.1.x; 2.0.x for a remote agent), a ``<bash-notification>`` (a shell,
#: named by its ``<shell-id>``) or an ``<agent-notification>`` (an async agent; both 2.0.x).
TASK_NOTIFICATION = ("<task-notification>", "<bash-notification>", "<agent-notification>")
_NOTIFIED = re.compile(
    r"<(task|bash|agent)-notification>\s*<(?:task|shell|agent)-id>([A-Za-z0-9_-]{1,200})"
    r"</(?:task|shell|agent)-id>\s*"
    r"(?:<tool-use-id>[A-Za-z0-9_-]{1,200}</tool-use-id>\s*)?"
    r"(?:<output-file>[^<]*</output-file>\s*)?(?:<task-type>[a-z_]{1,40}</task-type>\s*)?"
    r"<status>([a-z_]{1,30})</status>"
)

_REJECTED = (
    "The user doesn't want to proceed with this tool use",
    "The user doesn't want to take this action right now",
)
_REJECTED_RESULT = "User rejected tool use"
INTERRUPT_MARKER = "[Request interrupted by user"
#: The user closed the permission prompt the call waited on (an interrupt, not a failure).
_PROMPT_ABORTED = "Permission prompt was aborted"
#: A running Bash call stopped with Esc (2.0.x to 2.1.1xx): its exit code, the interrupt, then
#: what it printed.
_KILLED_BY_INTERRUPT = re.compile(r"Exit code \d+\n\[Request interrupted by user for tool use\]")
_NOT_GRANTED = "but you haven't granted it yet"
#: A failed call's result when Claude Code stopped waiting for it: an MCP tool past its
#: ``MCP_TOOL_TIMEOUT`` (``MCP server "shopdb" tool "slow" timed out after 3s``), a Bash command
#: past its ``timeout`` (``Command timed out after 2m 0.0s``), or a command ``timeout`` killed
#: (exit code 124, as :func:`abw.importers.spans.exit_outcome` reads it): ``timeout``.
_TIMED_OUT = re.compile(
    r'MCP server "[^"\n]*" tool "[^"\n]*" timed out after |Command timed out after |Exit code 124\b'
)
_DENIED = re.compile(r"Claude requested permissions? to |Permission to use \S+ ")
#: A policy that refused the call: a PreToolUse hook (exit code 2, or a JSON ``deny``) writes
#: ``PreToolUse:<tool> hook error: …``, or (2.1.1xx, the reason withheld from the model)
#: ``Hook PreToolUse:<tool> denied this tool``; the auto-mode classifier and the built-in
#: safety check write ``Permission for this action/command was denied by …``.
_POLICY_BLOCK = re.compile(
    r"PreToolUse:\S+ hook error: |Hook PreToolUse:\S+ denied this tool"
    r"|Permission for this \w+ was denied by "
)
#: What ``claude -p`` (1.0.100 to 2.1.2xx, before ``permissionDecision``) writes as the whole
#: result of a call no rule allowed, in place of *Claude requested permissions…*: the reason its
#: permission check gave for asking (a Bash command no rule allows, a path outside the working
#: directories, a rule, hook, mode or classifier that asks). A failed Bash command's result
#: starts ``Exit code`` instead. The fixed reasons (also a deny rule's refusal of a Read, Edit or
#: Write path, 2.0.x to 2.1.2xx, in ``<tool_use_error>``), then the templates.
_REFUSAL_REASONS = frozenset(
    {
        "File is in a directory that is denied by your permission settings.",
        "This command requires approval",
        "This command uses shell operators that require approval for safety",
        "Multiple directory changes in one command require approval for clarity",
        "Permission prompts are not available in this context",
        "Process substitution requires manual approval",
        "Shell expansion syntax in paths requires manual approval",
        "Variable expansion syntax in paths requires manual approval",
        "UNC network paths require manual approval",
        "Compound command contains cd with write operation - manual approval required to "
        "prevent path resolution bypass",
        "Compound command contains cd with output redirection - manual approval required to "
        "prevent path resolution bypass",
        "Compound commands with cd and git require approval to prevent bare repository attacks",
        "sed command contains operations that require explicit approval (e.g., write commands, "
        "execute commands)",
        "Ask for permission to edit Claude Code settings files or slash commands",
        "Ask for permission to edit potentially sensitive files.",
        "MCP tool requires permission",
    }
)
_NEEDS_APPROVAL = re.compile(
    r"This \S+ command contains multiple operations(?: that require approval|\. The following "
    r"parts? requires? approval: .*)"
    r"|(?:(?:Hook|Permission rule|Tool|Classifier) '[^'\n]*'(?: from [^\n]*)?|Current permission "
    r"mode \([^)\n]*\)) requires approval for this \S+ command(?:: .*)?"
    r"|Hook '[^'\n]*' blocked this action: .*"
    r"|[^\n]+ was blocked\. For security, Claude Code may only [^\n]+"
    r"|Output redirection to '[^\n]*' was blocked by a deny rule\.",
    re.DOTALL,
)
_TOOL_USE_ERROR = ("<tool_use_error>", "</tool_use_error>")
_USER_DENIAL = "user-rejected"
#: The sentence 2.1.3xx appends to the rejection text of a call stopped while it ran (the
#: Agent SDK's ``interrupt()``: no ``interruptedMessageId`` names it).
_STOPPED_RUNNING = "this call was stopped while running, not refused before it ran"
#: ``toolDenialKind`` on the result line of a call that did not run to its end (2.1.2xx) ->
#: outcome: the person refused it; it was stopped (2.1.3xx: ``interrupted``, a call the session
#: ended under, answered when it is resumed; ``cancelled``, the turn was aborted before it ran).
#: Any other kind (``permission-rule``, ``automode-blocked``) is a policy that refused it.
_DENIAL_OUTCOMES = {
    _USER_DENIAL: "rejected",
    "interrupted": "interrupted",
    "cancelled": "interrupted",
}
#: ``permissionDecision.source`` of a refused call (2.1.3xx; the OTel ``source`` of the same
#: decision) -> outcome: a person refused it at the prompt, or closed the prompt; any other
#: source (``config``: a mode, ``-p`` with no rule allowing it; ``hook``), or a deny rule
#: (``reasonType: rule``, whatever its source), is a policy.
_DECISION_OUTCOMES = {"user_reject": "rejected", "user_abort": "interrupted"}


def span_type(tool: str) -> str:
    """The span type of a tool call (before any label)."""
    if tool in HANDOFF_TOOLS:
        return "handoff"
    if tool in RETRIEVER_TOOLS:
        return "retriever"
    if tool in MEMORY_TOOLS:
        return "memory"
    return "tool"


def canonical_tool(tool: str) -> str:
    """The span name of a tool call: the tool's current name (:data:`CANONICAL_TOOL_NAMES`)."""
    return CANONICAL_TOOL_NAMES.get(tool, tool)


def notified_task(text: str) -> tuple[str, str] | None:
    """``(task id, status)`` of a task's notification (:data:`TASK_NOTIFICATION`) whose status
    is final (:data:`BACKGROUND_OUTCOMES`); only its head is read, never its summary or
    result."""
    found = _NOTIFIED.match(text.lstrip()[:4000])
    if found is None or found.group(3) not in BACKGROUND_OUTCOMES:
        return None
    return found.group(2), found.group(3)


def mcp_parts(tool: str) -> tuple[str, str] | None:
    """``mcp__server__tool`` -> ``(server, tool)``; the server may hold ``-`` or single ``_``."""
    if not tool.startswith("mcp__"):
        return None
    server, sep, name = tool[5:].partition("__")
    if not sep or not server or not name:
        return None
    return server, name


def result_text(content: Any) -> str:
    """The text of a ``tool_result`` content (a string or a list of text blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""


def decision_outcome(decision: Any) -> str | None:
    """The outcome a ``permissionDecision`` that refused the call gives it, else None."""
    if not isinstance(decision, dict) or decision.get("decision") != "reject":
        return None
    source = decision.get("source")
    if not isinstance(source, str) or not source:
        return None
    if decision.get("reasonType") == "rule":  # a deny rule (a user's settings: user_reject)
        return "denied"
    return _DECISION_OUTCOMES.get(source, "denied")


def _refused_by_configuration(text: str) -> bool:
    """Whether a failed result's text is one Claude Code writes for a call that a permission
    setting, rule, hook or policy refused (no person was asked)."""
    head = text[:200]
    whole = text[:4000].rstrip()
    if whole.startswith(_TOOL_USE_ERROR[0]) and whole.endswith(_TOOL_USE_ERROR[1]):
        whole = whole[len(_TOOL_USE_ERROR[0]) : -len(_TOOL_USE_ERROR[1])]
    return bool(
        (_NOT_GRANTED in text and _DENIED.match(head))
        or (head.startswith("Permission to use ") and " denied" in whole)  # (a long command)
        or _POLICY_BLOCK.match(head)
        or whole in _REFUSAL_REASONS
        or _NEEDS_APPROVAL.fullmatch(whole)
    )


def classify_result(
    is_error: Any,
    content: Any,
    tool_use_result: Any,
    denial_kind: Any = None,
    decision: Any = None,
) -> str:
    """The outcome of a tool call (:func:`_classify`); a rejection whose text says the call
    was stopped while it ran (:data:`_STOPPED_RUNNING`) is interrupted."""
    outcome = _classify(is_error, content, tool_use_result, denial_kind, decision)
    if outcome == "rejected" and _STOPPED_RUNNING in result_text(content)[:4000]:
        return "interrupted"
    return outcome


def _classify(
    is_error: Any,
    content: Any,
    tool_use_result: Any,
    denial_kind: Any = None,
    decision: Any = None,
) -> str:
    """The outcome of a tool call from its ``tool_result`` block and the line's ``toolUseResult``,
    ``toolDenialKind`` and ``permissionDecision``.

    Structure first: a ``permissionDecision`` that refused the call says who did, unless a
    ``toolDenialKind`` other than ``user-rejected`` does (:func:`decision_outcome`; 2.1.3xx
    writes ``user-rejected`` for a refusal by configuration too);
    ``toolUseResult`` = ``User rejected tool use`` is a rejection, its
    ``interrupted: true`` an interrupt; ``is_error: true`` (optional in the format: absent means
    false), an ``Error…`` string or ``status`` ``error``/``failed`` is a failure. A failure that
    names its ``toolDenialKind`` did not run to its end (:data:`_DENIAL_OUTCOMES`, else denied;
    ``user-rejected`` on a refusal text of ``claude -p`` is denied: 2.1.2xx writes it so).
    Only a failure, or a result that carries no structure at all (no ``toolUseResult``, no
    ``is_error``), is refined by the fixed texts Claude Code starts such results with; a
    successful result is ``ok`` whatever its output says (a ``Read`` of a transcript holds those
    texts too).
    """
    refused = decision_outcome(decision) if denial_kind in (None, _USER_DENIAL) else None
    if refused is not None:
        return refused
    tur = tool_use_result
    if tur == _REJECTED_RESULT:
        return "rejected"
    if isinstance(tur, dict) and tur.get("interrupted") is True:
        return "interrupted"
    failed = (
        is_error is True
        or (isinstance(tur, str) and tur.startswith("Error"))
        or (
            isinstance(tur, dict)
            and tur.get("status") in ("error", "failed")
            and "shellId" not in tur  # (BashOutput's status is its shell's: background.py)
        )
    )
    if not failed and (tur is not None or is_error is not None):
        return "ok"
    text = result_text(content).lstrip()
    if isinstance(denial_kind, str) and denial_kind:
        if denial_kind == _USER_DENIAL and _refused_by_configuration(text):
            return "denied"  # 2.1.2xx: -p's refusal is written user-rejected too
        return _DENIAL_OUTCOMES.get(denial_kind, "denied")
    if text.startswith(_REJECTED):
        return "rejected"
    if text.startswith((INTERRUPT_MARKER, _PROMPT_ABORTED)) or _KILLED_BY_INTERRUPT.match(text):
        return "interrupted"
    if _refused_by_configuration(text):
        return "denied"
    if failed and _TIMED_OUT.match(text):
        return "timeout"
    if failed or text.startswith(_TOOL_USE_ERROR[0]):
        return "error"
    return "ok"


def reported_duration_ms(tool_use_result: Any) -> float | None:
    """A duration the tool reported itself (Glob, WebFetch, WebSearch, Task), in ms."""
    if not isinstance(tool_use_result, dict):
        return None
    for key, scale in (("durationMs", 1.0), ("totalDurationMs", 1.0), ("durationSeconds", 1000.0)):
        value = tool_use_result.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            try:
                milliseconds = round(float(value) * scale, 3)
            except OverflowError:  # an exact integer beyond a double: no duration
                return None
            return milliseconds if math.isfinite(milliseconds) else None  # 1e306 s: none
    return None
