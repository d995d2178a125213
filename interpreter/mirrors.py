"""Values that generated code reads cheaply: flags copied into its namespace, and cells.

Compiled code reads some values on every operation: the flags that say a name still
holds its built-in (``GlobalBindings.intact``), the interpreter's ``lexical_self`` flag
(``nodes.core.SelfBinding``), and the global variables it calls or uses. Read through a
container, such a value costs as much as the operation it serves: ``flag[0]`` ~7 ns,
``gvars.get(name)`` ~12 ns.

* A :class:`Flag` is copied into every namespace that reads it (:meth:`Flag.mirror`),
  where a read is one global load (~2 ns). Changing it (:meth:`Flag.set`: a program
  rebinding ``car``, rare) writes every copy.
* A :class:`Cell` holds a global variable's binding (``GlobalBindings.cell``): a read is a
  global load and a slot (~4 ns), and a write of the variable is one more store, so a
  program that assigns a global in a loop pays next to nothing for it.

A namespace holds its mirrors strongly and the value only weakly, so compiled code that
is dropped takes its mirrors with it. One lock orders changes and new mirrors: a copy
made while the value changes ends with the new value.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

#: Orders every change of a flag against new mirrors.
LOCK = threading.Lock()

#: The key under which a namespace keeps its mirrors alive.
MIRRORS_KEY = "__mirrors__"


class Mirror:
    """One namespace's copy of a value under one name."""

    __slots__ = ("namespace", "name", "__weakref__")

    def __init__(self, namespace: dict[str, Any], name: str) -> None:
        self.namespace, self.name = namespace, name


class Flag:
    """A boolean kept current in every namespace that mirrors it: compiled code takes a
    fast path while it is up (True)."""

    __slots__ = ("value", "mirrors")

    def __init__(self, value: bool = True) -> None:
        self.value = value
        self.mirrors: weakref.WeakSet[Mirror] = weakref.WeakSet()

    def set(self, value: bool) -> None:
        """Raise or lower the flag, in every namespace that mirrors it."""
        if value is self.value:  # the common case (a set! that finds it down already): no lock
            return
        with LOCK:
            self.value = value
            for mirror in list(self.mirrors):
                mirror.namespace[mirror.name] = value

    def mirror(self, namespace: dict[str, Any], name: str) -> None:
        """Keep ``namespace[name]`` equal to the value from now on."""
        with LOCK:
            mirror = Mirror(namespace, name)
            namespace.setdefault(MIRRORS_KEY, []).append(mirror)
            self.mirrors.add(mirror)
            namespace[name] = self.value

    def __repr__(self) -> str:
        return f"Flag({self.value!r})"


class Cell:
    """The current value of one global variable (None while unbound), for compiled code."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: Any = None

    def follow(self, bindings: dict[Any, Any], key: Any) -> None:
        """Take ``bindings[key]`` (None if unbound), as it is after the write just made.

        Lock-free and safe against racing writes: the value is stored, then the binding read
        again; if it changed meanwhile, another write ran, and the loop takes its value. A
        store that lands after a later write's is caught by that re-read, so the cell ends
        holding the last binding written."""
        while True:
            value = bindings.get(key)
            self.value = value
            if bindings.get(key) is value:
                return
