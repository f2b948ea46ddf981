"""What a span is, per framework (GenAI semconv, OpenInference, OpenLLMetry, the Vercel AI SDK,
Google ADK, Claude Code's own spans): its :class:`Kind`, the agent its descendants run in, and
whether a trace's spans are an agent's run at all."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from abw.errors import AbwInputError
from abw.importers.otel.span import OSpan, nonblank
from abw.importers.rawio import decode_json_string
from abw.importers.tree import Node

#: Google ADK's agent span before it wrote ``invoke_agent``: ``agent_run [weather_agent]``.
_AGENT_RUN = re.compile(r"agent_run \[(.+)\]")

#: ADK's record of parallel tool calls merged into one event; each call has its own span.
_MERGED_TOOLS = "(merged tools)"

#: LlamaIndex's ``<LLM class>._prepare_chat_with_tools``: it builds a request and sends none, but
#: OpenInference marks every traced method of an LLM object ``LLM``.
_PREPARES_REQUEST = "._prepare_chat_with_tools"

#: AutoGen AgentChat's spans' ``gen_ai.system``; its handoff tools' name prefix and default
#: description (:func:`_autogen_handoff`).
_AUTOGEN = "autogen"
_AUTOGEN_HANDOFF = "transfer_to_"
_AUTOGEN_HANDOFF_TEXT = re.compile(r"Handoff to (.+)\.")

#: Google ADK's built-in tool that hands the conversation to another agent (its
#: ``gen_ai.tool.type``), the argument naming that agent, and where ADK records a call's
#: arguments: 2.x with content capture on, 1.x unless ``ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS``
#: is off. ADK marks its own spans' attributes ``gcp.vertex.agent.*``.
_ADK_TRANSFER = "transfer_to_agent"
_ADK_TRANSFER_TYPE = "TransferToAgentTool"
_ADK_TRANSFER_ARGUMENT = "agent_name"
_ADK_ARGUMENT_KEYS = ("gen_ai.tool.call.arguments", "gcp.vertex.agent.tool_call_args")
_ADK_KEYS = "gcp.vertex.agent."

#: The spans a search for the agent an ADK transfer ran passes over (:func:`_next_agent`).
_BESIDE_TRANSFER = {"tool", "container"}

#: LangGraph's ``create_react_agent`` names the node that calls the model ``agent``.
_LANGGRAPH_MODEL_NODE = "agent"

#: smolagents' agent spans over OpenInference: ``<agent>.run`` with ``smolagents.*`` attributes.
_SMOLAGENTS = "smolagents."
_SMOLAGENTS_RUN = ".run"

#: Claude Code's own tracing (``CLAUDE_CODE_ENHANCED_TELEMETRY_BETA``) names its spans
#: ``claude_code.<span.type>``: ``interaction`` > ``llm_request`` and ``tool`` > the tool's
#: ``tool.blocked_on_user`` (its permission check) and ``tool.execution`` (its run).
CLAUDE_CODE = "claude_code."
#: Claude Code's tools that run a subagent, and its model requests' source prefix there.
_CLAUDE_CODE_AGENT_TOOLS = ("Agent", "Task")
_BUILTIN = "agent.builtin."

#: ``call_llm`` is any-agent's name for a model call (its other operation names are semconv);
#: Semantic Kernel names its model calls ``chat.completions`` / ``text.completions`` (and their
#: ``*.streaming_completions``).
LLM_OPS = {
    "chat",
    "generate_content",
    "text_completion",
    "completion",
    "generate",
    "call_llm",
    "chat.completions",
    "chat.streaming_completions",
    "text.completions",
    "text.streaming_completions",
}

TOOL_OPS = {"execute_tool"}

#: ``vector_db_retrieve``: OpenLLMetry's LangChain retriever (its own operation name);
#: ``embedding``: Spring AI's embedding model calls.
RETRIEVER_OPS = {"retrieval", "embeddings", "embedding", "rerank", "vector_db_retrieve"}

#: Spring AI 1.x names its tool calls' operation ``framework`` (as its chat client and
#: advisors), telling them apart by ``spring.ai.kind``; 2.0 writes ``execute_tool``.
_SPRING_AI_TOOL = ("framework", "tool_call")

AGENT_OPS = {"invoke_agent", "create_agent", "invoke_workflow"}

HANDOFF_OPS = {"agent_handoff", "handoff"}

GUARDRAIL_OPS = {"guardrail_check", "guardrail", "apply_guardrail"}

#: OpenLLMetry's ``llm.request.type`` (its instrumentations before they wrote
#: ``gen_ai.operation.name``, e.g. ``openai.chat``, ``anthropic.chat``): the span's type.
LLM_REQUEST_TYPES = {
    "chat": "llm",
    "completion": "llm",
    "embedding": "retriever",
    "rerank": "retriever",
}

VERCEL_LLM = {
    "ai.generateText.doGenerate",
    "ai.streamText.doStream",
    "ai.generateObject.doGenerate",
    "ai.streamObject.doStream",
}

#: The Vercel AI SDK's legacy call spans (``ai.operationId``): a call named by its telemetry
#: ``functionId`` is the agent it names, as AI SDK 7's OpenTelemetry integration writes the
#: same call as ``invoke_agent`` with ``gen_ai.agent.name`` = the functionId.
VERCEL_CALLS = ("ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject")
_VERCEL_FUNCTION = "ai.telemetry.functionId"

_MODEL_KEYS = (
    "gen_ai.request.model",
    "gen_ai.response.model",
    "llm.model_name",
    "ai.model.id",
    "traceloop.association.properties.ls_model_name",
    "ioa_observe.association.properties.ls_model_name",
)

_HANDOFF_TARGET_KEYS = (
    "gen_ai.handoff.to_agent",
    "gen_ai.handoff.target_agent",
    "gen_ai.agent.to",
    "handoff.to_agent",
    "to_agent",
)


@dataclass
class Kind:
    """What a span is: an emitted span type and name, or a scope (agent) / container; ``tool``:
    the tool a handoff was made with (its ``attributes.tool``)."""

    type: str  # llm|tool|retriever|guardrail|handoff|memory|agent|container
    name: str
    tool: str | None = None


def _model(attributes: dict[str, Any], fallback: str) -> str:
    for key in _MODEL_KEYS:
        value = nonblank(attributes.get(key))
        if value and value.lower() not in {"unknown", "none", "null"}:
            return value
    return fallback


def _after(prefix: str, name: str) -> str | None:
    return name[len(prefix) :].strip() or None if name.startswith(prefix) else None


def _handoff_target(span: OSpan) -> str:
    for key in _HANDOFF_TARGET_KEYS:
        value = nonblank(span.attributes.get(key))
        if value:
            return value
    for prefix in ("handoff to ", "agent_handoff ", "handoff ", "transfer_to_"):
        target = _after(prefix, span.name)
        if target:
            return target.split(" -> ")[-1]
    return span.name or "handoff"


def classify(span: OSpan) -> Kind:
    """The span's type and name, from its semantic attributes first and its name last."""
    a = span.attributes
    name = span.name
    tool_name = (
        nonblank(a.get("gen_ai.tool.name"))
        or nonblank(a.get("tool.name"))
        or nonblank(a.get("ai.toolCall.name"))
        or nonblank(a.get("spring.ai.tool.definition.name"))
        or _after("execute_tool ", name)
    )
    if name.startswith(CLAUDE_CODE):
        return _claude_code_kind(a, name)
    oi = str(a.get("openinference.span.kind") or "").upper()
    if oi:
        if oi == "LLM" and name.endswith(_PREPARES_REQUEST):
            return Kind("container", name)
        if oi == "LLM":
            return Kind("llm", _model(a, name or "llm"))
        if oi == "TOOL":
            if name.startswith("handoff to ") or name.startswith("transfer_to_"):
                return Kind("handoff", _handoff_target(span))
            return Kind("tool", tool_name or name)
        if oi in {"RETRIEVER", "RERANKER", "EMBEDDING"}:
            return Kind("retriever", tool_name or name)
        if oi == "GUARDRAIL":
            return Kind("guardrail", name or "guardrail")
        if oi == "AGENT":
            return _openinference_agent(a, name, tool_name)
        return Kind("container", name)
    op = str(a.get("gen_ai.operation.name") or "")
    if (op, a.get("spring.ai.kind")) == _SPRING_AI_TOOL:
        op = "execute_tool"
    if op in LLM_OPS:
        return Kind("llm", _model(a, name or op))
    if op in TOOL_OPS:
        target = _autogen_handoff(a, tool_name)
        if target:
            return Kind("handoff", target)
        return Kind("container" if tool_name == _MERGED_TOOLS else "tool", tool_name or name)
    if op in RETRIEVER_OPS:
        return Kind("retriever", tool_name or _after(f"{op} ", name) or op)
    if op in HANDOFF_OPS:
        return Kind("handoff", _handoff_target(span))
    if op in GUARDRAIL_OPS:
        guard = nonblank(a.get("gen_ai.guardrail.name")) or _after(f"{op} ", name) or name
        return Kind("guardrail", guard or "guardrail")
    if op in AGENT_OPS:
        return Kind("agent", nonblank(a.get("gen_ai.agent.name")) or _after(f"{op} ", name) or op)
    if op:
        return Kind("container", name)
    request_type = LLM_REQUEST_TYPES.get(str(a.get("llm.request.type") or ""))
    if request_type == "llm":
        return Kind("llm", _model(a, name))
    if request_type == "retriever":
        return Kind("retriever", name)
    framework = str(a.get("traceloop.span.kind") or "")
    if framework == "tool":
        return Kind("tool", tool_name or nonblank(a.get("traceloop.entity.name")) or name)
    if framework == "llm":
        return Kind("llm", _model(a, name))
    if framework in {"agent", "workflow"}:
        return Kind("agent", nonblank(a.get("traceloop.entity.name")) or name)
    if name == "ai.toolCall" or "ai.toolCall.name" in a:
        return Kind("tool", tool_name or name)
    function = nonblank(a.get(_VERCEL_FUNCTION))
    if function and a.get("ai.operationId") in VERCEL_CALLS:
        return Kind("agent", function)
    if name in VERCEL_LLM:
        return Kind("llm", _model(a, name))
    if tool_name:
        return Kind("tool", tool_name)
    if name.startswith("chat "):
        return Kind("llm", _model(a, name[5:].strip() or name))
    if name.startswith("invoke_agent "):
        return Kind("agent", name[len("invoke_agent ") :].strip())
    return _by_name(a, name)


