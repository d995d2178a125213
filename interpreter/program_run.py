"""A program run as the command line runs it: ``-e`` expressions with their values printed, a
file, or a program's text, with every FAILED result a program drops warned about (or, under
``--strict``, an error).

The command line (``cli.py``) runs a :class:`ProgramRun` in its own interpreter, or sends it
to the isolated child process (``--isolate``, :mod:`.isolation.child`), which runs it there:
so it lives in the host layer, below both, and takes the interpreter as a
:class:`~.facade.Facade`.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from .datatypes import VOID, Span, Values
from .facade import Facade
from .printer import write_string
from .reader import read_with_spans
from .tasks.failures import dropped_failure_error, dropped_failure_warning, dropped_failures, is_failed_result
from .tasks.observe.screen import close_screens
from .terminal import format_failure, format_warning, is_terminal, supports_colour


def dropped_failure_check(interp: Facade, *, strict: bool) -> Callable[[Any, Span | None], None]:
    """What runs on each top-level form's value: nothing fails in silence. A FAILED TaskResult or
    LoopResult (or a list of results holding some) that the program drops is a one-line warning,
    or under ``--strict`` an error."""

    def check(value: Any, span: Span | None) -> None:
        failed = dropped_failures(value)
        if not failed:
            return
        if strict:
            raise dropped_failure_error(value, failed, span)
        end_terminal_line(interp)
        warning = dropped_failure_warning(value, failed, span)
        print(format_warning(warning, supports_colour(sys.stderr)), file=sys.stderr)

    return check


def print_values(interp: Facade, source: str, filename: str) -> None:
    """Evaluate each expression in ``source`` and print its value(s) with ``write``; a FAILED
    task or loop result shows its error on standard error first, as the REPL does."""
    port = interp.output.value
    forms = read_with_spans(source, filename)
    interp.check_unbound(forms)
    for datum, span in forms:
        value = interp.eval_datum(datum, span)
        if value is VOID:
            continue
        for item in value.items if isinstance(value, Values) else [value]:
            if port.column:
                port.write("\n")
            if is_failed_result(item):
                port.flush()
                print(format_failure(item, supports_colour(sys.stderr)), file=sys.stderr, flush=True)
            port.write(write_string(item) + "\n")


class ProgramRun(NamedTuple):
    """What the command line runs: ``-e`` expressions, a file, or a program's text."""

    exprs: list[str] | None
    file: str | None
    source: str | None
    command_line: list[str]
    strict: bool

    def run(self, interp: Facade) -> None:
        name = "<-e>" if self.exprs else self.file if self.file is not None else "<stdin>"
        with interp.whole_run(name):
            if self.exprs:
                for expr in self.exprs:
                    print_values(interp, expr, "<-e>")
            elif self.file is not None:
                interp.eval_file(self.file)
            else:
                interp.eval_scheme(self.source or "", filename="<stdin>", whole=True)


def end_terminal_line(interp: Facade | None) -> None:
    """Before an error on a terminal, end the line the program's output left open."""
    if interp is not None and interp.output.value.column and is_terminal(sys.stdout) and is_terminal(sys.stderr):
        interp.output.value.write("\n")
    flush_output(interp)


def flush_output(interp: Facade | None) -> None:
    """Erase the live progress display (every way out does so first) and flush the program's output."""
    close_screens()
    if interp is not None:
        with contextlib.suppress(OSError, ValueError):
            interp.output.value.flush()
