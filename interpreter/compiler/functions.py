"""Functions made by running generated code in a namespace of their own, without a cycle.

A generated function's globals are its namespace, so one left in that namespace under its own
name makes a cycle: every compiled body, call site and ``if`` that a program drops (a top-level
form once run, a procedure redefined) then waited for a full collection of the cyclic collector,
with the constants its namespace holds (quoted lists, nodes, other compiled code).
:func:`made_function` takes the function out unless its code reads its own name (a body that
tests ``f.run is run`` for a call of itself), and gives it the namespace's flag mirrors to keep
(``mirrors.MIRRORS_KEY``), which refer to the namespace.
"""

from __future__ import annotations

import opcode
from types import CodeType, FunctionType
from typing import Any

from ..mirrors import MIRRORS_KEY

LOAD_GLOBAL = opcode.opmap["LOAD_GLOBAL"]
EXTENDED_ARG = opcode.EXTENDED_ARG


def made_function(code: CodeType | str, namespace: dict[str, Any], name: str) -> FunctionType:
    """Run ``code``, which defines the function ``name``, in ``namespace``; the function."""
    exec(code, namespace)  # generated from fixed templates by the caller
    function: FunctionType = namespace[name]
    if reads_global(function.__code__, name):
        return function
    del namespace[name]
    mirrors = namespace.get(MIRRORS_KEY)
    if mirrors is not None and not any(isinstance(c, CodeType) for c in function.__code__.co_consts):
        # the only code reading the namespace is the function's own: it keeps the mirrors
        # (each refers to the namespace, so kept there they made a cycle of their own)
        setattr(function, MIRRORS_KEY, namespace.pop(MIRRORS_KEY))
    return function


def reads_global(code: CodeType, name: str) -> bool:
    """Whether ``code`` or a function nested in it loads the global ``name`` (an attribute of
    that name, as in ``f.run``, is not). A few byte searches, so not cached: a call site's
    code is compiled afresh each time, and a cache would only keep those code objects alive."""
    if name in code.co_names:
        # LOAD_GLOBAL's argument is the name's index shifted left by one (3.11-3.13); the low
        # bit says whether a NULL is pushed for a call. Instructions are two bytes each.
        raw, index = code.co_code, code.co_names.index(name)
        for arg in (index << 1, index << 1 | 1):
            pattern = bytes([LOAD_GLOBAL, arg] if arg < 256 else [EXTENDED_ARG, arg >> 8, LOAD_GLOBAL, arg & 255])
            at = raw.find(pattern)
            while at >= 0:
                if at % 2 == 0:
                    return True
                at = raw.find(pattern, at + 1)
    return any(reads_global(const, name) for const in code.co_consts if isinstance(const, CodeType))
