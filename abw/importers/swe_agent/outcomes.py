"""What a command's observation says of it (ok, error, timeout: SWE-agent's fixed texts) and
what ``info`` says of the run (its final status, a replay)."""

from __future__ import annotations

import re
from typing import Any

from abw.importers.rawio import as_dict
from abw.importers.spans import Draft

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


#: ``info.exit_status`` of a run that submitted: SWE-agent's, and mini-swe-agent's (whose status
#: is the name of the exception that ended the run; ``LimitsExceeded``, ``Timeout``: errors).
SUBMITTED = frozenset({"submitted", "Submitted"})


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


def run_status(exit_status: Any) -> str:
    """The run's status from ``info.exit_status``: submitted -> success, stopped on purpose
    (:data:`_STOPPED`) -> cancelled, any other exit (a limit, an error) -> error."""
    if not isinstance(exit_status, str) or not exit_status:
        return "unknown"
    if exit_status in SUBMITTED:
        return "success"
    if exit_status in _STOPPED:
        return "cancelled"
    return "error"


def no_model_tokens(info: dict[str, Any], drafts: list[Draft]) -> bool:
    """The run took steps but its model exchanged no tokens: a replay or a human demonstration
    (SWE-agent's replay and human models report 0), not a model's run."""
    stats = as_dict(info.get("model_stats"))
    counts = [stats.get("tokens_sent"), stats.get("tokens_received")]
    recorded = all(isinstance(c, int) and not isinstance(c, bool) for c in counts)
    return recorded and counts == [0, 0] and any(d.type != "llm" for d in drafts)
