"""Shared by the property tests and the long fuzz runs (fuzz/run.py): seeds, mutations, targets.

The contract every target obeys: an input either loads/imports, or ends with one
:class:`~abw.errors.AbwInputError` whose message is a single line. Anything else is a crash.
"""

from __future__ import annotations

import copy
import json
import os
import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abw.errors import AbwInputError

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "corpus"
EXAMPLES = REPO / "examples"

#: importer name -> the corpus sub-folders holding its real exports, the main one first
CORPUS_FOLDERS: dict[str, tuple[str, ...]] = {
    "claude": (
        "claude-code",
        "claude-code-live",
        "claude-code-live-more",
        "claude-code-live-third",
        "claude-code-live-versions",
        "claude-code-newest",
        "claude-code-projects",
        "claude-agent-sdk-live",
    ),
    "codex": (
        "codex",
        "codex-forks",
        "codex-headless",
        "codex-live",
        "codex-live-more",
        "codex-live-third",
        "codex-live-versions",
        "codex-subagents",
    ),
    "otel": (
        "otel",
        "otel-cli-telemetry",
        "otel-frameworks",
        "otel-live",
        "otel-live-autogen",
        "otel-live-fourth",
        "otel-live-js",
        "otel-live-more",
    ),
    "openai-agents": (
        "openai-agents",
        "openai-agents-live",
        "agents-sdk-guardrails",
        "js-sdks-live/openai-agents-js",
    ),
    "langsmith": ("langsmith", "langsmith-live", "js-sdks-live/langsmith-js"),
    "gemini": (
        "gemini-cli",
        "gemini-cli-cancels",
        "gemini-cli-headless",
        "gemini-cli-live",
        "gemini-cli-live-more",
        "gemini-cli-live-versions",
        "gemini-cli-newest",
    ),
    "openhands": ("openhands", "openhands-v1"),
    "swe-agent": (
        "swe-agent",
        "mini-swe-agent",
        "mini-swe-agent-live-versions",
        "python-agents-live",
        "python-agents-live-more",
    ),
    "any-agent": ("any-agent", "any-agent-live"),
    "agent-invariants": ("agent-invariants",),
    "behaviorlock": ("behaviorlock",),
}
#: importer name -> its main corpus sub-folder (the fuzz targets' seeds)
CORPUS_DIRS: dict[str, str] = {name: folders[0] for name, folders in CORPUS_FOLDERS.items()}

FOUND = REPO / "fuzz" / "found"  # inputs that once broke the contract (fuzz/found/README.md)
MAX_SEED_BYTES = 64 * 1024  # JSON Lines seeds are cut to this so one execution stays fast
MAX_DOCUMENT_BYTES = 256 * 1024  # whole-document seeds (cutting one would only make it invalid)


# ---------------------------------------------------------------- seeds


def corpus_seeds(importer: str, limit: int = 8) -> list[tuple[str, bytes]]:
    """Real exports for ``importer``, smallest first: JSON documents whole (up to
    MAX_DOCUMENT_BYTES), JSON Lines cut at a line end after MAX_SEED_BYTES."""
    folder = CORPUS / CORPUS_DIRS.get(importer, importer)
    seeds: list[tuple[str, bytes]] = []
    if not folder.is_dir():
        return seeds
    files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))
    files.sort(key=lambda p: p.stat().st_size)  # small first: whole documents
    for path in files:
        if len(seeds) >= limit or path.suffix not in (".json", ".jsonl", ".traj"):
            continue
        if path.name in ("meta.json", "base_state.json") or (
            path.name.startswith("event-") and sum(n.startswith("event-") for n, _ in seeds) >= 2
        ):
            continue  # (a conversation's folder: two of its event files are seeds enough)
        data = path.read_bytes()
        try:
            json.loads(data)
            whole = True
        except ValueError:
            whole = False
        if whole:
            if len(data) > MAX_DOCUMENT_BYTES:
                continue
        elif len(data) > MAX_SEED_BYTES:
            cut = data.rfind(b"\n", 0, MAX_SEED_BYTES)
            data = data[: cut + 1] if cut > 0 else data[:MAX_SEED_BYTES]
        seeds.append((path.name, data))
    return seeds


