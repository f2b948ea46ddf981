"""The five schemas by id: their models, their JSON Schema files and stable ``$id``s."""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from abw.models import (
    CONTRACT_SCHEMA,
    REPORT_SCHEMA,
    SPEC_SCHEMA,
    TRACE_SCHEMA,
    TRAJECTORY_SCHEMA,
)

SCHEMA_BASE_URI = "https://raisingagents.is/system/schema/"


@dataclass(frozen=True)
class SchemaKind:
    schema_id: str
    model_path: str  # "module:Class"
    file_name: str

    @property
    def uri(self) -> str:
        return f"{SCHEMA_BASE_URI}{self.schema_id}.json"

    def model(self) -> type[BaseModel]:
        module_name, class_name = self.model_path.split(":")
        return getattr(importlib.import_module(module_name), class_name)


KINDS: dict[str, SchemaKind] = {
    kind.schema_id: kind
    for kind in (
        SchemaKind(TRACE_SCHEMA, "abw.models.trace:Trace", "agent-behavior-trace.v0.json"),
        SchemaKind(SPEC_SCHEMA, "abw.models.spec:Spec", "behavior-spec.v0.json"),
        SchemaKind(REPORT_SCHEMA, "abw.models.report:GateReport", "gate-report.v0.json"),
        SchemaKind(
            CONTRACT_SCHEMA,
            "abw.models.contract:Contract",
            "agent-behavior-contract.v0.json",
        ),
        SchemaKind(
            TRAJECTORY_SCHEMA,
            "abw.models.trajectory:RepresentationTrajectory",
            "representation-trajectory.v0.json",
        ),
    )
}


@cache
def json_schema(schema_id: str) -> dict[str, Any]:
    """The JSON Schema generated from the model of ``schema_id``, with its stable ``$id``."""
    kind = KINDS[schema_id]
    generated = kind.model().model_json_schema(mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": kind.uri,
        **generated,
    }


def render_schema(schema_id: str) -> str:
    """The text of the committed schema file: stable key order, trailing newline."""
    return json.dumps(json_schema(schema_id), indent=2, ensure_ascii=False) + "\n"


def write_schemas(folder: Path) -> list[Path]:
    """Write every schema file into ``folder``; returns the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for schema_id, kind in KINDS.items():
        path = folder / kind.file_name
        path.write_text(render_schema(schema_id), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # python -m abw.models.registry schemas/
    import sys

    for written_path in write_schemas(Path(sys.argv[1] if len(sys.argv) > 1 else "schemas")):
        print(written_path)
