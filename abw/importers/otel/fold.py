"""One model request traced at two levels becomes one llm span: an llm span without tokens
around llm spans with them is a wrapper, and an llm span repeating its llm parent's request is
left out. Google ADK's own call spans beside any-agent's record of the same calls are only
structure."""

from __future__ import annotations

from abw.importers.otel.attributes import has_tokens
from abw.importers.otel.classify import Kind
from abw.importers.otel.content import same_request
from abw.importers.otel.span import OSpan
from abw.importers.tree import Node

_OPERATION = "gen_ai.operation.name"
_SYSTEM = "gen_ai.system"
#: Google ADK's own spans' ``gen_ai.system``.
_ADK_SYSTEM = "gcp.vertex.agent"


def unwrap_requests(walk: list[tuple[Node, list[Node]]], kinds: dict[str, Kind]) -> None:
    """Make an llm span that records no tokens while an llm span below it does a container:
    it wraps the model requests below it (LlamaIndex's ``structured_predict`` around its
    ``chat``), and they are the calls, with their tokens. Kept, it was a second model call, or
    it absorbed the request below it as the same call (:func:`repeated_call`) and its tokens
    were lost."""
    counted: set[str] = set()
    for node, ancestors in walk:
        if kinds[node.key].type == "llm" and has_tokens(node.payload):
            counted.update(a.key for a in ancestors)
    for node, _ in walk:
        kind = kinds[node.key]
        if kind.type == "llm" and node.key in counted and not has_tokens(node.payload):
            kinds[node.key] = Kind("container", kind.name)


def traced_by_any_agent(walk: list[tuple[Node, list[Node]]], kinds: dict[str, Kind]) -> None:
    """Make Google ADK's own llm and tool spans containers in a run any-agent traced too (a
    span of its ``call_llm`` operation): exported together (OTLP), any-agent's ``call_llm``
    and ``execute_tool`` spans record the same calls, each ADK tool span holding any-agent's,
    so a call would count twice (and ADK's tool span never records a failure)."""
    if not any(node.payload.attributes.get(_OPERATION) == "call_llm" for node, _ in walk):
        return
    for node, _ in walk:
        kind = kinds[node.key]
        if kind.type in ("llm", "tool") and node.payload.attributes.get(_SYSTEM) == _ADK_SYSTEM:
            kinds[node.key] = Kind("container", kind.name)


def inner_tool_call(kind: Kind, ancestors: list[Node], kinds: dict[str, Kind]) -> bool:
    """A tool span that is its tool parent's only tool child, naming the same tool: one call
    traced at two levels (a framework's ``execute_tool lookup`` around an MCP client's
    ``tools/call lookup``, or OpenLLMetry's MCP instrumentation's ``lookup.tool``); only the
    outer one is kept, with the inner one's failure when only the inner one recorded it."""
    if kind.type != "tool" or not ancestors or kinds[ancestors[-1].key].type != "tool":
        return False
    parent = ancestors[-1]
    if kinds[parent.key].name != kind.name:
        return False
    return sum(kinds[child.key].type == "tool" for child in parent.children) == 1


def repeated_call(span: OSpan, kind: Kind, ancestors: list[Node], kinds: dict[str, Kind]) -> bool:
    """An llm span that is its llm parent's only llm child recording the same request
    (:func:`.content.same_request`): one model request traced at two levels (smolagents' nested
    ``LiteLLMModel.__call__``; Google ADK 2.x's ``call_llm`` around its own or google-genai's
    ``generate_content <model>``, which repeats the tokens but holds no content; ADK's
    ``call_llm`` around OpenLLMetry's ``openai.chat`` in kagent); only the outer one is kept.
    Two such children are attempts (retries), kept apart."""
    if kind.type != "llm" or not ancestors or kinds[ancestors[-1].key].type != "llm":
        return False
    parent = ancestors[-1]
    outer = parent.payload.attributes
    if not same_request(span.attributes, outer):
        return False
    same = [
        child
        for child in parent.children
        if kinds[child.key].type == "llm" and same_request(child.payload.attributes, outer)
    ]
    return len(same) == 1
