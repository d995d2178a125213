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

# What compiled code takes from the library (the compiler sits below it: see compiler/library.py).
from ..compiler.library import provide as _provide_to_compiler
from ..ports import StringOutputPort as _StringOutputPort
from ..tables import GROWTH_CHECK_FROM as _GROWTH_CHECK_FROM
from ..tables import HashTable as _HashTable
from .hashtables import check_table as _check_table
from .loops import changed_error as _changed_error
from .registry import BUILTINS as _BUILTINS
from .spread import joined_strings as _joined_strings

_provide_to_compiler(
    _BUILTINS,
    StringOutputPort=_StringOutputPort,
    proper_length=lists.proper_length,
    list_length=lists.list_length,
    improper_error=lists.improper_error,
    ended_error=lists.ended_error,
    to_pylist=lists.to_pylist,
    check_vector=vectors.check_vector,
    changed_error=_changed_error,
    check_table=_check_table,
    iota_numbers=lists.iota_numbers,
    joined_strings=_joined_strings,
    HashTable=_HashTable,
    TABLE_GROWTH_FROM=_GROWTH_CHECK_FROM,
)
