"""The sticky pull-request comment: one per check name, found by a hidden marker, edited in place.

The first line of the body is the marker, a delimited ``key=value`` list whose values are
percent-encoded (so a check name with spaces stays one value)::

    <!-- abw/gate:report v1 key=abw%20gate digest=<sha256> -->

``key`` is the check name and must match exactly; ``digest`` covers the report (canonical JSON)
so ``on-change`` can tell an unchanged report from a new one. More fields may follow; a reader
ignores those it does not know. A comment counts as ours only when its author is the identity
the token acts as: anyone can write a look-alike marker, and such a comment is never trusted
or edited.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

from abw.github.checks import clip_markdown
from abw.hashing import sha256_hex

#: GitHub rejects comment bodies above 65,536 characters (HTTP 422).
COMMENT_LIMIT = 65_536
#: The marker's share of the body at most: past it the optional fields are left out (the run
#: chain of a gate with very many or very long scenario ids; the next gate then starts new
#: sequences), so the marker can never crowd the report out of the comment.
MARKER_LIMIT = 8_192
MARKER_TAG = "abw/gate:report"
MARKER_VERSION = "v1"
_FIELD_NAME = re.compile(r"[a-z][a-z0-9_-]*")
_MARKER = re.compile(
    rf"<!-- {re.escape(MARKER_TAG)} {MARKER_VERSION}((?: [a-z][a-z0-9_-]*=[^\s]*)+) -->"
)


def format_marker(fields: Mapping[str, str]) -> str:
    """The marker line for ``fields`` (``key`` first); values are percent-encoded."""
    for name in fields:
        if not _FIELD_NAME.fullmatch(name):
            raise ValueError(f"bad marker field name {name!r}")
    parts = " ".join(f"{name}={quote(str(value), safe='')}" for name, value in fields.items())
    return f"<!-- {MARKER_TAG} {MARKER_VERSION} {parts} -->"


def parse_marker(body: str) -> dict[str, str] | None:
    """The fields of the marker on the body's first line, or None when it has none."""
    match = _MARKER.fullmatch(body.split("\n", 1)[0])
    if not match:
        return None
    fields: dict[str, str] = {}
    for part in match.group(1).split():
        name, _, value = part.partition("=")
        fields.setdefault(name, unquote(value))
    return fields


def report_digest(check_name: str, report_json: str) -> str:
    """What ``on-change`` compares: the check name and the report's canonical JSON."""
    return sha256_hex(check_name + "\n" + report_json)


def body_marker(check_name: str, digest: str, extra: Mapping[str, str] | None = None) -> str:
    """The sticky comment's marker: ``key`` and ``digest``, and ``extra`` while the marker
    stays within :data:`MARKER_LIMIT`."""
    marker = format_marker({"key": check_name, "digest": digest, **(extra or {})})
    if len(marker) > MARKER_LIMIT:
        marker = format_marker({"key": check_name, "digest": digest})
    return marker


def extra_room(check_name: str, digest: str, name: str) -> int:
    """How long the value of the one extra field ``name`` may be (it is percent-encoded: a
    value of unreserved characters, as base64url, keeps its length) for the marker to stay
    within :data:`MARKER_LIMIT`."""
    return MARKER_LIMIT - len(body_marker(check_name, digest)) - len(f" {name}=")


def markdown_room(check_name: str, digest: str, extra: Mapping[str, str] | None = None) -> int:
    """How long the Markdown under this marker may be (the renderer's ``max_chars``), so the
    report is cut between its blocks rather than by :func:`build_body`."""
    return COMMENT_LIMIT - len(body_marker(check_name, digest, extra)) - 1


def build_body(
    check_name: str,
    markdown: str,
    digest: str,
    run_url: str | None,
    extra: Mapping[str, str] | None = None,
) -> str:
    """Marker line plus the Markdown, within 65,536 characters (truncated with a run link)."""
    marker = body_marker(check_name, digest, extra)
    room = COMMENT_LIMIT - len(marker) - 1
    return marker + "\n" + clip_markdown(markdown, room, run_url)


def digest_of(body: str) -> str | None:
    """The ``digest`` field of a body's marker."""
    return (parse_marker(body) or {}).get("digest")


@dataclass(frozen=True)
class CommentResult:
    action: str  # created | updated | unchanged | off
    comment_id: int | None = None
    ignored: int = 0  # look-alike comments by someone else


def _author(comment: Any) -> str | None:
    user = comment.user
    return getattr(user, "login", None) if user is not None else None


def is_sticky(comment: Any, check_name: str, author: str) -> bool:
    """Written by ``author`` and marked with exactly this check name."""
    fields = parse_marker(comment.body or "")
    return fields is not None and fields.get("key") == check_name and _author(comment) == author


def find_sticky(
    issue: Any, check_name: str, author: str, tick: Callable[[], None] = lambda: None
) -> tuple[list[Any], int]:
    """Our earlier comments for this check name (oldest first), and how many look-alikes by
    anyone other than ``author`` carry the same key. ``tick`` runs before each comment (the
    pages come as they are read): the publish deadline's check, so that a PR flooded with
    comments cannot hold the read past it."""
    ours, strangers = [], 0
    for comment in issue.get_comments():
        tick()
        if is_sticky(comment, check_name, author):
            ours.append(comment)
        elif (parse_marker(comment.body or "") or {}).get("key") == check_name:
            strangers += 1
    return ours, strangers


def same_body(old: str, new: str, run_url: str | None = None) -> bool:
    """``old`` shows what ``new`` shows: the same text, or the same text but for a link to
    another run of this repository (the one that wrote it). A marker alone proves nothing:
    another workflow commenting as the same bot can copy it (and the digest) above any text."""
    if old == new:
        return True
    if not run_url or "/actions/runs/" not in run_url:
        return False
    runs = re.escape(run_url.rsplit("/", 1)[0]) + r"/[0-9]+(?![0-9])"
    return re.sub(runs, lambda _: run_url, old) == new


def upsert_comment(
    repo: Any,
    pr_number: int,
    check_name: str,
    body: str,
    mode: str,
    author: str,
    run_url: str | None = None,
) -> CommentResult:
    """Create the sticky comment once, then edit it; ``on-change`` skips the edit only when the
    comment already shows this body (:func:`same_body`), not merely its marker's digest.

    ``author`` is the login the token acts as; only its comments are candidates.
    """
    if mode == "off":
        return CommentResult("off")
    issue = repo.get_issue(pr_number)
    existing, strangers = find_sticky(issue, check_name, author)
    if not existing:
        created = issue.create_comment(body)
        return CommentResult("created", created.id, strangers)
    latest = existing[-1]
    if mode == "on-change" and same_body(latest.body or "", body, run_url):
        return CommentResult("unchanged", latest.id, strangers)
    latest.edit(body)
    return CommentResult("updated", latest.id, strangers)