def _autogen_handoff(a: dict[str, Any], tool_name: str | None) -> str | None:
    """The agent an AutoGen AgentChat handoff (a ``Swarm`` agent's ``handoffs``) transfers to:
    its tool is named ``transfer_to_<target>`` (lower-cased) and described ``Handoff to
    <target>.`` unless the ``Handoff`` says otherwise; ``None`` for any other call."""
    if a.get("gen_ai.system") != _AUTOGEN or not tool_name:
        return None
    target = _after(_AUTOGEN_HANDOFF, tool_name)
    described = _AUTOGEN_HANDOFF_TEXT.fullmatch(str(a.get("gen_ai.tool.description") or ""))
    return (described[1] if described else target) if target else None


def adk_transfers(walk: list[tuple[Node, list[Node]]], kinds: dict[str, Kind]) -> None:
    """Make Google ADK's ``transfer_to_agent`` calls (:func:`_adk_transfer`) handoffs named by
    the agent handed to: the call's ``agent_name`` where its arguments are recorded, else the
    agent span that runs next (:func:`_next_agent`), else the tool's name. ``kinds`` (of the
    spans of ``walk``, in pre-order) is updated in place; the handed-to agent's steps stay
    where ADK traced them, after the handoff."""
    transfers = {
        index
        for index, (node, _) in enumerate(walk)
        if _adk_transfer(node.payload, kinds[node.key])
    }
    for index in sorted(transfers):
        node = walk[index][0]
        target = _transfer_argument(node.payload) or _next_agent(walk, kinds, index, transfers)
        kinds[node.key] = Kind("handoff", target or _ADK_TRANSFER, tool=_ADK_TRANSFER)


