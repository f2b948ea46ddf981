"""The span draft and the per-agent state that reading one Claude Code file builds.

Spans are kept per *agent*: :data:`MAIN` for the session's own lines, the root ``uuid`` of each
inline sidechain (1.0.x layout), or :data:`FILE` for every line of a subagent file. Also the
small value readers the line readers share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from abw.importers.claude.outcomes import result_text

MAIN = "main"
FILE = "file"


def ms_between(start: datetime | None, end: datetime | None) -> float | None:
    """Milliseconds from start to end, never negative (clock skew reads as 0)."""
    if start is None or end is None:
        return None
    return max(0.0, round((end - start).total_seconds() * 1000, 3))


def as_int(value: Any) -> int | None:
    """``value`` when it is an integer (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def text_of(content: Any) -> str | None:
    """The text of a message's ``content``: a string, or the text of a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return result_text(content)
    return None


@dataclass(eq=False, slots=True)
class Draft:
    """A span before its ordinal is known."""

    file: str
    line: int
    block: int
    agent: str
    type: str
    name: str
    outcome: str | None = "ok"
    input_hash: str | None = None
    output_hash: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    started: datetime | None = None
    duration_ms: float | None = None
    block_hashes: list[str] = field(default_factory=list)
    children: list[tuple[Any, str]] = field(default_factory=list)  # (FileParser, agent key)
    agent_id: str | None = None
    span_id: str = ""
    message_id: str | None = None  # a tool call's API message (``message.id``)


@dataclass
class AgentState:
    """What is known about one agent while its lines are read."""

    pending: dict[str, Draft] = field(default_factory=dict)  # tool_use_id -> open call
    last_event: str | None = None
    last_text_message: str | None = None
    final_text: str | None = None
    #: ``final_text`` before ``last_text_message`` began (restored if that reply is cut off)
    text_before: str | None = None
    first_user_text: str | None = None
    root_line: int | None = None
    #: ``system``/``api_error`` retry records not yet followed by the request's outcome:
    #: (line, attempt, max retries, HTTP status)
    retries: list[tuple[int, Any, Any, Any]] = field(default_factory=list)
    #: a ``model_refusal_fallback`` whose request has no llm span yet: its attributes
    fallback: dict[str, str] = field(default_factory=dict)
    #: calls a person refused since the last interrupt (2.1.3xx writes a running call the
    #: user stopped so too; the interrupt line's ``interruptedMessageId`` then names its message)
    rejected: list[Draft] = field(default_factory=list)
