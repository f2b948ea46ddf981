"""The sticky pull-request comment: one per check name, found by a hidden marker, edited in place.

The first line of the body is ``<!-- abw/gate:report key=<check name> digest=<sha256> -->``. The
digest covers the report's Markdown without run-specific links, so ``on-change`` can tell an
unchanged report from a new one even though every run has its own URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from abw.github.checks import clip_markdown
from abw.hashing import sha256_hex

#: GitHub rejects comment bodies above 65,536 characters (HTTP 422).
COMMENT_LIMIT = 65_536
_MARKER_PREFIX = "<!-- abw/gate:report key="
_DIGEST = re.compile(r" digest=([0-9a-f]{64}) -->")


def marker_prefix(check_name: str) -> str:
    """The start of the marker for ``check_name`` (the digest follows it)."""
    return f"{_MARKER_PREFIX}{check_name} "


def build_body(check_name: str, markdown: str, digest_source: str, run_url: str | None) -> str:
    """Marker line plus the Markdown, within 65,536 characters (truncated with a run link)."""
    digest = sha256_hex(digest_source.encode("utf-8"))
    marker = f"{marker_prefix(check_name)}digest={digest} -->"
    room = COMMENT_LIMIT - len(marker) - 1
    return marker + "\n" + clip_markdown(markdown, room, run_url)


def digest_of(body: str) -> str | None:
    first = body.split("\n", 1)[0]
    match = _DIGEST.search(first)
    return match.group(1) if match else None


@dataclass(frozen=True)
class CommentResult:
    action: str  # created | updated | unchanged | off
    comment_id: int | None = None


def find_sticky(issue: Any, check_name: str) -> list[Any]:
    """Our earlier comments for this check name, oldest first."""
    prefix = marker_prefix(check_name)
    return [c for c in issue.get_comments() if (c.body or "").lstrip().startswith(prefix)]


def upsert_comment(
    repo: Any, pr_number: int, check_name: str, body: str, mode: str
) -> CommentResult:
    """Create the sticky comment once, then edit it; ``on-change`` skips an identical report."""
    if mode == "off":
        return CommentResult("off")
    issue = repo.get_issue(pr_number)
    existing = find_sticky(issue, check_name)
    if not existing:
        created = issue.create_comment(body)
        return CommentResult("created", created.id)
    latest = existing[-1]
    if mode == "on-change" and digest_of(latest.body or "") == digest_of(body):
        return CommentResult("unchanged", latest.id)
    latest.edit(body)
    return CommentResult("updated", latest.id)
