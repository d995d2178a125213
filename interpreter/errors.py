"""The error taxonomy: every failure a user sees is a :class:`SchemeError`.

A ``SchemeError`` is also the Scheme *condition object* that ``guard`` and
``with-exception-handler`` receive (``error-object?`` is true of it). While it
propagates out of the evaluator, each call it passes adds a :class:`Frame`, so
the user sees a backtrace in DSL terms, innermost first.

``Frame`` and ``ErrorRecord`` are pydantic records (:mod:`interpreter.error_records`): they
are defined when first asked for (``from interpreter.errors import ErrorRecord`` still works),
so that a run that meets no error never loads pydantic's model machinery.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .datatypes import UPWARD, Nil, Pair, Span, Symbol
from .printer import write_abbreviated, write_string

if TYPE_CHECKING:
    from .error_records import ErrorRecord, Frame

#: Kinds of error. ``kind`` is also what ``(error-object-kind e)`` returns, as a symbol.
KINDS = (
    "error",  # raised by (error ...) in the program
    "raise",  # (raise obj) of a non-error object, uncaught
    "syntax-error",
    "read-error",
    "unbound-variable",
    "type-error",
    "arity-error",
    "value-error",
    "index-error",
    "division-by-zero",
    "file-error",
    "permission",
    "resource-exhaustion",
    "continuation",
    "assertion",
    "internal-error",
)


#: How many frames a backtrace keeps (the innermost ones).
MAX_FRAMES = 200


class SchemeError(Exception):
    """A taskscheme error.

    ``kind`` is one of :data:`KINDS`; ``message`` is the text after ``error:``;
    ``irritants`` are Scheme values (from ``(error msg irritant ...)``); ``span`` is
    the innermost source location known; ``payload`` is the object given to
    ``raise`` when it was not an error object. ``details`` holds structured data
    (task errors keep their record there).
    """

    def __init__(
        self,
        message: str,
        kind: str = "error",
        irritants: list[Any] | None = None,
        span: Span | None = None,
        payload: Any = None,
        continuable: bool = False,
        details: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.irritants = irritants or []
        self.span = span
        self.payload = payload
        self.continuable = continuable
        self.details = details
        #: What a loop or pipeline had done when a limit ended it (its LoopResult / TaskResult).
        self.partial: Any = None
        self.frames: list[Frame] = []
        #: Set by ``raise-continuable`` (nodes/control.py): ``(level, choice)``, the handler-stack
        #: level below which the exception is still to be handled, and the guard clause chosen.
        self.dispatched: tuple[int, Any] | None = None

    # -- backtrace -----------------------------------------------------------------
    def wants_frames(self) -> bool:
        """Whether another frame would still be kept (callers skip formatting if not)."""
        return len(self.frames) < MAX_FRAMES

    def add_frame(self, expr: str, span: Span | None, procedure: str | None) -> None:
        """Record a call the error passed through on its way out (innermost first)."""
        if self.span is None and span is not None:
            self.span = span
        if len(self.frames) < MAX_FRAMES:
            self.frames.append(_records().Frame(expr=expr, location=str(span) if span else None, procedure=procedure))

    # -- presentation --------------------------------------------------------------
    def full_message(self) -> str:
        """``message`` followed by the irritants, written as Scheme data."""
        if not self.irritants:
            return self.message

        return self.message + " " + " ".join(quoted(x) for x in self.irritants)

    def format(self) -> str:
        """The text a user sees: ``error: …``, the location, then the backtrace."""
        head = f"error: {self.full_message()}"
        lines = [head]
        if not self.frames and self.span is not None:
            lines.append(f"  at {self.span}")
        shown = self.frames[:40]
        width = min(max((len(f.expr) for f in shown), default=0), 40)
        lines.extend(f.line(width) for f in shown)
        if len(self.frames) > len(shown):
            lines.append(f"  … {len(self.frames) - len(shown)} more frames")
        return "\n".join(lines)

    def to_record(self) -> ErrorRecord:
        return _records().ErrorRecord(
            kind=self.kind,
            message=self.message,
            irritants=[write_string(x) for x in self.irritants],
            location=str(self.span) if self.span else None,
            backtrace=list(self.frames),
        )

    def __str__(self) -> str:
        return self.format()


def _records() -> ModuleType:
    """The module of the error records, imported on first use."""
    from . import error_records  # reason: start-up laziness: pydantic's model machinery is 25-30 ms

    return error_records


def __getattr__(name: str) -> Any:
    """``Frame`` and ``ErrorRecord``, from :mod:`interpreter.error_records` when first asked for."""
    if name in ("Frame", "ErrorRecord"):
        return getattr(_records(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def caused_by(err: BaseException, cause: type[BaseException]) -> bool:
    """Whether ``err`` or an exception in its chain (``__cause__``/``__context__``) is a ``cause``."""
    seen: BaseException | None = err
    while seen is not None:
        if isinstance(seen, cause):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


#: ``co_flags`` of the code of generators and coroutines (``inspect.CO_GENERATOR``,
#: ``CO_COROUTINE``, ``CO_ITERABLE_COROUTINE``, ``CO_ASYNC_GENERATOR``; inspect is not imported).
RESUMABLE = 0x20 | 0x80 | 0x100 | 0x200


def release_frames(err: BaseException) -> None:
    """Clear the local variables of the finished Python frames in the tracebacks of ``err``
    and of the exceptions it chains to, as the error leaves a run for the host.

    The DSL backtrace is in the error itself; those frames only keep alive what the run
    held (a list the program built, the error in a local): often in a cycle through the
    error, so a dropped error left it all to a full collection. Frames still executing
    (the host's, the boundary's own) are left as they are; a traceback keeps its lines."""
    seen: set[int] = set()
    chain: list[BaseException | None] = [err]
    while chain:
        exc = chain.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        tb = exc.__traceback__
        while tb is not None:
            if not tb.tb_frame.f_code.co_flags & RESUMABLE:  # clearing one closes it (3.11, 3.12)
                with contextlib.suppress(RuntimeError):  # still executing: not ours to clear
                    tb.tb_frame.clear()
            tb = tb.tb_next
        chain += (exc.__cause__, exc.__context__)


class SchemeExit(Exception):
    """Raised by ``(exit n)``: the program asked to stop with status ``code``."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