def minimal_trace_doc(n_spans: int = 3, trace_id: str = "run-1") -> dict:
    """A small valid ``agent-behavior-trace/v0`` document."""
    names = ["lookup_order", "check_fraud_policy", "issue_refund", "notify"]
    return {
        "schema_version": "agent-behavior-trace/v0",
        "source": {"platform": "fuzz", "export_format": "json", "source_hash": "0" * 64},
        "run": {"trace_id": trace_id, "scenario_id": "s1", "final_status": "success"},
        "spans": [
            {
                "span_id": f"s{i}",
                "ordinal": i,
                "type": "tool" if i % 3 else "llm",
                "name": names[i % len(names)],
                "status": "success" if i % 5 else "error",
                "input_hash": f"{i:064x}",
                "attributes": {},
            }
            for i in range(n_spans)
        ],
        "redaction": {"applied": True, "method": "hash-only", "removed_fields": []},
    }


def trace_seeds() -> list[tuple[str, bytes]]:
    """Valid traces: one-span-per-line layout via write_trace, plus a compact one."""
    from abw.models.trace import Trace
    from abw.traceio import render_trace

    seeds = []
    for n in (0, 1, 4, 12):
        doc = minimal_trace_doc(n, trace_id=f"seed-{n}")
        seeds.append((f"seed-{n}.json", render_trace(Trace.model_validate(doc)).encode()))
    seeds.append(("compact.json", json.dumps(minimal_trace_doc(5)).encode()))
    for path in sorted(EXAMPLES.rglob("*.json"))[:6]:
        seeds.append((path.name, path.read_bytes()[:MAX_SEED_BYTES]))
    return seeds + found_seeds("trace-*.json")


def corpus_traces(per_importer: int = 3) -> list[tuple[str, bytes]]:
    """Traces imported from real sessions of the corpus (Claude Code, Codex), as written."""
    from abw.importers import get_importer
    from abw.importers.base import ImportOptions
    from abw.traceio import render_trace

    found = []
    for name in ("claude", "codex"):
        importer = get_importer(name)
        for path in sorted((CORPUS / CORPUS_DIRS[name]).rglob("*.jsonl"))[:per_importer]:
            options = ImportOptions(exported_at="2026-01-01T00:00:00Z")
            for trace in list(importer.import_file(path, options))[:1]:
                found.append((f"{name}-{path.name}", render_trace(trace).encode()))
    return found


def found_seeds(pattern: str) -> list[tuple[str, bytes]]:
    """The inputs in fuzz/found/ matching ``pattern``."""
    return [(p.name, p.read_bytes()) for p in sorted(FOUND.glob(pattern))]


SPEC_SEED = b"""schema_version: behavior-spec/v0
id: refund-policy
name: Refund policy
invariants:
  required_tools: [lookup_order, check_fraud_policy]
  forbidden_tools: [delete_account]
  required_order:
    - {before: check_fraud_policy, after: issue_refund}
    - {before: "lookup_*", after: "refund_*"}
  max_path_length: 10
  max_errors: 1
  max_retries: 0
output:
  required_fields: [decision]
  expected: {decision: approved}
thresholds:
  min_runs: 5
  min_wilson_pass_rate: 0.75
  sprt: {enabled: true, p0: 0.95, p1: 0.8}
"""


def spec_seeds() -> list[tuple[str, bytes]]:
    """A full hand-written spec plus the example specs once they exist."""
    seeds = [("spec.yaml", SPEC_SEED)]
    seeds += [(p.name, p.read_bytes()) for p in sorted(EXAMPLES.rglob("*.y*ml"))][:4]
    return seeds + found_seeds("*.yaml")


# ---------------------------------------------------------------- mutations

