"""The Action's orchestration: inputs -> gate -> report files -> outputs -> check run -> comment.

The verdict and the exit code are settled before any network call; publishing can only add
notices. A read-only token (fork PRs) or a missing PR degrades to annotations, the step summary
and the report files.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any, TextIO

from abw import faults
from abw.atomic import check_target
from abw.errors import AbwInputError, naming_field
from abw.github.commands import Console, annotation
from abw.github.context import RunContext, load_event
from abw.github.findings import Finding, findings, top_for_commands
from abw.github.inputs import ActionInputs
from abw.github.outputs import (
    SUMMARY_LIMIT_BYTES,
    summary_room,
    write_outputs,
    write_summary,
)
from abw.github.paths import (
    hand_to_workspace_owner,
    missing_folders,
    relative_posix,
    resolve_in_workspace,
    workspace_root,
)
from abw.verdicts import exit_code

REPORT_FILES = {
    "report-json": "json",
    "sarif": "sarif",
    "junit": "junit",
    "html": "html",
    "markdown": "markdown",
}
MAX_REPORT_BYTES = 64 * 1024 * 1024
READ_ONLY_HINT = (
    "the token cannot write here (a pull request from a fork gets a read-only token, or the job "
    "lacks `checks: write` / `pull-requests: write`). The verdict, step summary, annotations and "
    "report files are unaffected; see docs/action.md for the two-workflow pattern."
)


def action_exit_code(verdict: str, fail_on: str) -> int:
    """Exit code for ``verdict`` under the ``fail-on`` input."""
    if fail_on == "never":
        return 0
    return exit_code(verdict, fail_on_warn=fail_on == "warn", allow_inconclusive=fail_on == "fail")


def _load_report(path: Path, shown: str) -> Any:
    """A gate report written earlier (e.g. downloaded from a fork's run): data, validated."""
    from abw.validate import read_report

    with _named("report", path, shown):  # (one that contradicts itself is refused there)
        return read_report(path, MAX_REPORT_BYTES, shown)


@contextlib.contextmanager
def _named(field: str, path: Path, shown: str) -> Iterator[None]:
    """An error reading input ``field``'s file ``path`` names the field, and the file as the
    repository does (``shown``), not as opened (absolute): its annotation lands on the file."""
    with naming_field(field):
        try:
            yield
        except AbwInputError as exc:
            if exc.file == str(path):
                exc.file = shown
            raise


def _run_gate(inputs: ActionInputs, workspace: Path, previous: Any = None) -> Any:
    """Resolve the path inputs inside the workspace and run the gate on workspace-relative paths.

    ``previous``: the run sequences this check's earlier sticky comment carried (or None).
    """
    if inputs.report:
        path = resolve_in_workspace(inputs.report, workspace, name="report")
        return _load_report(path, relative_posix(path, workspace))
    from abw.gating import run_gate

    resolved = {
        name: resolve_in_workspace(value, workspace, name=name)
        for name, value in (
            ("baseline", inputs.baseline),
            ("candidate", inputs.candidate),
            ("spec", inputs.spec),
        )
    }
    latent = (
        resolve_in_workspace(inputs.latent, workspace, name="latent") if inputs.latent else None
    )
    os.chdir(workspace)  # report paths are then relative to the repository, as SARIF wants
    return run_gate(
        relative_posix(resolved["baseline"], workspace),
        relative_posix(resolved["candidate"], workspace),
        relative_posix(resolved["spec"], workspace),
        latent=relative_posix(latent, workspace) if latent else None,
        previous=previous,
    )


def _write_report_files(
    report: Any,
    out_dir: Path,
    inputs: ActionInputs,
    workspace: Path,
    ctx: RunContext,
    console: Console,
) -> dict[str, Path]:
    """Every report format into ``out_dir``; one format failing never loses the others."""
    from abw.render import FORMATS, canonical, write_reports

    if out_dir.exists() and not out_dir.is_dir():
        raise AbwInputError("is a file, not a folder", file=inputs.output_dir, field="output-dir")
    created = missing_folders(out_dir, workspace)
    with naming_field("output-dir"):
        out_dir.mkdir(parents=True, exist_ok=True)
    options = {
        "category": inputs.sarif_category or None,
        "base_dir": str(workspace),
        "details_url": ctx.run_url,
    }
    written: dict[str, Path] = {}
    with contextlib.suppress(Exception):  # (else each format's own failure is its warning)
        report = canonical(report)  # once, not once a format
    for fmt in FORMATS:
        try:
            written.update(write_reports(report, out_dir, formats=(fmt,), **options))
        except Exception as exc:  # (the JSON report too: the verdict is reached; a full disk
            # or a folder in its place must not lose the outputs, summary and check run)
            console.warning(
                f"could not write the {fmt} report: {faults.one_line(exc)}", title="abw"
            )
    hand_to_workspace_owner([*created, out_dir, *written.values()], workspace)
    if "sarif" in written:
        from abw.render.sarif import limit_notes

        for note in limit_notes(report, written["sarif"].read_text(encoding="utf-8")):
            console.warning(f"SARIF for code scanning: {note}.", title="abw: SARIF limits")
    return written


def _markdown(
    report: Any, max_chars: int, details_url: str | None, console: Console, title: str
) -> str:
    """The Markdown report; a plain verdict line if the renderer fails (with a warning) or
    ``max_chars`` cannot hold even its heading (no warning: the step summary is nearly full;
    the line says the report was cut, and its writer cuts the line too if it must), escaped
    by the renderers' one Markdown escaper as well."""
    from abw.render.common import md, safe_url, shorten
    from abw.render.markdown import HeadingTooLong

    try:
        from abw.render.markdown import render_markdown

        return render_markdown(report, max_chars=max_chars, details_url=details_url, title=title)
    except Exception as exc:
        if not isinstance(exc, HeadingTooLong):
            console.warning(f"could not render the Markdown report: {exc}", title="abw")
        url = safe_url(details_url)
        link = f"\n\n[Run]({url})" if url else ""
        summary = md(shorten(report.summary, 1000))
        cut = (
            "\n\n> **Truncated**: the step summary had no room left for the report."
            if isinstance(exc, HeadingTooLong)
            else ""
        )
        return f"## {md(title)}: {report.verdict}\n\n{summary}{link}{cut}\n"


def _describe_failure(exc: BaseException) -> tuple[bool, str]:
    """(read_only, one line) for an exception from the GitHub API or the network. A 403 is a
    refusal (a read-only token) unless it is a rate limit: its message says so, or PyGithub's
    retries ran out, which leaves no body at all (it retries a 403 only when it is a rate
    limit: a refusal comes back at once, its message with it), or its headers do
    (``X-RateLimit-Remaining: 0``, or a ``Retry-After`` of a secondary limit)."""
    status = getattr(exc, "status", None)
    data = getattr(exc, "data", None)
    message = data.get("message") if isinstance(data, dict) else None
    text = " ".join(str(message or exc).split())[:300] or type(exc).__name__
    headers = getattr(exc, "headers", None)
    seen = {str(k).lower(): str(v) for k, v in headers.items()} if isinstance(headers, dict) else {}
    limited = (
        "rate limit" in text.lower()
        or seen.get("x-ratelimit-remaining") == "0"
        or "retry-after" in seen
        or (status == 403 and data is None)  # (retries spent: only a rate limit is retried)
    )
    if status == 403 and not limited:
        return True, f"HTTP 403 {text}"
    if status == 403 and "rate limit" not in text.lower():
        text = f"{text} (rate limited: its retries ran out)"
    return False, f"HTTP {status} {text}" if status else text


_READ_PREVIOUS = "reading the earlier PR comment"
_UNAFFECTED = "The verdict and reports are unaffected."
#: What a failed call costs, where it is more than nothing: without the earlier comments the
#: gate cannot know this commit's earlier looks (docs/action.md).
_FAILED = {
    _READ_PREVIOUS: "This commit's earlier looks are unknown to this gate: its run sequences "
    "are judged as if this were the first look (the API failing never changes a verdict), "
    "which is not valid across re-runs. The PR comment that carries the earlier looks is left "
    "as it is, so a re-run once the comments can be read is judged with them.",
}
_LOOKUP = "pull request lookup"
_FAILED[_LOOKUP] = _FAILED[_READ_PREVIOUS]  # (a PR not confirmed: its comments are unread too)
#: The comment carries the run chain: this look's restarts are not recorded for the next one.
_FAILED["PR comment"] = (
    "The verdict and reports are unaffected, but the comment carries this commit's run "
    "sequences: this look is not recorded, so the next look extends the earlier ones as if "
    "it had not been (a restart it made is made again, at a level this look spent)."
)


def _pull_head(repo: Any, number: int) -> tuple[str, str]:
    """(head SHA, head repository) of pull request ``number`` as the API answers, ``""`` for
    what it leaves out (a deleted fork has no repository): read whole inside the caller's
    ``attempt``, so an odd answer is a warning, never an exit code."""
    head = repo.get_pull(number).head
    sha = getattr(head, "sha", None)
    head_repo = getattr(head, "repo", None)
    name = getattr(head_repo, "full_name", None)
    return (sha if isinstance(sha, str) else "", name if isinstance(name, str) else "")


class Publisher:
    """Talks to the GitHub API; every failure becomes a notice or a warning, never an exit code.

    All calls share one budget of API time (``publish-timeout``, :class:`ApiClock`: local work
    between calls spends none of it); past it the rest is skipped like a read-only token's.
    """

    def __init__(
        self, inputs: ActionInputs, ctx: RunContext, console: Console, env: Mapping[str, str]
    ) -> None:
        from abw.github.client import ApiClock

        self.inputs = inputs
        self.ctx = ctx
        self.console = console
        self.env = env
        self.clock = ApiClock(inputs.publish_timeout)  # (API time only: docs/action.md)
        self._client: Any = None
        self._repo: Any = None
        self.read_only: set[str] = set()  # what the token was refused
        self._login: str | None = None
        #: the PR's earlier comments exist or may, but could not be read: this look knows
        #: nothing of the earlier looks, and its comment would write over their run chains
        self.earlier_unread = False
        #: what the earlier markers left unknown, for this look's marker to keep unknown
        self.unlisted: int | None = None

    def client(self) -> Any:
        if self._client is None:
            from abw.github.client import ClientSettings, make_client

            settings = replace(ClientSettings.from_env(self.env), clock=self.clock)
            self._client = make_client(self.inputs.github_token, self.ctx.api_url, settings)
        return self._client

    def repo(self) -> Any:
        if self._repo is None:
            self._repo = self.client().get_repo(self.ctx.repository)
        return self._repo

    def login(self) -> str:
        """Who the token acts as; only that author's comments can be the sticky comment."""
        if self._login is None:
            from abw.github.client import token_login

            self._login = token_login(self.client())
        return self._login

    def attempt(self, what: str, action: Any) -> Any:
        from abw.github.client import DeadlineExceeded, check_deadline

        try:
            with self.clock.running():
                check_deadline(self.clock)
                return action()
        except DeadlineExceeded as exc:
            cost = "The verdict, step summary, annotations and report files are unaffected."
            self.console.notice(
                f"{what} skipped: {exc} ({self.inputs.publish_timeout:g} s, the "
                f"publish-timeout input). {_FAILED.get(what, cost)}",
                title="abw: publish deadline",
            )
            return None
        except Exception as exc:  # network, HTTP, anything: degrade, keep the verdict
            read_only, line = _describe_failure(exc)
            if read_only:
                self.read_only.add(what)
                if self.ctx.is_fork:
                    line += " (this pull request comes from a fork)"
                self.console.notice(
                    f"{what} skipped: {line}; {READ_ONLY_HINT}", title="abw: read-only token"
                )
            else:
                self.console.warning(
                    f"{what} failed: {line}. {_FAILED.get(what, _UNAFFECTED)}",
                    title="abw: GitHub API",
                )
            return None

    def can_publish(self, what: str) -> bool:
        if not self.inputs.github_token:
            self.console.notice(f"{what} skipped: no github-token", title="abw")
            return False
        if not self.ctx.repository:
            self.console.notice(f"{what} skipped: GITHUB_REPOSITORY is not set", title="abw")
            return False
        return True

    def check_run(self, report: Any, summary: str, items: list[Finding]) -> None:
        from abw.github.checks import publish_check_run, run_title

        if not self.inputs.check_run or not self.can_publish("check run"):
            return
        head_sha = self.ctx.head_sha
        if not head_sha:
            self.console.notice("check run skipped: no commit SHA in the event or GITHUB_SHA")
            return
        conclusion = self.inputs.conclusions[report.verdict]
        # (the inputs digest is a SHA-256 the report's own hashes give: a report whose digest
        # is not, is refused before this — abw.verify_report.consistency_problems)
        external_id = report.inputs.digest
        result = self.attempt(
            "check run",
            lambda: publish_check_run(
                self.repo(),
                name=self.inputs.check_name,
                head_sha=head_sha,
                conclusion=conclusion,
                title=run_title(report),
                summary=summary,
                findings=items,
                details_url=self.ctx.run_url,
                external_id=external_id,
            ),
        )
        if result is not None:
            self.console.info(
                f"abw: check run {result.check_run_id} '{self.inputs.check_name}' -> {conclusion} "
                f"({result.annotations} annotations in {result.annotation_requests} requests)"
            )
        if result is not None and result.failure is not None:
            _, line = _describe_failure(result.failure)
            self.console.warning(
                f"check run {result.check_run_id} holds its conclusion but only "
                f"{result.annotations} of {result.annotations + result.left_out} annotations: "
                f"adding the others failed: {line}. The verdict, the reports and the SARIF "
                "alerts hold them all.",
                title="abw: GitHub API",
            )

    @functools.cached_property
    def pull_request(self) -> int | None:
        """The PR to comment on: one the runner's event names for the head commit, else the
        event file's claim once GitHub confirms that PR's head is that commit. Looked for
        once: the look's earlier comments and its own comment are on the same PR."""
        conflict = self.ctx.claimed_conflict
        if conflict:
            self.console.warning(
                f"the event-file input is ignored: {conflict} (it may narrow the run's own "
                "event, never redirect it)",
                title="abw: untrusted event file",
            )
        numbers = self.ctx.pr_numbers
        claimed = None if conflict else self.ctx.claimed_pr_number
        if numbers:
            return claimed if claimed in numbers else numbers[0]
        if claimed is None:
            return None
        head = self.attempt(_LOOKUP, lambda: _pull_head(self.repo(), claimed))
        if head is None:
            self.earlier_unread = _LOOKUP not in self.read_only
            return None
        sha, repo_name = head
        trusted_repo = self.ctx.head_repository
        if sha != self.ctx.head_sha or (trusted_repo and repo_name != trusted_repo):
            self.console.warning(
                f"the event-file input is ignored: pull request #{claimed}'s head is "
                f"{sha[:12] or 'unknown'} from {repo_name or 'an unknown repository'}, not the "
                f"run's {self.ctx.head_sha[:12]}",
                title="abw: untrusted event file",
            )
            return None
        return claimed

    def previous_sequences(self, scenarios: list[str | None]) -> Any:
        """The run sequences this check's earlier sticky comments on the PR recorded for the
        same commit, if any (a new commit is a new candidate: its runs start a new sequence).

        Every workflow of the repository comments as the same bot, so a comment with this
        check's marker need not be abw's: all of them are read and merged so that one written
        by someone else can only restart a sequence at a spent-down level
        (:func:`abw.gating.sequence.merge_previous`); ``scenarios``: the ones gated now.
        Comments that could not be read (an error, the deadline) leave the look judged as the
        first, since the API failing never changes a verdict, and :attr:`earlier_unread` set,
        so that this look's comment never writes over the chains they carry."""
        if self.inputs.report:
            return None
        return self._recorded(scenarios)

    def chain_behind(self, statistics: list[Any]) -> bool:
        """A published report (``report:``) whose run sequences are behind those the PR's
        comments record for this commit: its gate could not read them (an API error) and
        judged a first look, and writing its chain would give a restarted sequence its spent
        level back. The recorded chains are read as a gate reads them; unreadable, the
        comment is not written either (:attr:`earlier_unread`)."""
        if not self.inputs.report:
            return False
        recorded = self._recorded([s.scenario_id for s in statistics]) or {}
        for stats in statistics:
            held, sequence = recorded.get(stats.scenario_id), stats.sequence
            if held is None or sequence is None:
                continue
            if (sequence.restarts, sequence.n) < (held.restarts, held.n):
                return True
        return False

    def _recorded(self, scenarios: list[str | None]) -> Any:
        """The run sequences this check's sticky comments on the PR record for this commit
        (:meth:`previous_sequences`), None when there are none or they cannot be read."""
        if self.inputs.comment == "off":
            return None
        if not self.inputs.github_token or not self.ctx.repository:
            return None
        from abw.gating.sequence import Marker, decode_marker, merge_previous, unlisted_floor

        number = self.pull_request
        if number is None:
            return None
        from abw.github.client import check_deadline
        from abw.github.comment import find_sticky, parse_marker

        def read() -> Any:
            found, _ = find_sticky(
                self.repo().get_issue(number),
                self.inputs.check_name,
                self.login(),
                tick=lambda: check_deadline(self.clock),
            )
            markers = []
            for comment in found:
                token = (parse_marker(comment.body or "") or {}).get("chain")
                marker = decode_marker(token) if token else Marker()
                if marker.candidate and marker.candidate == self.ctx.head_sha:
                    markers.append(marker)
            if len(found) > 1:
                self.console.warning(
                    f"{len(found)} comments by {self.login()} carry this gate's marker on PR "
                    f"#{number} (another workflow may have written one): their run chains are "
                    "merged so that none can loosen the sequential test; a disagreement "
                    "restarts the sequence at a spent-down level",
                    title="abw: several sticky comments",
                )
            self.unlisted = unlisted_floor(markers)
            return merge_previous(markers, scenarios)

        merged = self.attempt(_READ_PREVIOUS, read)
        if merged is None and _READ_PREVIOUS not in self.read_only:
            self.earlier_unread = True
        return merged or None

    def comment(self, body: str) -> None:
        from abw.github.comment import upsert_comment

        if self.inputs.comment == "off":
            return
        if not self.can_publish("PR comment"):
            return
        if _READ_PREVIOUS in self.read_only:  # the PR's comments were already refused (notice)
            return
        if self.earlier_unread:
            self.console.notice(
                "PR comment skipped: the earlier comments could not be read, and this look's "
                "comment would write over the run chains they carry",
                title="abw",
            )
            return
        number = self.pull_request
        if number is None:
            self.console.notice("PR comment skipped: this run has no pull request", title="abw")
            return
        result = self.attempt(
            "PR comment",
            lambda: upsert_comment(
                self.repo(),
                number,
                self.inputs.check_name,
                body,
                self.inputs.comment,
                self.login(),
                self.ctx.run_url,
            ),
        )
        if result is not None:
            self.console.info(f"abw: PR #{number} comment {result.action} ({result.comment_id})")
            if result.ignored:
                self.console.warning(
                    f"{result.ignored} comment(s) on PR #{number} carry this gate's marker but "
                    f"were not written by {self.login()}: ignored, never edited",
                    title="abw: look-alike comment",
                )


def _publish(
    report: Any,
    items: list[Finding],
    inputs: ActionInputs,
    ctx: RunContext,
    console: Console,
    env: Mapping[str, str],
    publisher: Publisher | None = None,
) -> None:
    """Check run and sticky comment: views of ``report`` that can never change the exit code.

    The comment's marker carries the run sequences (abw.gating.sequence) for the next gate."""
    from abw.gating.sequence import encode_marker
    from abw.github.checks import OUTPUT_LIMIT
    from abw.github.comment import build_body, extra_room, markdown_room, report_digest
    from abw.hashing import canonical_json

    publisher = publisher or Publisher(inputs, ctx, console, env)
    publisher.check_run(
        report, _markdown(report, OUTPUT_LIMIT, ctx.run_url, console, inputs.check_name), items
    )
    if inputs.comment != "off" and publisher.chain_behind(report.statistics):
        console.warning(
            "PR comment left as it is: the report's run sequences are behind those the PR "
            "records for this commit (the gate that wrote it could not read the earlier "
            "looks); writing them would give a restarted sequence its spent level back",
            title="abw: run chain",
        )
    elif inputs.comment != "off":
        digest = report_digest(inputs.check_name, canonical_json(report.model_dump(mode="json")))
        chain = encode_marker(
            report.statistics,
            ctx.head_sha or "",
            report.inputs.spec_sha256,
            room=extra_room(inputs.check_name, digest, "chain"),
            unlisted=publisher.unlisted,
        )
        extra = {"chain": chain}
        room = markdown_room(inputs.check_name, digest, extra)
        body = build_body(
            inputs.check_name,
            _markdown(report, room, ctx.run_url, console, inputs.check_name),
            digest,
            ctx.run_url,
            extra=extra,
        )
        publisher.comment(body)


def run(env: Mapping[str, str], console: Console) -> int:
    """The whole Action; returns its exit code."""
    inputs = ActionInputs.from_env(env)
    workspace = workspace_root(env.get("GITHUB_WORKSPACE"))
    ctx = RunContext.from_env(env)
    if inputs.event_file:
        event_file = resolve_in_workspace(inputs.event_file, workspace, name="event-file")
        with _named("event-file", event_file, relative_posix(event_file, workspace)):
            ctx = replace(ctx, claimed=load_event(event_file))
    out_dir = resolve_in_workspace(
        inputs.output_dir, workspace, name="output-dir", must_exist=False
    )

    with naming_field("output-dir"):  # a path of the wrong kind: a usage error, before the gate
        check_target(out_dir, folder=True)
    if inputs.scenarios:
        from abw.github.sample_mode import sample_before_gate

        sample_before_gate(inputs, workspace, console)
    report = _run_gate(inputs, workspace)
    if out_dir.exists() and not out_dir.is_dir():  # before any request (as _write_report_files)
        raise AbwInputError("is a file, not a folder", file=inputs.output_dir, field="output-dir")
    publisher = Publisher(inputs, ctx, console, env)
    previous = publisher.previous_sequences(  # once the inputs are known to be good
        [s.scenario_id for s in report.statistics if s.sequence is not None]
    )
    if previous:
        report = _run_gate(inputs, workspace, previous)
    # settled: a later failure (writing reports, publishing) keeps this exit code (abw.faults)
    code = faults.verdict_reached(action_exit_code(report.verdict, inputs.fail_on))
    conclusion = inputs.conclusions[report.verdict]
    console.info(f"abw: {report.verdict} — {report.summary}")

    written = _write_report_files(report, out_dir, inputs, workspace, ctx, console)
    outputs = {"verdict": report.verdict, "conclusion": conclusion, "exit-code": str(code)}
    for output, fmt in REPORT_FILES.items():
        if fmt in written:
            outputs[output] = relative_posix(written[fmt], workspace)
    _file_command(
        console, "$GITHUB_OUTPUT", lambda: write_outputs(env.get("GITHUB_OUTPUT"), outputs)
    )
    _file_command(
        console, "$GITHUB_STEP_SUMMARY", lambda: _write_summary(report, env, ctx, console, inputs)
    )

    items = findings(report, workspace)
    for item in top_for_commands(items, inputs.annotations):
        console.emit(
            annotation(
                item.command_level, item.message, file=item.path, line=item.line, title=item.title
            )
        )
    if len(items) > inputs.annotations:
        from abw.github.checks import MAX_ANNOTATIONS

        held = (
            "the check run and report files hold them all"
            if len(items) <= MAX_ANNOTATIONS
            else f"the check run holds the first {MAX_ANNOTATIONS} (its limit), the report "
            "files hold them all"
        )
        console.info(f"abw: {len(items)} findings in all; {held}")

    try:
        _publish(report, items, inputs, ctx, console, env, publisher)
    except Exception as exc:  # publishing is a view: it never changes the exit code
        if env.get("ABW_DEBUG"):
            raise
        from abw.text import exception_words

        reason = exception_words(exc)
        console.warning(f"publishing failed: {reason}. The verdict is unaffected.", title="abw")
    console.info(f"abw: exit code {code} (verdict {report.verdict}, fail-on {inputs.fail_on})")
    return code


def _write_summary(
    report: Any, env: Mapping[str, str], ctx: RunContext, console: Console, inputs: ActionInputs
) -> None:
    """The Markdown report for the room the step summary has left (what earlier writes of this
    step used counts), so the renderer cuts it between its blocks; the last-resort cut of
    :func:`write_summary` closes whatever a fallback text leaves open."""
    path = env.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    room = min(summary_room(path), SUMMARY_LIMIT_BYTES - 4096)
    write_summary(
        path, _markdown(report, room, ctx.run_url, console, inputs.check_name), ctx.run_url
    )


def _file_command(console: Console, name: str, write: Any) -> None:
    """Write a runner file; a full disk is a warning, never a changed exit code."""
    try:
        write()
    except OSError as exc:
        console.warning(
            f"could not write {name}: {exc.strerror or exc}. The verdict is unaffected.",
            title="abw",
        )


def main(env: Mapping[str, str] | None = None, stdout: TextIO | None = None) -> int:
    """Entry point of the container: never a traceback, exit 2 for bad input."""
    environ = dict(os.environ) if env is None else dict(env)
    console = Console(stdout)
    console.mask(environ.get("INPUT_GITHUB-TOKEN", "").strip())
    faults.reset()
    try:
        return run(environ, console)
    except Exception as exc:  # one line and the verdict's exit code, as in the CLI
        if environ.get("ABW_DEBUG") and not isinstance(exc, AbwInputError | OSError):
            raise
        title = "abw: invalid input" if isinstance(exc, AbwInputError | OSError) else "abw"
        with contextlib.suppress(OSError):
            console.error(faults.one_line(exc), title=title, **_annotated_place(exc))
        return faults.report(exc)


def _annotated_place(exc: BaseException) -> dict[str, Any]:
    """Where GitHub shows an input error's annotation: the file (as the repository names it,
    the workspace-relative path the gate was given) and line the error names; nothing for a
    path outside the repository."""
    if not isinstance(exc, AbwInputError) or not exc.file:
        return {}
    path = PurePosixPath(exc.file)
    if path.is_absolute() or ".." in path.parts or not path.parts:  # (not "." either)
        return {}
    return {"file": path.as_posix(), "line": exc.line}
