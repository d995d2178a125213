"""eval/apply: closures, the trampoline for tail calls, and the runtime's limits.

Every AST node is compiled once into a Python closure ``run(env) -> value``
(SICP 4.1.7). A call in tail position returns a :class:`TailCall` instead of
calling; :func:`apply_procedure` loops over those, so tail calls never grow the
Python stack.

Deep non-tail recursion grows it, though. Rather than raising the host's
recursion limit (process-wide, a surprise to an embedder), the runtime watches
how deep the Python stack is and, when it nears the limit, continues the
evaluation on a fresh thread that waits for nothing but its result (see
:mod:`interpreter.stack`). Depth is then bounded only by ``max_depth`` and memory.

The package by concern: :mod:`.failures` (Python exceptions and limits as taskscheme errors),
:mod:`.procedures` (closures, continuations, apply and the trampoline, callers for the
higher-order primitives), :mod:`.runtime` (the runtime and the branch context of parallel
forms). Import from the package; the modules depend on each other in that order only.
"""

from .failures import (
    PASS_THROUGH,
    BranchCancelled,
    ContinuationInvoked,
    Interrupted,
    call_host,
    not_a_procedure,
    primitive_error,
    python_exception,
    step_limit_error,
    time_limit_error,
)
from .procedures import (
    BOUNCE,
    UNASSIGNED,
    Bounce,
    CallRegisters,
    Closure,
    Continuation,
    Unassigned,
    apply_other,
    apply_parameter,
    apply_procedure,
    apply_with_caller,
    bounce,
    caller,
    fixed_count,
)
from .runtime import Branch, Runtime, settle

__all__ = [
    "BOUNCE",
    "PASS_THROUGH",
    "UNASSIGNED",
    "Bounce",
    "Branch",
    "BranchCancelled",
    "CallRegisters",
    "Closure",
    "Continuation",
    "ContinuationInvoked",
    "Interrupted",
    "Runtime",
    "Unassigned",
    "apply_other",
    "apply_parameter",
    "apply_procedure",
    "apply_with_caller",
    "bounce",
    "call_host",
    "caller",
    "fixed_count",
    "not_a_procedure",
    "primitive_error",
    "python_exception",
    "settle",
    "step_limit_error",
    "time_limit_error",
]
