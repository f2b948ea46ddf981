"""``abw serve``: abw as an MCP server over stdio, on the official ``mcp`` Python SDK.

Tools: ``abw_validate``, ``abw_gate``, ``abw_explain``, ``abw_fingerprint``, ``abw_render``.
Resources: the five JSON Schemas and the refund-policy example's contract, spec and README.
Prompt: ``gate-agent-upgrade``. The server reads only the paths a client passes to a tool (and
its own bundled schemas and example); it writes nothing and never calls a model.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError
from abw.pathtext import check_paths

EXAMPLE_DIR = Path(__file__).resolve().parents[1] / "examples" / "refund-policy"
EXAMPLE_FILES = ("contract.json", "behavior.yaml", "README.md")
EXAMPLE_URI = "abw://examples/refund-policy/"
SCHEMA_URI = "abw://schemas/"


@contextmanager
def _tool_errors(**arguments: str | None) -> Iterator[None]:
    """Report bad input to the MCP client as a ``ToolError`` carrying the one-line message.
    An OSError reading a path (a name over 255 bytes, a permission, a symlink loop) is one too,
    naming the file and the argument of ``arguments`` (name -> value) that led to it."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        yield
    except AbwInputError as exc:
        raise ToolError(exc.one_line()) from None
    except OSError as exc:
        from abw.errors import os_input_error

        field = _argument_of(exc, arguments)
        raise ToolError(os_input_error(exc, reading=True, field=field).one_line()) from None


def _argument_of(exc: OSError, arguments: dict[str, str | None]) -> str | None:
    """The argument whose path ``exc`` happened on: the one equal to its file name, or the
    folder holding it; None when none is (or only one argument was given: then that one)."""
    import os

    given = {name: value for name, value in arguments.items() if value is not None}
    filename = exc.filename
    if isinstance(filename, str):
        for name, value in given.items():
            if filename == value or filename.startswith(value.rstrip(os.sep) + os.sep):
                return name
    return next(iter(given)) if len(given) == 1 else None


#: pydantic's error types for a value of the wrong type, as the type the argument takes.
_MISSING = ("missing", "missing_argument")


def argument_errors(exc: Any, tool: str) -> str:
    """A pydantic ``ValidationError`` of a tool's arguments (the SDK validates them before the
    tool runs) as one line naming each argument: ``baseline: input should be a valid string
    (got an int)``, ``candidate: missing (a required argument of abw_gate)``."""
    parts = []
    errors = exc.errors(include_url=False)
    for error in errors[:5]:
        where = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"]
        ).lstrip(".")
        where = where or "arguments"
        if error["type"] in _MISSING:
            parts.append(f"{where}: missing (a required argument of {tool})")
            continue
        message = str(error["msg"])
        message = message[:1].lower() + message[1:]
        parts.append(f"{where}: {message} (got {_kind(error.get('input'))})")
    if len(errors) > 5:
        parts.append(f"and {len(errors) - 5} more")
    return " ".join("; ".join(parts).split())


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    name = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}.get(
        type(value).__name__, type(value).__name__
    )
    name = {"dict": "object", "list": "array"}.get(name, name)
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _gate_report(
    baseline: str | None,
    candidate: str | None,
    spec: str | None,
    contract: str | None,
    report: str | None = None,
) -> Any:
    """A report read from ``report``, or gated from the given baseline/candidate/spec|contract."""
    check_paths(baseline=baseline, candidate=candidate, spec=spec, contract=contract, report=report)
    if report is not None:
        if any(v is not None for v in (baseline, candidate, spec, contract)):
            raise AbwInputError("give either report or baseline/candidate/spec", field="report")
        from abw.render import load_report

        return load_report(report)
    if baseline is None or candidate is None:
        raise AbwInputError("baseline and candidate are required", field="baseline")
    if (spec is None) == (contract is None):
        raise AbwInputError("give exactly one of spec and contract", field="spec")
    if contract is not None:
        from abw.contract import run_contract_gate

        return run_contract_gate(baseline, candidate, contract)
    from abw.gating import run_gate

    return run_gate(baseline, candidate, spec)  # type: ignore[arg-type]


def _report_format(name: str) -> str:
    """``abw_render``'s format, normalized (``md`` -> ``markdown``); an unknown one is an
    :class:`AbwInputError` naming the argument."""
    from abw.render import normalize_format

    try:
        return normalize_format(name)
    except ValueError as exc:
        raise AbwInputError(str(exc), field="format") from None


