"""Flags that generated code reads as plain globals of its own namespace.

Compiled code computes a built-in inline while a flag says the name still holds it
(``GlobalBindings``), and loops a self call while the interpreter's ``lexical_self`` flag
holds (``nodes.core.SelfBinding``). Such a test runs once per operation, so its cost is
what counts: ``flag[0]`` (a global, a constant and a subscript) cost ~7 ns, about as much
as the operation it guards. A :class:`Flag` is instead copied, as a bool, into every
namespace that reads it (:meth:`Flag.mirror`): the test is one global read. Changing the
flag (:meth:`Flag.set`, rare: a program rebinding ``car``) writes every copy.

A namespace holds its mirrors strongly and the flag only weakly, so compiled code that is
dropped takes its mirrors with it. One lock orders a change against a new mirror: a copy
made while the flag goes down still ends down.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

_LOCK = threading.Lock()

#: The key under which a namespace keeps its mirrors alive.
MIRRORS_KEY = "__flag_mirrors__"


class Mirror:
    """One namespace's copy of a flag under one name."""

    __slots__ = ("namespace", "name", "__weakref__")

    def __init__(self, namespace: dict[str, Any], name: str) -> None:
        self.namespace, self.name = namespace, name


class Flag:
    """A boolean kept current in every namespace that mirrors it."""

    __slots__ = ("up", "mirrors")

    def __init__(self, up: bool = True) -> None:
        self.up = up
        self.mirrors: weakref.WeakSet[Mirror] = weakref.WeakSet()

    def set(self, up: bool) -> None:
        """Raise or lower the flag, in every namespace that mirrors it."""
        if up is self.up:  # the common case (a set! that finds it down already): no lock
            return
        with _LOCK:
            if up is self.up:
                return
            self.up = up
            for mirror in list(self.mirrors):
                mirror.namespace[mirror.name] = up

    def mirror(self, namespace: dict[str, Any], name: str) -> None:
        """Keep ``namespace[name]`` equal to the flag from now on."""
        with _LOCK:
            mirror = Mirror(namespace, name)
            namespace.setdefault(MIRRORS_KEY, []).append(mirror)
            self.mirrors.add(mirror)
            namespace[name] = self.up

    def __repr__(self) -> str:
        return f"Flag({self.up})"
