"""User lines: prompts, interrupts, tool results (each closes its call with an outcome,
duration and output hash), and the first prompt of an inline sidechain (linked to its call)."""

from __future__ import annotations

from typing import Any

from abw.errors import AbwInputError
from abw.hashing import content_hash
from abw.importers.claude.background import BackgroundTasks
from abw.importers.claude.drafts import FILE, MAIN, AgentState, ms_between, text_of
from abw.importers.claude.outcomes import (
    INTERRUPT_MARKER,
    TASK_NOTIFICATION,
    classify_result,
    notified_task,
    reported_duration_ms,
)
from abw.importers.claude.persisted import output_hash
from abw.importers.claude.reader import is_warmup_prompt

#: User lines of slash commands and of bash mode (``!cmd``): the user's own, not a prompt.
_COMMAND_PREFIXES = (
    "<command-name>",
    "<command-message>",
    "<local-command-",
    "Caveat: ",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
)
_CAVEAT = "<local-command-caveat>"


class UserLines(BackgroundTasks):
    """Reads ``user`` lines."""

    def _user(self, line: int, record: dict[str, Any], agent: str) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            raise AbwInputError("expected an object", file=self.path, line=line, field="message")
        content = message.get("content")
        state = self._state(agent)
        if state.first_user_text is None and state.root_line is None:
            state.root_line = line
            state.first_user_text = text_of(content) or ""
            if agent not in (MAIN, FILE):
                self._new_inline_root(agent, state.first_user_text)
        if "toolUseResult" in record:
            self.removed.add("tool_output")
        if isinstance(content, str):
            self._user_text(content, record, state)
            return
        if not isinstance(content, list):
            raise AbwInputError(
                "expected a string or a list of blocks",
                file=self.path,
                line=line,
                field="message.content",
            )
        for index, block in enumerate(content):
            if not isinstance(block, dict):
                raise AbwInputError(
                    "expected a content block object",
                    file=self.path,
                    line=line,
                    field=f"message.content[{index}]",
                )
            block_type = block.get("type")
            if block_type == "tool_result":
                self._tool_result(line, index, block, record)
            elif block_type == "text" and isinstance(block.get("text"), str):
                self._user_text(block["text"], record, state)
            elif block_type == "image":
                self.removed.add("image")
            else:
                self.removed.add("user_content")

    def _user_text(self, text: str, record: dict[str, Any], state: AgentState) -> None:
        if text.lstrip().startswith(TASK_NOTIFICATION):
            notified = notified_task(text)
            if notified is not None:
                self._background_done(*notified)
        if text.startswith(INTERRUPT_MARKER):
            self._interrupt(state, record)
            return
        if record.get("isCompactSummary") is True:
            self.removed.add("compaction_summary")
            return
        self.removed.add("user_prompt")
        if record.get("isMeta") is True or text.lstrip().startswith(_COMMAND_PREFIXES):
            if text.lstrip().startswith(_CAVEAT) and isinstance(record.get("uuid"), str):
                self.caveats.add(record["uuid"])
            return
        parent = record.get("parentUuid")
        if isinstance(parent, str) and parent in self.caveats:
            return  # a local command's own output after its caveat ("Unknown skill: ...")
        origin = record.get("origin")
        if text.lstrip().startswith(TASK_NOTIFICATION) or (
            isinstance(origin, dict) and origin.get("kind") == "task-notification"
        ):
            # Claude Code's, not the user's: a background task's end handed to the model, which
            # answers it in a new turn; with no reply the run ends undecided, as after a tool
            # result with no reply
            state.last_event = "task_notification"
            return
        state.last_event = "prompt"

    def _interrupt(self, state: AgentState, record: dict[str, Any]) -> None:
        """Calls still open are interrupted; so are those answered ``User rejected tool use``
        of the message the line's ``interruptedMessageId`` names (2.1.3xx: the user pressed Esc
        while they ran; a refusal at the prompt names no message)."""
        moment = self._time(record)
        for draft in state.pending.values():
            draft.outcome = "interrupted"
            draft.duration_ms = ms_between(draft.started, moment)
            draft.attributes["duration_source"] = "timestamps"
        state.pending.clear()
        stopped = record.get("interruptedMessageId")
        for draft in state.rejected:
            if isinstance(stopped, str) and draft.message_id == stopped:
                draft.outcome = "interrupted"
        state.rejected.clear()
        state.last_event = "interrupt"

    def _tool_result(self, line: int, index: int, block: dict[str, Any], record: dict) -> None:
        tool_id = block.get("tool_use_id")
        if not isinstance(tool_id, str):
            raise AbwInputError(
                "tool_result without a tool_use_id",
                file=self.path,
                line=line,
                field=f"message.content[{index}].tool_use_id",
            )
        self.removed.add("tool_output")
        draft = self.tools.get(tool_id)
        state = self.agents.get(draft.agent) if draft is not None else None
        if draft is None or state is None or tool_id not in state.pending:
            return  # a result for an unknown call, or one logged twice: nothing to add
        del state.pending[tool_id]
        state.last_event = "tool_result"
        content = block.get("content")
        tool_use_result = record.get("toolUseResult")
        draft.outcome = classify_result(
            block.get("is_error"),
            content,
            tool_use_result,
            record.get("toolDenialKind"),
            record.get("permissionDecision"),
        )
        if draft.outcome == "rejected":
            state.rejected.append(draft)
        if "content" in block:
            draft.output_hash, stored = output_hash(content, self.path)
            if stored is not None:
                draft.attributes["output_stored"] = stored
        else:
            draft.output_hash = None
        reported = reported_duration_ms(tool_use_result)
        if reported is not None:
            draft.duration_ms = reported
            draft.attributes["duration_source"] = "reported"
        else:
            draft.duration_ms = ms_between(draft.started, self._time(record))
            if draft.duration_ms is not None:
                draft.attributes["duration_source"] = "timestamps"
        if draft.type == "handoff" and isinstance(tool_use_result, dict):
            agent_id = tool_use_result.get("agentId")
            if isinstance(agent_id, str) and agent_id:
                self.agent_links.setdefault(agent_id, tool_id)
        if isinstance(tool_use_result, dict) and draft.outcome == "ok":
            self._background(draft, tool_use_result)

    def _new_inline_root(self, agent: str, text: str) -> None:
        """Link an inline sidechain to the first unclaimed Task call with the same prompt."""
        if is_warmup_prompt(text):
            self.excluded_inline.add(agent)
            return
        wanted = content_hash(text)
        for position, (prompt_hash, draft) in enumerate(self.task_prompts):
            if prompt_hash == wanted:
                draft.children.append((self, agent))
                del self.task_prompts[position]
                return
        self.unlinked_inline.append(agent)
