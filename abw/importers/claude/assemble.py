"""Put a session and its subagents together: link, order, number, and build the trace.

Order: the session's spans in file order; each subagent's spans directly after the handoff span
of the ``Task``/``Agent`` call that spawned it (depth first), with ``parent_span_id`` = that
handoff span. Ordinals and span ids (``span-0000``) follow this order.
"""

from __future__ import annotations

import re
from typing import Any

from abw.hashing import content_hash
from abw.importers.base import ImportOptions
from abw.importers.claude.parser import FILE, MAIN, Draft, FileParser
from abw.importers.claude.reader import is_warmup_prompt
from abw.importers.common import (
    extract_canonical_output,
    final_output_hash,
    record_kept_arguments,
    shown_id,
)
from abw.importers.spans import iso, recorded_start, status_of

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}")
_HELPER_AGENT = re.compile(r"a?(?:compact|prompt_suggestion|side_question)[-_]?", re.IGNORECASE)


def is_helper_agent(agent_id: str | None) -> bool:
    """Claude Code's own helper agents (``acompact-…`` and kin): not agent work."""
    return bool(agent_id) and bool(_HELPER_AGENT.match(agent_id or ""))


def is_warmup(parser: FileParser, agent: str = FILE) -> bool:
    """A cache warm-up sidechain: its first user message is just ``Warmup``."""
    state = parser.agents.get(agent)
    return state is not None and is_warmup_prompt(state.first_user_text)


def safe_id(value: str | None, fallback: str) -> str:
    """An identifier as written when it is a plain id; otherwise a hash of it."""
    for candidate in (value, fallback):
        if candidate and _SAFE_ID.fullmatch(candidate):
            return candidate
    return "claude-" + content_hash(value or fallback)[:32]


def link_subagents(main: FileParser, subs: list[FileParser], options: ImportOptions) -> list:
    """Attach each subagent file to its handoff span — in the main session, or in another
    subagent's transcript (a subagent that started one: ``Agent`` inside a subagent) — and
    return the unlinked ones (top level). A chain of handoffs that does not lead back to the
    main session (a loop) is unlinked too: no span is emitted twice or lost."""
    unlinked: list[FileParser] = []
    found = set()
    parents: dict[int, tuple[Draft, FileParser]] = {}  # id(sub) -> (handoff, its parser)
    for sub in subs:
        agent_id = sub.agent_id
        link = _handoff(agent_id, [main, *(other for other in subs if other is not sub)])
        if link is not None and agent_id in found:
            options.warn(
                f"{sub.name}: a second transcript of subagent {shown_id(agent_id)}; left out"
            )
        elif link is not None:
            parents[id(sub)] = link
            found.add(agent_id)
        elif is_helper_agent(agent_id) or is_warmup(sub):
            continue
        elif sub.drafts.get(FILE):
            options.warn(
                f"{sub.name}: subagent {shown_id(agent_id)} is not linked to any Task call of "
                f"{main.name}; its spans are kept at the end of the trace"
            )
            unlinked.append(sub)
    attached = [main]
    for sub in subs:
        if id(sub) not in parents:
            continue
        if _leads_to_main(sub, main, parents, len(subs)):
            handoff, _ = parents[id(sub)]
            handoff.children.append((sub, FILE))
            attached.append(sub)
        elif sub.drafts.get(FILE):
            options.warn(
                f"{sub.name}: subagent {shown_id(sub.agent_id)} is started by no subagent of "
                f"{main.name}'s; its spans are kept at the end of the trace"
            )
            unlinked.append(sub)
    missing = [
        (parser.name, handoff.line, agent_id)
        for parser in attached
        for agent_id, tool_id in parser.agent_links.items()
        if (handoff := parser.tools.get(tool_id)) is not None
        and agent_id not in found
        and not is_helper_agent(agent_id)
    ]
    for name, line, agent_id in sorted(missing):
        options.warn(
            f"{name}:{line}: no transcript found for subagent {shown_id(agent_id)}; its spans "
            "are missing"
        )
    if not unlinked:  # (an unlinked subagent file may be its transcript: warned about above)
        for line in _unclaimed_task_calls(main):
            options.warn(
                f"{main.name}:{line}: no transcript found for the subagent of this Task call; "
                "its spans are missing"
            )
    return unlinked


def _handoff(agent_id: str | None, parsers: list[FileParser]) -> tuple[Draft, FileParser] | None:
    """The handoff span that started subagent ``agent_id`` and the transcript holding it: the
    first of ``parsers`` whose Task / Agent call names that agent."""
    for parser in parsers:
        handoff = parser.tools.get(parser.agent_links.get(agent_id or "") or "")
        if handoff is not None:
            return handoff, parser
    return None


def _leads_to_main(
    sub: FileParser,
    main: FileParser,
    parents: dict[int, tuple[Draft, FileParser]],
    most: int,
) -> bool:
    """Whether ``sub``'s chain of starting transcripts reaches ``main`` (at most ``most`` steps:
    a loop never does)."""
    parser = sub
    for _ in range(most + 1):
        link = parents.get(id(parser))
        if link is None:
            return False
        parser = link[1]
        if parser is main:
            return True
    return False


