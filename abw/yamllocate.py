"""Where values begin in a YAML text: the line an error found in a parsed spec, scenarios file
or other YAML document points at (:func:`value_line`; JSON texts: :mod:`abw.jsonlocate`)."""

from __future__ import annotations

from collections.abc import Sequence

import yaml


def node_line(node: yaml.Node | None, location: Sequence[str | int]) -> int | None:
    """The 1-based line of the node at ``location`` (member names and item indexes, from
    ``node``; a pydantic error location), or of the deepest node on the way there. A mapping
    member's line is its key's."""
    line = None if node is None else node.start_mark.line + 1
    for part in location:
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            match = [(k, v) for k, v in node.value if getattr(k, "value", None) == part]
            if not match:
                break
            key, node = match[0]
            line = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if not 0 <= part < len(node.value):
                break
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def value_line(text: str, location: Sequence[str | int]) -> int | None:
    """:func:`node_line` of ``location`` in the YAML ``text``, a document abw's reader
    accepted (composed, never constructed: no value is built); None when it is no YAML."""
    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    return node_line(root, location)
