"""The YAML half of abw's one reader (:mod:`abw.reader`, whose rules it keeps): specs,
scenario files and any ``.yaml``/``.yml`` document. A module of its own so that what reads no
YAML (a trace, an import) never imports PyYAML."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import yaml

from abw.errors import AbwInputError
from abw.reader import LONE_SURROGATE, MAX_DEPTH, lone_surrogate


class _RefusedValue(yaml.constructor.ConstructorError):
    """A mapping key given twice, a lone surrogate or a value that is no JSON value (reported
    without the "invalid YAML" prefix; ``field``, where set, is the value's path)."""

    field: str | None = None


#: YAML 1.1 types that PyYAML's SafeLoader builds but JSON has no value for (a ``set``,
#: ``bytes``, a list of pairs; dates and timestamps: :meth:`_Loader.construct_not_json`):
#: refused, never converted, so that a locked spec means exactly what it says
#: (docs/reliability.md). What the tag holds, and what to write instead.
_NOT_JSON = {
    "tag:yaml.org,2002:set": ("a YAML set (!!set)", "write a list"),
    "tag:yaml.org,2002:binary": ("YAML binary data (!!binary)", "write a string"),
    "tag:yaml.org,2002:omap": ("a YAML ordered map (!!omap)", "write a mapping or a list"),
    "tag:yaml.org,2002:pairs": ("a YAML list of pairs (!!pairs)", "write a mapping or a list"),
}


#: The booleans YAML 1.1 and JSON read alike.
_JSON_BOOLS = {"true", "True", "TRUE", "false", "False", "FALSE"}
#: An integer as JSON writes it (YAML 1.1 also reads 0755, 0x1F, 1_000 and 12:30).
_JSON_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")


class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses anchors, aliases, merge keys, duplicate keys, non-finite floats,
    the YAML 1.1 values that are no JSON value (dates, timestamps, ``!!set``, ``!!binary``,
    ``!!omap``, ``!!pairs``) and the plain scalars YAML 1.1 reads otherwise than JSON would
    (``yes``/``no``/``on``/``off`` as booleans, ``0755``, ``0x1F``, ``1_000``, ``12:30`` as
    numbers)."""

    _root: yaml.Node | None = None

    def construct_document(self, node: Any) -> Any:  # type: ignore[override]
        self._root = node  # the whole document, composed: where a refused value is
        return super().construct_document(node)

    def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            message = f"YAML aliases (*{event.anchor}) are not allowed in abw documents"
            raise _RefusedValue(None, None, message, event.start_mark)
        if isinstance(event, yaml.NodeEvent) and event.anchor is not None:
            message = f"YAML anchors (&{event.anchor}) are not allowed in abw documents"
            raise _RefusedValue(None, None, message, event.start_mark)
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:  # type: ignore[override]
        seen: dict[Any, int] = {}
        if isinstance(node, yaml.MappingNode):
            for key_node, _ in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    continue
                if key_node.tag == "tag:yaml.org,2002:merge":  # ``<<:`` copies another mapping
                    message = "YAML merge keys (<<) are not allowed in abw documents"
                    raise _RefusedValue(None, None, message, key_node.start_mark)
                key = self.construct_object(key_node)
                line = key_node.start_mark.line + 1
                if key in seen:
                    raise _RefusedValue(
                        None,
                        None,
                        f"duplicate key {key!r} (lines {seen[key]} and {line})",
                        key_node.start_mark,
                    )
                seen[key] = line
        return super().construct_mapping(node, deep=deep)

    def construct_scalar(self, node: Any) -> Any:  # type: ignore[override]
        value = super().construct_scalar(node)
        if isinstance(value, str) and lone_surrogate(value) is not None:
            raise _RefusedValue(None, None, LONE_SURROGATE, node.start_mark)
        return value

    def construct_yaml_float(self, node: Any) -> float:  # type: ignore[override]
        value = super().construct_yaml_float(node)
        if "_" in node.value or ":" in node.value:  # (YAML 1.1's 1_000.5 and 1:30.5)
            self._refuse_yaml11(node, repr(value))
        if not math.isfinite(value):
            raise yaml.constructor.ConstructorError(
                None, None, f"non-finite number {node.value!r} is not allowed", node.start_mark
            )
        return value

    def construct_yaml_bool(self, node: Any) -> bool:  # type: ignore[override]
        """``true``/``false`` (as JSON writes them, or capitalised); YAML 1.1's other booleans
        — ``yes``, ``no``, ``on``, ``off`` — are refused: ``country: NO`` is no ``false``."""
        value = bool(super().construct_yaml_bool(node))
        if node.value not in _JSON_BOOLS:
            self._refuse_yaml11(node, str(value).lower())
        return value

    def construct_yaml_int(self, node: Any) -> int:  # type: ignore[override]
        """A decimal integer as JSON writes it; YAML 1.1's others — a leading zero (octal),
        ``0x``, ``0b``, ``_`` between digits, ``12:30`` (base 60) — are refused: ``code: 0755``
        is no 493."""
        value = super().construct_yaml_int(node)
        if not _JSON_INT.match(node.value):
            self._refuse_yaml11(node, str(value))
        return value

    def _refuse_yaml11(self, node: Any, read: str) -> None:
        """Refuse a plain scalar YAML 1.1 reads as ``read`` where JSON (and YAML 1.2) would
        not, naming the value's path and line."""
        if node.style is None:
            hint = f'quote it ("{node.value}") for text, or write {read}'
        else:
            hint = f"drop the {node.tag.rsplit(':', 1)[-1]} tag"
        path, mark = _place(self._root, node)
        error = _RefusedValue(None, None, f"YAML 1.1 reads {node.value} as {read}; {hint}", mark)
        error.field = ".".join(str(part) for part in path) or None
        raise error

    def construct_not_json(self, node: Any) -> Any:
        """Refuse a date, a timestamp, a set, binary data, an ordered map or pairs, with the
        path to the value and its line (a mapping member's: its key's, as
        :func:`abw.yamllocate.node_line`)."""
        if node.tag == "tag:yaml.org,2002:timestamp":
            match = self.timestamp_regexp.match(node.value)
            what = "a YAML timestamp" if match and match.group("hour") else "a YAML date"
            if node.style is None:  # plain: YAML 1.1 reads it as a date, quoted as a string
                hint = f'quote it ("{node.value}")'
            else:  # quoted, yet tagged !!timestamp
                hint = "drop the !!timestamp tag"
        else:
            what, hint = _NOT_JSON[node.tag]
        path, mark = _place(self._root, node)
        error = _RefusedValue(None, None, f"{what} is no JSON value; {hint}", mark)
        error.field = ".".join(str(part) for part in path) or None
        raise error


def _place(root: yaml.Node | None, target: yaml.Node) -> tuple[list[str | int], yaml.Mark]:
    """The path from ``root`` to ``target`` (mapping keys and item indexes; a key's own place
    is its mapping's) and the mark of its line: a mapping member's key's, else its own."""
    stack: list[tuple[yaml.Node, list[str | int]]] = [] if root is None else [(root, [])]
    seen: set[int] = set()
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key is target:
                    return path, key.start_mark
                if value is target:
                    return [*path, getattr(key, "value", "?")], key.start_mark
                stack.append((key, path))
                stack.append((value, [*path, getattr(key, "value", "?")]))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                if item is target:
                    return [*path, index], item.start_mark
                stack.append((item, [*path, index]))
    return [], target.start_mark


_Loader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_yaml_float)
_Loader.add_constructor("tag:yaml.org,2002:bool", _Loader.construct_yaml_bool)
_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
for _tag in ("tag:yaml.org,2002:timestamp", *_NOT_JSON):
    _Loader.add_constructor(_tag, _Loader.construct_not_json)
