"""A span's recorded input and output: its content attributes (each framework's keys, or its
flattened messages), else the GenAI conventions' content events; and whether an llm span inside
another records the same request."""

from __future__ import annotations

from typing import Any

from abw.errors import AbwInputError
from abw.importers.otel.span import OSpan
from abw.importers.rawio import decode_json_string
from abw.importers.spans import ABSENT

INPUT_KEYS = (
    "gen_ai.tool.call.arguments",
    "ai.toolCall.args",
    "gen_ai.tool.args",
    "input.value",
    "gen_ai.input.messages",
    "traceloop.entity.input",
    "ai.prompt.messages",
    "ai.prompt",
    "gen_ai.prompt",
    "gcp.vertex.agent.tool_call_args",  # Google ADK
    "gcp.vertex.agent.llm_request",
    "spring.ai.tool.call.arguments",  # Spring AI (its opt-in tool content)
    "tool_arguments",  # pydantic-ai's instrumentation version 2 (its ``running tool`` spans)
)

OUTPUT_KEYS = (
    "gen_ai.tool.call.result",
    "ai.toolCall.result",
    "output.value",
    "gen_ai.output.messages",
    "traceloop.entity.output",
    "ai.response.text",
    "ai.response.toolCalls",
    "gen_ai.completion",
    "gen_ai.output",
    "gcp.vertex.agent.tool_response",  # Google ADK
    "gcp.vertex.agent.llm_response",
    "spring.ai.tool.call.result",  # Spring AI
    "tool_response",  # pydantic-ai's instrumentation version 2
)

_FLAT_INPUT = ("llm.input_messages.", "gen_ai.prompt.")

_FLAT_OUTPUT = ("llm.output_messages.", "gen_ai.completion.")

#: The GenAI conventions' content events: ``gen_ai.client.inference.operation.details``
#: (semconv 1.37+: the messages as its attributes), semconv 1.26's ``gen_ai.content.prompt``
#: / ``gen_ai.content.completion`` (``gen_ai.prompt`` / ``gen_ai.completion``: Semantic
#: Kernel, Spring AI) and, between them, one event a message.
_DETAILS_EVENTS = frozenset(
    {
        "gen_ai.client.inference.operation.details",
        "gen_ai.content.prompt",
        "gen_ai.content.completion",
    }
)

_MESSAGE_EVENTS = {
    "gen_ai.system.message",
    "gen_ai.user.message",
    "gen_ai.assistant.message",
    "gen_ai.tool.message",
}

_CHOICE_EVENT = "gen_ai.choice"

#: OpenLLMetry's LangChain tool span records the callback's whole call as the tool's arguments
#: (``gen_ai.tool.call.arguments``): the input's repr, tags, the run's metadata (LangGraph's
#: per-run checkpoint ids) and kwargs (the model's ``tool_call_id``) around the ``inputs``.
_LANGCHAIN_CALL = frozenset({"input_str", "tags", "metadata", "inputs", "kwargs"})


def langchain_inputs(value: Any) -> Any:
    """The ``inputs`` of OpenLLMetry's record of a LangChain tool call (:data:`_LANGCHAIN_CALL`,
    a JSON string), else ``ABSENT``: the arguments the tool ran with, the same in every run. A
    record that repeats a key is left as it is (its arguments' reader names file and line)."""
    try:
        decoded = decode_json_string(value)
    except AbwInputError:
        return ABSENT
    if (
        isinstance(decoded, dict)
        and "input_str" in decoded
        and isinstance(decoded.get("inputs"), dict)
        and decoded.keys() <= _LANGCHAIN_CALL
    ):
        return decoded["inputs"]
    return ABSENT


def _content(attributes: dict[str, Any], keys: tuple[str, ...], flat: tuple[str, ...]) -> Any:
    for key in keys:
        if key in attributes and attributes[key] is not None:
            return attributes[key]
    flattened = {k: v for k, v in attributes.items() if k.startswith(flat)}
    return dict(sorted(flattened.items())) if flattened else ABSENT


def span_content(span: OSpan, output: bool) -> Any:
    """A span's input (``output``: its output): its content attributes (OpenLLMetry's record
    of a LangChain tool call: its ``inputs``, :func:`langchain_inputs`), else the content the
    GenAI conventions put in span events (:func:`_event_content`)."""
    keys, flat = (OUTPUT_KEYS, _FLAT_OUTPUT) if output else (INPUT_KEYS, _FLAT_INPUT)
    found = _content(span.attributes, keys, flat)
    if found is ABSENT:
        return _event_content(span, output)
    inputs = ABSENT if output else langchain_inputs(found)
    return found if inputs is ABSENT else inputs


def _event_content(span: OSpan, output: bool) -> Any:
    """The content a span records in events: the ``gen_ai.input.messages`` (``output``:
    ``gen_ai.output.messages``) of its ``gen_ai.client.inference.operation.details`` events
    or the ``gen_ai.prompt`` (``gen_ai.completion``) of its ``gen_ai.content.prompt``
    (``.completion``) events, else its per-message events (Strands Agents' default): the
    ``content`` of its ``gen_ai.<role>.message`` events (one: as it is, a tool call's
    arguments; several: as ``{role, content}`` messages), the ``message`` of its
    ``gen_ai.choice`` events."""
    details: dict[str, Any] = {}
    for name, attributes in span.events:
        if name in _DETAILS_EVENTS:
            details.update(attributes)
    found = _content(details, OUTPUT_KEYS if output else INPUT_KEYS, ())
    if found is not ABSENT:
        return found
    if output:
        bodies = [a["message"] for n, a in span.events if n == _CHOICE_EVENT and a.get("message")]
        return ABSENT if not bodies else bodies[0] if len(bodies) == 1 else bodies
    messages = [
        {"role": n.split(".")[1], "content": a["content"]}
        for n, a in span.events
        if n in _MESSAGE_EVENTS and a.get("content") is not None
    ]
    if not messages:
        return ABSENT
    return messages[0]["content"] if len(messages) == 1 else messages


def _input_source(attributes: dict[str, Any]) -> str | None:
    """Where a span records its input: the first of ``INPUT_KEYS`` it holds, or the prefix of
    its flattened messages; ``None`` where it records none."""
    for key in INPUT_KEYS:
        if attributes.get(key) is not None:
            return key
    return next((p for p in _FLAT_INPUT if any(k.startswith(p) for k in attributes)), None)


def same_request(inner: dict[str, Any], outer: dict[str, Any]) -> bool:
    """Whether an llm span inside an llm span may record the same request: it records no
    input, or the same input, or its input in another instrumentation's shape (ADK's
    ``llm_request`` outside, OpenLLMetry's ``gen_ai.prompt.*`` inside), which cannot be
    compared. Only a different input in the same shape is another request."""
    source = _input_source(inner)
    if source is None or source != _input_source(outer):
        return True
    return _content(inner, INPUT_KEYS, _FLAT_INPUT) == _content(outer, INPUT_KEYS, _FLAT_INPUT)
