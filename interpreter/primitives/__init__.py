"""The built-in procedures; importing a module registers its primitives."""

from . import booleans, chars, control, hashtables, io, lists, numbers, strings, symbols, tasks, vectors

__all__ = [
    "booleans",
    "chars",
    "control",
    "hashtables",
    "io",
    "lists",
    "numbers",
    "strings",
    "symbols",
    "tasks",
    "vectors",
]
