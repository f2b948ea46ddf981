"""Generate large, realistic benchmark inputs from the real corpus (into benchmarks/tmp/).

    python benchmarks/gen_inputs.py sessions --mb 500      # Claude Code session folder
    python benchmarks/gen_inputs.py traces --baseline 1000 --candidate 10000

*sessions*: the real Claude Code transcripts of tests/corpus/claude-code (main sessions, not
the subagent files), copied again and again with fresh ids — every UUID in a copy gets a
copy-specific prefix, so each copy is a distinct session with the same structure — until the
folder holds the requested size.

*traces*: N runs of ≈50 spans per side. The tool paths are real: they are the paths of the
corpus sessions as ``abw import claude`` reads them, cut or cycled to ≈40 tool spans with ≈10
llm spans between them. Each scenario has a pool of path variants (small edits of its template)
drawn with Zipf-like weights, plus some one-off variants; about 3% of tool spans fail and some
failures are retried, as in real runs. A spec (required tools, an order constraint, limits) is
written next to them, as ``abw spec init`` would write it from the templates: its order holds
in every template, so the candidates are mostly healthy runs and the variants are the
regressions. Everything is deterministic for a given --seed.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CORPUS, REPO, TMP, folder_bytes

UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def claude_sessions() -> list[Path]:
    """The corpus's main Claude Code session files (subagent/agent files left out); without the
    corpus (a fresh clone elsewhere), the example's Claude Code transcripts."""
    folder = CORPUS / "claude-code"
    found = sorted(
        p
        for p in folder.glob("*.jsonl")
        if "__subagents__" not in p.name and not p.name.split("__")[-1].startswith("agent-")
    )
    if not found:
        found = sorted((REPO / "examples" / "refund-policy" / "transcripts").rglob("*.jsonl"))
    if not found:
        raise SystemExit("no Claude Code transcripts found (tests/corpus or examples/)")
    return found


def gen_sessions(out: Path, megabytes: int) -> Path:
    """A folder of ≥ ``megabytes`` MB of Claude Code sessions with fresh ids."""
    out.mkdir(parents=True, exist_ok=True)
    target = megabytes * 1024 * 1024
    have = folder_bytes(out)
    if have >= target:
        return out
    sources = [(p, p.read_bytes()) for p in claude_sessions()]
    copy = len(list(out.glob("*.jsonl")))
    while have < target:
        for path, data in sources:
            prefix = f"{copy:08x}".encode()
            fresh = UUID.sub(lambda m, p=prefix: p + m.group(0)[8:], data)
            match = UUID.search(path.name.encode())
            stem = (prefix + match.group(0)[8:]).decode() if match else f"{copy:08x}-session"
            (out / f"{stem}.jsonl").write_bytes(fresh)
            have += len(fresh)
            copy += 1
            if have >= target:
                break
    return out


def corpus_paths() -> list[list[str]]:
    """Real tool paths: each corpus session as abw import claude sees it."""
    from abw.importers import get_importer
    from abw.importers.base import ImportOptions

    importer = get_importer("claude")
    paths = []
    for path in claude_sessions():
        for trace in importer.import_file(path, ImportOptions(exported_at="2026-01-01T00:00:00Z")):
            names = [s.name for s in trace.path()]
            if len(names) >= 5:
                paths.append(names)
    return paths


def _fit(path: list[str], length: int, rng: random.Random) -> list[str]:
    """Cut or cycle a real path to ``length`` tool calls, starting at a random offset."""
    start = rng.randrange(len(path))
    return [path[(start + i) % len(path)] for i in range(length)]


def _edit(path: list[str], rng: random.Random, vocabulary: list[str], edits: int) -> list[str]:
    out = list(path)
    for _ in range(edits):
        kind = rng.randrange(3)
        at = rng.randrange(len(out))
        if kind == 0:
            out[at] = rng.choice(vocabulary)
        elif kind == 1 and len(out) > 5:
            del out[at]
        else:
            out.insert(at, rng.choice(vocabulary))
    return out


