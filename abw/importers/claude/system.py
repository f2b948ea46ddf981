"""The records that are no message: ``system`` (context compactions, API retries, model
fallbacks), ``progress`` (links a subagent to its call) and ``attachment`` (a queued prompt,
``--max-turns`` reached, a hook that halted the run)."""

from __future__ import annotations

import re
from typing import Any

from abw.importers.claude.background import BackgroundTasks
from abw.importers.claude.drafts import Draft, as_int
from abw.importers.claude.requests import fallback_attributes

#: The ``attachment`` type Claude Code writes when a run hits ``--max-turns`` (2.1.3xx) and stops.
MAX_TURNS = "max_turns_reached"
#: The ``attachment`` type of a hook that answered ``continue: false``: mid-turn (PreToolUse,
#: PostToolUse...) it halts the run; after a ``Stop`` hook the answer was already given.
HOOK_HALT = "hook_stopped_continuation"
_AFTER_ANSWER_HOOKS = ("Stop", "SubagentStop")
#: ``system`` subtypes that compact the agent's context: (span name, metadata key).
_COMPACTIONS = {
    "compact_boundary": ("compaction", "compactMetadata"),
    "microcompact_boundary": ("microcompaction", "microcompactMetadata"),
}


#: A ``system`` record's text when a hook blocked what it ran on (2.1.x): ``UserPromptSubmit
#: operation blocked by hook: …`` (the prompt never reached the model).
_BLOCKED = re.compile(r"(\w+) operation blocked by hook")


def _blocked_before_answer(record: dict[str, Any]) -> bool:
    """Whether a ``preventContinuation`` system record says a hook blocked the run before its
    answer (a ``Stop`` hook's comes after it)."""
    content = record.get("content")
    found = _BLOCKED.match(content) if isinstance(content, str) else None
    return found is not None and found[1] not in _AFTER_ANSWER_HOOKS


class SystemLines(BackgroundTasks):
    """Reads ``system``, ``progress`` and ``attachment`` records."""

    def _system(self, line: int, record: dict[str, Any], agent: str) -> None:
        subtype = record.get("subtype") if isinstance(record.get("subtype"), str) else None
        if subtype in _COMPACTIONS:
            self._compaction(line, record, agent, subtype)
            return
        if subtype == "model_refusal_fallback":
            self._refusal_fallback(record, agent)
        if subtype == "api_error":
            state = self._state(agent)
            state.last_event = "api_retry"  # a retry announced: not yet the request's outcome
            error = record.get("error") if isinstance(record.get("error"), dict) else {}
            state.retries.append(
                (line, record.get("retryAttempt"), record.get("maxRetries"), error.get("status"))
            )
        if record.get("preventContinuation") is True and _blocked_before_answer(record):
            self._state(agent).last_event = "hook_halt"  # a hook stopped the run
        if any(key in record for key in ("content", "hookInfos", "hookErrors", "error")):
            self.removed.add("system_message")

    def _refusal_fallback(self, record: dict[str, Any], agent: str) -> None:
        """``system``/``model_refusal_fallback`` (2.1.2xx): the model's safeguards refused a
        request and another model answered it. Like an API retry, it is no span of its own:
        the llm span of that request (its ``requestId``; else the agent's next one) carries
        :func:`fallback_attributes`."""
        found = fallback_attributes(record.get("originalModel"), record.get("trigger"))
        request_id = record.get("requestId")
        llm = self.requests.get((agent, request_id)) if isinstance(request_id, str) else None
        if llm is not None:
            llm.attributes.update(found)
        else:
            self._state(agent).fallback.update(found)

    def _compaction(self, line: int, record: dict[str, Any], agent: str, subtype: str) -> None:
        """A ``memory`` span for a context compaction: ``compact_boundary`` (the conversation
        summarised) is ``compaction``; ``microcompact_boundary`` (old tool results cleared from
        the context, no summary) is ``microcompaction``, with ``tokens_saved`` and
        ``cleared_tool_results`` (how many; the ids are not kept)."""
        name, key = _COMPACTIONS[subtype]
        metadata = record.get(key)
        metadata = metadata if isinstance(metadata, dict) else {}
        trigger = metadata.get("trigger")
        attributes: dict[str, Any] = {
            "trigger": trigger if trigger in ("auto", "manual") else "other"
        }
        for source, target in (("preTokens", "pre_tokens"), ("tokensSaved", "tokens_saved")):
            if as_int(metadata.get(source)) is not None:
                attributes[target] = metadata[source]
        cleared = metadata.get("compactedToolIds")
        if isinstance(cleared, list):
            attributes["cleared_tool_results"] = len(cleared)
        draft = Draft(
            self.name,
            line,
            0,
            agent,
            "memory",
            name,
            attributes=attributes,
            started=self._time(record),
        )
        self.drafts.setdefault(agent, []).append(draft)

    def _progress(self, record: dict[str, Any]) -> None:
        data = record.get("data")
        if not isinstance(data, dict):
            return
        self.removed.add("progress_output")
        if data.get("type") == "agent_progress":
            agent_id, tool_id = data.get("agentId"), record.get("parentToolUseID")
            if isinstance(agent_id, str) and isinstance(tool_id, str) and agent_id and tool_id:
                self.agent_links.setdefault(agent_id, tool_id)

    def _attachment(self, attachment: dict[str, Any], agent: str) -> None:
        """The attachments that say how the run went on: a queued prompt, ``--max-turns``
        reached, a hook's ``continue: false`` that halted the run mid-turn."""
        kind = attachment.get("type")
        if kind == "queued_command":
            self._queued_command(attachment)
        elif kind == MAX_TURNS:
            self._state(agent).last_event = "max_turns"  # the run stopped at --max-turns
        elif kind == HOOK_HALT and attachment.get("hookEvent") not in _AFTER_ANSWER_HOOKS:
            self._state(agent).last_event = "hook_halt"  # a hook stopped the run
