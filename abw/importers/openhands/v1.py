"""V1 (software-agent-sdk) events, ACP servers' calls among them, read into drafts, a final
status and a final text."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abw.importers.base import ImportOptions
from abw.importers.common import identifier
from abw.importers.openhands.common import SHELL, compaction, event_span_id
from abw.importers.openhands.forms import is_v1
from abw.importers.openhands.outcomes import V1_STATUS, exit_code, v1_outcome
from abw.importers.rawio import as_dict
from abw.importers.spans import ABSENT, Draft, ms_between, parse_time

if TYPE_CHECKING:
    from datetime import datetime


#: The content a V1 event may hold (hashed or never read), for ``redaction.removed_fields``.
V1_REMOVED_FIELDS = (
    "action",
    "observation",
    "tool_call",
    "thought",
    "reasoning_content",
    "thinking_blocks",
    "responses_reasoning_item",
    "reasoning_details",
    "summary",
    "llm_message",
    "extended_content",
    "system_prompt",
    "tools",
    "error",
    "rejection_reason",
    "detail",
    "title",
    "raw_input",
    "raw_output",
    "content",
    # a hook's run (``HookExecutionEvent``): its command, what it was given and what it said
    "hook_command",
    "hook_input",
    "stdout",
    "stderr",
    "reason",
    "additional_context",
)


_V1_SHELL = {"ExecuteBashAction", "TerminalAction", "BashAction"}


#: The V1 events between the errors an interrupt writes for the calls it cuts short (the
#: SDK's ``AgentErrorEvent``, an ACP server's call closed ``failed``) and its ``InterruptEvent``.
_CUT_KINDS = {
    "AgentErrorEvent",
    "ACPToolCallEvent",
    "ConversationStateUpdateEvent",
    "InterruptEvent",
}


#: The ACP tool kinds that read (an ``ACPToolCallEvent``'s ``tool_kind``): V0's read, browse.
_ACP_RETRIEVERS = {"read", "search", "fetch"}


_V1_SHELL_TOOLS = SHELL | {"terminal"}


def _text(message: dict[str, Any]) -> str | None:
    """The text of an ``llm_message``: its text parts joined, or its string content."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = [as_dict(p).get("text") for p in content] if isinstance(content, list) else []
    texts = [t for t in parts if isinstance(t, str)]
    return "\n".join(texts) if texts else None


def _retriever(kind: str | None, action: dict[str, Any]) -> bool:
    """A call that reads (V0's ``read`` and ``browse``): a file viewed, a browser action."""
    if kind in {"FileEditorAction", "StrReplaceEditorAction"}:
        return action.get("command") == "view"
    return bool(kind) and str(kind).startswith("Browser")


