"""Extract the few REST operations the Action uses from GitHub's published OpenAPI description.

Usage: ``npm pack @octokit/openapi && tar xzf octokit-openapi-*.tgz`` then
``python extract.py package/generated/api.github.com.deref.json package/package.json``;
it writes ``operations.json`` beside this file (parameters and request bodies, $refs resolved).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

#: (method, path) of every REST request abw/github makes.
OPERATIONS = [
    ("get", "/repos/{owner}/{repo}"),
    ("post", "/repos/{owner}/{repo}/check-runs"),
    ("patch", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("patch", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}"),
]


def main(spec_path: str, package_json: str) -> None:
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    package = json.loads(Path(package_json).read_text(encoding="utf-8"))
    operations = []
    for method, path in OPERATIONS:
        operation = spec["paths"][path][method]
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
        operations.append(
            {
                "method": method.upper(),
                "path": path,
                "operationId": operation["operationId"],
                "documentation": operation.get("externalDocs", {}).get("url"),
                "parameters": [
                    {k: p[k] for k in ("name", "in", "required", "schema") if k in p}
                    for p in operation.get("parameters", [])
                ],
                "requestBody": body.get("schema"),
                "requestBodyRequired": operation.get("requestBody", {}).get("required", False),
            }
        )
    out = {
        "source": f"npm {package['name']}@{package['version']} generated/api.github.com.deref.json",
        "openapi": spec["openapi"],
        "info_version": spec["info"]["version"],
        "operations": operations,
    }
    target = Path(__file__).with_name("operations.json")
    target.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:3])
