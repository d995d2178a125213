"""Ctrl-C while a program runs: stop it cleanly, or at once if asked twice."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from .facade import Facade


class SigintWatch:
    """Counts Ctrl-C presses during one evaluation."""

    def __init__(self) -> None:
        self.presses = 0

    @property
    def pressed(self) -> bool:
        return self.presses > 0


#: Seconds after a first Ctrl-C before the user is told a second one stops the program at once.
HINT_AFTER = 1.5
HINT = "(still running: press Ctrl-C again to stop at once)"


@contextmanager
def interruptible(interp: Facade, hint_to: IO[str] | None = None) -> Iterator[SigintWatch]:
    """While the block runs, Ctrl-C sets ``interp.runtime.interrupted``.

    The evaluator notices the flag within a few thousand steps and raises an
    "interrupted" error, so ``dynamic-wind`` exits run and the environment stays
    intact. A second Ctrl-C raises :class:`KeyboardInterrupt` at once, for a
    program blocked outside the evaluator (a model call, a script, reading input).
    If the program is still running :data:`HINT_AFTER` seconds after the first
    Ctrl-C, :data:`HINT` is written to ``hint_to``. Outside the main thread signals
    cannot be caught; the block then runs as is.
    """
    watch = SigintWatch()
    if threading.current_thread() is not threading.main_thread():
        yield watch
        return

    timers: list[threading.Timer] = []

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        watch.presses += 1
        if watch.presses > 1 or interp.runtime.waiting_for_input:
            raise KeyboardInterrupt  # a blocking read: only an exception ends it
        interp.runtime.interrupt()
        if hint_to is not None:
            timer = threading.Timer(HINT_AFTER, _write_line, (hint_to, HINT))
            timer.daemon = True
            timers.append(timer)
            timer.start()

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield watch
    finally:
        signal.signal(signal.SIGINT, previous)
        for timer in timers:
            timer.cancel()


def _write_line(stream: IO[str], text: str) -> None:
    try:
        stream.write("\n" + text + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass
