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
from collections.abc import Iterable
from typing import Any

#: Orders every change of a flag against new mirrors.
LOCK = threading.Lock()

#: The key under which a namespace keeps its mirrors alive.
MIRRORS_KEY = "__mirrors__"
#: … and the combined flags it mirrors (:class:`AllOf`), which nothing else holds.
KEPT_KEY = "__kept_flags__"


class Mirror:
    """One namespace's copy of a value under one name."""

    __slots__ = ("namespace", "name", "__weakref__")

    def __init__(self, namespace: dict[str, Any], name: str) -> None:
        self.namespace, self.name = namespace, name


class Flag:
    """A boolean kept current in every namespace that mirrors it: compiled code takes a
    fast path while it is up (True)."""

    __slots__ = ("value", "mirrors", "combined")

    def __init__(self, value: bool = True) -> None:
        self.value = value
        # Made when first needed: most flags (one per watched built-in, per interpreter) are
        # never mirrored, and two weak sets are 12 of the collector's objects per flag.
        self.mirrors: weakref.WeakSet[Mirror] | None = None
        self.combined: weakref.WeakSet[AllOf] | None = None  # the flags that follow this one

    def set(self, value: bool) -> None:
        """Raise or lower the flag, in every namespace that mirrors it."""
        if value is self.value:  # the common case (a set! that finds it down already): no lock
            return
        with LOCK:
            self._write(value)

    def _write(self, value: bool) -> None:
        """Store ``value`` here, in every mirror and in the flags combining this one (the lock held)."""
        self.value = value
        for mirror in list(self.mirrors or ()):
            mirror.namespace[mirror.name] = value
        for flag in list(self.combined or ()):
            flag.follow()

    def mirror(self, namespace: dict[str, Any], name: str) -> None:
        """Keep ``namespace[name]`` equal to the value from now on."""
        with LOCK:
            mirror = Mirror(namespace, name)
            namespace.setdefault(MIRRORS_KEY, []).append(mirror)
            if self.mirrors is None:
                self.mirrors = weakref.WeakSet()
            self.mirrors.add(mirror)
            namespace[name] = self.value

    def __repr__(self) -> str:
        return f"Flag({self.value!r})"


class AllOf(Flag):
    """A flag up while every one of ``members`` is up: one test that none of them went
    down (``compiler/hoist.py``). Whoever mirrors it keeps it alive (the members hold it weakly)."""

    __slots__ = ("members", "__weakref__")

    def __init__(self, members: Iterable[Flag]) -> None:
        super().__init__()
        self.members = tuple(members)
        with LOCK:
            for member in self.members:
                if member.combined is None:
                    member.combined = weakref.WeakSet()
                member.combined.add(self)
            self.value = all(member.value for member in self.members)

    def follow(self) -> None:
        """Take the value the members give now (the lock held)."""
        value = all(member.value for member in self.members)
        if value is not self.value:
            self._write(value)

    def mirror(self, namespace: dict[str, Any], name: str) -> None:
        super().mirror(namespace, name)
        namespace.setdefault(KEPT_KEY, []).append(self)


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
