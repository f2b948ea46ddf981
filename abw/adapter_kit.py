"""The adapter test kit: checks any importer (built-in or third-party) can run on its samples.

Three promises every adapter makes, checked on real sample files:

* **schema** — each trace it returns validates against ``agent-behavior-trace/v0`` (the JSON
  Schema and the model), ordinals run 0..n-1, span ids are unique, parents exist, and each
  span's status agrees with its outcome;
* **redaction** — no content of the raw export survives in the trace: neither a long string
  from the raw file (prompts, commands, paths, tool inputs and outputs; :func:`find_leaks`) nor
  a canary planted into the content fields of a copy of the file (:func:`inject_canaries`);
* **determinism** — importing the same bytes twice gives byte-identical trace files.

Plain functions return lists of problems (empty = fine). For pytest, subclass
:class:`AdapterKit`::

    from abw.adapter_kit import AdapterKit

    class TestMyAdapter(AdapterKit):
        importer = "my-format"            # a registered name, or an Importer instance
        samples = ["tests/data/run1.json"]

Nothing here imports pytest; the class only holds ``test_*`` methods pytest collects.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abw.importers.base import Importer, ImportOptions

#: Keys whose values are content in the raw exports abw knows (any value below them is content).
CONTENT_KEYS = frozenset(
    {
        "text",
        "content",
        "arguments",
        "args",
        "input",
        "inputs",
        "output",
        "outputs",
        "cmd",
        "command",
        "message",
        "thought",
        "thoughts",
        "observation",
        "response",
        "stdout",
        "stderr",
        "aggregated_output",
        "formatted_output",
        "query",
        "queries",
        "result",
        "error",
        "prompt",
        "instructions",
        "cwd",
        "path",
        "summary",
        "last_agent_message",
        "resultDisplay",
        "submission",
        "call_signature",  # agent-invariants: a call's tool and arguments, as one text
    }
)
#: Attribute-list entries (OTLP ``{"key", "value"}``, Jaeger tags) whose key names content.
CONTENT_ATTRIBUTE = re.compile(
    r"(^|\.)(input|output|messages|arguments|result|content|prompt|completion|args|"
    r"system_instructions|query|text)(\.|$|_)|input\.value|output\.value|entity\.(input|output)"
)
#: Span attributes that hold identities (names), not content; exempt from the leak scan.
IDENTITY_ATTRIBUTES = frozenset(
    {
        "agent",
        "tool",
        "label",
        "tool_alias",
        "mcp_server",
        "mcp_tool",
        "namespace",
        "error_type",
        "run_type",
        "model",
    }
)
#: Run fields that hold names a developer set in code (the Agents SDK's ``workflow_name``, its
#: default "Agent workflow"), not content; exempt from the leak scan.
IDENTITY_RUN_FIELDS = frozenset({"workflow_name"})
#: Keys that shape a record (discriminators, names, ids): kept even inside planted content.
STRUCTURAL_KEYS = frozenset(
    {"type", "role", "name", "id", "model", "status", "kind", "timestamp", "stop_reason", "uuid"}
)
CANARY = "ABWCANARY"


def _structural(key: str) -> bool:
    return key in STRUCTURAL_KEYS or key.endswith(("_id", "Id", "ID"))


_HEX64 = re.compile(r"[0-9a-f]{64}")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:?\d\d)?")


@dataclass
class KitReport:
    """What the kit found for one importer; ``ok`` when nothing."""

    importer: str
    samples: int = 0
    traces: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def raise_if_failed(self) -> None:
        if self.problems:
            from abw.text import plural

            head = f"adapter {self.importer!r}: {plural(len(self.problems), 'problem')}"
            raise AssertionError("\n".join([head, *(f"  - {p}" for p in self.problems)]))


def resolve(importer: str | Importer) -> Importer:
    """An importer instance from a registered name (built-in or entry point) or an instance."""
    if isinstance(importer, Importer):
        return importer
    from abw.importers import get_importer

    return get_importer(importer)


def _options(**kwargs: Any) -> ImportOptions:
    return ImportOptions(exported_at="2000-01-01T00:00:00.000000Z", **kwargs)


def _imported(importer: Importer, path: Path, sample: Path, what: str = "") -> list[Any] | str:
    """``importer.import_file(path)``'s traces, or the problem (one line naming ``sample``, and
    ``what`` import it was) when it raises or returns anything but a list of traces (None,
    dicts, a string)."""
    from abw.import_shard import not_traces

    try:
        traces = importer.import_file(path, _options())
    except Exception as exc:
        from abw.text import exception_words

        reason = exception_words(exc)
        detail = reason if reason == type(exc).__name__ else f"{type(exc).__name__}: {reason}"
        return f"{sample.name}: {what or 'import'} failed: {detail}"
    why = not_traces(traces)
    if why is not None:
        return f"{sample.name}: {what}{': ' if what else ''}import_file {why}"
    return list(traces)


# ----------------------------------------------------------------- schema


def check_schema(trace: Any, where: str = "trace") -> list[str]:
    """Problems of one trace against the schema and the span invariants."""
    from abw.importers.spans import OUTCOME_STATUS
    from abw.traceio import parse_trace, render_trace
    from abw.validate import validate_document

    problems: list[str] = []
    text = render_trace(trace)
    for problem in validate_document(json.loads(text), where):
        problems.append(f"{where}: schema: {problem.path}: {problem.message}")
    try:
        parse_trace(text.encode(), where)
    except Exception as exc:
        problems.append(f"{where}: does not load back: {exc}")
    spans = list(trace.spans)
    if [s.ordinal for s in spans] != list(range(len(spans))):
        problems.append(f"{where}: ordinals are not 0..{len(spans) - 1} in order")
    ids = [s.span_id for s in spans]
    if len(set(ids)) != len(ids):
        problems.append(f"{where}: span ids repeat")
    known = set(ids)
    for span in spans:
        if span.parent_span_id is not None and span.parent_span_id not in known:
            problems.append(f"{where}: span {span.ordinal} has an unknown parent")
        if span.outcome is not None and OUTCOME_STATUS.get(span.outcome) != span.status:
            problems.append(
                f"{where}: span {span.ordinal}: status {span.status!r} does not match "
                f"outcome {span.outcome!r}"
            )
        for value in (span.input_hash, span.output_hash):
            if value is not None and not _HEX64.fullmatch(value):
                problems.append(f"{where}: span {span.ordinal}: a hash is not SHA-256 hex")
    if not _HEX64.fullmatch(trace.source.source_hash or ""):
        problems.append(f"{where}: source.source_hash is not SHA-256 hex")
    if not trace.redaction.applied:
        problems.append(f"{where}: redaction.applied is false")
    return problems


# ----------------------------------------------------------------- redaction


def _json_values(raw: bytes) -> list[Any]:
    """The raw file as JSON: one document, JSON Lines, or concatenated objects; else []."""
    text = raw.decode("utf-8", "replace").lstrip("\ufeff")
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        pass
    values: list[Any] = []
    decoder, index = json.JSONDecoder(), 0
    while index < len(text):
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            break
        try:
            value, index = decoder.raw_decode(text, index)
        except json.JSONDecodeError:
            return values
        values.append(value)
    return values


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
        if value[:1] in "{[":
            try:
                inner = json.loads(value)
            except (json.JSONDecodeError, RecursionError):
                return
            yield from _strings(inner)
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield key
            yield from _strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner)


def content_strings(raw: bytes, min_length: int = 12) -> set[str]:
    """Strings of the raw export that look like content: long, with a space, slash or newline."""
    found: set[str] = set()
    values = _json_values(raw)
    candidates: Iterable[str] = (
        (s for v in values for s in _strings(v))
        if values
        else raw.decode("utf-8", "replace").splitlines()
    )
    for text in candidates:
        stripped = text.strip()
        if len(stripped) < min_length or _TIMESTAMP.fullmatch(stripped):
            continue
        if any(ch.isspace() for ch in stripped) or "/" in stripped or "\\" in stripped:
            found.add(stripped)
    return found


def _trace_strings(trace: Any) -> list[tuple[str, str]]:
    """(where, value) for every string in a trace that is not an identity, hash or timestamp."""
    document = trace.model_dump(mode="json", exclude_none=True)
    names = {s.name for s in trace.spans}
    out: list[tuple[str, str]] = []

    def walk(value: Any, where: str) -> None:
        if isinstance(value, str):
            if _HEX64.fullmatch(value) or _TIMESTAMP.fullmatch(value):
                return
            out.append((where, value))
        elif isinstance(value, dict):
            for key, inner in value.items():
                walk(key, f"{where}.<key>")
                walk(inner, f"{where}.{key}")
        elif isinstance(value, list):
            for index, inner in enumerate(value):
                walk(inner, f"{where}[{index}]")

    for key, value in document.items():
        if key == "run":
            for name, inner in value.items():
                if name not in IDENTITY_RUN_FIELDS:
                    walk(inner, f"run.{name}")
        elif key != "spans":
            walk(value, key)
    for span in document.get("spans", []):
        where = f"spans[{span['ordinal']}]"
        for key, value in span.items():
            if key == "name" and value in names:
                continue
            if key == "attributes":
                for name, inner in value.items():
                    if name not in IDENTITY_ATTRIBUTES:
                        walk(inner, f"{where}.attributes.{name}")
                continue
            walk(value, f"{where}.{key}")
    return out


def find_leaks(
    trace: Any, raw: bytes, *, allow: Iterable[str] = (), min_length: int = 12
) -> list[str]:
    """Raw content strings that appear inside a trace (outside span names and identities)."""
    allowed = set(allow)
    content = sorted(content_strings(raw, min_length) - allowed, key=len)
    problems = []
    for where, value in _trace_strings(trace):
        if value in allowed or len(value) < min_length:
            continue
        leak = next((c for c in content if len(c) <= len(value) and c in value), None)
        if leak is not None:
            problems.append(f"raw content copied into {where}: {leak[:40]!r}")
    return problems


def inject_canaries(
    value: Any,
    *,
    keys: Iterable[str] = CONTENT_KEYS,
    keep: Iterable[str] = (),
    counter: list[int] | None = None,
) -> Any:
    """A copy of a raw JSON document with every string under a content key replaced by a unique
    canary (``ABWCANARY<n>``). JSON held in strings (tool arguments) is opened, planted and
    closed again; ``{"key", "value"}`` attribute entries count by their key. ``keep`` names keys
    to leave alone (e.g. an identity an importer is meant to keep)."""
    content_keys, kept = set(keys) - set(keep), set(keep)
    counter = counter if counter is not None else [0]

    def plant(inner: Any) -> Any:
        if isinstance(inner, str):
            if inner[:1] in "{[":
                try:
                    decoded = json.loads(inner)
                except (json.JSONDecodeError, RecursionError):
                    decoded = None
                if isinstance(decoded, dict | list):
                    return json.dumps(plant(decoded))
            counter[0] += 1
            return f"{CANARY}{counter[0]:05d} planted text"
        if isinstance(inner, dict):
            return {k: inner[k] if _structural(k) or k in kept else plant(inner[k]) for k in inner}
        if isinstance(inner, list):
            return [plant(x) for x in inner]
        return inner

    def walk(inner: Any) -> Any:
        if isinstance(inner, dict):
            attribute_key = inner.get("key")
            if (
                isinstance(attribute_key, str)
                and "value" in inner
                and attribute_key not in kept
                and CONTENT_ATTRIBUTE.search(attribute_key)
            ):
                return {**inner, "value": plant(inner["value"])}
            return {k: plant(v) if _content_key(k) else walk(v) for k, v in inner.items()}
        if isinstance(inner, list):
            return [walk(x) for x in inner]
        return inner

    def _content_key(key: str) -> bool:
        """A content key, or a dotted attribute name that holds content (a flat attribute
        object, as the console exporter and any-agent write: ``gen_ai.input.messages``)."""
        if key in kept:
            return False
        return key in content_keys or ("." in key and bool(CONTENT_ATTRIBUTE.search(key)))

    return walk(value)


def canary_copy(source: Path, target_dir: Path, *, keep: Iterable[str] = ()) -> Path | None:
    """Write a canary-planted copy of a JSON / JSON Lines sample, or of a sample folder (a
    conversation folder: each JSON file in it planted); ``None`` if nothing could be planted."""
    target = target_dir / source.name
    counter = [0]
    if source.is_dir():
        import shutil

        shutil.copytree(source, target)
        planted = [_plant(f, f, keep, counter) for f in sorted(target.rglob("*")) if f.is_file()]
        return target if counter[0] and any(planted) else None
    if not _plant(source, target, keep, counter):
        return None
    return target if counter[0] else None


def _plant(source: Path, target: Path, keep: Iterable[str], counter: list[int]) -> bool:
    """Write ``source`` with canaries planted to ``target``; False if it is not JSON."""
    text = source.read_bytes().decode("utf-8", "replace").lstrip("\ufeff")
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        lines = []
        for line in text.splitlines():
            if not line.strip():
                lines.append(line)
                continue
            try:
                lines.append(
                    json.dumps(inject_canaries(json.loads(line), keep=keep, counter=counter))
                )
            except json.JSONDecodeError:
                return False
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        target.write_text(
            json.dumps(inject_canaries(document, keep=keep, counter=counter)), encoding="utf-8"
        )
    return True


def sample_bytes(sample: Path) -> bytes:
    """A sample's raw bytes; a sample folder's files, in name order, one after another (the
    leak scan reads them as concatenated JSON documents)."""
    if not sample.is_dir():
        return sample.read_bytes()
    return b"\n".join(f.read_bytes() for f in sorted(sample.rglob("*")) if f.is_file())


def check_canaries(importer: Importer, sample: Path, *, keep: Iterable[str] = ()) -> list[str]:
    """Import a canary-planted copy of ``sample``; any canary in the output is a leak."""
    from abw.import_shard import not_traces
    from abw.traceio import render_trace

    with tempfile.TemporaryDirectory(prefix="abw-kit-") as folder:
        planted = canary_copy(sample, Path(folder), keep=keep)
        if planted is None:
            return []
        try:
            traces = importer.import_file(planted, _options())
        except Exception as exc:
            from abw.errors import AbwInputError

            if isinstance(exc, AbwInputError):
                return [] if CANARY not in str(exc) else [f"{sample.name}: a canary in an error"]
            return [f"{sample.name}: canary copy crashed the importer: {type(exc).__name__}"]
        why = not_traces(traces)
        if why is not None:
            return [f"{sample.name}: canary copy: import_file {why}"]
        problems = []
        for index, trace in enumerate(traces):
            text = render_trace(trace)
            if CANARY in text:
                at = text.index(CANARY)
                problems.append(
                    f"{sample.name} trace {index}: planted content leaked: "
                    f"...{text[max(0, at - 60) : at + 20]}..."
                )
        return problems


# ----------------------------------------------------------------- determinism


def check_determinism(importer: Importer, sample: Path, *, relocatable: bool = True) -> list[str]:
    """Import the same file twice (and, when ``relocatable``, once from a copy in another
    folder): the bytes must not change. Importers that read sibling files (Claude Code
    subagent transcripts) are not relocatable."""
    import shutil

    from abw.traceio import render_trace

    imports = [_imported(importer, sample, sample) for _ in range(2)]
    failed = [result for result in imports if isinstance(result, str)]
    if failed:
        return failed[:1]
    first, second = ([render_trace(t) for t in result] for result in imports)
    problems = []
    if first != second:
        problems.append(f"{sample.name}: two imports of the same file differ")
    if not relocatable:
        return problems
    with tempfile.TemporaryDirectory(prefix="abw-kit-") as folder:
        copy = Path(folder) / sample.name
        if sample.is_dir():
            shutil.copytree(sample, copy)
        else:
            shutil.copyfile(sample, copy)
        moved = _imported(importer, copy, sample, "import of a copy in another folder")
        if isinstance(moved, str):
            return [*problems, moved]
        third = [render_trace(t) for t in moved]
    if first != third:
        problems.append(f"{sample.name}: the import depends on where the file is")
    return problems


# ----------------------------------------------------------------- all together


def run_adapter_kit(
    importer: str | Importer,
    samples: Iterable[str | Path],
    *,
    keep: Iterable[str] = (),
    allow: Iterable[str] = (),
    checks: Iterable[str] = ("schema", "redaction", "canaries", "determinism"),
    relocatable: bool = True,
) -> KitReport:
    """Run the kit's checks on every sample; ``keep``/``allow`` exempt declared identities."""
    adapter = resolve(importer)
    report = KitReport(getattr(adapter, "name", type(adapter).__name__))
    wanted = set(checks)
    keep, allow = tuple(keep), tuple(allow)
    for sample in (Path(s) for s in samples):
        report.samples += 1
        traces = _imported(adapter, sample, sample)
        if isinstance(traces, str):  # it raised, or returned None, dicts, a string ...
            report.problems.append(traces)
            continue
        if not traces:
            report.problems.append(f"{sample.name}: no trace was returned")
        report.traces += len(traces)
        raw = sample_bytes(sample)
        for index, trace in enumerate(traces):
            where = f"{sample.name}[{index}]"
            if "schema" in wanted:
                report.problems += check_schema(trace, where)
            if "redaction" in wanted:
                report.problems += [f"{where}: {p}" for p in find_leaks(trace, raw, allow=allow)]
        if "canaries" in wanted:
            report.problems += check_canaries(adapter, sample, keep=keep)
        if "determinism" in wanted:
            report.problems += check_determinism(adapter, sample, relocatable=relocatable)
    return report


