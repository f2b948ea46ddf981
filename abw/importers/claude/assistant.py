"""Assistant lines: one llm span per API message (its usage, retries, fallback, final text)
and a tool span for each ``tool_use`` block, left open until its result."""

from __future__ import annotations

from typing import Any

from abw.errors import AbwInputError
from abw.hashing import content_hash
from abw.importers.claude.drafts import FILE, AgentState, Draft, text_of
from abw.importers.claude.filestate import FileState
from abw.importers.claude.outcomes import SHELL_TOOLS, canonical_tool, mcp_parts, span_type
from abw.importers.claude.requests import fallback_attributes, record_retries
from abw.importers.common import extract_arguments, match_label, model_name

_PATH_KEYS = ("file_path", "path", "notebook_path", "filePath")
_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)
#: The model name Claude Code gives the assistant messages it writes itself.
SYNTHETIC = "<synthetic>"


class AssistantLines(FileState):
    """Reads ``assistant`` lines."""

    def _assistant(self, line: int, record: dict[str, Any], agent: str) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            raise AbwInputError("expected an object", file=self.path, line=line, field="message")
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            raise AbwInputError(
                "expected a list of blocks", file=self.path, line=line, field="message.content"
            )
        state = self._state(agent)
        if message.get("model") == SYNTHETIC and record.get("isApiErrorMessage") is not True:
            # written by Claude Code itself ("No response requested.", ...): no model call,
            # no answer; its text is hashed away like any assistant text
            self.removed.add("assistant_text")
            return
        message_id = message.get("id")
        if not isinstance(message_id, str) or not message_id:
            message_id = record.get("uuid") if isinstance(record.get("uuid"), str) else str(line)
        llm = self.messages.get((agent, message_id))
        if llm is None:
            model = message.get("model")
            if model == SYNTHETIC:  # an API error Claude Code wrote: the request that failed
                model = "api_error"
            llm = Draft(
                self.name,
                line,
                0,
                agent,
                "llm",
                model_name(model) if isinstance(model, str) and model else "unknown",
                started=self._time(record),
            )
            llm.agent_id = self.agent_id if agent == FILE else None
            self.messages[(agent, message_id)] = llm
            self.drafts.setdefault(agent, []).append(llm)
            record_retries(llm, state)
            llm.attributes.update(state.fallback)
            state.fallback.clear()
        request_id = record.get("requestId")
        if isinstance(request_id, str) and request_id:
            self.requests.setdefault((agent, request_id), llm)
        usage = message.get("usage")
        if isinstance(usage, dict):
            for key in _USAGE_KEYS:
                value = usage.get(key)
                if isinstance(value, int) and not isinstance(value, bool):
                    llm.attributes[key] = max(value, llm.attributes.get(key, 0))
        if record.get("isApiErrorMessage") is True:
            llm.outcome = "error"
            state.last_event = "api_error"
        aborted = record.get("isAbortedMidStream") is True  # Esc while it streamed (2.1.3xx)
        if aborted:
            llm.outcome = "interrupted"
        texts: list[str] = []
        for index, block in enumerate(content):
            if not isinstance(block, dict) or not isinstance(block.get("type"), str):
                raise AbwInputError(
                    "expected a content block object with a type",
                    file=self.path,
                    line=line,
                    field=f"message.content[{index}]",
                )
            block_type = block["type"]
            if block_type == "tool_use":  # hashed by name and input, not by its random id
                input_hash = self._tool_use(line, index, block, record, agent, state)
                llm.block_hashes.append(content_hash(["tool_use", block["name"], input_hash]))
                continue
            llm.block_hashes.append(content_hash(block))
            if block_type == "text":
                self.removed.add("assistant_text")
                if isinstance(block.get("text"), str):
                    texts.append(block["text"])
            elif block_type in ("thinking", "redacted_thinking"):
                self.removed.add("thinking")
            elif block_type == "fallback":  # the model switched mid-request: {from, to}
                refused = block.get("from")
                refused = refused.get("model") if isinstance(refused, dict) else None
                llm.attributes.update(fallback_attributes(refused))
            else:
                self.removed.add("assistant_content")
        if aborted and state.last_text_message == message_id:
            state.final_text, state.last_text_message = state.text_before, None
        if texts and record.get("isApiErrorMessage") is not True and not aborted:
            # neither an API error nor a reply the user cut off mid-stream is an answer
            if state.last_text_message == message_id and state.final_text is not None:
                state.final_text = "\n".join([state.final_text, *texts])
            else:
                state.text_before = state.final_text
                state.final_text = "\n".join(texts)
            state.last_text_message = message_id
            state.last_event = "text"

    def _tool_use(
        self,
        line: int,
        index: int,
        block: dict[str, Any],
        record: dict[str, Any],
        agent: str,
        state: AgentState,
    ) -> str:
        """Open a tool span for a ``tool_use`` block; returns the hash of its input."""
        tool_id, tool = block.get("id"), block.get("name")
        where = f"message.content[{index}]"
        if not isinstance(tool_id, str) or not tool_id:
            raise AbwInputError("tool_use without an id", file=self.path, line=line, field=where)
        if not isinstance(tool, str) or not tool:
            raise AbwInputError("tool_use without a name", file=self.path, line=line, field=where)
        state.last_event = "tool_use"
        tool_input = block.get("input")
        input_hash = content_hash(tool_input)
        self.removed.add("tool_input")
        if tool_id in self.tools:  # the same call logged again (resumed or forked session)
            return input_hash
        draft = Draft(
            self.name,
            line,
            index,
            agent,
            span_type(tool),
            canonical_tool(tool),
            outcome="incomplete",
            input_hash=input_hash,
            attributes={"tool": tool},
            started=self._time(record),
        )
        if isinstance(tool_input, dict):
            if any(key in tool_input for key in _PATH_KEYS):
                self.removed.add("file_path")
            command = tool_input.get("command")
            if tool in SHELL_TOOLS and isinstance(command, str):
                self.removed.add("shell_command")
                draft.attributes["command_hash"] = content_hash(command)
                label = match_label(self.options.labels, command)
                if label is not None:
                    draft.name, draft.type = label.name, label.span_type
                    draft.attributes["label"] = label.name
            if draft.type == "handoff" and "prompt" in tool_input:
                self.removed.add("subagent_prompt")
                self.task_prompts.append((content_hash(text_of(tool_input["prompt"])), draft))
        arguments = extract_arguments(
            self.options.argument_fields, draft.name, tool_input, file=self.path, line=line
        )
        if arguments is not None:  # only fields named with --argument-fields, after labels
            draft.attributes["arguments"] = arguments
        draft.agent_id = self.agent_id if agent == FILE else None
        message_id = record["message"].get("id")
        draft.message_id = message_id if isinstance(message_id, str) else None
        mcp = mcp_parts(tool)
        if mcp is not None:
            draft.attributes["mcp_server"], draft.attributes["mcp_tool"] = mcp
        self.tools[tool_id] = draft
        state.pending[tool_id] = draft
        self.drafts.setdefault(agent, []).append(draft)
        return input_hash
