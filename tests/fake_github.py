"""A small fake of the GitHub REST API on 127.0.0.1, enough for PyGithub's check runs and comments.

It keeps state (check runs with their appended annotations, issue comments with their authors),
logs every request with its headers, and can inject faults: a queued response (403, 500, rate
limit, ...) for the next requests that match a method and a path pattern. Served under
``/api/v3`` like GitHub Enterprise Server (GraphQL under ``/api/graphql``), so the client's
``base_url`` really comes from ``GITHUB_API_URL``.

Authentication is modelled: each known token acts as one login (the default token as
``github-actions[bot]``), a comment is authored by the token that posted it, GraphQL
``viewer { login }`` answers who the token is, and an unknown token gets 401. Comment lists
are paged like GitHub's (``per_page``, ``page``, a ``Link`` header).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

API_PREFIX = "/api/v3"
GRAPHQL_PATH = "/api/graphql"
DEFAULT_TOKEN = "ghs_faketoken123"


@dataclass
class Fault:
    method: str
    pattern: re.Pattern[str]
    status: int
    body: dict[str, Any]
    headers: dict[str, str]
    times: int


@dataclass
class Request:
    method: str
    path: str
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    query: str = ""


@dataclass
class FakeGitHub:
    """State of the fake API; ``start()`` serves it, ``url`` is the ``GITHUB_API_URL``."""

    repository: str = "octo/agents"
    pulls: tuple[int, ...] = (7,)
    #: PR number -> (head SHA, head repository), as GET /pulls/{n} answers
    pull_heads: dict[int, tuple[str, str]] = field(default_factory=dict)
    check_runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    #: token -> the login it acts as
    tokens: dict[str, str] = field(default_factory=lambda: {DEFAULT_TOKEN: "github-actions[bot]"})
    _next_id: int = 100
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    # --- control ------------------------------------------------------------------------
    def start(self) -> FakeGitHub:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                status, payload, headers = fake.handle(
                    self.command, self.path, body, dict(self.headers.items())
                )
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_DELETE = _serve

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}{API_PREFIX}"

    def fail(
        self,
        method: str,
        pattern: str,
        status: int,
        message: str = "error",
        *,
        times: int = 1,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Answer the next ``times`` matching requests with ``status`` and ``{"message": ...}``."""
        self.faults.append(
            Fault(method, re.compile(pattern), status, {"message": message}, headers or {}, times)
        )

    def rate_limit(self, method: str, pattern: str, times: int = 1) -> None:
        """A primary rate-limit 403 whose reset is now (PyGithub waits about a second)."""
        self.fail(
            method,
            pattern,
            403,
            "API rate limit exceeded for installation ID 1.",
            times=times,
            headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()))},
        )

    def calls(self, method: str, pattern: str) -> list[Request]:
        regex = re.compile(pattern)
        return [r for r in self.requests if r.method == method and regex.search(r.path)]

    def add_comment(self, number: int, body: str, login: str | None = None) -> int:
        with self._lock:
            return self._new_comment(number, body, login or "someone")

    # --- the API ------------------------------------------------------------------------
    def _base(self) -> str:
        return f"{self.url}/repos/{self.repository}"

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _new_comment(self, number: int, body: str, login: str) -> int:
        comment_id = self._new_id()
        self.comments[comment_id] = {
            "id": comment_id,
            "number": number,
            "body": body,
            "user": {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"},
            "url": f"{self._base()}/issues/comments/{comment_id}",
            "html_url": f"https://github.example/{self.repository}/pull/{number}#c{comment_id}",
        }
        return comment_id

    def _pull_head(self, number: int) -> dict[str, Any]:
        sha, repo = self.pull_heads.get(number, ("a" * 40, self.repository))
        return {
            "head": {"sha": sha, "ref": f"pr-{number}", "repo": {"full_name": repo}},
            "base": {"sha": "f" * 40, "ref": "main", "repo": {"full_name": self.repository}},
        }

    def _check_run_json(self, run: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in run.items() if k != "annotations"}

    def login_of(self, headers: dict[str, str]) -> str | None:
        """The login an ``Authorization: token|Bearer <token>`` header acts as."""
        value = {k.lower(): v for k, v in headers.items()}.get("authorization", "")
        scheme, _, token = value.partition(" ")
        if scheme.lower() not in ("token", "bearer"):
            return None
        return self.tokens.get(token.strip())

    def handle(
        self, method: str, raw_path: str, body: Any, headers: dict[str, str] | None = None
    ) -> tuple[int, Any, dict[str, str]]:
        path, _, query = raw_path.partition("?")
        headers = headers or {}
        with self._lock:
            self.requests.append(Request(method, path, body, headers, query))
            for fault in self.faults:
                if fault.times > 0 and fault.method == method and fault.pattern.search(path):
                    fault.times -= 1
                    return fault.status, fault.body, fault.headers
            login = self.login_of(headers)
            if login is None:
                return 401, {"message": "Bad credentials"}, {}
            return self._route(method, path, body, login, query)

    def _page(self, items: list[Any], query: str, path: str) -> tuple[list[Any], dict[str, str]]:
        """One page of ``items`` as GitHub pages lists: ``per_page`` (default 30, at most 100),
        ``page`` from 1, and a ``Link`` header with ``next`` and ``last``."""
        from urllib.parse import parse_qs

        params = parse_qs(query)
        per_page = min(int(params.get("per_page", ["30"])[0]), 100)
        page = int(params.get("page", ["1"])[0])
        last = max((len(items) + per_page - 1) // per_page, 1)
        chunk = items[(page - 1) * per_page : page * per_page]
        url = f"{self.url}{path[len(API_PREFIX) :]}"
        links = [f'<{url}?per_page={per_page}&page={page + 1}>; rel="next"'] if page < last else []
        links.append(f'<{url}?per_page={per_page}&page={last}>; rel="last"')
        return chunk, {"Link": ", ".join(links)}

    def _route(
        self, method: str, path: str, body: Any, login: str, query: str = ""
    ) -> tuple[int, Any, dict[str, str]]:
        repo = f"{API_PREFIX}/repos/{self.repository}"
        base = self._base()
        if method == "POST" and path == GRAPHQL_PATH:
            if " ".join(str(body.get("query", "")).split()) != "query { viewer { login } }":
                return 200, {"errors": [{"message": "fake GitHub knows only viewer.login"}]}, {}
            return 200, {"data": {"viewer": {"login": login}}}, {}
        if method == "GET" and path == repo:
            owner, name = self.repository.split("/")
            return (
                200,
                {
                    "id": 1,
                    "name": name,
                    "full_name": self.repository,
                    "owner": {"login": owner, "id": 1},
                    "url": base,
                    "html_url": f"https://github.example/{self.repository}",
                },
                {},
            )
        if method == "POST" and path == f"{repo}/check-runs":
            run_id = self._new_id()
            output = dict(body.get("output") or {})
            annotations = list(output.pop("annotations", []) or [])
            self.check_runs[run_id] = {
                "id": run_id,
                "url": f"{base}/check-runs/{run_id}",
                "name": body["name"],
                "head_sha": body["head_sha"],
                "status": body.get("status", "queued"),
                "conclusion": body.get("conclusion"),
                "details_url": body.get("details_url"),
                "external_id": body.get("external_id"),
                "output": output,
                "annotations": annotations,
            }
            return 201, self._check_run_json(self.check_runs[run_id]), {}
        match = re.fullmatch(rf"{re.escape(repo)}/check-runs/(\d+)", path)
        if match and method == "PATCH":
            run = self.check_runs.get(int(match.group(1)))
            if run is None:
                return 404, {"message": "Not Found"}, {}
            output = dict(body.get("output") or {})
            run["annotations"].extend(output.pop("annotations", []) or [])
            if output:
                run["output"] = output
            for key in ("conclusion", "status", "name", "details_url"):
                if key in body:
                    run[key] = body[key]
            return 200, self._check_run_json(run), {}
        match = re.fullmatch(rf"{re.escape(repo)}/(issues|pulls)/(\d+)", path)
        if match and method == "GET":
            number = int(match.group(2))
            if number not in self.pulls:
                return 404, {"message": "Not Found"}, {}
            return (
                200,
                {
                    "number": number,
                    "url": f"{base}/issues/{number}",
                    "comments_url": f"{base}/issues/{number}/comments",
                    "issue_url": f"{base}/issues/{number}",
                    "pull_request": {"url": f"{base}/pulls/{number}"},
                    **(self._pull_head(number) if match.group(1) == "pulls" else {}),
                },
                {},
            )
        match = re.fullmatch(rf"{re.escape(repo)}/issues/(\d+)/comments", path)
        if match:
            number = int(match.group(1))
            if number not in self.pulls:
                return 404, {"message": "Not Found"}, {}
            if method == "GET":
                mine = [c for c in self.comments.values() if c["number"] == number]
                chunk, headers = self._page(sorted(mine, key=lambda c: c["id"]), query, path)
                return 200, chunk, headers
            if method == "POST":
                if len(body["body"]) > 65_536:
                    return 422, {"message": "Validation Failed"}, {}
                comment_id = self._new_comment(number, body["body"], login)
                return 201, self.comments[comment_id], {}
        match = re.fullmatch(rf"{re.escape(repo)}/issues/comments/(\d+)", path)
        if match and method == "PATCH":
            comment = self.comments.get(int(match.group(1)))
            if comment is None:
                return 404, {"message": "Not Found"}, {}
            if len(body["body"]) > 65_536:
                return (
                    422,
                    {
                        "message": "Validation Failed",
                        "errors": [{"message": "body is too long (maximum is 65536 characters)"}],
                    },
                    {},
                )
            comment["body"] = body["body"]
            return 200, comment, {}
        return 404, {"message": f"fake GitHub has no {method} {path}"}, {}
