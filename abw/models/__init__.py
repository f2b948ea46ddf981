"""Pydantic models of the five schemas; the single source of the files in ``schemas/``."""

from __future__ import annotations

TRACE_SCHEMA = "agent-behavior-trace/v0"
SPEC_SCHEMA = "behavior-spec/v0"
REPORT_SCHEMA = "gate-report/v0"
CONTRACT_SCHEMA = "agent-behavior-contract/v0"
TRAJECTORY_SCHEMA = "representation-trajectory/v0"