#: The most characters a value takes in a message (the printing stops there: a value of
#: a million elements is not printed whole to be cut).
QUOTED_WIDTH = 1000


def quoted(value: Any) -> str:
    """A value as a message shows it: written, and quoted when it is a symbol or a list
    (``'done``, ``'(a b)``), so that it reads as the datum it is, not as code."""
    text = write_abbreviated(value, QUOTED_WIDTH)
    return "'" + text if type(value) in (Symbol, Pair, Nil) else text


#: Fixes to suggest when a value of one of these types is handed over where an ``expected``
#: kind of value was wanted: type -> function of ``expected`` giving the hint, or ''. The
#: modules that define such types register them (tasks/records.py: a TaskResult for a string).
HINTS: dict[type, Callable[[str], str]] = {}


def _hint(expected: str, got: Any) -> str:
    """The fix to suggest for a value handed over by a common mistake, or ''."""
    for cls, hint in HINTS.items():
        if isinstance(got, cls):
            return hint(expected)
    return ""


def type_error(who: str, expected: str, got: Any) -> SchemeError:
    """``who: expected a <expected>, got <value>`` (symbols and lists quoted), with a hint when one helps."""
    text = quoted(got)
    if len(text) > 60:
        text = text[:57] + "..."
    return SchemeError(f"{who}: expected {expected}, got {text}{_hint(expected, got)}", kind="type-error")


def arity_error(who: str, expected: str, given: int) -> SchemeError:
    """``who: expected 2 arguments, given 3``."""
    return SchemeError(f"{who}: expected {expected}, given {given}", kind="arity-error")


def _circular_list(who: str) -> SchemeError:
    return SchemeError(f"{who}: expected a proper list, got a circular list", kind="type-error")


UPWARD.circular_list = _circular_list  # type: ignore[method-assign]
