"""Step outputs (``$GITHUB_OUTPUT``) and the job summary (``$GITHUB_STEP_SUMMARY``).

Outputs use the heredoc form with a random ``ghadelimiter_<uuid4>`` delimiter, like the toolkit;
a value that contains the delimiter is refused. The summary is capped at 1 MiB per step, beyond
which GitHub drops the upload.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from pathlib import Path

#: GitHub fails a step summary upload above 1 MiB (bytes).
SUMMARY_LIMIT_BYTES = 1024 * 1024


def format_output(name: str, value: str, delimiter: str | None = None) -> str:
    """One ``name<<delimiter`` block for ``$GITHUB_OUTPUT``."""
    delimiter = delimiter or f"ghadelimiter_{uuid.uuid4()}"
    if delimiter in name or delimiter in value:
        raise ValueError(f"output {name!r} contains the delimiter")
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def write_outputs(path: str | Path | None, outputs: Mapping[str, str]) -> bool:
    """Append every output to the ``$GITHUB_OUTPUT`` file; False when there is no such file."""
    if not path:
        return False
    text = "".join(format_output(name, value) for name, value in outputs.items())
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)
    return True


def cut_utf8(text: str, limit_bytes: int) -> str:
    """The longest prefix of ``text`` whose UTF-8 encoding fits ``limit_bytes``."""
    data = text.encode("utf-8")
    if len(data) <= limit_bytes:
        return text
    return data[:limit_bytes].decode("utf-8", errors="ignore")


def fit_summary(
    markdown: str, limit_bytes: int = SUMMARY_LIMIT_BYTES, link: str | None = None
) -> str:
    """The summary, cut at a line boundary with a note when it is over ``limit_bytes``."""
    if len(markdown.encode("utf-8")) <= limit_bytes:
        return markdown
    where = f" The full report: {link}" if link else " The full report is in the output folder."
    note = f"\n\n> **Truncated** to fit GitHub's 1 MiB step-summary limit.{where}\n"
    head = cut_utf8(markdown, limit_bytes - len(note.encode("utf-8")))
    cut = head.rfind("\n")
    if cut > 0:
        head = head[:cut]
    return head + note


def write_summary(path: str | Path | None, markdown: str, link: str | None = None) -> bool:
    """Append the Markdown report to ``$GITHUB_STEP_SUMMARY`` (≤ 1 MiB); False if unset."""
    if not path:
        return False
    target = Path(path)
    used = target.stat().st_size if target.exists() else 0
    budget = max(SUMMARY_LIMIT_BYTES - used, 0)
    with open(target, "a", encoding="utf-8") as handle:
        handle.write(fit_summary(markdown, budget, link=link))
    return True
