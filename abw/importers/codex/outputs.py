"""What one tool call's output says about it: its outcome, exit code, wall time, or the session
of a command still running (Codex's exit-code headers, sandbox denials, rejections, timeouts)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.importers.codex.values import as_float, as_int
from abw.importers.rawio import decode_json_string
from abw.importers.spans import exit_outcome

_RUNNING = re.compile(r"Process running with session ID (\d+)")
_EXITED = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")
_WALL = re.compile(r"Wall time:\s*([0-9.]+)\s*seconds")
_SANDBOX_EXIT = re.compile(r"exit code:\s*(-?\d+)")
_TIMED_OUT = re.compile(r"\btimed out\b", re.IGNORECASE)
#: A call Codex could not start: "exec_command failed: CreateProcess { message: … }" (or
#: "exec_command failed for `cmd`: …"); a message "Rejected(…)" is its command policy refusing
#: the command (0.171: "rm -f style commands are not permitted") before it ran.
_NOT_STARTED = re.compile(
    r"^\w+ failed(?: for .*?)?: (?:CreateProcess|ProcessFailed) \{", re.DOTALL
)
_POLICY_REJECTED = 'CreateProcess { message: "Rejected('
#: How Codex answers a call a policy refused before it ran (lower case): a PreToolUse hook
#: (``hook_runtime``: "Command blocked by PreToolUse hook: {reason}. Command: …", or "Tool call
#: blocked …"), the automatic approval reviewer (``guardian``: its rejection, and its
#: timeout, which approves nothing), the sandbox's network proxy (a domain off its allowlist).
_POLICY_DENIALS = (
    "command blocked by pretooluse hook:",
    "tool call blocked by pretooluse hook:",
    "this action was rejected due to unacceptable risk",
    "the automatic permission approval review did not finish before its deadline",
)
_NETWORK_BLOCKED = re.compile(r'network access to \\?".*?\\?" was blocked: ')
#: A code-mode ``exec`` script's status line, and its wall time (``Wall time 0.1 seconds``).
_SCRIPT_STATUS = ("Script completed", "Script failed")
_SCRIPT_WALL = re.compile(r"^Wall time:?\s*([0-9.]+)\s*seconds", re.MULTILINE)


#: How the output of a call that failed before or while running starts (Codex's own texts; an
#: ``apply_patch`` whose patch does not match the files is answered "apply_patch verification
#: failed: …" and no ``patch_apply_end`` follows; an MCP call that failed, "tool call error: …",
#: or "err: …" in older versions, which persisted no ``mcp_tool_call_end``; a call of a tool
#: Codex does not have, "unsupported call: <name>"; a ``view_image`` of a file it cannot open,
#: "unable to locate image at `<path>`: …" and its siblings).
_FAILED_PREFIXES = (
    "execution error",
    "error",
    "write_stdin failed",
    "failed to",
    "apply_patch verification failed",
    "tool call error",
    "err: ",
    "unsupported call",
    "unable to locate image",
    "unable to read image",
    "unable to process image",
    "image path `",
)


@dataclass
class Verdict:
    """What one tool output says about its call."""

    outcome: str | None = None
    exit_code: int | None = None
    seconds: float | None = None
    running_session: str | None = None


def classify_output(output: Any, file: Path | None = None, line: int | None = None) -> Verdict:
    """Read a call's output: exit code, sandbox/rejection texts, wall time, a running session."""
    value = decode_json_string(output, file, line)
    script = _code_mode(value, file, line)
    if script is not None:
        return script
    if isinstance(value, dict):
        if value.get("isError") is True:
            return Verdict("error")
        metadata = value.get("metadata")
        if isinstance(metadata, dict) and "exit_code" in metadata:
            code = as_int(metadata.get("exit_code"))
            seconds = as_float(metadata.get("duration_seconds"))
            text = value.get("output") if isinstance(value.get("output"), str) else ""
            return Verdict(command_outcome(code, text), code, seconds)  # (output: the body only)
        return Verdict("ok")
    if not isinstance(value, str):
        return Verdict("ok")
    text = value.strip()
    head = text[:400]
    wall = _WALL.search(head)
    seconds = float(wall.group(1)) if wall else None
    header = _header(head)  # (the command's own output may print "Exit code: 2")
    running = _RUNNING.search(header)
    exited = _EXITED.search(header)
    if exited:
        code = int(exited.group(1))
        return Verdict(command_outcome(code, _body(head)), code, seconds)
    if running:
        return Verdict(None, None, seconds, running.group(1))
    lowered = _after_wall_time(head).lower()
    if lowered.startswith("patch rejected:"):  # Codex's patch safety check refused to apply it
        return Verdict("denied", None, seconds)
    if lowered.startswith("failed in sandbox") or "sandbox denied" in lowered:
        code = _SANDBOX_EXIT.search(head)
        return Verdict("denied", int(code.group(1)) if code else None, seconds)
    if lowered.startswith("approval policy is") and "reject command" in lowered:
        return Verdict("denied", None, seconds)  # escalation asked under a policy that forbids it
    if "rejected by user" in lowered or lowered.startswith("user rejected"):
        return Verdict("rejected", None, seconds)
    if _policy_denial(lowered):
        return Verdict("denied", None, seconds)
    if lowered.startswith("aborted"):
        return Verdict("interrupted", None, seconds)
    if _NOT_STARTED.match(text):
        message = text.partition("{")[2].lower()
        refused = _POLICY_REJECTED in text or _policy_denial(message.partition('"')[2])
        return Verdict("denied" if refused else "error", None, seconds)
    if _timed_out(_body(text)):
        return Verdict("timeout", None, seconds)
    if lowered.startswith(_FAILED_PREFIXES):
        return Verdict("error", None, seconds)
    return Verdict("ok", None, seconds)


