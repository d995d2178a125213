"""What compiled code takes from the Scheme library, which sits above the compiler.

The compiler is in the execution layer and imports nothing from the library (``primitives``,
``ports``): the library hands over what generated code calls when it is imported
(:func:`provide`, from ``interpreter/primitives/__init__.py``): the built-in procedures by name
(each inline built-in's guard checks the global still holds that very ``Primitive``), and the
names a body's namespace needs, such as the string port class an inline ``write-string`` tests.

Generated code reads them as plain names of the body's namespace::

    t14 = proper_length(c40, t11)              # an inline walk checks its list
    if type(arg1) is StringOutputPort and not arg1.closed and ok4:
        arg1.parts.append("\\n")             # an inline (newline port)
"""

from __future__ import annotations

from typing import Any


class Library:
    """The library's part of the compiler's world: ``builtins`` (name: primitive, filled in as
    the library's modules load) and ``names`` (what every body's namespace holds)."""

    def __init__(self) -> None:
        self.builtins: dict[str, Any] = {}
        self.names: dict[str, Any] = {}


LIBRARY = Library()

#: The names a body's namespace must hold from the library (see :func:`provide`).
REQUIRED = frozenset(
    {
        "StringOutputPort",
        "proper_length",
        "list_length",
        "improper_error",
        "ended_error",
        "to_pylist",
        "check_vector",
        "changed_error",
        "check_table",
        "iota_numbers",
        "joined_strings",
        "HashTable",
        "TABLE_GROWTH_FROM",
    }
)


def provide(builtins: dict[str, Any], **names: Any) -> None:
    """Called once by the library: ``builtins`` is its table of primitives (kept by reference,
    so primitives registered later are seen), ``names`` the objects generated code names."""
    missing = REQUIRED - names.keys()
    if missing:
        raise TypeError(f"the library must provide {', '.join(sorted(missing))}")
    LIBRARY.builtins = builtins
    LIBRARY.names.update(names)
