"""Importers turn raw agent exports into ``agent-behavior-trace/v0`` traces.

Built-in importers are listed in :data:`BUILTIN`; third-party adapters register an
:class:`~abw.importers.base.Importer` subclass under the ``abw.importers`` entry-point group and
then appear in ``abw import --help``. See docs/adapters.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from abw.importers.base import Importer

ENTRY_POINT_GROUP = "abw.importers"

# name -> "module:Class"; imported only when used.
BUILTIN: dict[str, str] = {
    "claude": "abw.importers.claude:ClaudeImporter",
    "codex": "abw.importers.codex:CodexImporter",
    "otel": "abw.importers.otel:OtelImporter",
    "any-agent": "abw.importers.otel:AnyAgentImporter",
    "openai-agents": "abw.importers.openai_agents:OpenAIAgentsImporter",
    "langsmith": "abw.importers.langsmith:LangSmithImporter",
    "gemini": "abw.importers.gemini:GeminiImporter",
    "openhands": "abw.importers.openhands:OpenHandsImporter",
    "swe-agent": "abw.importers.swe_agent:SweAgentImporter",
    "agent-invariants": "abw.importers.agent_invariants:AgentInvariantsImporter",
    "behaviorlock": "abw.importers.behaviorlock:BehaviorlockImporter",
}


def _builtin_available(target: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(target.split(":")[0]) is not None


def importer_targets() -> dict[str, str]:
    """Every registered importer: name -> "module:Class" (entry points cannot shadow built-ins)."""
    from importlib.metadata import entry_points

    targets = {name: t for name, t in BUILTIN.items() if _builtin_available(t)}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        targets.setdefault(entry.name, entry.value)
    return dict(sorted(targets.items()))


def importer_target(name: str) -> str | None:
    """The "module:Class" registered as ``name``, or None. A built-in name is answered without
    reading the installed packages' entry points (which cannot shadow it): that scan is a tenth
    of a second of every ``abw import``'s start-up."""
    builtin = BUILTIN.get(name)
    if builtin is not None and _builtin_available(builtin):
        return builtin
    return importer_targets().get(name)


def get_importer(name: str) -> Importer:
    """Instantiate the importer registered as ``name``."""
    from abw.errors import AbwInputError

    target = importer_target(name)
    if target is None:
        known = ", ".join(importer_targets())
        raise AbwInputError(f"unknown importer {name!r} (known: {known})")
    try:
        module_name, class_name = target.split(":")
        importer = getattr(importlib.import_module(module_name.strip()), class_name.strip())()
        str(importer.help)
    except Exception as exc:  # a broken third-party plugin: one line, never a traceback
        from abw.text import exception_words

        raise AbwInputError(
            f"the importer {name!r} ({target}) cannot be loaded: {type(exc).__name__}: "
            f"{exception_words(exc)}"
        ) from None
    return importer