def assert_adapter_ok(
    importer: str | Importer, samples: Iterable[str | Path], **kwargs: Any
) -> KitReport:
    """:func:`run_adapter_kit`, raising ``AssertionError`` with every problem found."""
    report = run_adapter_kit(importer, samples, **kwargs)
    if report.samples == 0:
        raise AssertionError("the adapter kit was given no samples")
    report.raise_if_failed()
    return report


class AdapterKit:
    """Subclass in a test module (name it ``Test...``) to run the kit under pytest.

    Set ``importer`` (a registered name or an instance) and ``samples`` (paths); optionally
    ``keep`` (raw keys the adapter deliberately keeps, e.g. an agent name it uses as a span
    name) and ``allow`` (raw strings it may copy).
    """

    importer: str | Importer | Callable[[], Importer] = ""
    samples: Iterable[str | Path] = ()
    keep: Iterable[str] = ()
    allow: Iterable[str] = ()
    relocatable: bool = True

    def _run(self, check: str) -> None:
        importer = self.importer
        if callable(importer) and not isinstance(importer, Importer):
            importer = importer()
        assert_adapter_ok(
            importer,
            list(self.samples),
            keep=self.keep,
            allow=self.allow,
            checks=(check,),
            relocatable=self.relocatable,
        )

    def test_schema(self) -> None:
        self._run("schema")

    def test_redaction_no_raw_content(self) -> None:
        self._run("redaction")

    def test_redaction_canaries(self) -> None:
        self._run("canaries")

    def test_determinism(self) -> None:
        self._run("determinism")