HUGE_VALUES: list[object] = [
    10**400,
    -(10**30),
    1e308,
    "x" * 100_000,
    "\u202e\x00\x1b[31m<script>alert(1)</script>",
    [],
    {},
    None,
    True,
    -1,
    0,
    2**63,
    2**70 + 1,
    1.0,
    "",
]


def _swap_value(value: object, rng: random.Random) -> object:
    """Replace a JSON value by one of another type (or a huge/odd one): a fresh copy, so a
    shared list or dict changed in place later never comes to hold itself."""
    return copy.deepcopy(rng.choice(HUGE_VALUES))


def _walk(doc: object, rng: random.Random, depth: int = 0) -> object:
    """Mutate one random node of a parsed JSON document (type swap, drop, duplicate)."""
    if isinstance(doc, dict) and doc:
        key = rng.choice(sorted(doc, key=str))
        roll = rng.random()
        if roll < 0.25:
            doc[key] = _swap_value(doc[key], rng)
        elif roll < 0.35:
            del doc[key]
        elif roll < 0.45:
            doc[str(key) + "_"] = doc[key]
        else:
            doc[key] = _walk(doc[key], rng, depth + 1)
        return doc
    if isinstance(doc, list) and doc:
        index = rng.randrange(len(doc))
        roll = rng.random()
        if roll < 0.2:
            doc[index] = _swap_value(doc[index], rng)
        elif roll < 0.35:
            doc.append(doc[index])  # duplicate element: duplicate ids, ordinals
        elif roll < 0.45:
            del doc[index]
        else:
            doc[index] = _walk(doc[index], rng, depth + 1)
        return doc
    if rng.random() < 0.5:
        return _swap_value(doc, rng)
    return doc


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One random structural or byte-level mutation of ``data``."""
    kind = rng.randrange(10)
    if kind == 0 and data:  # truncate
        return data[: rng.randrange(len(data))]
    if kind == 1 and data:  # flip bytes
        buf = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
        return bytes(buf)
    if kind == 2:  # deep nesting
        depth = rng.choice([100, 1_000, 5_000, 100_000])
        nest = b"[" * depth + b"]" * depth
        return nest if rng.random() < 0.5 else data + b"\n" + nest + b"\n"
    if kind == 3:  # NaN / Infinity in place of numbers
        token = rng.choice([b"NaN", b"Infinity", b"-Infinity", b"1e999", b"-0"])
        buf = bytearray(data)
        digits = [i for i, c in enumerate(buf) if 48 <= c <= 57]
        if digits:
            at = rng.choice(digits)
            return bytes(buf[:at] + token + buf[at + 1 :])
        return data + token
    if kind == 4 and data:  # duplicate a line (duplicate ids, repeated records)
        lines = data.split(b"\n")
        at = rng.randrange(len(lines))
        lines.insert(at, lines[at])
        return b"\n".join(lines)
    if kind == 5:  # invalid UTF-8 / BOM / NUL
        junk = rng.choice([b"\xff\xfe", b"\xef\xbb\xbf", b"\x00", b"\xc3\x28", b"\r\n"])
        at = rng.randrange(len(data) + 1)
        return data[:at] + junk + data[at:]
    # JSON-aware: mutate a whole document, or one JSON line of a JSONL file
    lines = data.split(b"\n")
    candidates = [i for i, line in enumerate(lines) if line.strip()[:1] in (b"{", b"[")]
    try:
        doc = json.loads(data)
        return json.dumps(_walk(doc, rng)).encode()
    except (ValueError, RecursionError):
        pass
    if candidates:
        at = rng.choice(candidates)
        try:
            doc = json.loads(lines[at])
        except (ValueError, RecursionError):
            return data
        lines[at] = json.dumps(_walk(doc, rng)).encode()
        return b"\n".join(lines)
    return data[::-1]


#: What :func:`wrong_typed` puts in place of a field: containers where text or a number is
#: read (``x in {...}`` with a list raises), and scalars where a container is walked.
WRONG_TYPES: tuple[object, ...] = ([], {}, 1.5, "x")


class _Deleted:
    """:data:`DELETED`: the field is removed (a key; an array element is left as it is)."""

    def __repr__(self) -> str:
        return "DELETED"


#: A value for :func:`wrong_typed` that deletes the field instead of replacing it.
DELETED: object = _Deleted()


def _fields(doc: object, at: tuple = ()) -> list[tuple[tuple, object]]:
    """Every (path, value) below ``doc``, depth first (paths of keys and indexes)."""
    found: list[tuple[tuple, object]] = []
    if isinstance(doc, dict):
        items: Any = doc.items()
    else:
        items = enumerate(doc) if isinstance(doc, list) else ()
    for key, value in items:
        found.append(((*at, key), value))
        found += _fields(value, (*at, key))
    return found


def _replaced(doc: object, path: tuple, value: object) -> object:
    """A copy of ``doc`` with the value at ``path`` replaced (removed: :data:`DELETED`)."""
    doc = copy.deepcopy(doc)
    holder = doc
    for key in path[:-1]:
        holder = holder[key]  # type: ignore[index]
    if value is DELETED:
        del holder[path[-1]]  # type: ignore[attr-defined]
    else:
        holder[path[-1]] = copy.deepcopy(value)  # type: ignore[index]
    return doc


def wrong_typed(data: bytes, values: tuple[object, ...] = WRONG_TYPES) -> list[tuple[str, bytes]]:
    """``data`` (a JSON document, or JSON Lines) with one field at a time given a value of
    another type (each of ``values``; :data:`DELETED` removes it), each field once whatever
    its indexes
    (``messages.3.type`` as ``messages.#.type``) and, in JSON Lines, once per kind of record
    (the lines with the same keys): (where, input) pairs. A seed that is no JSON gives none."""
    try:
        documents, lines = [json.loads(data)], False
    except ValueError:
        try:
            documents = [json.loads(line) if line.strip() else None for line in data.split(b"\n")]
            lines = True
        except ValueError:
            return []
    out: list[tuple[str, bytes]] = []
    seen: set[tuple] = set()
    for at, document in enumerate(documents):
        # a JSON Lines file's kinds of record differ in their keys (a call, its result)
        kind = tuple(sorted(document)) if lines and isinstance(document, dict) else ()
        for path, value in _fields(document):
            shape = (kind, *("#" if isinstance(k, int) else k for k in path))
            for wrong in values:
                if (shape, repr(wrong)) in seen or (type(value) is type(wrong) and value == wrong):
                    continue
                if wrong is DELETED and isinstance(path[-1], int):
                    continue  # (an element: the array's length is the format's business)
                seen.add((shape, repr(wrong)))
                changed = _replaced(document, path, wrong)
                if lines:
                    texts = [b"" if d is None else json.dumps(d).encode() for d in documents]
                    texts[at] = json.dumps(changed).encode()
                    text = b"\n".join(texts)
                else:
                    text = json.dumps(changed).encode()
                shown = "deleted" if wrong is DELETED else f"= {json.dumps(wrong)}"
                where = ".".join(map(str, path)) + f" {shown}"
                out.append((f"line {at + 1}: {where}" if lines else where, text))
    return out


# ---------------------------------------------------------------- targets


@dataclass
class Target:
    """A function of one input file; ``suffix`` is the name the file gets."""

    name: str
    suffix: str
    run: Callable[[Path], object]
    seeds: list[tuple[str, bytes]]


def _trace_target(path: Path) -> object:
    from abw.traceio import load_trace

    return load_trace(path)


def _spec_target(path: Path) -> object:
    from abw.specio import load_spec

    return load_spec(path)


def _validate_target(path: Path) -> object:
    from abw.validate import validate_file

    return validate_file(path)


def _fenced_target(path: Path) -> object:
    from abw.importers.common import extract_canonical_output
    from abw.importers.swe_agent import bash_command

    text = path.read_bytes().decode("utf-8", "replace")
    bash_command(text)
    return extract_canonical_output(text, ("decision", "a.b"))


def _reader_target(path: Path) -> object:
    """The reader's fast path against its exact path on the same bytes: the same value, or the
    same error; anything else is a crash."""
    from abw import reader

    data = path.read_bytes()
    outcomes = []
    for parse in (reader.parse_json, reader._parse_exact):
        try:
            options = {} if parse is reader.parse_json else {"max_objects": None, "what": "it"}
            value = parse(data, path.name, first_line=3, **options)
            outcomes.append(("value", typed(value), None))
        except AbwInputError as exc:
            outcomes.append(("error", exc.one_line(), exc))
    (kind, fast, error), exact = outcomes
    if (kind, fast) != exact[:2]:
        raise AssertionError(f"fast path {kind} {str(fast)[:200]!r}, exact {str(exact[1])[:200]!r}")
    if error is not None:
        raise error
    return fast


def typed(value: object) -> object:
    """``value`` with every type spelled out (1, 1.0 and True differ; so do 0.0 and -0.0)."""
    if isinstance(value, dict):
        return ("object", [(key, typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("array", [typed(item) for item in value])
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


def reader_seeds() -> list[tuple[str, bytes]]:
    """Lines and documents of every corpus format, and the reader's found inputs."""
    seeds: list[tuple[str, bytes]] = []
    for name in CORPUS_DIRS:
        for file_name, data in corpus_seeds(name, limit=2):
            if file_name.endswith(".jsonl"):
                lines = [line for line in data.split(b"\n") if line.strip()][:4]
                seeds += [(f"{file_name}-{n}.json", line) for n, line in enumerate(lines)]
            else:
                seeds.append((file_name, data))
    return seeds + found_seeds("reader-*")


def _importer_target(name: str) -> Callable[[Path], object]:
    from abw.importers import get_importer
    from abw.importers.base import ImportOptions
    from abw.traceio import render_trace

    cache: list = []

    def run(path: Path) -> object:
        if not cache:  # resolved on first use, so collecting tests never imports importers
            cache.append(get_importer(name))
        traces = cache[0].import_file(path, ImportOptions(exported_at="2026-01-01T00:00:00Z"))
        for trace in traces:  # what `abw import` writes must serialise too
            render_trace(trace)
        return traces

    return run


def available_importers() -> list[str]:
    from abw.importers import importer_targets

    return [name for name in importer_targets() if name in CORPUS_DIRS]


def targets() -> list[Target]:
    """Every fuzz target available in this checkout."""
    found = [
        Target("trace", ".json", _trace_target, trace_seeds()),
        Target("spec", ".yaml", _spec_target, spec_seeds()),
        Target(
            "validate",
            ".json",
            _validate_target,
            trace_seeds() + spec_seeds() + found_seeds("validate-*"),
        ),
        Target(
            "fenced",
            ".txt",
            _fenced_target,
            [
                ("answer.txt", b'Done.\n```json\n{"decision": "ok"}\n```\n'),
                *found_seeds("answer-*.txt"),
            ],
        ),
        Target("reader", ".json", _reader_target, reader_seeds()),
    ]
    for name in available_importers():
        seeds = corpus_seeds(name) + found_seeds(f"import-{name}-*")
        suffix = Path(seeds[0][0]).suffix if seeds else ".jsonl"
        found.append(Target(f"import:{name}", suffix, _importer_target(name), seeds))
    return found


class Crash(Exception):
    """The contract was broken: an exception other than AbwInputError, or a multi-line error."""


def check_contract(target: Target, data: bytes, suffix: str | None = None) -> str:
    """Run ``target`` on ``data`` in a fresh temp file; 'ok' or 'error', else raise Crash."""
    fd, name = tempfile.mkstemp(suffix=suffix or target.suffix, prefix="abw-fuzz-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        try:
            target.run(Path(name))
        except AbwInputError as exc:
            text = exc.one_line()
            if "\n" in text or "\r" in text:
                raise Crash(f"multi-line error: {text!r}") from exc
            return "error"
        except Exception as exc:  # RecursionError, KeyError, TypeError, ...
            raise Crash(f"{type(exc).__name__}: {exc}"[:500]) from exc
        return "ok"
    finally:
        os.unlink(name)
