"""How failures during evaluation become taskscheme errors: a Python exception inside a
primitive or a host function, a call of a non-procedure, the step and time limits, and
an interruption (Ctrl-C, cancellation). Nothing here evaluates; the rest of the evaluator
builds on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..datatypes import Primitive
from ..errors import SchemeError, SchemeExit, arity_error, type_error
from ..printer import write_string


class ContinuationInvoked(BaseException):
    """Unwinds the Python stack to the ``call/cc`` that made ``target``."""

    def __init__(self, target: Any, value: Any) -> None:
        super().__init__()
        self.target = target
        self.value = value


class Interrupted(SchemeError):
    """The host interrupted the program (Ctrl-C, cancellation)."""


class BranchCancelled(Interrupted):
    """A branch stopped because its parallel form gave up on it (another branch failed)."""


def step_limit_error(limit: int | None, used: int) -> SchemeError:
    return SchemeError(
        f"step limit exceeded: max_steps = {limit}",
        kind="resource-exhaustion",
        details={"resource": "steps", "used": used, "limit": limit},
    )


def time_limit_error(limit: float | None) -> SchemeError:
    return SchemeError(
        f"time limit exceeded: timeout = {limit} s",
        kind="resource-exhaustion",
        details={"resource": "time", "limit": limit},
    )


def not_a_procedure(obj: Any, args: list[Any]) -> SchemeError:
    err = type_error("application", "a procedure", obj)
    text = write_string(obj)
    err.message = f"not a procedure: {text[:60]} (called with {len(args)} argument{'s' if len(args) != 1 else ''})"
    return err


def primitive_error(proc: Primitive, args: list[Any], exc: Exception) -> SchemeError:
    """A Python exception from calling a primitive, named after it (also when the call was
    a pending tail call, as ``(apply + xs)`` in tail position makes): a TypeError is a wrong
    argument count or a type error; anything else as :func:`python_exception` says."""
    if not isinstance(exc, TypeError):
        return python_exception(exc, proc.name)
    n = len(args)
    if n < proc.min_args or (proc.max_args is not None and n > proc.max_args):
        return arity_error(proc.name, proc.arity_text(), n)
    return SchemeError(f"{proc.name}: {exc}", kind="type-error")


def python_exception(exc: BaseException, who: str | None = None) -> SchemeError:
    """Turn an unexpected Python exception inside a primitive into a taskscheme error."""
    prefix = f"{who}: " if who else ""
    if isinstance(exc, ZeroDivisionError):
        return SchemeError(f"{prefix}division by zero", kind="division-by-zero")
    if isinstance(exc, RecursionError):
        return SchemeError(f"{prefix}nesting too deep for the host stack", kind="resource-exhaustion")
    if isinstance(exc, MemoryError):
        return SchemeError(f"{prefix}out of memory", kind="resource-exhaustion")
    if isinstance(exc, OverflowError):
        return SchemeError(f"{prefix}numeric overflow: {exc}", kind="value-error")
    if isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        # str() of an integer past CPython's 4,300 digits, in a message that forgot int_shown
        return SchemeError(f"{prefix}an integer too large to show (over 4,300 digits)", kind="value-error")
    if isinstance(exc, (ValueError, TypeError, IndexError, KeyError)):
        return SchemeError(f"{prefix}{exc}", kind="value-error")
    return SchemeError(f"{prefix}internal error: {type(exc).__name__}: {exc}", kind="internal-error")


def call_host(name: str, fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
    """Call a host function; its Python exceptions become taskscheme errors."""
    try:
        return fn(*args, **kwargs)
    except PASS_THROUGH:
        raise
    except Exception as exc:
        err = python_exception(exc, name)
        err.details = {"exception": exc}
        raise err from exc


PASS_THROUGH = (SchemeError, ContinuationInvoked, SchemeExit, KeyboardInterrupt, SystemExit, GeneratorExit)
