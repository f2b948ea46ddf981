"""OpenTelemetry traces of agents: OTLP/JSON, Jaeger JSON, and the Python console exporter.

Accepted encodings (detected from the content):

* OTLP/JSON: one ``ExportTraceServiceRequest`` per line (or one per file); hex or base64 ids;
  ``intValue`` as a string or a number; spans in any order (children before parents). Grafana
  Tempo's trace-by-id answers hold the same ResourceSpans (v1 under ``batches``, v2 under
  ``trace``; a PARTIAL one is refused), Jaeger's API v3 under ``result``. A cut-off last line
  of JSON Lines (no line break, no JSON) is skipped with a warning.
* Jaeger UI "Download JSON": ``{"data": [{"traceID", "spans", "processes"}]}``.
* Python ``ConsoleSpanExporter`` / ``ReadableSpan.to_json()``: pretty-printed objects one after
  another; a span written twice (start snapshot, then ended) is kept once, ended.

A trace whose spans lie in several files of a folder (rotated files, one POST a file) is read
from all of them and written with the first (:mod:`abw.importers.siblings`).

A file that is not JSON Lines (its first line is no whole JSON value) is reported where the
document breaks. Span types come from semantics, in this order: Claude Code's own span names
(``claude_code.*``) > ``openinference.span.kind`` > ``gen_ai.operation.name`` (standard and the
non-standard ``agent_handoff``/``guardrail_check``; Spring AI 1.x's ``framework`` tool calls,
``spring.ai.kind`` ``tool_call``) > framework keys (OpenLLMetry's
``llm.request.type`` and ``traceloop.span.kind``, ``ai.toolCall.*``) > the name prefix >
Google ADK's names (``call_llm``, ``agent_run [<agent>]``). Agent, chain and infrastructure
spans are not emitted; they only order and scope their children; an llm span that is the only
llm child of an llm span and records its input, none, or one in another instrumentation's shape
(one request traced twice) is not either, nor is an llm span without tokens around llm spans
with them (a wrapper: LlamaIndex's ``structured_predict``). Content comes from attributes, else
from the GenAI content events (Strands Agents). Every ``traceId`` becomes its own trace (not one
of only a ``create_agent`` span), but for the many traces of one AutoGen AgentChat team run,
which its messaging spans' span links tie together: one trace under the first's id
(:mod:`.teams`; a Swarm's ``transfer_to_<agent>`` is a handoff, a team run its manager never
terminated cancelled); its final output is any-agent's recorded ``final_output``
where the file has one (else the root's output, else pydantic-ai's ``final_result`` on the
run's own agent span); a run whose root ended well but whose top agent span failed (the OpenAI
Agents SDK over OpenInference) failed, and one whose last own call was cancelled (pydantic-ai)
cancelled; a run whose root was never exported (several top spans naming one absent parent:
smolagents over OpenInference when the run raised) ends as its last top span failed, else
unknown. A call whose exception is a ``KeyboardInterrupt`` or
``CancelledError`` was interrupted (a run so stopped: cancelled), and an Agents SDK tool call a
person rejected (its status message) rejected; a guardrail its tripwire names is denied, and
the run it ended an error. A Strands agent span ended with ``strands.cancellation.type`` is a
cancelled run. OpenInference's LangChain ``AGENT`` spans that are a tool (``tool.name``) are
tools, and LangGraph's model node ``agent`` is no agent; OpenLLMetry's ``execute_task <graph>``
beside an ``invoke_agent <graph>`` runs that agent, and its record of a LangChain tool call
gives the call's ``inputs`` as the arguments. See docs/importers.md.

The package, lowest module first: ``span`` (the format-neutral span), ``encodings`` (a file into
spans), ``teams`` (an AutoGen team run's traces as one), ``classify`` (what each span is),
``content``, ``arguments``, ``attributes``, ``outcomes``, ``answer`` (the run's final output),
``fold`` (one request traced twice) and ``build`` (the trace); this module holds the importers.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from abw.errors import AbwInputError
from abw.hashing import sha256_hex
from abw.importers.base import ImportOptions
from abw.importers.otel.build import build_trace
from abw.importers.otel.classify import is_agent_run
from abw.importers.otel.encodings import read_spans
from abw.importers.otel.teams import join_team_runs
from abw.importers.rawio import read_raw
from abw.importers.siblings import Holdings, SplitExportImporter
from abw.importers.spans import ABSENT
from abw.importers.tree import group_by_trace
from abw.text import plural

if TYPE_CHECKING:
    from abw.models.trace import Trace


class OtelImporter(SplitExportImporter):
    name: ClassVar[str] = "otel"
    platform: ClassVar[str] = "otel"
    export_format: ClassVar[str] = "otlp-json"
    supports_argument_fields: ClassVar[bool] = True
    help: ClassVar[str] = (
        "OpenTelemetry agent traces: OTLP/JSON lines (GenAI semconv, OpenInference), Jaeger "
        "JSON, console-exporter spans. One trace per traceId. --argument-fields reads tool spans' "
        "gen_ai.tool.call.arguments / ai.toolCall.args / input.value (its kwargs) / "
        "gcp.vertex.agent.tool_call_args / traceloop.entity.input (its kwargs) / "
        "spring.ai.tool.call.arguments."
    )
    #: a rotated file, one of a processor's several POSTs: each span once
    records_exported_once: ClassVar[bool] = True

    @staticmethod
    def holdings(path: Path) -> Holdings:
        return _holdings(path)

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        raw = read_raw(path)
        spans, encoding, recorded, cut_off = read_spans(raw, path, options.warnings)
        if not spans:
            raise AbwInputError("the export holds no spans", file=path)
        share = self._siblings.share(path, {s.trace_id for s in spans}, False, options)
        raws = [raw]
        for later in share.later:
            raws.append(read_raw(later))
            more, _, more_recorded, more_cut = read_spans(raws[-1], later, options.warnings)
            for span in more:
                span.line = None  # (a line of another file)
            spans += more
            recorded = more_recorded if recorded is ABSENT else recorded
            cut_off = cut_off or more_cut
        spans = [s for s in spans if s.trace_id in share.own]
        groups = group_by_trace(spans, lambda s: s.trace_id, lambda s: s.start_ns or 0)
        groups = join_team_runs(groups)
        agent_runs = [(trace_id, members) for trace_id, members in groups if is_agent_run(members)]
        skipped = len(groups) - len(agent_runs)
        if not agent_runs:
            raise AbwInputError(
                f"none of the export's {plural(len(groups), 'trace')} holds an agent span "
                "(llm, tool, retriever, handoff, guardrail or agent): nothing to import",
                file=path,
            )
        if skipped:
            options.warn(
                f"{path.name}: skipped {plural(skipped, 'trace')} with no agent span (an "
                "application's other traces: HTTP requests, workflow builds)"
            )
        source_hash = sha256_hex(b"".join(raws))
        return [
            build_trace(
                trace_id,
                members,
                source_hash,
                path,
                options,
                self.platform,
                encoding,
                recorded,
                cut_off=cut_off,
            )
            for trace_id, members in agent_runs
        ]


def _holdings(path: Path) -> Holdings:
    """The spans of each trace a file holds (its folder's index)."""
    held: dict[str, set[str]] = {}
    for span in read_spans(read_raw(path), path, [])[0]:
        held.setdefault(span.trace_id, set()).add(span.span_id)
    return held


class AnyAgentImporter(OtelImporter):
    """any-agent (mozilla-ai): the ``AgentTrace`` JSON it writes (``agent_trace.model_dump_json``:
    ``{"spans": [...], "final_output": ...}``), or its spans exported as OTLP. The same reading
    as ``otel``; ``call_llm`` spans are llm spans, ``execute_tool`` spans tools; the trace's
    ``final_output`` is the run's final output."""

    name: ClassVar[str] = "any-agent"
    platform: ClassVar[str] = "any_agent"
    help: ClassVar[str] = (
        "any-agent traces: its AgentTrace JSON ({spans, final_output}) or OTLP export; call_llm "
        "spans are llm spans. --argument-fields reads execute_tool spans' gen_ai.tool.args."
    )
