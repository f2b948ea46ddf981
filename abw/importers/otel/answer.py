"""The run's final output and its text (for ``--output-fields``): the output the file records,
else the root span's, else pydantic-ai's ``final_result``, else the last model answer
(OpenInference's flattened output messages, LangChain's serialised messages and generations)."""

from __future__ import annotations

import json
import re
from typing import Any

from abw.importers.otel.content import span_content
from abw.importers.otel.span import OSpan, nonblank
from abw.importers.rawio import as_dict, as_list, decode_json_string
from abw.importers.spans import ABSENT, assistant_text

#: A LlamaIndex workflow's result as OpenInference records it: the ``StopEvent`` repr, cut short.
_WORKFLOW_RESULT = "StopEvent("

#: OpenInference's flattened output message text: ``llm.output_messages.<i>.message.content``.
_OI_OUTPUT_TEXT = re.compile(r"llm\.output_messages\.(\d+)\.message\.content")

#: pydantic-ai's record of its run's output on the agent run span (a text, or the JSON of a
#: structured output, which its model returned as a call of its ``final_result`` tool).
_PYDANTIC_AI_RESULT = "final_result"

_OPERATION = "gen_ai.operation.name"

#: The keys of each call in any-agent's record of a model's request for tool calls.
_ANY_AGENT_CALL = {"tool.name", "tool.args"}

#: The class names LangChain serialises an AI message under (``dumpd``'s constructor ``id``).
_AI_MESSAGES = {"AIMessage", "AIMessageChunk"}


def recorded_result(spans: list[tuple[OSpan, int]]) -> Any:
    """pydantic-ai's ``final_result`` on the run's own agent span (the last outermost
    ``invoke_agent`` span), given each span with its depth; ``ABSENT`` where that span has none
    (a run that failed: a sub-agent's answer, deeper, is not the run's)."""
    agents = [(depth, s) for s, depth in spans if s.attributes.get(_OPERATION) == "invoke_agent"]
    if not agents:
        return ABSENT
    top = min(depth for depth, _ in agents)
    value = [s for depth, s in agents if depth == top][-1].attributes.get(_PYDANTIC_AI_RESULT)
    return value if isinstance(value, str) else ABSENT


def final_answer(
    root: OSpan | None, llm_outputs: list[Any], recorded: Any, result: Any = ABSENT
) -> tuple[Any, str | None]:
    """The run's final output and its text (for ``--output-fields``): the output the file
    records for the run (any-agent's ``final_output``: a text, or a structured answer as it
    is), else the root span's output, else the ``result`` its agent span records
    (:func:`recorded_result`), else the last llm output; as its assistant text when it has
    one. A recorded ``None`` is a run that returned no answer: it has none."""
    if recorded is None:
        return None, None
    if recorded is not ABSENT:
        return recorded, recorded if isinstance(recorded, str) else json.dumps(recorded)
    output = span_content(root, output=True) if root else ABSENT
    if isinstance(output, str) and output.startswith(_WORKFLOW_RESULT):
        output = ABSENT  # a repr, cut short: the answer is the last model output's
    if output is ABSENT:
        output = result
    if output is ABSENT and llm_outputs and not _tool_requests(llm_outputs[-1]):
        output = llm_outputs[-1]
    if output is ABSENT or output is None:
        return None, None
    text = assistant_text(output)
    if text is None:
        text = _langchain_text(output)
    if text is None:
        text = _block_text(output)
    return (output if text is None else text), text


def _tool_requests(value: Any) -> bool:
    """Whether a model output is any-agent's record of the calls it asked for (``gen_ai.output``
    ``[{"tool.name", "tool.args"}, ...]``): no answer (a run that failed before it had one)."""
    requests = decode_json_string(value)
    return (
        isinstance(requests, list)
        and bool(requests)
        and all(isinstance(r, dict) and r.keys() == _ANY_AGENT_CALL for r in requests)
    )


def flat_answer(attributes: dict[str, Any]) -> str | None:
    """The text of the last assistant message among OpenInference's flattened output messages,
    where an llm span has them: its ``output.value`` is a client's whole response (OpenAI's
    JSON, with per-request ids) or LlamaIndex's ``assistant: <text>``, not the answer."""
    texts: list[tuple[int, str]] = []
    for key, value in attributes.items():
        match = _OI_OUTPUT_TEXT.fullmatch(key)
        role = attributes.get(f"llm.output_messages.{match[1]}.message.role") if match else None
        if match and nonblank(value) and role in (None, "assistant"):
            texts.append((int(match[1]), value))
    return max(texts)[1] if texts else None


def _langchain_text(value: Any) -> str | None:
    """The answer in LangChain's serialised shapes, which OpenInference records as a LangGraph
    run's output and a chat model's: the content of the last message of ``{"messages": [...]}``
    when it is an AI message (``message_to_dict``'s ``{"type": "ai", "data": {...}}`` or
    ``dumpd``'s ``{"id": [..., "AIMessage"], "kwargs": {...}}``), or the last non-empty
    ``text`` of ``{"generations": [[...]]}``. ``None`` where it holds no answer text."""
    value = decode_json_string(value)
    if not isinstance(value, dict):
        return None
    if "generations" in value:
        texts = [
            generation.get("text")
            for batch in as_list(value["generations"])
            for generation in as_list(batch)
            if isinstance(generation, dict)
        ]
        return next((t for t in reversed(texts) if nonblank(t)), None)
    messages = [m for m in as_list(value.get("messages")) if isinstance(m, dict)]
    if not messages:
        return None
    last = messages[-1]
    constructor = [part for part in as_list(last.get("id")) if isinstance(part, str)]
    if last.get("type") != "ai" and not (constructor and constructor[-1] in _AI_MESSAGES):
        return None
    content = as_dict(last.get("data") or last.get("kwargs")).get("content")
    if isinstance(content, list):  # content blocks
        parts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        content = "".join(p for p in parts if isinstance(p, str))
    return content if nonblank(content) else None


def _block_text(value: Any) -> str | None:
    """The text of Strands Agents' record of a model answer (its ``gen_ai.choice`` message):
    the JSON of Bedrock-style content blocks, ``[{"text": ...}]``; ``None`` where no block is
    text (a ``toolUse``)."""
    blocks = decode_json_string(value)
    texts = [
        b["text"] for b in as_list(blocks) if isinstance(b, dict) and isinstance(b.get("text"), str)
    ]
    return "".join(texts) if texts else None
