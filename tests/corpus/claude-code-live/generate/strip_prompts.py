"""Replace Claude Code's own prompt texts in recordings with a placeholder, line by line.

    python strip_prompts.py FILE.jsonl ...

Every string over 160 characters in ``api-request*`` records and in ``prompt_snapshot``,
``skill_listing``, ``agent_listing_delta`` and ``deferred_tools_delta`` attachments (the CLI's
system prompt, tool descriptions and listings: Anthropic's text) becomes the placeholder; an
edited line is written compact, as the CLI writes it; every other line is kept byte for byte.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

PLACEHOLDER = "[Claude Code's own prompt text, removed from this copy]"
RECORDS = {"api-request", "api-request-shape", "api-request-blob"}
ATTACHMENTS = {"prompt_snapshot", "skill_listing", "agent_listing_delta", "deferred_tools_delta"}
LONGEST_KEPT = 160


def stripped(value: Any) -> Any:
    if isinstance(value, str):
        return PLACEHOLDER if len(value) > LONGEST_KEPT else value
    if isinstance(value, list):
        return [stripped(v) for v in value]
    if isinstance(value, dict):
        return {k: stripped(v) for k, v in value.items()}
    return value


def strip_line(raw: bytes) -> bytes:
    if not raw:
        return raw
    record = json.loads(raw)
    attachment = record.get("attachment")
    kind = attachment.get("type") if isinstance(attachment, dict) else None
    if record.get("type") not in RECORDS and kind not in ATTACHMENTS:
        return raw
    new = stripped(record)
    if new == record:
        return raw
    return json.dumps(new, separators=(",", ":"), ensure_ascii=False).encode()


def main(paths: list[str]) -> None:
    for path in map(Path, paths):
        path.write_bytes(b"\n".join(strip_line(raw) for raw in path.read_bytes().split(b"\n")))


if __name__ == "__main__":
    main(sys.argv[1:])
