"""Context management for procedure tasks: which frame a task's body runs in.

The core resolves variables lexically when code is analysed, and a call site does
not hand its frame to the procedure it calls. So the frame a task body sees is
decided where the task is defined:

- ``full``: a child of the frame where ``define-task`` ran (the global frame at
  top level; the enclosing ``let``/procedure frame for a task defined inside one);
- ``none``: a child of the global frame: only the parameters and globals are visible;
- ``subset``: a child of the global frame holding the parameters and copies, made at
  each call, of the names listed in ``(subset …)`` as bound where the task was defined.
"""

from __future__ import annotations

from typing import Any

from ..datatypes import Symbol, TailCall
from ..env import Env
from ..errors import SchemeError
from ..evaluator import UNASSIGNED, Closure


class DslBody:
    """Runs a DSL task body: a closure over the frame chosen by the task's context."""

    takes_bound_arguments = True

    def __init__(self, task: str, closure: Closure, subset: tuple[Symbol, ...], defining_env: Env) -> None:
        self.task = task
        self.closure = closure
        self.subset = subset
        self.defining_env = defining_env

    def __call__(self, bound: dict[str, Any]) -> TailCall:
        values = list(bound.values()) + [self.copy(name) for name in self.subset]
        return TailCall(self.closure, values)

    def copy(self, name: Symbol) -> Any:
        """The value of a ``subset`` name where the task was defined."""
        try:
            value = self.defining_env.lookup(name)
        except KeyError:
            value = UNASSIGNED
        if value is UNASSIGNED:
            raise SchemeError(
                f"task {self.task}: {name.name}, listed in (subset …), is not bound", kind="unbound-variable"
            )
        return value