def _unclaimed_task_calls(main: FileParser) -> list[int]:
    """The lines of the Task calls that ran (outcome ok) but that no subagent transcript,
    inline or in a file, claims and no ``agentId`` names (1.0.x sessions without the
    sidechain their Task call started)."""
    named = {
        main.tools[tool_id].line for tool_id in main.agent_links.values() if tool_id in main.tools
    }
    return sorted(
        draft.line
        for _, draft in main.task_prompts
        if draft.outcome == "ok" and not draft.children and draft.line not in named
    )


def _ordered(main: FileParser, unlinked: list[FileParser]) -> list[tuple[Draft, Draft | None]]:
    """Every draft with its parent handoff, depth first."""
    out: list[tuple[Draft, Draft | None]] = []

    def emit(parser: FileParser, agent: str, parent: Draft | None) -> None:
        for draft in parser.drafts.get(agent, ()):
            out.append((draft, parent))
            for child_parser, child_agent in draft.children:
                emit(child_parser, child_agent, draft)

    top = MAIN if not main.sidechain_file else FILE
    keys = [top, *(k for k in main.unlinked_inline if k not in main.excluded_inline)]
    if len(keys) > 1:  # unlinked inline sidechains stay where they appear in the file
        merged = sorted(
            (d for k in keys for d in main.drafts.get(k, ())), key=lambda d: (d.line, d.block)
        )
        main.drafts["__top__"] = merged
        top = "__top__"
    emit(main, top, None)
    for sub in unlinked:
        emit(sub, FILE, None)
    return out


def _final_status(main: FileParser) -> str:
    agent = FILE if main.sidechain_file else MAIN
    state = main.agents.get(agent)
    if state is None or main.cut_off:  # (a lost last line may have held calls, or more)
        return "unknown"
    if any(d.outcome == "incomplete" for d in main.drafts.get(agent, ()) if d.type != "llm"):
        return "unknown"
    ends = {
        "text": "success",
        "interrupt": "cancelled",
        "api_error": "error",
        "max_turns": "error",
        "hook_halt": "error",
    }
    return ends.get(state.last_event or "", "unknown")


def _span(draft: Draft, ordinal: int, parent: Draft | None, main: FileParser) -> dict[str, Any]:
    attributes = dict(draft.attributes)
    attributes["agent"] = "main" if draft.agent == MAIN else "subagent"
    if draft.agent_id and _SAFE_ID.fullmatch(draft.agent_id):
        attributes["agent_id"] = draft.agent_id
    if draft.type == "llm":
        draft.output_hash = content_hash(draft.block_hashes)
    span: dict[str, Any] = {
        "span_id": draft.span_id,
        "ordinal": ordinal,
        "type": draft.type,
        "name": draft.name,
        "status": status_of(draft.outcome),
        "input_hash": draft.input_hash,
        "output_hash": draft.output_hash,
        "attributes": dict(sorted(attributes.items())),
        "parent_span_id": parent.span_id if parent is not None else None,
        "outcome": draft.outcome,
        "started_at": iso(draft.started),
        "duration_ms": draft.duration_ms,
        "source_ref": {"file": draft.file, "line": draft.line},
    }
    return span


def build_trace(main: FileParser, subs: list[FileParser], options: ImportOptions) -> Any:
    """The redacted trace of one session (with its subagents), with the argument fields its
    spans keep recorded."""
    from abw.importers.claude import ClaudeImporter
    from abw.models.trace import Trace

    unlinked = [] if main.sidechain_file else link_subagents(main, subs, options)
    ordered = _ordered(main, unlinked)
    for ordinal, (draft, _) in enumerate(ordered):
        draft.span_id = f"span-{ordinal:04d}"
    spans = [_span(draft, i, parent, main) for i, (draft, parent) in enumerate(ordered)]
    agent = FILE if main.sidechain_file else MAIN
    final_text = main.agents[agent].final_text if agent in main.agents else None
    children = [p for d, _ in ordered for p, _ in d.children if p is not main]
    included = list({id(p): p for p in [main, *children, *unlinked]}.values())
    removed = set().union(*(p.removed for p in included))
    fallback = main.path.stem
    trace_id = safe_id(main.session_id, fallback)
    if main.sidechain_file and main.session_id and main.agent_id:
        trace_id = safe_id(f"{main.session_id}/agent-{main.agent_id}", fallback)
    source: dict[str, Any] = {
        "platform": ClaudeImporter.platform,
        "export_format": ClaudeImporter.export_format,
        "exported_at": options.exported_at,
        "source_hash": main.sha256,
    }
    extra = sorted((p.name, p.sha256) for p in included if p is not main)
    if extra:
        source["subagent_files"] = [{"file": name, "sha256": digest} for name, digest in extra]
    document = {
        "source": source,
        "run": {
            "trace_id": trace_id,
            "scenario_id": options.scenario_id,
            "environment": options.environment,
            "final_status": _final_status(main),
            "final_output_hash": final_output_hash(final_text),
            "canonical_output": extract_canonical_output(final_text, options.output_fields),
            **({"agent_version": main.agent_version} if main.agent_version else {}),
            **recorded_start((span["started_at"] for span in spans), main.first_time),
        },
        "spans": spans,
        "redaction": {"applied": True, "method": "hash-only", "removed_fields": sorted(removed)},
    }
    return record_kept_arguments(Trace.model_validate(document))
