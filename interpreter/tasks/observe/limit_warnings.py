"""Seed 004's ``warningThreshold``: a task whose ``(context (warning-threshold 0.8))`` is set warns
once per call of it, and per resource, when it crosses that fraction of its ``max-turns``,
``max-context`` (one prompt's tokens) or ``timeout`` (one model call's seconds): a ``warning``
trace event and a one-line warning on the terminal (the interpreter's error port).

The activations (:class:`~interpreter.tasks.models.gateway.Activation`) are those of the calling
branch, so under ``parallel-map`` each branch warns for the tasks it runs; a task's turns are
shared by the branches inside it, and it warns once when their sum crosses the line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

#: The limit each resource is measured against, and how it is named in a warning.
LIMIT_NAMES = {
    "turns": ("max_turns", "max-turns"),
    "context": ("max_context", "max-context"),
    "time": ("timeout", "timeout"),
}


def crossed(stack: Iterable[Any], resource: str, used: float) -> list[tuple[Any, float]]:
    """The activations that cross their warning threshold of ``resource`` at ``used`` (each
    only once), with their limit; they are marked as warned."""
    field = LIMIT_NAMES[resource][0]
    out = []
    for activation in stack:
        threshold = activation.warning_threshold
        if threshold is None or resource in activation.warned:
            continue
        limit = getattr(activation.limits, field)
        if limit is None or used < threshold * limit:
            continue
        activation.warned.add(resource)
        out.append((activation, limit))
    return out


def announce(
    found: list[tuple[Any, float]], resource: str, used: float, hub: Any, warn: Callable[[str], None] | None
) -> None:
    """Tell of each crossing: a ``warning`` event (when someone listens) and a line for ``warn``."""
    for activation, limit in found:
        name = LIMIT_NAMES[resource][1]
        threshold = activation.warning_threshold
        message = (
            f"warning: task {activation.task} reached {used:g} of its {name} of {limit:g} "
            f"({used / limit:.0%}; its warning threshold is {threshold:.0%})"
        )
        if hub is not None and hub.active:
            info = {"resource": resource, "used": used, "limit": limit, "threshold": threshold, "message": message}
            span = hub.open("warning", activation.task, info)
            hub.finish("warning", activation.task, span, "warning", info=info)
        if warn is not None:
            warn(message)
