"""One notebook's session: the interpreter kept across cells, each cell's value and error.

A :class:`NotebookSession` is the REPL's session (the same comma commands, ``,describe``,
``,trace``, ``,reset``) whose output goes to the cell that runs instead of a terminal:
what a program writes is ``stream`` messages, the cell's value is kept for the
``execute_result``, and an error is kept for the ``error`` reply, formatted as the command
line prints it (message, ``cell[N]:line:col``, DSL backtrace).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..datatypes import VOID, Values
from ..errors import SchemeError, SchemeExit
from ..evaluator import Interrupted
from ..interpreter import Interpreter
from ..interrupts import interruptible
from ..repl.commands import CommandError, is_command, run_command
from ..repl.session import ReplSession
from ..tasks.failures import is_failed_result, partial_report
from ..terminal import format_error, format_failure
from . import capabilities  # noqa: F401 - registers ,allow and ,deny
from .streams import CellStream


@dataclass
class CellError:
    """What the ``error`` reply says: a name (the error's kind), its message and the lines shown."""

    name: str
    message: str
    lines: list[str]


@dataclass
class CellOutcome:
    """The values a cell's last expression returned (empty: nothing to show) or its error."""

    values: list[Any] = field(default_factory=list)
    error: CellError | None = None
    #: The cell's trace events (as ``--trace`` writes them) when ``,trace on``; else empty.
    trace: list[dict[str, Any]] = field(default_factory=list)


def cell_name(number: int) -> str:
    """The file name of a cell's source in spans and backtraces: ``cell[3]``."""
    return f"cell[{number}]"


class NotebookSession(ReplSession):
    """The REPL session of a kernel; :meth:`run_cell` is its one entry point."""

    def __init__(self, make_interp: Callable[[], Interpreter], out: CellStream, err: CellStream) -> None:
        self.out = out
        self.outcome = CellOutcome()
        self.events: list[dict[str, Any]] = []  # the running cell's trace events (with ,trace on)
        super().__init__(make_interp, err=err)  # type: ignore[arg-type]

    def run_cell(self, code: str, number: int) -> CellOutcome:
        """Evaluate a cell (a comma command or expressions) as input number ``number``."""
        self.outcome = CellOutcome()
        self.events = []
        stripped = code.strip()
        if stripped:
            self.count = number
            if is_command(stripped):
                self.guard(lambda: run_command(self, stripped[1:]))
            else:
                name = cell_name(number)
                self.sources[name] = code
                self.guard(lambda: self.evaluate(code, name))
        self.fresh_line()
        self.flush()
        self.err.flush()
        self.outcome.trace = self.events if self.tracing else []
        return self.outcome

    def _print_event(self, event: Any) -> None:
        """With ``,trace on`` a cell's events are kept for the trace viewer (not printed line by line)."""
        if self.tracing:
            self.events.append(json.loads(event.model_dump_json()))

    def show_value(self, value: Any) -> None:
        """Keep the value of the cell's latest expression (a FAILED result says so on stderr)."""
        if value is VOID:
            self.outcome.values = []
            return
        items = list(value.items) if isinstance(value, Values) else [value]
        for item in items:
            if is_failed_result(item):
                self.complain(format_failure(item))
        self.outcome.values = items

    def show_error(self, err: SchemeError) -> None:
        text = format_error(err)
        if err.partial is not None:  # a loop or pipeline ended by a limit: what it had done
            text += "\n" + partial_report(err.partial)
        name = "interrupted" if isinstance(err, Interrupted) else str(getattr(err, "kind", None) or "error")
        self.fail(name, err.message if hasattr(err, "message") else str(err), text)

    def fail(self, name: str, message: str, text: str) -> None:
        self.fresh_line()
        self.flush()
        self.outcome.values = []
        self.outcome.error = CellError(name, message, text.split("\n"))

    def guard(self, action: Callable[[], None]) -> None:
        """Run ``action``; every failure becomes the cell's error. Interrupting the kernel (the
        notebook's stop button) interrupts the program as Ctrl-C does in the REPL."""
        with interruptible(self.interp) as watch:
            self._watch = watch
            try:
                action()
            except SchemeExit as done:
                said = f"exit: the program called (exit {done.code}); the kernel goes on"
                self.fail("exit", f"exit {done.code}", said)
            except SchemeError as err:
                self.show_error(err)
            except CommandError as err:
                self.fail("command-error", str(err), f"error: {err}")
            except KeyboardInterrupt:  # a second interrupt, or one during a blocking read
                self.fail("interrupted", "interrupted", "interrupted")
            except RecursionError:
                self.fail("error", "nesting too deep", "error: nesting too deep for the host stack")
            except Exception as exc:  # a bug in a primitive must not end the kernel
                self.fail("internal-error", str(exc), f"internal error: {type(exc).__name__}: {exc}")
            finally:
                self._watch = None
