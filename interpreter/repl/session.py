"""One REPL session, independent of how lines are read: evaluate input, print results and errors.

Both the prompt_toolkit REPL and the plain line reader (pipes, CI) feed text to
:meth:`ReplSession.submit`. A session survives every error; ``,reset`` swaps in a
fresh interpreter from the factory it was given.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ..datatypes import VOID, Symbol, Values
from ..errors import SchemeError, SchemeExit
from ..evaluator import Interrupted
from ..interpreter import Interpreter
from ..interrupts import SigintWatch, interruptible
from ..reader import read_with_spans
from ..tasks.failures import is_failed_result
from ..tasks.names import TASK_NAMES
from ..tasks.observe.screen import guard_output, is_terminal
from ..terminal import format_error, format_failure
from .commands import CommandError, is_command, run_command
from .describe import summary


class ReplSession:
    """The state of a REPL: the interpreter, what was loaded, what was typed."""

    def __init__(
        self,
        make_interp: Callable[[], Interpreter],
        *,
        interp: Interpreter | None = None,
        err: IO[str] | None = None,
        colour: bool = False,
    ) -> None:
        self.make_interp = make_interp
        # on a terminal, around the live progress display (what ,trace on prints comes mid-run)
        self.err = err if err is not None else guard_output(sys.stderr)
        self.colour = colour
        self.sources: dict[str, str] = {}  # REPL input by its file name, for ,describe
        self.loaded: list[Path] = []  # files loaded with -i and ,load, for ,reload
        self.count = 0
        self.results: list[Any] = []  # every value shown, as $1, $2 … name them
        self.done = False
        self.exit_code = 0
        self.tracing = False
        self._traced: Interpreter | None = None
        self._watch: SigintWatch | None = None
        self.use(interp if interp is not None else make_interp())

    def use(self, interp: Interpreter) -> None:
        """Make ``interp`` the session's interpreter; names bound now are not the user's."""
        self.interp = interp
        for number, value in enumerate(self.results, 1):  # earlier results survive ,reset
            interp.define(result_name(number), value)
        self.baseline = dict(interp.global_env.vars)

        def tasks_started() -> None:  # the task runtime is made when first used (task_runtime.py)
            interp.tasks.on_redefine = self.note_redefinition
            bound = interp.global_env.vars
            self.baseline.update((key, bound[key]) for key in map(Symbol.intern, TASK_NAMES) if key in bound)

        interp.when_tasks_start(tasks_started)
        if self.tracing:
            self.attach_trace()

    # -- output --------------------------------------------------------------------
    def write(self, text: str) -> None:
        """Write to the program's current output port (so its column stays right)."""
        self.interp.output.value.write(text)

    def say(self, text: str) -> None:
        """Write ``text`` as whole lines on standard output."""
        self.fresh_line()
        self.write(text if text.endswith("\n") else text + "\n")

    def fresh_line(self) -> None:
        """End a line the program left unfinished, so results and prompts start at column 0."""
        port = self.interp.output.value
        if port.column:
            port.write("\n")

    def flush(self) -> None:
        self.interp.output.value.flush()

    def note_redefinition(self, name: str, before: str | None, place: str | None) -> None:
        """In the REPL a task defined again replaces the earlier one, with a note."""
        earlier = f" (it was defined at {before})" if before is not None else ""
        self.complain(f"note: task {name} redefined{earlier}")

    def complain(self, text: str) -> None:
        """Write a message to standard error, after whatever the program wrote."""
        self.fresh_line()
        self.flush()
        self.err.write(text if text.endswith("\n") else text + "\n")
        self.err.flush()

    def show_error(self, err: SchemeError) -> None:
        if isinstance(err, Interrupted):
            self.after_ctrl_c()
        self.complain(format_error(err, self.colour))

    def after_ctrl_c(self) -> None:
        """A terminal has echoed ``^C`` where the cursor was: start a new line."""
        if is_terminal(self.err):
            self.err.write("\n")

    def show_value(self, value: Any) -> None:
        """Print a result as ``$N = value`` and bind ``$N`` to it, as Guile does (a costly model
        call need not run again to reuse its answer); ``VOID`` prints nothing, several values
        get a number each. A FAILED task or loop result shows its error first, as an error."""
        if value is VOID:
            return
        items = value.items if isinstance(value, Values) else [value]
        for item in items:
            if is_failed_result(item):
                self.complain(format_failure(item, self.colour))
            self.results.append(item)
            name = result_name(len(self.results))
            self.interp.define(name, item)
            self.baseline[Symbol.intern(name)] = item
            self.say(f"{name} = {summary(item, lambda text: self.interp.events.progress.was_streamed(text))}")

    # -- input ---------------------------------------------------------------------
    def submit(self, text: str) -> None:
        """Handle one complete input: a comma command or expressions to evaluate."""
        stripped = text.strip()
        if not stripped:
            return
        self.count += 1
        if is_command(stripped):
            self.guard(lambda: run_command(self, stripped[1:]))
        else:
            name = f"<repl-{self.count}>"
            self.sources[name] = text
            self.guard(lambda: self.evaluate(text, name))
        self.fresh_line()
        self.flush()

    def evaluate(self, text: str, filename: str) -> None:
        """Evaluate every expression in ``text``, printing each value; stop at the first error."""
        forms = read_with_spans(text, filename)
        warning = self.interp.check_unbound(forms, whole=False)
        if warning is not None:
            self.complain(warning)
        for datum, span in forms:
            self.show_value(self.interp.eval_datum(datum, span))
            if self.interrupted:
                raise Interrupted("interrupted", kind="resource-exhaustion")

    def load(self, path: Path) -> None:
        """Evaluate a file in the session's environment and remember it (if it exists) for ``,reload``."""
        resolved = path.resolve()
        if resolved not in self.loaded and resolved.is_file():
            self.loaded.append(resolved)
        self.interp.eval_file(path)

    def guard(self, action: Callable[[], None]) -> None:
        """Run ``action`` so that no error ends the session; Ctrl-C interrupts it."""
        with interruptible(self.interp, hint_to=self.err) as watch:
            self._watch = watch
            try:
                action()
            except SchemeExit as done:
                self.done, self.exit_code = True, done.code
            except SchemeError as err:
                self.show_error(err)
            except CommandError as err:
                self.complain(f"error: {err}")
            except KeyboardInterrupt:
                self.after_ctrl_c()
                self.complain("interrupted")
            except RecursionError:
                self.complain("error: nesting too deep for the host stack")
            except Exception as exc:  # a bug in a primitive must not end the session
                self.complain(f"internal error: {type(exc).__name__}: {exc}")
            finally:
                self._watch = None

    @property
    def interrupted(self) -> bool:
        """True once Ctrl-C was pressed during the current input."""
        return self._watch is not None and self._watch.pressed

    # -- environment ---------------------------------------------------------------
    def user_bindings(self) -> dict[str, Any]:
        """Names bound or rebound since the session's interpreter was made."""
        base = self.baseline
        return {k.name: v for k, v in self.interp.global_env.vars.items() if base.get(k, _MISSING) is not v}

    def reset(self) -> None:
        """A fresh interpreter: every definition is gone."""
        self.use(self.make_interp())

    # -- trace ---------------------------------------------------------------------
    def attach_trace(self) -> None:
        """Listen to the interpreter's task and model events (once per interpreter)."""
        if self._traced is self.interp:
            return
        on_event = getattr(self.interp, "on_event", None)
        if on_event is None:
            raise CommandError("tracing is not available: this interpreter reports no task events")
        on_event(self._print_event)
        self._traced = self.interp

    def _print_event(self, event: Any) -> None:
        quiet = event.kind == "run" or (event.kind == "attempt" and event.status == "ok")  # each input is a run
        if self.tracing and not quiet:
            self.complain(f"· {event}")


_MISSING = object()


def result_name(number: int) -> str:
    """``$1``, ``$2`` …: the name of the REPL's ``number``-th result."""
    return f"${number}"