def _trace_text(run_id: str, scenario: str, tools: list[str], rng: random.Random) -> str:
    from abw.hashing import content_hash

    spans: list[dict] = []
    ordinal = 0

    def add(span_type: str, name: str, status: str, key: object) -> None:
        nonlocal ordinal
        spans.append(
            {
                "span_id": f"span-{ordinal:04d}",
                "ordinal": ordinal,
                "type": span_type,
                "name": name,
                "status": status,
                "input_hash": content_hash(key),
                "output_hash": content_hash([key, status]),
                "attributes": {},
                "duration_ms": round(rng.uniform(5, 900), 3),
            }
        )
        ordinal += 1

    for step, tool in enumerate(tools):
        if step % 4 == 0:
            add("llm", "claude-sonnet-4", "success", [run_id, "llm", step])
        key = [scenario, tool, step]
        if rng.random() < 0.03:
            add("tool", tool, "error", key)
            if rng.random() < 0.5:  # retried with the same input
                add("tool", tool, "success", key)
        else:
            add("tool", tool, "success", key)
    document = {
        "schema_version": "agent-behavior-trace/v0",
        "source": {
            "platform": "claude_code",
            "export_format": "jsonl",
            "exported_at": "2026-01-01T00:00:00Z",
            "source_hash": content_hash(run_id),
        },
        "run": {
            "trace_id": run_id,
            "scenario_id": scenario,
            "final_status": "success",
            "final_output_hash": content_hash([run_id, "final"]),
        },
        "spans": spans,
        "redaction": {"applied": True, "method": "hash-only", "removed_fields": []},
    }
    from abw.models.trace import Trace
    from abw.traceio import render_trace

    return render_trace(Trace.model_validate(document))


def gen_traces(
    out: Path, baseline: int, candidate: int, *, scenarios: int = 4, seed: int = 7
) -> Path:
    """``out/baseline``, ``out/candidate`` and ``out/spec.yaml``."""
    if (out / "spec.yaml").exists():
        return out
    rng = random.Random(seed)
    real = corpus_paths()
    vocabulary = sorted({name for path in real for name in path})
    templates = {f"scenario-{i}": _fit(rng.choice(real), 40, rng) for i in range(scenarios)}
    pools = {
        sid: [path] + [_edit(path, rng, vocabulary, rng.randint(1, 3)) for _ in range(29)]
        for sid, path in templates.items()
    }
    weights = [1 / (rank + 1) for rank in range(30)]  # Zipf-like: a few variants dominate
    for role, count in (("baseline", baseline), ("candidate", candidate)):
        folder = out / role
        folder.mkdir(parents=True, exist_ok=True)
        for index in range(count):
            sid = f"scenario-{index % scenarios}"
            if rng.random() < 0.1:
                tools = _edit(templates[sid], rng, vocabulary, rng.randint(1, 6))  # one-off
            else:
                tools = rng.choices(pools[sid], weights)[0]
            run_id = f"{role}-{index:05d}"
            (folder / f"{run_id}.json").write_text(_trace_text(run_id, sid, tools, rng))
    # As `abw spec init` would write it: tools every scenario's template calls, and an order
    # that holds in every template (its edited variants and one-offs may break it, as
    # regressions do), so the candidates are mostly healthy runs with a few violations.
    common = [
        t for t in dict.fromkeys(templates["scenario-0"]) if all(t in p for p in templates.values())
    ]
    pairs = [
        (a, b)
        for i, a in enumerate(common)
        for b in common[i + 1 :]
        if all(p.index(a) < p.index(b) for p in templates.values())
    ]
    required = list(pairs[0]) if pairs else common[:2]
    order = ""
    if pairs:
        order = f"  required_order:\n    - {{before: {required[0]!r}, after: {required[1]!r}}}\n"
    spec = (
        "schema_version: behavior-spec/v0\n"
        "id: benchmark\n"
        "invariants:\n"
        f"  required_tools: {required!r}\n"
        f"{order}"
        "  forbidden_tools: ['delete_everything']\n"
        "  max_path_length: 80\n"
        "  max_errors: 6\n"
        "  max_retries: 5\n"
        "thresholds:\n"
        "  min_runs: 5\n"
        "  failing_runs: tolerate\n"
        "  sprt: {enabled: true}\n"
    )
    (out / "spec.yaml").write_text(spec)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sessions = sub.add_parser("sessions")
    sessions.add_argument("--mb", type=int, default=500)
    sessions.add_argument("--out", type=Path, default=None)
    traces = sub.add_parser("traces")
    traces.add_argument("--baseline", type=int, default=1000)
    traces.add_argument("--candidate", type=int, default=10000)
    traces.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.what == "sessions":
        out = gen_sessions(args.out or TMP / f"sessions-{args.mb}mb", args.mb)
        print(f"{out}: {folder_bytes(out) / 1e6:.0f} MB")
    else:
        name = f"traces-{args.baseline}x{args.candidate}"
        out = gen_traces(args.out or TMP / name, args.baseline, args.candidate)
        print(f"{out}: {len(list((out / 'candidate').glob('*.json')))} candidate traces")
    return 0


if __name__ == "__main__":
    sys.exit(main())