def _adk_transfer(span: OSpan, kind: Kind) -> bool:
    """Whether a tool span is ADK's ``transfer_to_agent``: the tool's name, and ADK's mark on
    it (its ``gen_ai.tool.type``, or an attribute of ADK's own)."""
    a = span.attributes
    return (kind.type, kind.name) == ("tool", _ADK_TRANSFER) and (
        a.get("gen_ai.tool.type") == _ADK_TRANSFER_TYPE or any(k.startswith(_ADK_KEYS) for k in a)
    )


def _transfer_argument(span: OSpan) -> str | None:
    """The ``agent_name`` an ADK transfer's recorded arguments name, if it can be an agent's
    name (ADK's agent names are identifiers: no text of the model's is kept)."""
    for key in _ADK_ARGUMENT_KEYS:
        try:
            arguments = decode_json_string(span.attributes.get(key))
        except AbwInputError:
            continue
        name = arguments.get(_ADK_TRANSFER_ARGUMENT) if isinstance(arguments, dict) else None
        if isinstance(name, str) and name.isidentifier():
            return name
    return None


def _next_agent(
    walk: list[tuple[Node, list[Node]]], kinds: dict[str, Kind], index: int, transfers: set[int]
) -> str | None:
    """The agent the transfer at ``index`` of ``walk`` ran, where the export shows it
    unambiguously: the first span after it that is no tool call or infrastructure is an agent
    span, started no earlier than the transfer, and no other transfer was asked for with it
    (none before it since the model call that asked for it, none between it and the agent)."""
    before = _beside(walk, kinds, index, -1)
    after = _beside(walk, kinds, index, 1)
    if after is None or {before, after} & transfers:
        return None
    kind = kinds[walk[after][0].key]
    started, transferred = walk[after][0].payload.start_ns, walk[index][0].payload.start_ns
    earlier = started is not None and transferred is not None and started < transferred
    return kind.name if kind.type == "agent" and not earlier else None


