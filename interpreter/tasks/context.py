"""Context management for procedure tasks: the frame a task's body runs in.

A task call hands the task the caller's frame (see ``apply_in`` on
:class:`~interpreter.tasks.library.TaskProcedure`). By the task's ``inherit_context``:

- ``full``: the body's frame is a child of the caller's frame, so the body sees the
  caller's variables; its free names are looked up at run time along that chain;
- ``none``: a child of the global frame: only the parameters and globals are visible;
- ``subset``: a child of the global frame holding the parameters and copies, made at
  each call, of the names listed in ``(subset …)`` as the caller sees them.

What a task sees of its caller is implicit data, so it stops where a composition
form's own context stops it (:class:`~interpreter.env.ContextBoundary`).
"""

from __future__ import annotations

from typing import Any

from ..datatypes import Symbol, TailCall
from ..env import Env, implicit_lookup
from ..errors import SchemeError
from ..evaluator import UNASSIGNED, Closure, bounce
from ..nodes.core import hidden_by_context


class DslBody:
    """Runs a DSL task body: its closure, over the frame chosen by the task's context."""

    takes_bound_arguments = True
    uses_caller_frame = True

    def __init__(self, task: str, closure: Closure, subset: tuple[Symbol, ...], inherit: str) -> None:
        self.task = task
        self.closure = closure
        self.subset = subset
        self.inherit = inherit

    def __call__(self, bound: dict[str, Any], caller: Env) -> Any:
        return self.positional(list(bound.values()), caller, True)

    def positional(self, values: list[Any], caller: Env, tail: bool = False) -> Any:
        """The call of the body on ``values``, one per parameter in order (defaults filled in).

        In tail position (``tail``) it is handed back as a tail call, so tail-recursive tasks run
        in constant space. Otherwise the body runs here (over its caller's frame under ``full``), as
        :func:`~interpreter.evaluator.apply_procedure` runs a closure (steps, depth, limits; past
        the depth mark, the tail call takes apply_procedure's path; in a parallel branch it runs on
        the branch's registers)."""
        if self.subset:
            values = values + [self.copy(name, caller) for name in self.subset]
        closure = self.closure
        env = caller if self.inherit == "full" else closure.env
        root = rt = closure.rt
        if rt.shared:  # a parallel form runs: the calling thread's branch (its own registers)
            rt = rt.current()
        depth = rt.depth
        if tail or depth >= rt.hop_mark or len(values) != closure.nargs:
            if env is not closure.env:
                closure = Closure(closure.name, closure.run, env, root, closure.params, closure.rest, closure.span)
            return TailCall(closure, values)
        rt.steps += 1
        if rt.steps >= rt.check_at:
            rt.check()
        result = closure.run(env, bounce(depth + 1), rt, *values)
        rt.depth = depth
        return result

    def copy(self, name: Symbol, caller: Env) -> Any:
        """The value of a ``subset`` name as the caller sees it."""
        value = implicit_lookup(caller, name, UNASSIGNED)
        if value is UNASSIGNED:
            err = SchemeError(f"unbound variable: {name.name}", kind="unbound-variable")
            hinted = hidden_by_context(err, caller).message.removeprefix(f"unbound variable: {name.name}")
            raise SchemeError(
                f"task {self.task}: {name.name}, listed in (subset …), is not bound{hinted}", kind="unbound-variable"
            )
        return value
