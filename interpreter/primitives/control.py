"""Control primitives: apply, values, continuations, dynamic-wind, exceptions, eval, load, exit, promises."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..datatypes import (
    VOID,
    Parameter,
    Primitive,
    Procedure,
    Promise,
    TailCall,
    cons,
    list_to_python,
    make_list,
    sym,
    values_of,
)
from ..errors import SchemeError, SchemeExit, arity_error, type_error
from ..evaluator import Continuation, ContinuationInvoked, apply_procedure
from ..nodes.binding import values_list
from ..nodes.control import condition_of, force, passes_through
from ..nodes.control import raise_continuable as signal_continuable
from ..printer import display_string, write_string
from ..regular_files import refuse_special
from .registry import LIST_FORMS, installer, primitive

if TYPE_CHECKING:
    from ..host_protocols import LibraryHost


@primitive("procedure?")
def is_procedure(x: Any) -> bool:
    return isinstance(x, Procedure)


@primitive("apply")
def apply(proc: Any, *args: Any) -> Any:
    """(apply proc arg ... list): call proc with the args and the list's elements."""
    if not args:
        raise arity_error("apply", "at least 2 arguments (a procedure and a list)", 1)
    if len(args) == 1 and type(proc) is Primitive:
        over_list = LIST_FORMS.get(proc)
        if over_list is not None:  # (apply + numbers), (apply string-append strings): one walk
            return over_list(args[0])
    try:
        spread = list_to_python(args[-1])
    except ValueError:
        raise type_error("apply", "a proper list as last argument", args[-1]) from None
    return TailCall(proc, [*args[:-1], *spread])


@primitive("values")
def values(*items: Any) -> Any:
    return items[0] if len(items) == 1 else values_of(list(items))


@primitive("call-with-values")
def call_with_values(producer: Any, consumer: Any) -> TailCall:
    return TailCall(consumer, values_list(apply_procedure(producer, [])))


@primitive("void")
def void(*_: Any) -> Any:
    return VOID


@primitive("force")
def force_(value: Any) -> Any:
    return force(value)


@primitive("make-promise")
def make_promise(value: Any) -> Promise:
    return value if type(value) is Promise else Promise(value=value)


@primitive("promise?")
def is_promise(x: Any) -> bool:
    return type(x) is Promise


@primitive("make-parameter")
def make_parameter(value: Any, converter: Any = None) -> Parameter:
    if converter is not None:
        value = apply_procedure(converter, [value])
    return Parameter(value, converter)


@primitive("error-object?", "condition?")
def is_error_object(x: Any) -> bool:
    return isinstance(x, SchemeError)


@primitive("error-object-message")
def error_object_message(e: Any) -> str:
    if not isinstance(e, SchemeError):
        raise type_error("error-object-message", "an error object", e)
    return e.message


@primitive("condition/report-string")
def condition_report_string(e: Any) -> str:
    """The message and the irritants, as MIT Scheme reports them: ``(error "bad value:" 42)``
    gives ``"bad value: 42"``."""
    if not isinstance(e, SchemeError):
        raise type_error("condition/report-string", "an error object", e)
    return e.full_message()


@primitive("error-object-irritants")
def error_object_irritants(e: Any) -> Any:
    if not isinstance(e, SchemeError):
        raise type_error("error-object-irritants", "an error object", e)
    return make_list(e.irritants)


@primitive("error-object-kind")
def error_object_kind(e: Any) -> Any:
    """The kind of an error as a symbol: type-error, unbound-variable, …"""
    if not isinstance(e, SchemeError):
        raise type_error("error-object-kind", "an error object", e)
    return sym(e.kind)


@primitive("read-error?")
def is_read_error(x: Any) -> bool:
    return isinstance(x, SchemeError) and x.kind == "read-error"


@primitive("file-error?")
def is_file_error(x: Any) -> bool:
    return isinstance(x, SchemeError) and x.kind == "file-error"


def make_error(message: Any, irritants: tuple[Any, ...]) -> SchemeError:
    text = display_string(message) if not isinstance(message, str) else message
    return SchemeError(text, kind="error", irritants=list(irritants))