def _beside(
    walk: list[tuple[Node, list[Node]]], kinds: dict[str, Kind], index: int, step: int
) -> int | None:
    """The index of the first span from ``index`` on, going by ``step`` through ``walk``, that
    is no tool call or infrastructure, or another ADK transfer; ``None`` past the end."""
    position = index + step
    while 0 <= position < len(walk):
        node = walk[position][0]
        kind = kinds[node.key]
        if kind.type not in _BESIDE_TRANSFER or _adk_transfer(node.payload, kind):
            return position
        position += step
    return None


def _openinference_agent(a: dict[str, Any], name: str, tool_name: str | None) -> Kind:
    """An OpenInference ``AGENT`` span. Its LangChain instrumentation marks every run whose name
    holds "agent" so: a tool called so (``tool.name``, which it writes on tool runs only) is a
    tool, and LangGraph's node ``agent`` (``create_react_agent``'s model step; its
    ``metadata`` names it as the node) is a step of the graph, not an agent of its own."""
    if tool_name and nonblank(a.get("tool.name")):
        return Kind("tool", tool_name)
    if name == _LANGGRAPH_MODEL_NODE and _langgraph_node(a) == name:
        return Kind("container", name)
    return Kind("agent", nonblank(a.get("agent.name")) or _smolagents_agent(a, name))


def _langgraph_node(a: dict[str, Any]) -> str | None:
    """The LangGraph node an OpenInference span ran in (its ``metadata``'s ``langgraph_node``)."""
    try:
        metadata = decode_json_string(a.get("metadata"))
    except AbwInputError:
        return None
    return nonblank(metadata.get("langgraph_node")) if isinstance(metadata, dict) else None


def _smolagents_agent(a: dict[str, Any], name: str) -> str:
    """An OpenInference agent span's agent: smolagents' is named after the method it traces,
    ``<agent name or class>.run`` (its ``smolagents.*`` attributes tell it), the rest by name."""
    smolagents = any(key.startswith(_SMOLAGENTS) for key in a)
    return name.removesuffix(_SMOLAGENTS_RUN) or name if smolagents else name


