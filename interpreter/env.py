"""Environment frames: a dict of bindings and the frame around it."""

from __future__ import annotations

from typing import Any

from .datatypes import Symbol


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