def validate_paths(paths: list[str]) -> dict[str, Any]:
    """Validate each file against the schema its ``schema_version`` names."""
    from abw.validate import validate_file

    results = []
    for path in paths:
        try:
            check_paths(paths=path)
            if Path(path).is_dir():
                raise AbwInputError("expected a file, found a folder", file=path)
            problems = [p.one_line() for p in validate_file(Path(path))]
        except AbwInputError as exc:
            problems = [exc.one_line()]
        except OSError as exc:
            problems = [AbwInputError(f"cannot read: {exc.strerror}", file=path).one_line()]
        results.append({"file": path, "valid": not problems, "problems": problems})
    return {"valid": all(r["valid"] for r in results), "files": results}


def gate_summary(report: Any) -> dict[str, Any]:
    """What an agent needs from a gate report: verdict, exit code and every check in brief."""
    from abw.verdicts import exit_code

    return {
        "verdict": report.verdict,
        "exit_code": exit_code(report.verdict),
        "summary": report.summary,
        "spec_id": report.spec_id,
        "checks": [
            {
                "id": c.id,
                "category": c.category,
                "verdict": c.verdict,
                "message": c.message,
                "violating_runs": len(c.violations),
            }
            for c in report.checks
        ],
        "inputs_digest": report.inputs.digest,
    }


def _server_class() -> Any:
    """``MCPServer`` whose tool calls report arguments that fail the SDK's validation (it
    checks them against each tool's signature before the tool runs, and its ToolError holds
    pydantic's multi-line text with a link) as one line naming each argument
    (:func:`argument_errors`). ``call_tool`` is where the SDK's request handler and direct
    callers both go through."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from pydantic import ValidationError

    class AbwServer(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                    raise
                line = argument_errors(cause, name)
                # the cause stays: the SDK logs the rejected fields' names (never their values)
                raise ToolError(f"Error executing tool {name}: {line}") from cause

    return AbwServer


def build_server() -> Any:
    """The MCP server with its tools, resources and prompt."""
    from abw import __version__

    server = _server_class()(
        name="abw",
        version=__version__,
        instructions=(
            "abw gates AI agents on recorded behavior: tool order, required and forbidden "
            "tools, rules, value assertions and sample statistics. Give it paths to traces "
            "(agent-behavior-trace/v0) and a behavior spec or contract; it never calls a model."
        ),
    )

    @server.tool(name="abw_validate", description="Validate abw files against their schemas.")
    def abw_validate(paths: list[str]) -> dict[str, Any]:
        """Check trace, spec, contract, report or trajectory files without comparing them."""
        return validate_paths(paths)

    @server.tool(
        name="abw_gate",
        description="Gate candidate traces against baseline traces under a spec or contract.",
    )
    def abw_gate(
        baseline: str, candidate: str, spec: str | None = None, contract: str | None = None
    ) -> dict[str, Any]:
        """Return the verdict (PASS/WARN/FAIL/INCONCLUSIVE), the exit code and every check."""
        with _tool_errors(baseline=baseline, candidate=candidate, spec=spec, contract=contract):
            return gate_summary(_gate_report(baseline, candidate, spec, contract))

    @server.tool(
        name="abw_explain",
        description="Explain one check: what it compared, the violating spans, and why.",
    )
    def abw_explain(
        check_id: str,
        report: str | None = None,
        baseline: str | None = None,
        candidate: str | None = None,
        spec: str | None = None,
        contract: str | None = None,
    ) -> str:
        """Explain ``check_id`` of a gate-report.json, or of a gate run on the given paths."""
        from abw.explain import explain

        paths = dict(report=report, baseline=baseline, candidate=candidate, spec=spec)
        with _tool_errors(**paths, contract=contract):
            gated = _gate_report(baseline, candidate, spec, contract, report)
            return explain(gated, check_id, argument="check_id")

    @server.tool(
        name="abw_fingerprint",
        description="Stable SHA-256 of a trace's behavior, excluding run metadata.",
    )
    def abw_fingerprint(trace: str, with_content: bool = False) -> dict[str, Any]:
        """Span types, names, statuses, order and canonical output; ids and times excluded."""
        from abw.fingerprint import fingerprint
        from abw.traceio import load_trace

        with _tool_errors(trace=trace):
            check_paths(trace=trace)
            loaded = load_trace(trace)
        return {
            "file": trace,
            "trace_id": loaded.trace.run.trace_id,
            "fingerprint": fingerprint(loaded.trace, with_content=with_content),
            "with_content": with_content,
        }

    @server.tool(
        name="abw_render",
        description="Render a gate report as json, html, markdown, sarif or junit text.",
    )
    def abw_render(
        format: str = "markdown",
        report: str | None = None,
        baseline: str | None = None,
        candidate: str | None = None,
        spec: str | None = None,
        contract: str | None = None,
    ) -> str:
        """Render an existing gate-report.json, or the report of a gate run on the given paths."""
        from abw.render import render

        paths = dict(report=report, baseline=baseline, candidate=candidate, spec=spec)
        with _tool_errors(**paths, contract=contract):
            name = _report_format(format)  # before the gate runs
            return render(_gate_report(baseline, candidate, spec, contract, report), name)

    _add_resources(server)

    @server.prompt(
        name="gate-agent-upgrade",
        description="Walk through gating an agent upgrade (model, prompt or tool change) with abw.",
    )
    def gate_agent_upgrade(
        baseline: str = "runs/baseline", candidate: str = "runs/candidate"
    ) -> str:
        return UPGRADE_PROMPT.format(baseline=baseline, candidate=candidate)

    return server


def _reader(read: Any) -> Any:
    """A resource handler without parameters (static URI) around ``read``."""

    def handler() -> str:
        return read()

    return handler


def _add_resources(server: Any) -> None:
    from abw.models.registry import KINDS, render_schema

    for schema_id, kind in KINDS.items():
        server.resource(
            f"{SCHEMA_URI}{kind.file_name}",
            name=schema_id,
            description=f"JSON Schema of {schema_id}",
            mime_type="application/schema+json",
        )(_reader(lambda schema_id=schema_id: render_schema(schema_id)))
    for name in EXAMPLE_FILES:
        path = EXAMPLE_DIR / name
        if not path.is_file():
            continue

        mime = {"json": "application/json", "yaml": "application/yaml"}.get(
            path.suffix.lstrip("."), "text/markdown"
        )
        server.resource(
            f"{EXAMPLE_URI}{name}",
            name=f"refund-policy/{name}",
            description=f"The refund-policy example: {name}",
            mime_type=mime,
        )(_reader(lambda path=path: path.read_text(encoding="utf-8")))


UPGRADE_PROMPT = """\
You are gating an agent upgrade (a new model, prompt, memory, policy or tool) with abw.
abw compares recorded behavior only; it never runs the agent and never calls a model.

