"""The built-in procedures; importing a module registers its primitives."""

from . import (
    booleans,
    chars,
    composition,
    control,
    hashtables,
    io,
    lists,
    memory,
    numbers,
    parallel,
    spread,
    strings,
    symbols,
    system,
    tasks,
    vectors,
)

__all__ = [
    "booleans",
    "chars",
    "composition",
    "control",
    "hashtables",
    "io",
    "lists",
    "memory",
    "numbers",
    "parallel",
    "spread",
    "strings",
    "symbols",
    "system",
    "tasks",
    "vectors",
]
