"""The format-neutral span that every encoding is read into, and the value guards its readers
share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class OSpan:
    """One span in a format-neutral shape."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int | None
    end_ns: int | None
    status: str  # UNSET | OK | ERROR
    status_message: str | None
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    line: int | None = None
    resource_attributes: bool = False  # its resource carried attributes (OTLP)
    links: list[tuple[str, str]] = field(default_factory=list)  # (trace id, span id) it links to


def nonblank(value: Any) -> str | None:
    """``value`` when it is a string holding more than whitespace, else ``None``."""
    return value if isinstance(value, str) and value.strip() else None


#: The attributes a tool call's span records its call id in: the GenAI conventions', OpenLLMetry's
#: and OpenInference's ``tool.id``, the Vercel AI SDK's legacy spans', Spring AI's
CALL_ID_KEYS = ("gen_ai.tool.call.id", "tool.id", "ai.toolCall.id", "spring.ai.tool.call.id")


def call_id(span: OSpan) -> str | None:
    """The tool call id ``span`` records (the first of :data:`CALL_ID_KEYS` it holds), if any."""
    return next(filter(None, (nonblank(span.attributes.get(k)) for k in CALL_ID_KEYS)), None)
