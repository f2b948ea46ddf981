"""Pydantic models of the five schemas; the single source of the files in ``schemas/``."""

from __future__ import annotations

TRACE_SCHEMA = "agent-behavior-trace/v0"
SPEC_SCHEMA = "behavior-spec/v0"
REPORT_SCHEMA = "gate-report/v0"
CONTRACT_SCHEMA = "agent-behavior-contract/v0"
TRAJECTORY_SCHEMA = "representation-trajectory/v0"

#: What a document of each schema is, and where it goes: said when one is given in another's
#: place (a contract as --spec, a gate report inside a folder of traces).
SCHEMA_USES = {
    TRACE_SCHEMA: "a trace: it belongs in a --baseline or --candidate folder",
    SPEC_SCHEMA: "a spec: give it as --spec",
    REPORT_SCHEMA: "a gate report: keep reports out of the folders of traces",
    CONTRACT_SCHEMA: "a contract: give it as --contract, or compile it with abw contract compile",
    TRAJECTORY_SCHEMA: "a representation trajectory: it belongs in the --latent folder",
}
