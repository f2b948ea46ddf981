"""What a call's recorded status and result say: its outcome, a cancelled call that was running,
a shell command's exit code."""

from __future__ import annotations

import re
from typing import Any

from abw.importers.rawio import as_dict

#: A call's recorded ``status`` -> its outcome (any other: incomplete).
STATUS = {"success": "ok", "error": "error", "cancelled": "rejected", "canceled": "rejected"}
#: What Gemini CLI (0.5x on, ``scheduler/tool-executor.ts`` ``createCancelledResult``) writes
#: as the ``error`` of a ``cancelled`` call that was running when the user cancelled it; a call
#: declined or still queued says ``[Operation Cancelled] Reason: …`` (``state-manager.ts``), as
#: every cancelled call of older versions does, and stays ``rejected``.
CANCELLED_RUNNING = frozenset(
    {
        "[Operation Cancelled] User cancelled tool execution.",
        "[Operation Cancelled] Operation cancelled.",
    }
)
EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)\s*$", re.MULTILINE)
#: How the shell tool answers a command it killed for printing nothing for too long (its
#: inactivity timeout, ``tools/shell.ts``; the call is recorded ``success``, with no exit code).
SHELL_TIMED_OUT = "Command was automatically cancelled because it exceeded the timeout of "


def any_cancelled(message: dict[str, Any]) -> bool:
    """Whether one of a ``gemini`` message's recorded calls is ``cancelled``."""
    calls = message.get("toolCalls")
    return isinstance(calls, list) and any(
        isinstance(call, dict) and STATUS.get(str(call.get("status"))) == "rejected"
        for call in calls
    )


def exit_code(result: Any) -> int | None:
    """The last ``Exit Code: N`` of a shell call's output (the ``functionResponse`` parts, or a
    plain string); ``None`` when there is none (``Exit Code: (none)``, a killed command)."""
    codes = [m.group(1) for text in response_texts(result) for m in EXIT_CODE.finditer(text)]
    return int(codes[-1]) if codes else None


def shell_timed_out(result: Any) -> bool:
    """Whether a shell call's output says the shell tool killed it at its inactivity timeout
    (:data:`SHELL_TIMED_OUT`)."""
    return any(text.startswith(SHELL_TIMED_OUT) for text in response_texts(result))


def response_texts(result: Any) -> list[str]:
    """The texts a call returned: its ``functionResponse`` parts' ``response.output`` and
    ``response.error``, or a plain string."""
    parts = result if isinstance(result, list) else [result]
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        response = as_dict(as_dict(as_dict(part).get("functionResponse")).get("response"))
        for key in ("output", "error"):
            if isinstance(response.get(key), str):
                texts.append(response[key])
    return texts


def cancelled_running(result: Any) -> bool:
    """Whether a ``cancelled`` call's result (its ``functionResponse`` parts) is the one Gemini
    CLI writes for a call cancelled while it ran (:data:`CANCELLED_RUNNING`), its only part's
    ``response.error`` exactly that text."""
    parts = result if isinstance(result, list) else [result]
    errors = [
        part["functionResponse"]["response"].get("error")
        for part in parts
        if isinstance(part, dict)
        and isinstance(part.get("functionResponse"), dict)
        and isinstance(part["functionResponse"].get("response"), dict)
    ]
    return len(errors) == 1 and isinstance(errors[0], str) and errors[0] in CANCELLED_RUNNING
