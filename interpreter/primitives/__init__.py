"""The built-in procedures; importing a module registers its primitives.

The task runtime's procedures (``run-script``, ``remember``, ``load-task-templates`` …) live in
``tasks/`` and register into the same registry when the facade imports ``interpreter.tasks.dsl``.
"""

from . import (
    booleans,
    chars,
    clock,
    control,
    hashtables,
    io,
    lists,
    numbers,
    parallel,
    randomness,
    spread,
    strings,
    symbols,
    system,
    vectors,
)

__all__ = [
    "booleans",
    "chars",
    "clock",
    "control",
    "hashtables",
    "io",
    "lists",
    "numbers",
    "parallel",
    "randomness",
    "spread",
    "strings",
    "symbols",
    "system",
    "vectors",
]