1. Scenarios. Pick representative tasks; give each a stable scenario id.
2. Baseline. Record the current agent on each scenario several times (at least 10 runs for
   statistics) and import the exports, e.g.
   `abw import claude --input SESSIONS --out {baseline} --scenario-id ID` (codex, otel ...
   work the same way). Name final-answer fields to keep with the importer's output-field option.
3. Contract. Run `abw spec init --baseline {baseline} --out behavior.yaml`, then add what must
   not change: order constraints (policy check before a commit), rules (response,
   absence_after a terminal tool, count and retry limits, argument constraints) and value
   assertions (rank_not_lower for permission decisions, number_delta budgets). Or write an
   agent-behavior-contract/v0 file and use it directly. Check files with `abw_validate`.
4. Candidate. Record the upgraded agent on the same scenarios into {candidate}.
5. Gate. Call `abw_gate` with baseline={baseline}, candidate={candidate} and spec (or
   contract). PASS and WARN ship; FAIL blocks; INCONCLUSIVE means "record more runs".
6. Explain. For every check that is not PASS, call `abw_explain` with its id: it names the
   runs, the span ordinals and the reason. Report them in plain sentences.
7. Record. `abw_render` gives markdown for the pull request; `abw_fingerprint` identifies
   exactly which recorded behavior was gated.
"""


def serve() -> None:
    """Run the server on stdin/stdout until the client closes the connection; without the
    MCP SDK, one line saying how to install it."""
    try:
        server = build_server()
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] != "mcp":
            raise
        raise AbwInputError(
            f"abw serve needs the MCP SDK ({exc.name} is missing): install with "
            "pip install 'agent-behavior-workbench[mcp]'"
        ) from None
    server.run("stdio")
