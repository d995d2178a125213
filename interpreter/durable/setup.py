"""Giving an interpreter a journal (``Interpreter(journal=PATH)``, ``--resume PATH``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .branches import BranchJournal
from .journal import JournalFile


def open_journal(
    interp: Any, path: str | Path, *, resume_from: int | None = None, quiet: bool = False
) -> JournalFile:
    """Open (and lock) the journal at ``path`` for ``interp``'s runs: its root context
    journals from now on, ``quiet`` holds back the output the stopped run printed, and
    warnings go to the interpreter's error port."""
    errors = interp.error_output.value

    def warn(text: str) -> None:
        errors.write(f"warning: {text}\n")
        errors.flush()

    file = JournalFile(path, resume_from=resume_from, quiet=quiet, warn=warn)
    ports = (interp.output.value, interp.error_output.value)
    for port in ports:
        port.sink = held_back(file, port.name, port.sink)

    def flush() -> None:
        for port in ports:
            with contextlib.suppress(OSError, ValueError):  # a closed pipe: the program finds out when it writes
                port.flush()

    file.flush_output = flush
    interp.runtime.journal = BranchJournal(file)
    return file


def held_back(file: JournalFile, port: str, sink: Callable[[str], object]) -> Callable[[str], object]:
    """``sink``, counting what goes through it, and silent (``--resume-quiet``) for what a
    run before this one certainly printed."""

    def write(text: str) -> object:
        shown = file.held_back(port, text)
        return sink(shown) if shown else None

    return write
