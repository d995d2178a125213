"""Durable runs: a journal of every nondeterministic result, so that a run killed or
interrupted part way resumes where it stopped without asking anything twice.

``Interpreter(journal=PATH)`` and ``--resume PATH`` open a :class:`JournalFile`; each
source (model calls, scripts, the clock, random numbers, standard input) goes through
its :class:`Source`, which answers from the journal on a resumed run and journals what
a live run gets. See docs/durable.md.
"""

from typing import Any

from .branches import BranchJournal, Source, branch_journals
from .divergence import JournalDivergence
from .journal import JournalFile


def __getattr__(name: str) -> Any:
    """``JournalEntry``, a pydantic record, imported when first asked for."""
    if name == "JournalEntry":
        from .entry import JournalEntry  # reason: start-up laziness: pydantic's models (25-30 ms)

        return JournalEntry
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BranchJournal", "JournalDivergence", "JournalEntry", "JournalFile", "Source", "branch_journals"]
