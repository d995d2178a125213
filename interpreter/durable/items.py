"""One journal per batch item (``taskscheme batch --resume DIR``, ``interp.batch(journals=DIR)``):
``DIR/item-INDEX.jsonl``, so an item killed part way resumes where it stopped."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import SchemeError
from .branches import BranchJournal
from .journal import JournalFile

ItemCall = Callable[[Any, list[Any], Any], Any]


def item_journal_path(folder: str | Path, index: int) -> Path:
    return Path(folder) / f"item-{index}.jsonl"


def journaled_item(folder: str | Path | None, index: int, context: Any, call: ItemCall) -> ItemCall:
    """``call`` run with the item's own journal as ``context``'s (the item's branch, or a
    worker's root context); the journal is closed when the item ends. A journal that
    cannot be opened fails the item, not the batch."""
    if folder is None:
        return call

    def run(proc: Any, args: list[Any], meter: Any) -> Any:
        try:
            Path(folder).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = exc.strerror or exc
            raise SchemeError(f"cannot make the journal folder {folder}: {reason}", kind="file-error") from None
        file = JournalFile(item_journal_path(folder, index), warn=_warn)
        previous = context.journal
        context.journal = BranchJournal(file)
        try:
            return call(proc, args, meter)
        finally:
            context.journal = previous
            file.close()

    return run


def _warn(text: str) -> None:
    print(f"warning: {text}", file=sys.stderr)
