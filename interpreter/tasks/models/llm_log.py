"""``--log``: model calls made through ``llm`` recorded in llm's own logs database,
so ``llm logs`` lists them beside the calls made with llm's command line.

The database is llm's (``logs.db`` in ``llm``'s user folder, which ``LLM_USER_PATH``
moves) unless another path is given; llm's own migrations create or update it, and
``Response.log_to_db`` writes each call. One lock serialises writes from threads.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from ...errors import SchemeError


class LlmLog:
    """Writes llm responses into an llm logs database."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._lock = threading.Lock()

    def database_path(self) -> Path:
        """The database written to: the one given, else llm's ``logs.db``."""
        if self.path is not None:
            return self.path
        from llm.cli import logs_db_path  # start-up laziness: llm's command line is 1.7 s of imports

        return Path(logs_db_path())

    def write(self, response: Any) -> None:
        """Record one completed llm response."""
        # start-up laziness: 0.3 s of imports (sqlite_utils, llm), paid by the first logged response
        import sqlite_utils
        from llm.migrations import migrate

        path = self.database_path()
        with self._lock:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite_utils.Database(path)
                try:
                    migrate(db)
                    response.log_to_db(db)
                finally:
                    db.close()
            except Exception as exc:
                raise SchemeError(f"--log: cannot write llm's log {path}: {exc}", kind="file-error") from None
