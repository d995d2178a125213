"""The built-in procedures; importing a module registers its primitives."""

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
