"""The raw fields a recording can hold, for the trace's ``removed_fields``."""

from __future__ import annotations

#: The content kinds a recording can hold (name -> where); ``removed_fields`` names those held.
REMOVED_FIELDS = {
    "messages.content": "messages.content",
    "messages.thoughts": "messages.thoughts",
    "toolCalls.args": "messages.toolCalls.args",
    "toolCalls.result": "messages.toolCalls.result",
    "toolCalls.resultDisplay": "messages.toolCalls.resultDisplay",
    "toolCalls.description": "messages.toolCalls.description",
    "messages.displayContent": "messages.displayContent",
    "projectHash": "projectHash",
    "directories": "directories",
    "summary": "summary",
    "memoryScratchpad": "memoryScratchpad",
}
