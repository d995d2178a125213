"""Spans of a trace laid out in time, for the HTML report and Chrome's trace format.

Each span gets a *lane*: a child stays in its parent's lane unless it overlaps a sibling
already there (parallel branches, concurrent calls), then it takes another lane of its
parent's (a new one if none is free). Spans of one lane therefore nest properly, which
Chrome's format needs per thread, and parallel branches come out side by side.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .trace_tree import Node

#: Two spans closer than this (seconds) do not overlap (clock resolution).
EPSILON = 1e-6


@dataclass
class Placed:
    """One span with its place: lane, depth, start and end (seconds since the run began)."""

    node: Node
    index: int
    parent: int | None
    lane: int
    depth: int
    start: float
    end: float
    children: list[int] = field(default_factory=list)

    @property
    def event(self) -> dict[str, Any]:
        return self.node.event


def end_of(node: Node) -> float:
    """When the span ended: its event's end, else the latest end below it, else its start."""
    end = node.event.get("end")
    if isinstance(end, int | float):
        return float(end)
    duration = node.event.get("duration")
    if isinstance(duration, int | float):
        return node.start + float(duration)
    return max((end_of(child) for child in node.children), default=node.start)


def layout(roots: list[Node]) -> list[Placed]:
    """Every span of ``roots``, depth first, with its lane (see the module's docstring)."""
    placed: list[Placed] = []
    origin = min((root.start for root in roots), default=0.0)
    lanes = [0]  # the number of lanes handed out so far

    def place(node: Node, parent: int | None, lane: int, depth: int) -> int:
        index = len(placed)
        placed.append(Placed(node, index, parent, lane, depth, node.start - origin, end_of(node) - origin))
        free: dict[int, float] = {lane: node.start}  # this span's lanes, and when each is free again
        for child in node.children:
            chosen = next((ln for ln, at in free.items() if at <= child.start + EPSILON), None)
            if chosen is None:
                chosen = lanes[0] = lanes[0] + 1
            free[chosen] = end_of(child)
            placed[index].children.append(place(child, index, chosen, depth + 1))
        return index

    free_roots: dict[int, float] = {0: float("-inf")}
    for root in roots:
        chosen = next((ln for ln, at in free_roots.items() if at <= root.start + EPSILON), None)
        if chosen is None:
            chosen = lanes[0] = lanes[0] + 1
        free_roots[chosen] = end_of(root)
        place(root, None, chosen, 0)
    return placed
