"""What the runner tells a container action about the run: repository, event, URLs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abw.reader import parse_json, read_bytes

PR_EVENTS = ("pull_request", "pull_request_target")
#: Event files are read as data only; larger ones are refused (they come from artifacts too).
MAX_EVENT_BYTES = 25 * 1024 * 1024


def load_event(path: str | Path | None) -> dict[str, Any]:
    """The webhook payload of the run, or ``{}`` when there is none."""
    if not path:
        return {}
    source = Path(path)
    if not source.exists():
        return {}
    raw = read_bytes(source, MAX_EVENT_BYTES, "the event file")
    payload = parse_json(raw, str(source), unicode_text=True)
    return payload if isinstance(payload, dict) else {}


def dig(value: Any, *keys: str) -> Any:
    """``value[k1][k2]...``, or None as soon as a level is missing or not an object."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


@dataclass(frozen=True)
class RunContext:
    """The parts of the runner environment abw uses.

    ``event`` is the runner's own payload (``GITHUB_EVENT_PATH``) and the only source of the
    commit and pull request to publish on. ``claimed`` is an event file named by the
    ``event-file`` input (an artifact a pull request's run uploaded): untrusted, it may only
    narrow what the runner's event allows, never redirect it.
    """

    repository: str = ""
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    run_id: str = ""
    event_name: str = ""
    sha: str = ""
    event: dict[str, Any] = field(default_factory=dict)
    claimed: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: Mapping[str, str], event_file: str | Path | None = None) -> RunContext:
        """Read ``GITHUB_*``; ``event_file`` is the untrusted event of workflow_run mode."""
        return cls(
            repository=env.get("GITHUB_REPOSITORY", ""),
            api_url=(env.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/"),
            server_url=(env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/"),
            run_id=env.get("GITHUB_RUN_ID", ""),
            event_name=env.get("GITHUB_EVENT_NAME", ""),
            sha=env.get("GITHUB_SHA", ""),
            event=load_event(env.get("GITHUB_EVENT_PATH")),
            claimed=load_event(event_file) if event_file else {},
        )

    @property
    def pull_request(self) -> dict[str, Any]:
        pr = self.event.get("pull_request")
        return pr if isinstance(pr, dict) else {}

    @property
    def workflow_run(self) -> dict[str, Any]:
        run = self.event.get("workflow_run")
        return run if isinstance(run, dict) else {}

    @property
    def head_sha(self) -> str:
        """The commit to report on, from the runner's event: the PR head (never the merge
        commit ``GITHUB_SHA``), the triggering run's head in workflow_run mode (never the default
        branch's ``GITHUB_SHA``: none when the event lacks it), else GITHUB_SHA."""
        if self.pull_request:
            return _text(dig(self.pull_request, "head", "sha")) or self.sha
        if self.event_name == "workflow_run" or self.workflow_run:
            return _text(self.workflow_run.get("head_sha"))
        return self.sha

    @property
    def head_repository(self) -> str:
        """``owner/name`` the head commit comes from (a fork's name for a fork PR)."""
        return _text(dig(self.pull_request, "head", "repo", "full_name")) or _text(
            dig(self.workflow_run, "head_repository", "full_name")
        )

    @property
    def pr_numbers(self) -> list[int]:
        """Pull requests the runner's event names for ``head_sha`` (none for a fork's
        workflow_run: GitHub leaves ``workflow_run.pull_requests`` empty then)."""
        if self.pull_request:
            number = _number(self.pull_request.get("number")) or _number(self.event.get("number"))
            return [number] if number else []
        found = []
        pulls = self.workflow_run.get("pull_requests")
        for pull in pulls if isinstance(pulls, list) else []:
            number = _number(dig(pull, "number"))
            if number and _text(dig(pull, "head", "sha")) == self.head_sha:
                found.append(number)
        return found

    @property
    def claimed_pr_number(self) -> int | None:
        """The PR number in the untrusted event file, if that file is about ``head_sha``."""
        pr = self.claimed.get("pull_request")
        number = _number(dig(pr, "number")) or _number(self.claimed.get("number"))
        claimed_sha = _text(dig(pr, "head", "sha"))
        if number is None or (claimed_sha and claimed_sha != self.head_sha):
            return None
        return number

    @property
    def claimed_conflict(self) -> str | None:
        """Why the untrusted event file disagrees with the runner's event, if it does."""
        if not self.claimed:
            return None
        pr = self.claimed.get("pull_request")
        claimed_sha = _text(dig(pr, "head", "sha"))
        if claimed_sha and claimed_sha != self.head_sha:
            return f"its head SHA {claimed_sha[:12]} is not the run's {self.head_sha[:12]}"
        number = self.claimed_pr_number
        if number is not None and self.pr_numbers and number not in self.pr_numbers:
            return f"its pull request #{number} is not among those of the run's event"
        return None

    @property
    def is_fork(self) -> bool:
        """The head comes from another repository: its ``pull_request`` token is read-only."""
        name = self.head_repository
        return bool(name) and bool(self.repository) and name != self.repository

    @property
    def run_url(self) -> str | None:
        """``$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID``."""
        if not (self.repository and self.run_id):
            return None
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"
