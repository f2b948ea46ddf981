"""`abw serve` as a subprocess, driven by the official mcp client over stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from abw.traceio import write_trace
from tests.conftest import REPO
from tests.rules_kit import trace

EXAMPLE = REPO / "examples" / "refund-policy"
TOOLS = {"abw_validate", "abw_gate", "abw_explain", "abw_fingerprint", "abw_render"}


def _server() -> StdioServerParameters:
    script = Path(sys.executable).parent / "abw"
    if script.exists():
        return StdioServerParameters(command=str(script), args=["serve"], cwd=str(REPO))
    return StdioServerParameters(
        command=sys.executable,
        args=["-c", "from abw.cli import main; main()", "serve"],
        cwd=str(REPO),
    )


def drive(steps):
    """Run ``await steps(session)`` against a fresh `abw serve` process; return its result."""
    result = {}

    async def main():
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(_server(), errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                result["value"] = await steps(session)

    anyio.run(main)
    return result["value"]


def text(result) -> str:
    return "".join(part.text for part in result.content if getattr(part, "type", "") == "text")


def payload(result) -> dict:
    assert not result.is_error, text(result)
    return result.structured_content or json.loads(text(result))


def _folders(tmp_path):
    good = ["lookup", "policy_check", "refund_commit"]
    for role, spans in (("base", good), ("cand", ["lookup", "refund_commit", "policy_check"])):
        (tmp_path / role).mkdir()
        for i in range(3):
            t = trace(*spans, output={"decision": "approve"}, trace_id=f"{role}{i}")
            write_trace(t, tmp_path / role / f"{role}{i}.json")
    spec = tmp_path / "behavior.yaml"
    spec.write_text(
        "schema_version: behavior-spec/v0\nid: tiny\ninvariants:\n  required_order:\n"
        "    - {before: policy_check, after: refund_commit}\n"
    )
    return tmp_path / "base", tmp_path / "cand", spec


def test_tools_resources_prompt_and_a_gate_over_stdio(tmp_path):
    base, cand, spec = _folders(tmp_path)
    (tmp_path / "bad.json").write_text('{"schema_version": "agent-behavior-trace/v0"}')

    async def steps(session):
        tools = await session.list_tools()
        resources = await session.list_resources()
        prompts = await session.list_prompts()
        prompt = await session.get_prompt(
            "gate-agent-upgrade", {"baseline": "b/", "candidate": "c/"}
        )
        schema = await session.read_resource("abw://schemas/behavior-spec.v0.json")
        gated = await session.call_tool(
            "abw_gate", {"baseline": str(base), "candidate": str(cand), "spec": str(spec)}
        )
        explained = await session.call_tool(
            "abw_explain",
            {
                "check_id": "behavior_contract.required_order[0]",
                "baseline": str(base),
                "candidate": str(cand),
                "spec": str(spec),
            },
        )
        fp = await session.call_tool("abw_fingerprint", {"trace": str(base / "base0.json")})
        valid = await session.call_tool(
            "abw_validate", {"paths": [str(spec), str(tmp_path / "bad.json"), str(tmp_path)]}
        )
        rendered = await session.call_tool(
            "abw_render",
            {
                "format": "markdown",
                "baseline": str(base),
                "candidate": str(cand),
                "spec": str(spec),
            },
        )
        missing = await session.call_tool(
            "abw_gate",
            {"baseline": str(tmp_path / "nope"), "candidate": str(cand), "spec": str(spec)},
        )
        return (
            tools,
            resources,
            prompts,
            prompt,
            schema,
            gated,
            explained,
            fp,
            valid,
            rendered,
            missing,
        )

    tools, resources, prompts, prompt, schema, gated, explained, fp, valid, rendered, missing = (
        drive(steps)
    )
    assert {t.name for t in tools.tools} == TOOLS
    uris = {str(r.uri) for r in resources.resources}
    assert "abw://schemas/agent-behavior-contract.v0.json" in uris and len(uris) >= 5
    assert [p.name for p in prompts.prompts] == ["gate-agent-upgrade"]
    assert "abw_gate" in prompt.messages[0].content.text and "b/" in prompt.messages[0].content.text
    assert json.loads(schema.contents[0].text)["$id"].endswith("behavior-spec/v0.json")

    report = payload(gated)
    assert (report["verdict"], report["exit_code"]) == ("FAIL", 1)
    order = next(c for c in report["checks"] if c["id"] == "behavior_contract.required_order[0]")
    assert order["verdict"] == "FAIL" and order["violating_runs"] == 3
    why = text(explained)
    assert why.startswith("behavior_contract.required_order[0]: FAIL")
    assert "ordinal 1" in why

    from abw.fingerprint import fingerprint
    from abw.traceio import load_trace

    assert payload(fp)["fingerprint"] == fingerprint(load_trace(base / "base0.json").trace)
    checked = payload(valid)
    assert checked["valid"] is False
    assert [f["valid"] for f in checked["files"]] == [True, False, False]
    assert "found a folder" in checked["files"][2]["problems"][0]
    assert "FAIL" in text(rendered)
    assert missing.is_error and "nope" in text(missing) and "Traceback" not in text(missing)


def test_gate_the_refund_example_and_explain_the_fail():
    base = "examples/refund-policy/traces/baseline"
    regressed = "examples/refund-policy/traces/regressed"
    order = "behavior_contract.required_order[0]"

    async def steps(session):
        contract = await session.read_resource("abw://examples/refund-policy/contract.json")
        gated = await session.call_tool(
            "abw_gate",
            {
                "baseline": base,
                "candidate": regressed,
                "spec": "examples/refund-policy/behavior.yaml",
            },
        )
        by_contract = await session.call_tool(
            "abw_gate",
            {
                "baseline": base,
                "candidate": regressed,
                "contract": "examples/refund-policy/contract.json",
            },
        )
        explained = await session.call_tool(
            "abw_explain",
            {
                "check_id": order,
                "baseline": base,
                "candidate": regressed,
                "contract": "examples/refund-policy/contract.json",
            },
        )
        good = await session.call_tool(
            "abw_gate",
            {
                "baseline": base,
                "candidate": "examples/refund-policy/traces/good",
                "contract": "examples/refund-policy/contract.json",
            },
        )
        return contract, gated, by_contract, explained, good

    contract, gated, by_contract, explained, good = drive(steps)
    assert json.loads(contract.contents[0].text)["schema_version"] == "agent-behavior-contract/v0"
    for result in (gated, by_contract):
        report = payload(result)
        assert (report["verdict"], report["exit_code"]) == ("FAIL", 1)
        failing = {c["id"]: c for c in report["checks"] if c["verdict"] == "FAIL"}
        assert failing[order]["violating_runs"] == 3
    assert "behavior_contract.rules.commit-is-final" in {
        c["id"] for c in payload(by_contract)["checks"] if c["verdict"] == "FAIL"
    }
    why = text(explained)
    assert why.startswith(f"{order}: FAIL")
    assert "refund_commit succeeded before any successful policy_check" in why
    assert "regressed/regressed-" in why and "(ordinal " in why
    assert "one counterexample is proof" in why
    assert payload(good)["verdict"] == "PASS"


def test_serve_without_the_mcp_extra_says_how_to_install_it(tmp_path):
    """``pip install agent-behavior-workbench`` has no MCP SDK: ``abw serve`` printed
    "internal error: No module named 'mcp'"; it says which extra to install, exit 2."""
    import subprocess
    import sys

    blocked = "import sys; sys.modules['mcp'] = None; from abw.cli import main; "
    done = subprocess.run(
        [sys.executable, "-c", blocked + "sys.argv = ['abw', 'serve']; main()"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "internal error" not in done.stderr
    assert "pip install 'agent-behavior-workbench[mcp]'" in done.stderr


def test_an_empty_path_is_refused_as_the_cli_refuses_it():
    """``baseline: ""`` was the working folder: the server gated every trace under it (the
    regressed runs read as baseline runs) and answered with a verdict; the CLI refuses an empty
    path (an unset variable). One check of the given path, for every tool."""
    regressed = "examples/refund-policy/traces/regressed"
    spec = "examples/refund-policy/behavior.yaml"

    async def steps(session):
        return [
            await session.call_tool(tool, arguments)
            for tool, arguments in (
                ("abw_gate", {"baseline": "", "candidate": regressed, "spec": spec}),
                ("abw_gate", {"baseline": regressed, "candidate": "", "spec": spec}),
                ("abw_explain", {"check_id": "x", "report": ""}),
                ("abw_validate", {"paths": [""]}),
                ("abw_fingerprint", {"trace": ""}),
            )
        ]

    results = drive(steps)
    for result in results[:3] + results[4:]:
        assert result.is_error and "empty path (an unset variable?)" in text(result), text(result)
    assert "empty path (an unset variable?)" in json.dumps(payload(results[3]))
