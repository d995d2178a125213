"""The ``taskscheme`` command's entry point: Ctrl-C during start-up ends it quietly.

Importing the interpreter and loading its standard library take a good part of a
second; a Ctrl-C then would print a Python traceback from whatever module was being
imported. From the import of this module (which imports nothing of the interpreter)
until the command line is imported, SIGINT exits at once with status 130
(128 + SIGINT, as a shell reports it), writing nothing; from then on
:func:`interpreter.cli.main` turns a ``KeyboardInterrupt`` into the same status, and a
running program handles Ctrl-C as ``interrupts.py`` says.
"""

from __future__ import annotations

import os
import signal
from contextlib import suppress
from types import FrameType

#: Exit status after Ctrl-C (128 + SIGINT).
INTERRUPTED_STATUS = 128 + signal.SIGINT


def _quit(signum: int, frame: FrameType | None) -> None:
    os._exit(INTERRUPTED_STATUS)  # nothing written yet, nothing to flush or finish


# At import: the command's entry points import this module first thing.
with suppress(ValueError):  # not the main thread: signals are not ours to handle
    signal.signal(signal.SIGINT, _quit)


def main() -> None:
    """Run the ``taskscheme`` command line."""
    from .cli import main as cli_main  # lazy: Ctrl-C during this import must end quietly (see above)

    signal.signal(signal.SIGINT, signal.default_int_handler)
    cli_main()
