"""Order the spans of a span tree (OTel, OpenAI Agents SDK, Jaeger): pre-order, by start time.

Siblings are sorted by start time, then end time, then id (JS exporters have ms resolution, so
ties are common). A span whose parent is missing from the export is a root. The order never
depends on the order the raw file lists the spans in (children often come before parents).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass
class Node:
    key: str
    parent: str | None
    start: float | None
    end: float | None
    payload: Any = None
    children: list[Node] = field(default_factory=list)

    def sort_key(self) -> tuple[Hashable, ...]:
        start = self.start if self.start is not None else float("inf")
        end = self.end if self.end is not None else float("inf")
        return (start, end, self.key)


def once_each(spans: Iterable[T], key: Callable[[T], str], ended: Callable[[T], bool]) -> list[T]:
    """Each span once, by ``key``: an exporter may send a span again (it retried a request the
    collector already had, or wrote the span when it started and when it ended). A copy that
    records an end takes the place of an earlier one; the order is the first copy's."""
    unique: dict[str, T] = {}
    for span in spans:
        if key(span) not in unique or ended(span):
            unique[key(span)] = span
    return list(unique.values())


def preorder(nodes: list[Node]) -> list[tuple[Node, list[Node]]]:
    """Every node once, in pre-order, each with its ancestors (root first)."""
    by_key = {node.key: node for node in nodes}
    for node in nodes:
        node.children = []
    roots: list[Node] = []
    for node in nodes:
        parent = by_key.get(node.parent) if isinstance(node.parent, str) else None
        if parent is None or parent is node:
            roots.append(node)
        else:
            parent.children.append(node)
    out: list[tuple[Node, list[Node]]] = []
    seen: set[str] = set()

    def walk(node: Node, ancestors: list[Node]) -> None:
        stack = [(node, ancestors)]
        while stack:
            current, above = stack.pop()
            if current.key in seen:
                continue
            seen.add(current.key)
            out.append((current, above))
            below = [*above, current]
            for child in sorted(current.children, key=Node.sort_key, reverse=True):
                stack.append((child, below))

    for root in sorted(roots, key=Node.sort_key):
        walk(root, [])
    # nodes caught in a parent cycle have no root: take them in start order
    for node in sorted(nodes, key=Node.sort_key):
        if node.key not in seen:
            walk(node, [])
    return out


def group_by_trace(
    items: Iterable[T], trace_of: Callable[[T], str], order: Callable[[T], Any]
) -> list[tuple[str, list[T]]]:
    """``(trace id, items)`` for every trace id, items in the order given; traces ordered by
    their earliest item (``order``), then id, so a file's traces come out in run order."""
    groups: dict[str, list[T]] = {}
    for item in items:
        groups.setdefault(trace_of(item), []).append(item)
    return sorted(groups.items(), key=lambda group: (min(map(order, group[1])), group[0]))
