"""What an emitted span records besides its content: its agent, tool call id, token counts,
retry attempt, error type, a propagated error and the OpenTelemetry status."""

from __future__ import annotations

from abw.importers.common import identifier
from abw.importers.otel.classify import CLAUDE_CODE
from abw.importers.otel.span import OSpan, call_id
from abw.importers.spans import Draft

#: Where an llm span records its token counts (``gen_ai.usage.prompt_tokens``: OpenLLMetry
#: before the semconv names; ``gen_ai.response.*_tokens``: Semantic Kernel's first names;
#: ``llm.token_count.*``: OpenInference).
TOKEN_KEYS = (
    ("gen_ai.usage.input_tokens", "input_tokens"),
    ("gen_ai.usage.output_tokens", "output_tokens"),
    ("gen_ai.usage.prompt_tokens", "input_tokens"),
    ("gen_ai.usage.completion_tokens", "output_tokens"),
    ("gen_ai.response.prompt_tokens", "input_tokens"),
    ("gen_ai.response.completion_tokens", "output_tokens"),
    ("llm.token_count.prompt", "input_tokens"),
    ("llm.token_count.completion", "output_tokens"),
)


def count(value: object) -> int | None:
    """A count: an integer, a whole ``doubleValue`` (``10.0``), or a string of digits
    (Micrometer, so Spring AI, tags every span attribute as a string:
    ``gen_ai.usage.input_tokens`` ``"42"``)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer() and 0 <= value < 2**53:
        return int(value)
    if isinstance(value, str) and 0 < len(value) <= 18 and value.isascii() and value.isdigit():
        return int(value)
    return None


def has_tokens(span: OSpan) -> bool:
    """Whether the span records a token count (Claude Code's plain ``input_tokens`` too)."""
    keys = [k for k, _ in TOKEN_KEYS]
    if span.name == f"{CLAUDE_CODE}llm_request":
        keys += ["input_tokens", "output_tokens"]
    return any(count(span.attributes.get(k)) is not None for k in keys)


def error_type(span: OSpan) -> str | None:
    """The span's own error type: its ``error.type``, else its exception event's type, when
    it is a plain identifier (a class, a code: ``TimeoutError``, ``500``); a value of any other
    shape is text, which no trace keeps."""
    value = identifier(span.attributes.get("error.type"))
    if value:
        return value
    for name, attributes in span.events:
        if name == "exception" and identifier(attributes.get("exception.type")):
            return attributes["exception.type"]
    return None


#: Google ADK's call id of a tool call it has no response for (the tool raised): no id.
_ADK_NO_CALL_ID = "<not specified>"


def record_attributes(draft: Draft, span: OSpan, agent: str | None, propagated: bool) -> None:
    """Fill ``draft.attributes`` from the span: its ``agent``, a tool's ``tool_call_id``, token
    counts, ``retry_attempt``, an error's ``error_type``, ``error_propagated`` and
    ``otel_status``."""
    a = span.attributes
    out = draft.attributes
    if agent:
        out["agent"] = agent
    recorded = call_id(span)
    if recorded and recorded != _ADK_NO_CALL_ID and draft.type == "tool":
        out["tool_call_id"] = recorded
    tokens: tuple[tuple[str, str], ...] = ()
    if span.name == f"{CLAUDE_CODE}llm_request":  # Claude Code: plain key names
        tokens = (("input_tokens", "input_tokens"), ("output_tokens", "output_tokens"))
    for key, name in (*tokens, ("pydantic_ai.tool.retry.attempt", "retry_attempt"), *TOKEN_KEYS):
        value = count(a.get(key))
        if value is not None:
            out.setdefault(name, value)
    failure = error_type(span)
    if failure and draft.outcome == "error":
        out["error_type"] = failure
    if propagated:
        out["error_propagated"] = True
    if span.status != "UNSET":
        out["otel_status"] = span.status
