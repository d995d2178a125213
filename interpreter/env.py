"""Environment frames: a dict of bindings and the frame around it."""

from __future__ import annotations

from typing import Any

from .datatypes import Symbol
from .mirrors import Cell, Flag


class Env:
    """One frame of bindings, keyed by :class:`Symbol`, with its ``outer`` frame.

    The analyzer resolves every local variable to (frames up, symbol) once, so the
    evaluator never searches; :meth:`lookup` is for tools (the REPL, ``eval``).
    """

    __slots__ = ("vars", "outer")

    def __init__(self, vars: dict[Symbol, Any], outer: Env | None = None) -> None:
        self.vars = vars
        self.outer = outer

    def lookup(self, name: Symbol) -> Any:
        """The value bound to ``name`` here or in an outer frame; KeyError if unbound."""
        env: Env | None = self
        while env is not None:
            if name in env.vars:
                return env.vars[name]
            env = env.outer
        raise KeyError(name)

    def define(self, name: Symbol, value: Any) -> None:
        self.vars[name] = value

    def root(self) -> Env:
        """The outermost (global) frame."""
        env = self
        while env.outer is not None:
            env = env.outer
        return env

    def scheme_repr(self, write: bool) -> str:
        return f"#<environment {len(self.vars)} bindings>"


class ContextBoundary(Env):
    """The base frame of a composition form whose context does not inherit in full.

    Code written inside the form sees the enclosing frames lexically, through ``outer``,
    like any frame. Data passed *implicitly* (the caller's frame that a called task with
    ``(context (inherit full))`` looks names up in, ``(subset …)`` copies) stops here and
    continues at ``implicit``: the global frame (``none``) or a frame holding the listed
    names (``subset``).
    """

    __slots__ = ("implicit",)

    def __init__(self, vars: dict[Symbol, Any], outer: Env, implicit: Env) -> None:
        super().__init__(vars, outer)
        self.implicit = implicit


def implicit_lookup(env: Env | None, name: Symbol, missing: Any = None) -> Any:
    """The value of ``name`` as data passed implicitly from frame ``env`` sees it: along the
    frame chain, jumping from a :class:`ContextBoundary` to its ``implicit`` frame;
    ``missing`` when unbound."""
    while env is not None:
        vars = env.vars
        if name in vars:
            return vars[name]
        env = env.implicit if type(env) is ContextBoundary else env.outer
    return missing


class GlobalBindings(dict):  # type: ignore[type-arg]
    """The global frame's bindings: a dict that notices when a watched name is rebound.

    Compiled code computes a built-in (``+``, ``<``, ``memv`` …) inline while
    ``intact[name]`` is up (a :class:`~.mirrors.Flag`), that is, while that watched name
    still holds its built-in: a program that defines its own ``assoc`` keeps inline
    arithmetic. An inline expression of several built-ins tests one flag for all of them
    (:meth:`combined`). Compiled code reads a global variable from its :meth:`cell`.
    """

    __slots__ = ("watched", "intact", "combos", "cells")

    def __init__(self) -> None:
        super().__init__()
        self.watched: dict[Symbol, Any] = {}
        self.intact: dict[Symbol, Flag] = {}
        self.combos: dict[frozenset[Symbol], Flag] = {}
        self.cells: dict[Symbol, Cell] = {}

    def fill(self, bindings: dict[Symbol, Any]) -> None:
        """Add ``bindings`` at once to a frame nothing watches or reads through cells yet (a new
        interpreter's built-ins); otherwise one by one, as :meth:`update` does."""
        if self.watched or self.cells:
            self.update(bindings)
        else:
            dict.update(self, bindings)

    def cell(self, key: Symbol) -> Cell:
        """The binding of ``key`` (None while unbound) in a cell that every write keeps
        current: what compiled code reads."""
        cell = self.cells.get(key)
        if cell is None:  # listed first, then filled: a write from now on updates it too
            cell = self.cells.setdefault(key, Cell())
            cell.follow(self, key)
        return cell

    def _follow(self, key: Symbol) -> None:
        cell = self.cells.get(key)
        if cell is not None:
            cell.follow(self, key)

    def watch(self, builtins: dict[Symbol, Any]) -> None:
        self.watched = dict(builtins)
        for key, value in builtins.items():
            self.intact.setdefault(key, Flag()).set(self.get(key) is value)
        for keys, flag in list(self.combos.items()):
            flag.set(all(self.intact[key].value for key in keys))

    def watch_also(self, bindings: dict[Symbol, Any]) -> None:
        """Watch ``bindings`` too (an interpreter's own procedures, such as its port
        writers), each with its flag, beside those :meth:`watch` was given."""
        self.watch({**self.watched, **bindings})

    def combined(self, keys: frozenset[Symbol]) -> Flag:
        """A flag up while every one of the watched ``keys`` holds its built-in."""
        flag = self.combos.get(keys)
        if flag is None:
            flag = self.combos.setdefault(keys, Flag())
            if not all(self.intact[key].value for key in keys):  # after it is listed: _note sees it from now on
                flag.set(False)
        return flag

    def _note(self, key: Symbol, value: Any) -> None:
        if key in self.watched and value is not self.watched[key]:
            self.intact[key].set(False)
            for keys, flag in list(self.combos.items()):  # a copy: a body may be compiling meanwhile
                if key in keys:
                    flag.set(False)

    def __setitem__(self, key: Symbol, value: Any) -> None:
        if key in self.watched:
            self._note(key, value)
        super().__setitem__(key, value)
        cell = self.cells.get(key)
        if cell is not None:  # as Cell.follow does, with one read in the common case
            cell.value = value
            if self.get(key) is not value:  # another write ran meanwhile
                cell.follow(self, key)

    def __delitem__(self, key: Symbol) -> None:
        self._note(key, None)
        super().__delitem__(key)
        self._follow(key)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def __ior__(self, other: Any) -> GlobalBindings:
        self.update(other)
        return self

    def popitem(self) -> tuple[Symbol, Any]:
        key, value = super().popitem()
        self._note(key, None)
        self._follow(key)
        return key, value

    def setdefault(self, key: Symbol, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key: Symbol, *default: Any) -> Any:
        self._note(key, None)
        value = super().pop(key, *default)
        self._follow(key)
        return value

    def clear(self) -> None:
        for flag in [*self.intact.values(), *self.combos.values()]:
            flag.set(False)
        super().clear()
        for key, cell in list(self.cells.items()):
            cell.follow(self, key)
