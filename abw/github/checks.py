"""The check run: one per gate, with the verdict's conclusion and the findings as annotations.

GitHub takes at most 50 annotations per request, so the run is created with the first 50 and
each further 50 are appended by editing it. Summary and text are capped at 65,535 characters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from abw.github.clip import clip_markdown as clip
from abw.github.findings import Finding

ANNOTATIONS_PER_REQUEST = 50
#: A cap on annotations per run, so a huge report cannot turn into thousands of requests.
MAX_ANNOTATIONS = 1000
OUTPUT_LIMIT = 65_535
TITLE_LIMIT = 255


def clip_markdown(text: str, limit: int = OUTPUT_LIMIT, link: str | None = None) -> str:
    """Cut ``text`` to ``limit`` characters at a line, closing what it left open and saying so
    (with a link): :func:`abw.github.clip.clip_markdown`, the one cut of every GitHub text."""
    where = f" Full report: {link}" if link else " The full report is in the job's files."
    note = f"\n\n> **Truncated** to fit GitHub's size limit here.{where}\n"
    return clip(text, limit, note, "chars")


def run_title(report: Any) -> str:
    """``VERDICT: summary`` once (the summary already leads with the verdict), ≤ 255 chars,
    :func:`abw.text.clean`-ed like every other text the check run shows."""
    from abw.render.common import shorten, summary_text
    from abw.text import clean

    return shorten(clean(f"{report.verdict}: {summary_text(report)}"), TITLE_LIMIT)


@dataclass(frozen=True)
class CheckRunResult:
    """What was sent: the check run id, the number of requests that carried annotations and
    of annotations; ``left_out`` annotations an append that failed (``failure``) never sent:
    the check run stands, with its conclusion, holding the others."""

    check_run_id: int
    annotation_requests: int
    annotations: int
    left_out: int = 0
    failure: BaseException | None = None


def batches(items: list[Any], size: int = ANNOTATIONS_PER_REQUEST) -> list[list[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)] or [[]]


def publish_check_run(
    repo: Any,
    *,
    name: str,
    head_sha: str,
    conclusion: str,
    title: str,
    summary: str,
    findings: list[Finding],
    details_url: str | None = None,
    external_id: str | None = None,
) -> CheckRunResult:
    """Create the completed check run, then append annotations in batches of 50."""
    annotations = [f.as_check_annotation() for f in findings[:MAX_ANNOTATIONS]]
    chunks = batches(annotations)
    output = {
        "title": title[:TITLE_LIMIT],
        "summary": clip_markdown(summary, OUTPUT_LIMIT, details_url),
    }
    kwargs: dict[str, Any] = {}
    if details_url:
        kwargs["details_url"] = details_url
    if external_id:
        kwargs["external_id"] = external_id
    check_run = repo.create_check_run(
        name=name,
        head_sha=head_sha,
        status="completed",
        conclusion=conclusion,
        output={**output, "annotations": chunks[0]},
        **kwargs,
    )
    sent = len(chunks[0])
    for requests, chunk in enumerate(chunks[1:], 1):
        try:
            check_run.edit(output={**output, "annotations": chunk})
        except Exception as exc:  # (the check run is there: say what it holds)
            return CheckRunResult(check_run.id, requests, sent, len(annotations) - sent, exc)
        sent += len(chunk)
    return CheckRunResult(check_run.id, len(chunks) if annotations else 0, len(annotations))
