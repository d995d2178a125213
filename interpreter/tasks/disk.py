"""Byte caps on the files a run writes for itself: the recording (``record=``), the
response cache (``cache=``), the memory (``memory=``) and, on the command line, the
trace (``--trace``).

``Interpreter(max_file_bytes=…)`` caps each of them, 100 MB by default (``None``: no
cap); ``taskscheme`` caps them only when given ``--max-file-bytes``. A write that would
take a file past its cap is refused with a ``resource-exhaustion`` error whose resource is
``disk`` (``disk limit exceeded: max_file_bytes = 100000000 bytes``); what was written
before stays whole. JSON-lines files (recording, trace) are measured exactly; SQLite files
(cache, memory) are capped by SQLite's ``max_page_count``, so their main file never
passes the cap (the write-ahead log beside it is folded back in at checkpoints).
"""

from __future__ import annotations

import os
from typing import IO, TYPE_CHECKING, Any

from ..errors import SchemeError

if TYPE_CHECKING:
    import sqlite3

#: ``Interpreter(max_file_bytes=…)`` by default: 100 MB.
DEFAULT_MAX_FILE_BYTES = 100_000_000
#: SQLite's result code for a full database (``max_page_count`` reached, or the disk).
SQLITE_FULL = 13


def disk_limit(path: Any, limit: int, used: int | None = None) -> SchemeError:
    """``disk limit exceeded: max_file_bytes = N bytes (FILE)``, kind ``resource-exhaustion``."""
    return SchemeError(
        f"disk limit exceeded: max_file_bytes = {limit} bytes ({path})",
        kind="resource-exhaustion",
        details={"resource": "disk", "limit": limit, "used": used, "path": str(path)},
    )


def check_room(path: Any, limit: int | None, size: int, adding: int) -> None:
    """Refuse adding ``adding`` bytes to the file ``path`` of ``size`` bytes past ``limit``."""
    if limit is not None and size + adding > limit:
        raise disk_limit(path, limit, size + adding)


def file_size(path: Any) -> int:
    """The size of ``path`` in bytes (0 if it does not exist)."""
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def cap_sqlite(db: sqlite3.Connection, limit: int | None) -> None:
    """Cap the database of connection ``db`` at ``limit`` bytes (pages of its page size)."""
    if limit is None:
        return
    page = db.execute("PRAGMA page_size").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {max(1, limit // page)}")


def is_full(exc: BaseException) -> bool:
    """Whether a SQLite error says the database is full."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code == SQLITE_FULL or "database or disk is full" in str(exc)


class CappedStream:
    """A text stream (the CLI's trace file) that refuses a write taking it past ``limit`` bytes."""

    def __init__(self, stream: IO[str], limit: int, path: Any) -> None:
        self.stream = stream
        self.limit = limit
        self.path = path
        self.size = file_size(path)

    def write(self, text: str) -> int:
        data = len(text.encode("utf-8"))
        check_room(self.path, self.limit, self.size, data)
        self.size += data
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def close(self) -> None:
        self.stream.close()


def cap_files(interp: Any, limit: int | None) -> None:
    """Give the files ``interp`` writes (recording, cache, memory) the cap ``limit``."""
    gateway = interp.tasks.gateway
    gateway.max_file_bytes = limit  # for a cache a ``(cache #t)`` task opens later
    for holder in (gateway.recorder, gateway.cache, interp.memory):
        if holder is not None:
            holder.max_bytes = limit
