"""No vacuous rules: a reference that no baseline or candidate run shows cannot be checked.

Every check declares what it refers to: ``RunRule.references`` for the built-in invariants
(tool names of any span type), ``Rule.references()`` for ``spec.rules`` (the spans its tool
fields match, by name and span type; the extracted argument fields it reads) and
``Assertion.references()`` for ``spec.assertions`` (the output field or tool count its
selector reads). A reference no run shows would make its check pass by default (``after:
refund_comit`` has nothing to come after; ``after: {name: refund_commit, type: [retriever]}``
neither, when refund_commit is a tool span), so such a check is INCONCLUSIVE instead, with the
nearest real thing; a check that FAILs keeps its counterexamples and gains the sentence. Names
a check only forbids (``forbidden_tools``) and span statuses are never references: their
absence is the expected outcome. ``abw validate --baseline`` and ``abw spec init`` report the
same findings before any gate runs. Output fields are references too, and so are a rule's or
assertion's ``scenarios`` globs: when none matches the scenario of any run, the rule covers no
run at all (``scenarios: [refund-polcy]`` would pass every gate). A forbidden name one typo
from a name runs show forbids nothing: its check WARNs (:func:`misspelt_forbidden`), and
``abw validate --baseline`` warns (a guess: two real tools can be one typo apart).

The candidate side (a check no candidate run of a scenario triggered) is abw.gating.reach.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from abw.models.rules import ArgumentRef, ForbiddenRef, OutputRef, Reference, ScopeRef, ToolRef
from abw.semantics import literal_of, literal_pattern, name_matches
from abw.spelling import meant_by, near
from abw.text import plural

Kinds = frozenset[tuple[str, str]]

#: How the message of a check that can decide nothing (a name no run shows) begins: the
#: readers of a report (``abw explain``) tell such a check by it.
VACUOUS = "Vacuous:"

#: How the message of a check that held only because no candidate run reached what triggers
#: it begins (abw.gating.reach.unreached).
UNREACHED = "Not exercised by the candidate:"

#: How the message of a check that held while a name it forbids looks misspelt begins.
MISSPELT = "Forbids a name no run shows:"


@dataclass(frozen=True)
class Observed:
    """Every span name seen, over how many runs; and every output field (the keys of the runs'
    ``canonical_output``) and scenario id, when known. ``kinds``: (name, span type) of every
    span, and ``arguments``: (span name, key) of every extracted argument; None where not
    collected, and then a reference is judged by its names only."""

    names: frozenset[str]
    runs: int
    output_fields: frozenset[str] = frozenset()
    scenarios: frozenset[str] = frozenset()
    kinds: Kinds | None = None
    arguments: Kinds | None = None


def span_kinds(spans: Iterable[Any]) -> Kinds:
    """(name, type) of every span."""
    return frozenset((span.name, span.type) for span in spans)


def argument_keys(spans: Iterable[Any]) -> Kinds:
    """(span name, key) of every explicitly extracted argument (``attributes.arguments``)."""
    from abw.rules.arguments import extracted_arguments

    return frozenset((span.name, key) for span in spans for key in extracted_arguments(span) or ())


def observed(runs: Iterable[Any]) -> Observed:
    """Span names, kinds and argument keys (of every span type), output fields and scenarios
    over the given runs (``TraceFile`` or ``Trace``)."""
    names: set[str] = set()
    kinds: set[tuple[str, str]] = set()
    arguments: set[tuple[str, str]] = set()
    fields: set[str] = set()
    scenarios: set[str] = set()
    count = 0
    for run in runs:
        trace = getattr(run, "trace", run)
        names.update(span.name for span in trace.spans)
        kinds |= span_kinds(trace.spans)
        arguments |= argument_keys(trace.spans)
        fields.update(trace.run.canonical_output or ())
        if trace.run.scenario_id is not None:
            scenarios.add(trace.run.scenario_id)
        count += 1
    return Observed(
        frozenset(names),
        count,
        frozenset(fields),
        frozenset(scenarios),
        frozenset(kinds),
        frozenset(arguments),
    )


LegacyReference = str | tuple[str, ...]  # a built-in's name or glob, or alternatives


def as_text(names: Iterable[str]) -> str:
    """Names as they read (``=tool[1]`` is the name ``tool[1]``), alternatives ``a or b``."""
    return " or ".join(n[1:] if n.startswith("=") else n for n in names)


def hits(names: Iterable[str], candidates: Iterable[str]) -> list[str]:
    globs = list(names)
    return [n for n in candidates if any(name_matches(g, n, glob=True) for g in globs)]


def unmatched(references: Iterable[LegacyReference], seen: Observed) -> list[str]:
    """The references (names or shell globs; a tuple: alternatives) that match none of the
    names seen, in given order; alternatives read ``a or b``."""
    found: list[str] = []
    for reference in references:
        options = (reference,) if isinstance(reference, str) else reference
        text = as_text(options)
        if options and not hits(options, seen.names) and text not in found:
            found.append(text)
    return found


def nearest(pattern: str, seen: Observed, limit: int = 3) -> list[str]:
    """The real names closest to ``pattern`` (:func:`abw.spelling.near`), best first; for
    alternatives (``a or b``) the closest to any of them."""
    names = sorted(seen.names)
    found: list[str] = []
    for option in pattern.split(" or "):
        # a glob that misses the very name it spells (``t[1]`` reads as a class: ``t1``) is
        # answered with how to write that name literally (``=t[1]``), not with itself
        found += [literal_pattern(n) if n == option else n for n in near(option, names, limit)]
    return list(dict.fromkeys(found))[:limit]


def sentence(missing: list[str], seen: Observed) -> str:
    """``refund_comit matches no span in 44 runs; did you mean refund_commit?``"""
    parts = []
    for name in missing:
        close = nearest(name, seen)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        parts.append(f"{name} matches no span in {plural(seen.runs, 'run')}{hint}")
    return "; ".join(parts)


def scope_sentence(globs: Iterable[str], seen: Observed) -> str | None:
    """``scenarios refund-polcy match no run's scenario (44 runs); did you mean
    refund-policy?`` when none of a rule's ``scenarios`` globs (alternatives: any of them)
    matches the scenario of a run seen, so the rule covers no run; else None (an empty list
    covers every run)."""
    globs = list(globs)
    known = sorted(seen.scenarios)
    if not globs or hits(globs, known):
        return None
    close = [n for g in globs for n in near(g, known)]
    hint = f"; did you mean {' or '.join(dict.fromkeys(close))}?" if close else ""
    return (
        f"scenarios {', '.join(globs)} match no run's scenario ({plural(seen.runs, 'run')}){hint}"
    )


def field_sentence(missing: list[str], seen: Observed) -> str:
    """``decsion is in no run's output (44 runs); did you mean decision?``, or, when no run
    has output fields, where they come from."""
    if not seen.output_fields:
        return (
            f"no run has output fields ({plural(seen.runs, 'run')}): they are extracted at "
            "import, when named (abw import --output-fields)"
        )
    parts = []
    for name in missing:
        close = near(name, sorted(seen.output_fields))
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        parts.append(f"{name} is in no run's output ({plural(seen.runs, 'run')}){hint}")
    return "; ".join(parts)


@dataclass
class Misses:
    """What of one check's references no run shows: sentences, the real things to name
    instead, and the ``measured`` entries; ``notes``: sentences that only annotate a FAIL;
    ``misspelt``: forbidden names likely written for names runs show
    (:func:`misspelt_forbidden`), name -> (those names, how it misses them)."""

    texts: list[str] = field(default_factory=list)
    real: list[str] = field(default_factory=list)
    measured: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    misspelt: dict[str, tuple[list[str], str]] = field(default_factory=dict)

    def add(self, text: str, real: str, note_only: bool = False, **measured: Any) -> None:
        if text in self.texts or text in self.notes:
            return  # (one sentence says it for every key of a tool without arguments)
        if note_only:
            self.notes.append(text)
            return
        self.texts.append(text)
        if real not in self.real:
            self.real.append(real)
        for key, value in measured.items():
            if isinstance(value, list):
                self.measured.setdefault(key, []).extend(value)
            elif isinstance(value, dict):
                self.measured.setdefault(key, {}).update(value)
            else:
                self.measured[key] = value


def types_seen(ref: ToolRef, seen: Observed) -> list[str]:
    """The span types of the spans the reference's names match, when none is of a type it
    reads (empty otherwise, or when kinds were not collected: judged by names only)."""
    if seen.kinds is None:
        return []
    types = sorted({t for n, t in seen.kinds if hits(ref.names, (n,))})
    if any((t in ref.types) if ref.types else t != "llm" for t in types):
        return []
    return types


def _kind_sentence(ref: ToolRef, types: list[str], seen: Observed) -> str:
    """``refund_commit matches no retriever span in 44 runs; its spans are tool spans``."""
    where = "/".join(ref.types) if ref.types else "non-llm"
    listed = " and ".join([", ".join(types[:-1]), types[-1]] if len(types) > 1 else types)
    more = "" if ref.types else " (a rule reads llm spans only with type: [llm])"
    text, runs = as_text(ref.names), plural(seen.runs, "run")
    return f"{text} matches no {where} span in {runs}; its spans are {listed} spans{more}"


def _argument_sentence(ref: ArgumentRef, seen: Observed) -> str | None:
    """``confidance is in no refund_commit span's arguments (44 runs); did you mean
    confidence?`` for an argument no span of the tool carries; else None (and when no span
    has the tool's name: its own reference says so)."""
    if seen.arguments is None or not hits(ref.names, seen.names):
        return None
    keys = sorted({k for n, k in seen.arguments if hits(ref.names, (n,))})
    if ref.field in keys:
        return None
    tool, runs = as_text(ref.names), plural(seen.runs, "run")
    if not keys:
        return (
            f"no {tool} span has extracted arguments ({runs}): they are extracted at import, "
            "when named (abw import --argument-fields)"
        )
    close = near(ref.field, keys)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    return f"{ref.field} is in no {tool} span's arguments ({runs}){hint}"


def misses(
    references: Iterable[Reference | LegacyReference],
    seen: Observed,
    fields: Iterable[str] = (),
) -> Misses:
    """What of a check's references (and its output ``fields``) no run seen shows."""
    found = Misses()
    references = list(references)
    legacy: list[LegacyReference] = []
    tools: list[ToolRef] = []
    fields = list(fields)
    scopes: list[list[str]] = []
    for ref in references:
        if isinstance(ref, str | tuple):
            legacy.append(ref)
        elif isinstance(ref, ToolRef):
            tools.append(ref)
        elif isinstance(ref, OutputRef):
            fields.append(ref.field)
        elif isinstance(ref, ScopeRef):
            scopes.append(list(ref.globs))
    names = unmatched(legacy, seen)
    for ref in tools:
        text = as_text(ref.names)
        if not hits(ref.names, seen.names):
            if ref.note_only:
                found.add(sentence([text], seen), "tool", note_only=True)
            elif text not in names:
                names.append(text)
        elif types := types_seen(ref, seen):
            label = f"{'/'.join(ref.types)} {text}" if ref.types else text
            found.add(
                _kind_sentence(ref, types, seen),
                "tool",
                ref.note_only,
                unmatched_names=[label],
                did_you_mean={label: [f"{t} {text}" for t in types]},
                runs_searched=seen.runs,
            )
    if names:  # names no span has come first, as they read
        found.texts.insert(0, sentence(names, seen))
        found.real = ["tool", *(r for r in found.real if r != "tool")]
        found.measured = {
            "unmatched_names": names + found.measured.get("unmatched_names", []),
            "did_you_mean": {name: nearest(name, seen) for name in names}
            | found.measured.get("did_you_mean", {}),
            "runs_searched": seen.runs,
        }
    for ref in references:
        if isinstance(ref, ArgumentRef) and (text := _argument_sentence(ref, seen)) is not None:
            found.add(text, "argument field", unseen_argument_fields=[ref.field])
        if isinstance(ref, ForbiddenRef):
            found.misspelt |= misspelt_forbidden(ref, seen)
    missing = [f for f in dict.fromkeys(fields) if f not in seen.output_fields]
    if missing:
        found.add(field_sentence(missing, seen), "output field", unseen_output_fields=missing)
    for globs in scopes:
        if (text := scope_sentence(globs, seen)) is not None:
            found.add(text, "scenario", unmatched_scenarios=globs)
    return found


def misspelt_forbidden(ref: ForbiddenRef, seen: Observed) -> dict[str, tuple[list[str], str]]:
    """The names ``ref`` forbids that match no span seen while they were likely written for
    names seen (abw.spelling.meant_by: a typo, invisible or look-alike characters, a folded
    line, a regular expression), and the names ``ref`` forbids of span types none of their
    spans has: name -> (the names meant, how it misses them). Such a name forbids nothing."""
    found: dict[str, tuple[list[str], str]] = {}
    for name in ref.names:
        text = literal_of(name)
        if hits((name,), seen.names):
            if ref.types and (types := types_seen(ToolRef((name,), ref.types), seen)):
                kind = "/".join(ref.types)
                found[f"{kind} {name}"] = ([f"{t} {name}" for t in types], "of another type")
            continue
        close, how = meant_by(name if text is None else text, seen.names, glob=text is None)
        if close:
            found[name if text is None else text] = (close, how)
    return found


def misspelt_sentence(misspelt: dict[str, tuple[list[str], str]], seen: Observed) -> str:
    """``refund_comit matches no span in 44 runs, but refund_commit, one typo away, does``"""
    return "; ".join(
        f"{name} matches no span in {plural(seen.runs, 'run')}, but {' and '.join(close)}, "
        f"{how}, {'does' if len(close) == 1 else 'do'}"
        for name, (close, how) in misspelt.items()
    )


def spec_references(spec: Any) -> list[tuple[str, tuple[Any, ...]]]:
    """(where in the spec, references) for every part of ``spec`` that refers to tools,
    argument fields or (assertions) output fields."""
    found: list[tuple[str, tuple[Any, ...]]] = []
    inv = spec.invariants
    found += [
        (f"invariants.required_tools[{i}]", (literal_pattern(t),))  # exact names, not globs
        for i, t in enumerate(inv.required_tools)
    ]
    found += [
        (f"invariants.forbidden_tools[{i}]", (ForbiddenRef((literal_pattern(t),)),))
        for i, t in enumerate(inv.forbidden_tools)
    ]
    found += [
        (f"invariants.required_order[{i}]", (c.before, c.after))
        for i, c in enumerate(inv.required_order)
    ]
    for i, rule in enumerate(spec.rules):
        found.append((f"rules[{i}] ({rule.id or rule.kind})", rule.references()))
    for i, assertion in enumerate(spec.assertions):
        found.append((f"assertions[{i}] ({assertion.id})", assertion.references()))
    return [(where, refs) for where, refs in found if refs]


def spec_misspellings(spec: Any, seen: Observed) -> list[str]:
    """One line per part of the spec forbidding a name no run seen shows that is one typo from
    a name runs show (:func:`misspelt_forbidden`): a warning, since two real tools can be."""
    lines = []
    for where, refs in spec_references(spec):
        if misspelt := misses(refs, seen).misspelt:
            lines.append(f"{where}: {misspelt_sentence(misspelt, seen)}: misspelt?")
    return lines


def spec_findings(spec: Any, seen: Observed) -> list[str]:
    """One line per part of the spec whose references no run seen shows: tool names (and
    span types), argument fields, output fields, ``scenarios`` globs."""
    lines = []
    for where, refs in spec_references(spec):
        found = misses(refs, seen)
        if found.texts:
            lines.append(f"{where}: {'; '.join(found.texts)}")
    from abw.gating import output_eval

    for rule in output_eval.rules(spec.output):  # the fields each output check reads
        missing = [name for name in rule.output_fields if name not in seen.output_fields]
        if missing:
            lines.append(f"output.{rule.rule}: {field_sentence(missing, seen)}")
    return lines
