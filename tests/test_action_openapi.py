"""Every request the Action makes, checked against GitHub's published OpenAPI description.

The Action runs end to end (real PyGithub, fake GitHub on 127.0.0.1) through the flows it has:
check run with annotations in batches, sticky comment created then edited, a user token, a
fork's published report whose PR is confirmed with the API. Each REST request must be one of
the vendored operations (tests/reference/github-openapi), with its path and query parameters
and its JSON body valid under that operation's schema; the one GraphQL request is the viewer
query.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qsl

import jsonschema
import pytest
from action_env import HEAD_SHA, Runner, make_report
from fake_github import API_PREFIX, GRAPHQL_PATH, FakeGitHub, Request

from abw.github.client import VIEWER_QUERY

SPEC = json.loads(
    (Path(__file__).parent / "reference" / "github-openapi" / "operations.json").read_text()
)


def _template(path: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(path)) + "$")


OPERATIONS = [(op, _template(op["path"])) for op in SPEC["operations"]]


def _value(raw: str, schema: dict):
    if schema.get("type") == "integer" and re.fullmatch(r"-?\d+", raw):
        return int(raw)
    return raw


def problems(request: Request) -> list[str]:
    """Why ``request`` is not a documented call (empty when it is)."""
    if request.path == GRAPHQL_PATH:
        ok = request.method == "POST" and request.body == {"query": VIEWER_QUERY, "variables": {}}
        return [] if ok else [f"unexpected GraphQL request {request.body}"]
    if not request.path.startswith(API_PREFIX):
        return [f"{request.path} is outside the API"]
    path = request.path[len(API_PREFIX) :]
    for operation, pattern in OPERATIONS:
        match = pattern.match(path)
        if operation["method"] != request.method or not match:
            continue
        found = []
        params = {p["name"]: p for p in operation["parameters"]}
        for name, raw in match.groupdict().items():
            found += _check(params[name]["schema"], _value(raw, params[name]["schema"]), name)
        for name, raw in parse_qsl(request.query):
            param = params.get(name)
            if param is None or param["in"] != "query":
                found.append(f"{operation['operationId']}: undocumented query parameter {name}")
                continue
            found += _check(param["schema"], _value(raw, param["schema"]), name)
        schema = operation["requestBody"]
        if schema is None:
            if request.body is not None:
                found.append(f"{operation['operationId']}: a body where none is documented")
        else:
            found += _check(schema, request.body, operation["operationId"])
        return found
    return [f"{request.method} {path} is not an operation the Action is known to use"]


def _check(schema: dict, value, where: str) -> list[str]:
    validator = jsonschema.Draft7Validator(schema)
    return [f"{where}: {list(e.path)}: {e.message[:200]}" for e in validator.iter_errors(value)]


@pytest.fixture
def fake():
    server = FakeGitHub(pulls=(7,), pull_heads={7: (HEAD_SHA, "someone/agents")}).start()
    yield server
    server.stop()


def publish(runner: Runner, report, **inputs: str):
    (runner.workspace / "r.json").write_text(report.model_dump_json())
    return runner.run({"report": "r.json", **inputs})


def test_every_request_is_a_documented_operation_with_a_valid_body(fake, tmp_path):
    runner = Runner(tmp_path / "pr", fake.url)
    fake.add_comment(7, "a human comment")
    assert publish(runner, make_report("FAIL", violations=120)).code == 1  # 3 annotation batches
    assert publish(runner, make_report("PASS")).code == 0  # the comment edited
    fake.tokens["ghp_user"] = "octocat"
    publish(runner, make_report("WARN"), **{"github-token": "ghp_user"})
    fork = Runner(
        tmp_path / "fork",
        fake.url,
        event_name="workflow_run",
        payload={
            "workflow_run": {
                "head_sha": HEAD_SHA,
                "head_repository": {"full_name": "someone/agents"},
                "pull_requests": [],
            }
        },
    )
    event = fork.workspace / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "head": {"sha": HEAD_SHA}}}))
    assert publish(fork, make_report("INCONCLUSIVE"), **{"event-file": "event.json"}).code == 3

    used = {(r.method, r.path.rsplit("/", 1)[0]) for r in fake.requests}
    assert len(used) >= 6  # the premise: every flow ran
    assert {op["operationId"] for op, p in OPERATIONS} >= {"pulls/get", "issues/update-comment"}
    seen_operations = set()
    for request in fake.requests:
        assert problems(request) == [], (request.method, request.path, request.body)
        for operation, pattern in OPERATIONS:
            if operation["method"] == request.method and pattern.match(
                request.path[len(API_PREFIX) :]
            ):
                seen_operations.add(operation["operationId"])
    assert seen_operations == {op["operationId"] for op in SPEC["operations"]}


@pytest.mark.parametrize(
    ("request_", "why"),
    [
        (
            Request(
                "POST",
                f"{API_PREFIX}/repos/o/r/check-runs",
                {
                    "name": "x",
                    "head_sha": "a" * 40,
                    "output": {
                        "title": "t",
                        "summary": "s",
                        "annotations": [
                            {
                                "path": "a",
                                "start_line": 1,
                                "end_line": 1,
                                "annotation_level": "error",  # not notice|warning|failure
                                "message": "m",
                            }
                        ],
                    },
                },
            ),
            "annotation_level",
        ),
        (Request("PATCH", f"{API_PREFIX}/repos/o/r/issues/comments/1", {}), "body"),
        (Request("GET", f"{API_PREFIX}/repos/o/r/issues/7/comments", None, {}, "per_page=x"), "x"),
        (Request("DELETE", f"{API_PREFIX}/repos/o/r/issues/comments/1", None), "not an operation"),
    ],
)
def test_the_check_can_fail(request_, why):
    assert any(why in p for p in problems(request_)), problems(request_)
