"""The PyGithub client: base URL from ``GITHUB_API_URL``, bounded retries, polite throttling.

Retries are PyGithub's :class:`github.GithubRetry` (urllib3) with a fixed budget: 5xx, 429 and
rate-limit 403s are retried with back-off, waits for a rate-limit reset are capped, and every
other 4xx (including 403 "Resource not accessible by integration") fails at once. Publishing
as a whole has one budget of API time (:class:`ApiClock`, the ``publish-timeout`` input): a
wait that would pass it raises :class:`DeadlineExceeded` instead of sleeping. Every request
names abw and its version in ``User-Agent`` and asks for the documented media type and REST
API version.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from abw import __version__

#: The REST API version abw is written against (``X-GitHub-Api-Version``).
API_VERSION = "2022-11-28"
MEDIA_TYPE = "application/vnd.github+json"
USER_AGENT = f"abw/{__version__} (+https://github.com/abw/gate)"
#: ``query { viewer { login } }``: who the token acts as, for user and installation tokens alike.
VIEWER_QUERY = "query { viewer { login } }"


class DeadlineExceeded(Exception):
    """Publishing ran out of its time budget (the ``publish-timeout`` input)."""


class ApiClock:
    """The seconds all GitHub API calls together may take (``publish-timeout``). It runs only
    while a call runs (:meth:`running`): the gate, the rendering and the files written between
    calls spend none of it."""

    def __init__(self, seconds: float) -> None:
        self._left = seconds
        self._since: float | None = None

    def remaining(self) -> float:
        """Seconds left, counting the call now running."""
        running = time.monotonic() - self._since if self._since is not None else 0.0
        return self._left - running

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """Spend the clock's time while the block (one API call, its retries) runs."""
        self._since = time.monotonic()
        try:
            yield
        finally:
            self._left -= time.monotonic() - self._since
            self._since = None


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
    #: The API time left, past which no request is retried or started (None: no limit).
    clock: ApiClock | None = None

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


def remaining(clock: ApiClock | None) -> float | None:
    """Seconds of API time left on ``clock`` (None: no limit)."""
    return None if clock is None else clock.remaining()


def check_deadline(clock: ApiClock | None) -> None:
    """Raise :class:`DeadlineExceeded` once ``clock`` has run out."""
    left = remaining(clock)
    if left is not None and left <= 0:
        raise DeadlineExceeded("the publish deadline has passed")


def make_retry(settings: ClientSettings):  # -> github.GithubRetry
    """A bounded :class:`github.GithubRetry` that never sleeps past the API time left."""
    from github import GithubRetry

    class DeadlineRetry(GithubRetry):
        clock: ApiClock | None = None

        def new(self, **kw: Any) -> DeadlineRetry:
            fresh = super().new(**kw)
            fresh.clock = self.clock
            return fresh

        def sleep(self, response: Any = None) -> None:
            wait = self.get_backoff_time()
            if self.respect_retry_after_header and response is not None:
                wait = max(wait, self.get_retry_after(response) or 0.0)
            left = remaining(self.clock)
            if left is not None and wait >= left:
                raise DeadlineExceeded(
                    f"a retry would wait {wait:.0f} s, past the publish deadline"
                )
            super().sleep(response)

    retry = DeadlineRetry(
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
    retry.clock = settings.clock
    return retry


def make_client(token: str, api_url: str, settings: ClientSettings):  # -> github.Github
    """A PyGithub client for ``api_url`` (github.com or a GitHub Enterprise Server API)."""
    from github import Auth, Github

    class Token(Auth.Token):
        """The token, plus the documented media type on every request."""

        def authentication(self, headers: dict[str, Any]) -> None:
            super().authentication(headers)
            headers.setdefault("Accept", MEDIA_TYPE)

    timeout = settings.timeout
    left = remaining(settings.clock)
    if left is not None:
        timeout = min(timeout, max(left, 1.0))
    return Github(
        auth=Token(token),
        base_url=api_url,
        timeout=int(max(timeout, 1)),
        user_agent=USER_AGENT,
        per_page=100,
        retry=make_retry(settings),
        seconds_between_requests=None,
        seconds_between_writes=settings.write_interval or None,
        api_version=API_VERSION,
    )


def token_login(client: Any) -> str:
    """The login the token acts as (``github-actions[bot]`` for the default token).

    GraphQL ``viewer`` answers for user tokens and installation tokens alike (REST
    ``GET /user`` refuses installation tokens, ``GET /app`` needs the app's own JWT).
    """
    _, data = client.requester.graphql_query(VIEWER_QUERY, {})
    login = ((data.get("data") or {}).get("viewer") or {}).get("login")
    if not isinstance(login, str) or not login:
        raise ValueError("GitHub did not say who the token acts as (GraphQL viewer.login)")
    return login
