"""A tool or retriever span's call arguments, kept as ``--argument-fields`` names them."""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from abw.importers.base import ImportOptions
from abw.importers.otel.content import langchain_inputs
from abw.importers.otel.span import OSpan
from abw.importers.rawio import decode_json_string
from abw.importers.spans import ABSENT, Draft

#: Where a tool span records the call's arguments (a JSON object, usually as a string).
ARGUMENT_KEYS = (
    "gen_ai.tool.call.arguments",
    "ai.toolCall.args",
    "gen_ai.tool.args",
    "input.value",
    "gcp.vertex.agent.tool_call_args",
    "traceloop.entity.input",  # OpenLLMetry's @tool: {"args": [], "kwargs": {...}}
    "spring.ai.tool.call.arguments",  # Spring AI
    "tool_arguments",  # pydantic-ai's instrumentation version 2
)

#: OpenInference's record of a Python call (smolagents, LlamaIndex tools) and OpenLLMetry's
#: (Traceloop's ``@tool``): the arguments are ``kwargs``.
_CALL_WRAPPER = {"args", "kwargs", "sanitize_inputs_outputs"}


def _call_arguments(span: OSpan, path: Path) -> Any:
    """A tool span's record of the call's arguments (the first of ``ARGUMENT_KEYS``, else the
    content of its one ``gen_ai.tool.message`` event: Strands Agents), with the
    ``{"args": [], "kwargs": {...}}`` wrapper OpenInference writes for smolagents and
    LlamaIndex tools, and OpenLLMetry's record of a LangChain call around its ``inputs``, taken
    off."""
    attributes = span.attributes
    value = next((attributes[k] for k in ARGUMENT_KEYS if k in attributes), None)
    if value is None:
        sent = [a.get("content") for n, a in span.events if n == "gen_ai.tool.message"]
        value = sent[0] if len(sent) == 1 else None
    decoded = decode_json_string(value, path, span.line)
    inputs = langchain_inputs(decoded)
    if inputs is not ABSENT:
        return inputs
    if (
        isinstance(decoded, dict)
        and isinstance(decoded.get("kwargs"), dict)
        and not decoded.get("args")
        and decoded.keys() <= _CALL_WRAPPER
    ):
        return decoded["kwargs"]
    return value


def keep_arguments(draft: Draft, span: OSpan, options: ImportOptions, path: Path) -> bool:
    """Keep the ``--argument-fields`` of a tool or retriever span; False when a field is named
    for it but its recorded input is not a JSON object (LangChain writes a Python repr)."""
    arguments = _call_arguments(span, path)
    draft.keep_arguments(options.argument_fields, arguments, path)
    named = any(fnmatchcase(draft.name, f.tool) for f in options.argument_fields)
    return not named or arguments is None or "arguments" in draft.attributes