def _claude_code_kind(a: dict[str, Any], name: str) -> Kind:
    """A span of Claude Code's own tracing: its interaction is the agent scope, its
    ``llm_request`` a model call (it carries no operation name; its tokens are
    ``input_tokens``/``output_tokens``), its ``tool`` the call (``gen_ai.tool.name``, else
    ``tool_name``); the permission wait and the run below a tool only decide the tool's
    outcome (:func:`.outcomes.claude_code_tool_outcome`)."""
    kind = name[len(CLAUDE_CODE) :]
    if kind == "interaction":
        return Kind("agent", nonblank(a.get("gen_ai.agent.name")) or "claude_code")
    if kind == "llm_request":
        return Kind("llm", _model(a, nonblank(a.get("model")) or name))
    if kind == "tool":
        return Kind(
            "tool", nonblank(a.get("gen_ai.tool.name")) or nonblank(a.get("tool_name")) or name
        )
    return Kind("container", name)


def _by_name(a: dict[str, Any], name: str) -> Kind:
    """Google ADK's spans without an operation name: ``call_llm`` (a model call that only
    says ``gen_ai.system`` and ``gen_ai.request.model``) and ``agent_run [<agent>]``."""
    if (
        name in LLM_OPS
        and nonblank(a.get("gen_ai.system"))
        and nonblank(a.get("gen_ai.request.model"))
    ):
        return Kind("llm", _model(a, name))
    agent = _AGENT_RUN.fullmatch(name)
    if agent:
        return Kind("agent", agent.group(1))
    return Kind("container", name)


def agent_scope(
    span: OSpan, kind: Kind, siblings: Iterable[OSpan] = (), below: Iterable[OSpan] = ()
) -> str | None:
    """The agent that a span's descendants run in: an agent span's name, the
    ``subagent_type`` of Claude Code's ``Agent`` tool, whose subagent's spans it holds
    (:func:`_claude_code_subagent`; ``below``: its descendants), or the graph an OpenLLMetry
    task runs (:func:`_langgraph_subagent`; ``siblings``: its parent's other spans)."""
    if kind.type == "agent":
        return kind.name
    if span.name == f"{CLAUDE_CODE}tool":
        return _claude_code_subagent(span, below)
    return _langgraph_subagent(span, siblings)


def _claude_code_subagent(span: OSpan, below: Iterable[OSpan]) -> str | None:
    """The subagent a Claude Code ``Agent`` (``Task``) tool runs: its ``subagent_type``
    (written with ``OTEL_LOG_TOOL_DETAILS``), else the ``agent.builtin.<type>``
    ``query_source_safe`` of the subagent's model requests, else the tool's name."""
    a = span.attributes
    named = nonblank(a.get("subagent_type"))
    if named or a.get("tool_name") not in _CLAUDE_CODE_AGENT_TOOLS:
        return named
    for inner in below:
        source = nonblank(inner.attributes.get("query_source_safe")) or ""
        if inner.name == f"{CLAUDE_CODE}llm_request" and source.startswith(_BUILTIN):
            return nonblank(source.removeprefix(_BUILTIN)) or a["tool_name"]
    return str(a["tool_name"])


def _langgraph_subagent(span: OSpan, siblings: Iterable[OSpan]) -> str | None:
    """OpenLLMetry traces a LangGraph graph run inside another's node (an agent a tool calls)
    as an ``invoke_agent <graph>`` span with no children and, beside it, the ``execute_task
    <graph>`` span that holds the graph's nodes: that task runs the agent its sibling names."""
    a = span.attributes
    name = nonblank(a.get("traceloop.entity.name"))
    if a.get("gen_ai.operation.name") != "execute_task" or not name:
        return None
    invoked = any(
        s.attributes.get("gen_ai.operation.name") == "invoke_agent"
        and s.attributes.get("gen_ai.agent.name") == name
        for s in siblings
    )
    return name if invoked else None


def is_agent_run(members: list[OSpan]) -> bool:
    """Whether the spans of one trace id are an agent's run: some span is more than
    infrastructure (:func:`classify`: an llm, tool, retriever, handoff, guardrail or agent
    span). An application's other traces (an HTTP request, a workflow build, an agent's
    ``create_agent``: OpenLLMetry's LangGraph instrumentation traces the graph's compilation
    apart from its runs) are not runs: as traces of no span that ended well they would count
    as runs that pass every check."""
    return any(
        classify(span).type != "container"
        and span.attributes.get("gen_ai.operation.name") != "create_agent"
        for span in members
    )