# YAML 1.2's floats as well: YAML 1.1 (PyYAML) reads ``1e-3`` (no dot) as a string, which the
# models (strict, as the JSON Schemas) would refuse as "not a number".
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)
SafeLoader = _Loader  # for ``yaml.compose`` by callers that need node lines (abw.sample)


def _check_depth(text: str, file: str | Path) -> None:
    """Refuse deep nesting first, with libyaml's linear-time parser when it is there: the pure
    Python scanner is quadratic in nesting depth (``[[[[...`` of 1 MB took seconds)."""
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is None:
        return
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                message = f"invalid YAML: nested deeper than {MAX_DEPTH} levels"
                raise AbwInputError(message, file=file, line=event.start_mark.line + 1)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def parse_yaml(text: str, file: str | Path, *, max_bytes: int | None = None) -> Any:
    """Parse one YAML document; any problem becomes an :class:`AbwInputError` with its line."""
    if max_bytes is not None and len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise AbwInputError(f"larger than {max_bytes} bytes", file=file)
    try:
        _check_depth(text, file)
        return yaml.load(text, Loader=_Loader)
    except _RefusedValue as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else None
        raise AbwInputError(str(exc.problem), file=file, line=line, field=exc.field) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise AbwInputError(f"invalid YAML: {exc.problem or exc}", file=file, line=line) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow: no mark
        line = text.count("\n", 0, exc.position) + 1
        problem = f"unacceptable character #x{exc.character:04x}"
        raise AbwInputError(f"invalid YAML: {problem}", file=file, line=line) from None
    except yaml.YAMLError as exc:
        raise AbwInputError(f"invalid YAML: {exc}", file=file) from None
    except RecursionError:
        raise AbwInputError("invalid YAML: nested too deeply", file=file) from None
    except ValueError as exc:  # e.g. an integer longer than Python's 4300-digit limit
        raise AbwInputError(f"invalid YAML: {exc}", file=file) from None