@installer
def install_control(interp: LibraryHost) -> None:
    """Primitives that need the interpreter's runtime, environment or files."""
    rt = interp.runtime

    def raise_(obj: Any) -> Any:
        """(raise obj): a non-continuable exception."""
        if isinstance(obj, SchemeError):
            obj.dispatched = None  # raised anew: every handler may take it
            raise obj
        raise SchemeError(f"uncaught raise: {_short(obj)}", kind="raise", payload=obj)

    def raise_continuable(obj: Any) -> Any:
        """(raise-continuable obj): the current handler's value is the result."""
        if isinstance(obj, SchemeError):
            obj.dispatched = None
            uncaught = obj
        else:
            uncaught = SchemeError(f"uncaught raise: {_short(obj)}", kind="raise", payload=obj, continuable=True)
        return signal_continuable(rt.current(), obj, uncaught)

    def error(message: Any, *irritants: Any) -> Any:
        """(error message irritant ...)."""
        raise make_error(message, irritants)

    def with_exception_handler(handler: Any, thunk: Any) -> Any:
        """Call thunk; an exception raised in it is given to handler."""
        if not isinstance(handler, Procedure):
            raise type_error("with-exception-handler", "a procedure as handler", handler)
        ctx = rt.current()
        depth, count = ctx.depth, len(ctx.handlers)
        ctx.handlers.append(handler)
        try:
            return apply_procedure(thunk, [])
        except SchemeError as err:
            ctx.depth = depth
            del ctx.handlers[count:]
            if passes_through(err, count):
                raise
            apply_procedure(handler, [condition_of(err)])
            raise SchemeError(
                f"exception handler returned from a non-continuable exception: {err.full_message()}",
                kind=err.kind if err.kind != "raise" else "error",
            ) from None
        finally:
            del ctx.handlers[count:]

    def call_cc(proc: Any) -> Any:
        """(call/cc proc): proc receives an escape-only continuation."""
        ctx = rt.current()
        k = Continuation(ctx.winders)
        depth, count = ctx.depth, len(ctx.handlers)
        try:
            return apply_procedure(proc, [k])
        except ContinuationInvoked as jump:
            if jump.target is not k:
                raise
            ctx.depth = depth
            del ctx.handlers[count:]
            return jump.value
        finally:
            k.live = False

    def dynamic_wind(before: Any, thunk: Any, after: Any) -> Any:
        apply_procedure(before, [])
        ctx = rt.current()
        ctx.winders = cons((before, after), ctx.winders)
        try:
            return apply_procedure(thunk, [])
        finally:
            ctx.winders = ctx.winders.cdr
            apply_procedure(after, [])

    def eval_(expr: Any, env: Any = None) -> Any:
        """(eval expr [environment]): only the interaction environment is supported."""
        return interp.eval_datum(expr)

    def interaction_environment(*_: Any) -> Any:
        return interp.global_env

    def load(path: Any) -> Any:
        """(load "file.scm"): relative to the file being loaded."""
        text = str(path)
        base = interp.loading[-1].parent if interp.loading else Path.cwd()
        target = Path(text) if Path(text).is_absolute() else base / text
        interp.check_file_access(target, "load")
        refuse_special(target, "load")  # a FIFO or a device would block past the timeout
        interp.eval_file(target)
        return VOID

    def exit_(code: Any = 0) -> Any:
        raise SchemeExit(0 if code is True else 1 if code is False else code if type(code) is int else 0)

    def command_line() -> Any:
        return make_list(interp.command_line)

    for name, fn in {
        "raise": raise_,
        "raise-continuable": raise_continuable,
        "error": error,
        "with-exception-handler": with_exception_handler,
        "call-with-current-continuation": call_cc,
        "call/cc": call_cc,
        "dynamic-wind": dynamic_wind,
        "eval": eval_,
        "interaction-environment": interaction_environment,
        "scheme-report-environment": interaction_environment,
        "environment": interaction_environment,
        "load": load,
        "exit": exit_,
        "emergency-exit": exit_,
        "command-line": command_line,
    }.items():
        interp.define_primitive(name, fn)


def _short(obj: Any) -> str:
    text = write_string(obj)
    return text if len(text) <= 60 else text[:57] + "..."
