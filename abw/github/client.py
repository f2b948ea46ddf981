"""The PyGithub client: base URL from ``GITHUB_API_URL``, bounded retries, polite throttling.

Retries are PyGithub's :class:`github.GithubRetry` (urllib3) with a fixed budget: 5xx, 429 and
rate-limit 403s are retried with back-off, waits for a rate-limit reset are capped, and every
other 4xx (including 403 "Resource not accessible by integration") fails at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

RETRY_STATUSES = (429, *range(500, 600))
RETRY_METHODS = frozenset({"GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"})


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    try:
        value = float(env.get(name, default))
    except ValueError:
        return default
    return value if value >= 0 else default


@dataclass(frozen=True)
class ClientSettings:
    """Retry and pacing knobs; ``ABW_GITHUB_*`` variables tune them (docs/action.md)."""

    retries: int = 4
    backoff: float = 1.0
    max_wait: float = 120.0
    secondary_wait: float = 60.0
    write_interval: float = 1.0
    timeout: float = 20.0

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ClientSettings:
        return cls(
            retries=min(int(_number(env, "ABW_GITHUB_RETRIES", 4)), 10),
            backoff=_number(env, "ABW_GITHUB_BACKOFF", 1.0),
            max_wait=_number(env, "ABW_GITHUB_MAX_WAIT", 120.0),
            secondary_wait=_number(env, "ABW_GITHUB_SECONDARY_WAIT", 60.0),
            write_interval=_number(env, "ABW_GITHUB_WRITE_INTERVAL", 1.0),
            timeout=_number(env, "ABW_GITHUB_TIMEOUT", 20.0) or 20.0,
        )


def make_retry(settings: ClientSettings):  # -> github.GithubRetry
    """A bounded :class:`github.GithubRetry`."""
    from github import GithubRetry

    return GithubRetry(
        total=settings.retries,
        backoff_factor=settings.backoff,
        backoff_max=max(settings.backoff * 8, 1.0),
        status_forcelist=list(RETRY_STATUSES),
        allowed_methods=RETRY_METHODS,
        respect_retry_after_header=True,
        retry_after_max=int(settings.max_wait),
        raise_on_status=False,
        secondary_rate_wait=min(settings.secondary_wait, settings.max_wait),
        max_rate_limit_wait=settings.max_wait,
    )


def make_client(token: str, api_url: str, settings: ClientSettings):  # -> github.Github
    """A PyGithub client for ``api_url`` (github.com or a GitHub Enterprise Server API)."""
    from github import Auth, Github

    return Github(
        auth=Auth.Token(token),
        base_url=api_url,
        timeout=int(max(settings.timeout, 1)),
        per_page=100,
        retry=make_retry(settings),
        seconds_between_requests=None,
        seconds_between_writes=settings.write_interval or None,
    )
