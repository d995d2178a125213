"""The response cache: model answers kept in a SQLite file, keyed by the whole request.

The key is a SHA-256 of the model id, system text, prompt, options, schema and
attachments, so a call with any of them changed is a miss. The default file is
``responses.sqlite`` in the user's cache folder (``platformdirs``: ``~/.cache/taskscheme``
on Linux, ``~/Library/Caches/taskscheme`` on macOS, ``%LOCALAPPDATA%`` on Windows).

Calls may overlap on threads: each thread has its own connection, the database runs
in WAL mode (readers never wait for a writer) and writers wait up to 30 s for the lock.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ...errors import SchemeError
from ...regular_files import open_regular
from ..disk import cap_sqlite, disk_limit, is_full

if TYPE_CHECKING:
    import sqlite3

def _sqlite() -> ModuleType:
    """The :mod:`sqlite3` module, imported when a cache is first opened or fails."""
    import sqlite3  # start-up: sqlite3 (with datetime) is ~3-4 ms, and most runs use no cache

    return sqlite3


SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    input_tokens INTEGER,
    output_tokens INTEGER,
    created REAL NOT NULL
)
"""


@dataclass(frozen=True)
class ModelRequest:
    """Everything that decides a model's answer; :meth:`key` is the cache key."""

    model: str
    prompt: str
    system: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    schema: dict[str, Any] | None = None
    attachments: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "system": self.system or "",
            "prompt": self.prompt,
            "options": self.options,
            "schema": self.schema,
            "attachments": list(self.attachments),
        }

    def attachment_ids(self) -> list[str]:
        """Each attachment as its URL, or a file as the SHA-256 of its content (a changed file is a new key)."""
        ids = []
        for target in self.attachments:
            if target.startswith(("http://", "https://")):
                ids.append(target)
                continue
            try:
                with open_regular(Path(target), "attachment", "rb") as file:
                    ids.append("sha256:" + hashlib.sha256(file.read()).hexdigest())
            except OSError as exc:
                raise SchemeError(
                    f"cannot read the attachment {target}: {exc.strerror or exc}", kind="file-error"
                ) from None
        return ids

    def key(self) -> str:
        text = json.dumps(
            {**self.as_dict(), "attachments": self.attachment_ids()}, sort_keys=True, default=str, ensure_ascii=False
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedResponse:
    text: str
    input_tokens: int | None
    output_tokens: int | None


def default_cache_path() -> Path:
    """``responses.sqlite`` in the user's cache folder for taskscheme."""
    import platformdirs  # start-up laziness: 2 ms of imports that a run without the default cache skips

    return platformdirs.user_cache_path("taskscheme") / "responses.sqlite"


class ResponseCache:
    """Get and put model answers in one SQLite file, safely from many threads."""

    #: The file's byte cap (disk.py; None: none), applied at each write.
    max_bytes: int | None = None

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self._local = threading.local()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(SCHEMA)
        except (OSError, _sqlite().Error) as exc:
            raise self._error("open", exc) from None

    def _error(self, action: str, exc: Exception) -> SchemeError:
        reason = getattr(exc, "strerror", None) or str(exc)
        return SchemeError(f"cannot {action} the response cache {self.path}: {reason}", kind="file-error")

    def _connect(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = _sqlite().connect(self.path, timeout=30)
            self._local.db = db
        return db

    def get(self, request: ModelRequest) -> CachedResponse | None:
        """The stored answer to ``request``, or None."""
        try:
            row = (
                self._connect()
                .execute("SELECT response, input_tokens, output_tokens FROM responses WHERE key = ?", (request.key(),))
                .fetchone()
            )
        except _sqlite().Error as exc:
            raise self._error("read", exc) from None
        return CachedResponse(*row) if row is not None else None

    def put(self, request: ModelRequest, text: str, input_tokens: int | None, output_tokens: int | None) -> None:
        """Store the answer to ``request`` (replacing an older one)."""
        row = (
            request.key(),
            request.model,
            json.dumps(request.as_dict(), default=str, ensure_ascii=False),
            text,
            input_tokens,
            output_tokens,
            time.time(),
        )
        try:
            with self._connect() as db:
                cap_sqlite(db, self.max_bytes)
                db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)", row)
        except _sqlite().Error as exc:
            if self.max_bytes is not None and is_full(exc):
                raise disk_limit(self.path, self.max_bytes) from None
            raise self._error("write", exc) from None

    def __len__(self) -> int:
        return int(self._connect().execute("SELECT count(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Close this thread's connection."""
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None
