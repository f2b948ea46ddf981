"""What the runner tells a container action about the run: repository, event, URLs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.limits import read_limited

PR_EVENTS = ("pull_request", "pull_request_target")
#: Event files are read as data only; larger ones are refused (they come from artifacts too).
MAX_EVENT_BYTES = 25 * 1024 * 1024


def load_event(path: str | Path | None) -> dict[str, Any]:
    """The webhook payload of the run, or ``{}`` when there is none."""
    if not path:
        return {}
    source = Path(path)
    try:
        payload = json.loads(read_limited(source, MAX_EVENT_BYTES, "the event file"))
    except FileNotFoundError:
        return {}
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise AbwInputError(f"event file is not JSON: {exc}", file=str(source)) from None
    return payload if isinstance(payload, dict) else {}


@dataclass(frozen=True)
class RunContext:
    """The parts of the runner environment abw uses."""

    repository: str = ""
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    run_id: str = ""
    event_name: str = ""
    sha: str = ""
    event: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: Mapping[str, str], event_path: str | Path | None = None) -> RunContext:
        """Read ``GITHUB_*``; ``event_path`` overrides ``GITHUB_EVENT_PATH`` (workflow_run mode)."""
        return cls(
            repository=env.get("GITHUB_REPOSITORY", ""),
            api_url=(env.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/"),
            server_url=(env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/"),
            run_id=env.get("GITHUB_RUN_ID", ""),
            event_name=env.get("GITHUB_EVENT_NAME", ""),
            sha=env.get("GITHUB_SHA", ""),
            event=load_event(event_path or env.get("GITHUB_EVENT_PATH")),
        )

    @property
    def pull_request(self) -> dict[str, Any]:
        pr = self.event.get("pull_request")
        return pr if isinstance(pr, dict) else {}

    @property
    def pr_number(self) -> int | None:
        """The pull request's number, from the payload (None when the run has no PR)."""
        number = self.pull_request.get(
            "number", self.event.get("number") if self.pull_request else None
        )
        return number if isinstance(number, int) and number > 0 else None

    @property
    def head_sha(self) -> str:
        """The commit to report on: the PR head, never the merge commit ``GITHUB_SHA``."""
        head = self.pull_request.get("head")
        if isinstance(head, dict) and isinstance(head.get("sha"), str) and head["sha"]:
            return head["sha"]
        workflow_run = self.event.get("workflow_run")
        if isinstance(workflow_run, dict) and isinstance(workflow_run.get("head_sha"), str):
            return workflow_run["head_sha"]
        return self.sha

    @property
    def is_fork(self) -> bool:
        """A PR from another repository: its ``pull_request`` token is read-only."""
        head_repo = (self.pull_request.get("head") or {}).get("repo") or {}
        name = head_repo.get("full_name") if isinstance(head_repo, dict) else None
        return bool(self.pull_request) and bool(name) and name != self.repository

    @property
    def run_url(self) -> str | None:
        """``$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID``."""
        if not (self.repository and self.run_id):
            return None
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"