def _policy_denial(lowered: str) -> bool:
    """Whether a (lower-cased) output is Codex's answer to a call a policy refused before it
    ran (:data:`_POLICY_DENIALS`, :data:`_NETWORK_BLOCKED`)."""
    return lowered.startswith(_POLICY_DENIALS) or _NETWORK_BLOCKED.match(lowered) is not None


def _code_mode(value: Any, file: Path | None, line: int | None) -> Verdict | None:
    """A code-mode ``exec`` script's output (0.150+), None for any other: its status line
    (``Script completed`` / ``Script failed``), ``Wall time X seconds`` and ``Output:``, then
    what the script printed, as ``input_text`` parts (or one string). A failed script is an
    error; a completed one takes the exit code of the last command result it printed
    (``{"chunk_id", "exit_code", "output", …}``, what ``tools.exec_command`` returns), as a
    shell script ends with its last command's status."""
    parts = _texts(value)
    if not parts or not parts[0].startswith(_SCRIPT_STATUS):
        return None
    head, _, body = parts[0].partition("\nOutput:\n")
    wall = _SCRIPT_WALL.search(head)
    if wall is None:  # (Codex's status line is always followed by the wall time)
        return None
    seconds = float(wall.group(1))
    if head.startswith("Script failed"):
        return Verdict("error", None, seconds)
    result: dict[str, Any] = {}
    for part in [body, *parts[1:]]:
        printed = _printed_json(part, file, line)
        if isinstance(printed, dict) and "chunk_id" in printed and "exit_code" in printed:
            result = printed
    code = as_int(result.get("exit_code"))
    if code is None:
        return Verdict("ok", None, seconds)
    text = result.get("output") if isinstance(result.get("output"), str) else ""
    return Verdict(command_outcome(code, text), code, seconds)


def _printed_json(text: str, file: Path | None, line: int | None) -> Any:
    """What a script printed, parsed when it is JSON; a text that is no JSON the command
    returned (a key repeated) is just text."""
    try:
        return decode_json_string(text.strip(), file, line)
    except AbwInputError:
        return None


def _texts(value: Any) -> list[str]:
    """The texts of an output: one string, or a list of ``{"type", "text"}`` parts."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        return []
    return [p["text"] for p in value if isinstance(p, dict) and isinstance(p.get("text"), str)]


def command_outcome(code: int | None, body: str) -> str:
    """``exit_outcome`` of the code; a failing one is a timeout when Codex's note opens ``body``."""
    if code is not None and exit_outcome(code) != "error":
        return exit_outcome(code)
    return "timeout" if _timed_out(body) else "error"


def _after_wall_time(text: str) -> str:
    """The text after a leading ``Wall time: X seconds`` line (0.171 opens a call's note with
    it: "Wall time: 5.8 seconds\naborted by user"), else the whole text."""
    first, newline, rest = text.partition("\n")
    return rest.lstrip() if newline and _WALL.fullmatch(first.strip()) else text


def _header(text: str) -> str:
    """Codex's header of a call's output text: what precedes its ``Output:`` line, else the
    whole text."""
    header, header_end, _ = text.partition("\nOutput:\n")
    return header if header_end else text


def _body(text: str) -> str:
    """The command's output in a call's output text: what follows the ``Output:`` line that
    ends Codex's header (``Exit code: N`` / ``Chunk ID: …``), else the whole text."""
    _, header_end, body = text.partition("\nOutput:\n")
    return body if header_end else text


def _timed_out(body: str) -> bool:
    """Whether the output's first line says "timed out": where Codex writes its note on a call
    it stopped ("command timed out after N milliseconds"). The command's own output saying so
    further down (a test runner reporting a test's timeout) is no Codex timeout."""
    first = body.lstrip().split("\n", 1)[0]
    return bool(_TIMED_OUT.search(first))