@dataclass
class V1Run:
    """Reads one V1 conversation's events, in file order, into drafts and a final status."""

    options: ImportOptions
    path: Path
    model: str | None
    by_response: dict[str, str]  # llm_response_id -> the model that wrote it
    drafts: list[Draft] = field(default_factory=list)
    calls: dict[str, Draft] = field(default_factory=dict)  # ActionEvent id -> its span
    by_tool_call: dict[str, Draft] = field(default_factory=dict)
    acp: dict[str, Draft] = field(default_factory=dict)  # an ACP server's tool_call_id -> span
    responses: dict[str, Draft] = field(default_factory=dict)  # llm_response_id -> llm span
    final_status: str = "unknown"
    final_text: str | None = None
    #: the last ``FinishAction``'s span, and the final text before it: a hook or the user may
    #: still reject the finish (the run then goes on, unfinished)
    finish: Draft | None = None
    text_before_finish: str | None = None
    requested: bool = False  # a CondensationRequest waits for its Condensation
    #: the calls answered by the ``AgentErrorEvent``s just read (nothing but state updates
    #: between them): the errors an interrupt writes for the calls it cut short come so
    cut: list[Draft] = field(default_factory=list)

    def read(self, events: list[dict[str, Any]]) -> None:
        for index, event in enumerate(events):
            kind = event.get("kind") if is_v1(event) else None
            when = parse_time(event.get("timestamp"))
            if kind not in _CUT_KINDS:
                self.cut.clear()
            if kind == "ActionEvent" and event.get("source", "agent") == "agent":
                self._action(index, event, when)
            elif kind in {"ObservationEvent", "UserRejectObservation", "AgentErrorEvent"}:
                self._answer(event, str(kind), when)
            elif kind == "ACPToolCallEvent":
                self._acp_call(index, event, when)
            elif kind == "MessageEvent":
                self._message(index, event, when)
            elif kind == "ConversationStateUpdateEvent":
                self._state(event)
            elif kind == "ConversationErrorEvent":
                self.final_status = "error"
            elif kind == "InterruptEvent":
                self._interrupt()
            elif kind == "PauseEvent":
                self.final_status = "cancelled"
            elif kind == "CondensationRequest":
                self.requested = True
            elif kind == "Condensation":
                self.drafts.append(compaction(index, event, when, self.requested))
                self.requested = False

    def _llm(self, index: int, event: dict[str, Any], output: Any, when: datetime | None) -> None:
        """The llm span of the model response that produced ``event`` (one per response id;
        an event without one is a response of its own)."""
        response = event.get("llm_response_id")
        key = response if isinstance(response, str) and response else None
        llm = self.responses.get(key) if key is not None else None
        if llm is None:
            name = (self.by_response.get(key) if key else None) or self.model or "llm"
            llm = Draft((index, 0), "llm", name, "ok", span_id=identifier(key))
            llm.output, llm.started_at = [], when
            self.drafts.append(llm)
            if key is not None:
                self.responses[key] = llm
        llm.output.append(output)

    def _action(self, index: int, event: dict[str, Any], when: datetime | None) -> None:
        action = as_dict(event.get("action"))  # null: a call the agent could not execute
        call = as_dict(event.get("tool_call"))
        kind = identifier(action.get("kind"))
        name = identifier(event.get("tool_name")) or identifier(call.get("name")) or kind
        if event.get("llm_response_id"):  # (V0: an action without a model response has none)
            self._llm(index, event, event.get("tool_call"), when)
        tool_input = event["action"] if action else call.get("arguments", ABSENT)
        draft = Draft(
            (index, 1), "tool", name or "tool", None, tool_input, span_id=event_span_id(event)
        )
        draft.started_at = when
        if kind:
            draft.attributes["action"] = kind
        if _retriever(kind, action):
            draft.type = "retriever"
        if kind == "DelegateAction" or name == "delegate":
            draft.type = "handoff"
        if kind in _V1_SHELL or name in _V1_SHELL_TOOLS:
            draft.mark_shell(self.options.labels, action.get("command"))
        arguments = call.get("arguments", tool_input)
        draft.keep_arguments(self.options.argument_fields, arguments, self.path)
        self.drafts.append(draft)
        if isinstance(event.get("id"), str):
            self.calls[event["id"]] = draft
        if isinstance(event.get("tool_call_id"), str):
            self.by_tool_call[event["tool_call_id"]] = draft
        if kind == "FinishAction":  # the terminal tool call
            draft.outcome, self.final_status = "ok", "success"
            self.finish, self.text_before_finish = draft, self.final_text
            message = action.get("message")
            self.final_text = message if isinstance(message, str) else self.final_text

    def _acp_call(self, index: int, event: dict[str, Any], when: datetime | None) -> None:
        """A tool call of an ACP server (Claude Code, Codex, Gemini CLI run by ``ACPAgent``):
        its first event starts the span, named by its ``tool_kind`` (never its ``title``, the
        call's text); the first with a terminal ``status`` (``completed``, ``failed``; one
        event when the call starts so) ends it."""
        call_id = event.get("tool_call_id")
        draft = self.acp.get(call_id) if isinstance(call_id, str) else None
        if draft is None:
            name = identifier(event.get("tool_kind")) or "tool"
            tool_input = event.get("raw_input", ABSENT)
            draft = Draft((index, 1), "tool", name, None, tool_input, span_id=event_span_id(event))
            draft.started_at = when
            if name in _ACP_RETRIEVERS:
                draft.type = "retriever"
            if name == "execute":
                command = tool_input.get("command") if isinstance(tool_input, dict) else None
                draft.mark_shell(self.options.labels, command)
            draft.keep_arguments(self.options.argument_fields, tool_input, self.path)
            self.drafts.append(draft)
            if isinstance(call_id, str):
                self.acp[call_id] = draft
        status = event.get("status")
        if draft.outcome is None and status in {"completed", "failed"}:
            failed = status == "failed" or event.get("is_error") is True
            draft.outcome = "error" if failed else "ok"
            draft.output = event.get("raw_output", ABSENT)
            draft.duration_ms = ms_between(draft.started_at, when)
            if failed:  # (the SDK closes so each call an interrupt cuts short)
                self.cut.append(draft)

    def _answer(self, event: dict[str, Any], kind: str, when: datetime | None) -> None:
        """An observation, a rejection or an agent error: the outcome of its tool call."""
        action_id, call_id = event.get("action_id"), event.get("tool_call_id")
        draft = self.calls.get(action_id) if isinstance(action_id, str) else None
        if draft is None and isinstance(call_id, str):
            draft = self.by_tool_call.get(call_id)
        if draft is not None and draft is self.finish and kind == "UserRejectObservation":
            # a finish blocked by a hook, or rejected by the user: the conversation is not
            # finished (the SDK's ``finalize`` does nothing) and the agent goes on
            draft.outcome, self.finish = None, None
            self.final_status, self.final_text = "unknown", self.text_before_finish
        if draft is None or draft.outcome is not None:
            return
        draft.duration_ms = ms_between(draft.started_at, when)
        if kind == "UserRejectObservation":  # by the user, or by a hook (a policy)
            draft.output = event.get("rejection_reason", ABSENT)
            draft.outcome = "denied" if event.get("rejection_source") == "hook" else "rejected"
        elif kind == "AgentErrorEvent":
            draft.output, draft.outcome = event.get("error", ABSENT), "error"
            self.cut.append(draft)
        else:
            observation = as_dict(event.get("observation"))
            code = exit_code(observation)
            if code is not None:
                draft.attributes["exit_code"] = code
            draft.output = event.get("observation", ABSENT)
            draft.outcome = v1_outcome(observation, code)

    def _interrupt(self) -> None:
        """An ``InterruptEvent`` (``interrupt()``: the run cancelled mid-step, mid-call): the
        run is cancelled, and so is every call it cut short: one still unanswered, and one
        answered by the ``AgentErrorEvent`` the SDK writes, just before the interrupt, for each
        call in flight ("interrupted before completion") — interrupted, not failed."""
        self.final_status = "cancelled"
        cut = {id(d) for d in self.cut}
        for draft in self.drafts:
            if draft.type != "llm" and (draft.outcome is None or id(draft) in cut):
                draft.outcome = "interrupted"
        self.cut.clear()

    def _message(self, index: int, event: dict[str, Any], when: datetime | None) -> None:
        """An agent message: an llm span, the final text, and the conversation waits for the
        user (finished); a user message sets it running again."""
        if event.get("source") != "agent":
            self.final_status = "unknown" if event.get("source") == "user" else self.final_status
            return
        message = as_dict(event.get("llm_message"))
        self._llm(index, event, event.get("llm_message"), when)
        self.final_text = _text(message) or self.final_text
        self.final_status = "success"

    def _state(self, event: dict[str, Any]) -> None:
        """A state update: its ``execution_status`` (alone, or in a full state; from 2025-09-30
        to 2025-11-04 the agent server wrote it ``agent_status``)."""
        key, value = event.get("key"), event.get("value")
        if key == "full_state":
            state = as_dict(value)
            value = state.get("execution_status", state.get("agent_status"))
        elif key not in {"execution_status", "agent_status"}:
            return
        self.final_status = V1_STATUS.get(str(value), self.final_status)
