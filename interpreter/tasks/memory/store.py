"""Memory for fresh context (seeds 000 §5 and 002's associative matching).

A program fills the memory with ``(remember text #:source … #:tags …)`` and, with the
files capability, ``(index-files "notes/" #:glob "*.md")``; ``(recall query #:k 5)``
queries it. A task, loop or pipeline whose context says ``(fresh enabled)`` queries it
with each prompt it sends: the best matches go into the prompt under a "Relevant
context" heading and into the result's notes as ``context_matches``.

The index is SQLite FTS5 through the standard :mod:`sqlite3` module, ranked by BM25.
Ranking is pluggable (:class:`Ranking`): :class:`EmbeddingRanking` re-ranks by cosine
similarity of ``llm`` embeddings. The memory is in memory unless the host gives a path
(``Interpreter(memory=PATH)``, ``--memory PATH``), which persists it.

Concurrency: ``parallel-map`` branches share one memory; one lock serialises every
read and write of its connection, so concurrent ``remember`` calls neither interleave
nor fail with "database is locked" inside one process.
"""

from __future__ import annotations

import contextvars
import fnmatch
import json
import math
import os
import re
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import Field

from ...errors import SchemeError
from ..disk import cap_sqlite, disk_limit, is_full
from ..errors import task_failure
from ..records import SchemeRecord

if TYPE_CHECKING:
    import sqlite3

#: Matches put into a prompt by default.
DEFAULT_K = 5
#: Most matches one query returns.
MAX_K = 100
#: Longest text one ``remember`` stores, and one indexed chunk.
MAX_ITEM_CHARS = 1_000_000
CHUNK_CHARS = 2_000
#: Largest file ``index-files`` reads.
MAX_FILE_BYTES = 10_000_000
#: Candidates BM25 hands a re-ranking (embeddings).
CANDIDATES = 50
#: The heading fresh context goes under in a prompt.
HEADING = "Relevant context"
WORD = re.compile(r"\w+", re.UNICODE)

#: Whether the code running now is inside a form or task whose context has ``(fresh enabled)``
#: (the innermost one decides). A context variable, so each parallel branch has its own.
FRESH: contextvars.ContextVar[bool] = contextvars.ContextVar("fresh_context", default=False)


class MemoryMatch(SchemeRecord):
    """One recalled item: its text, where it came from, its tags and its score (higher is better)."""

    text: str
    source: str = ""
    tags: list[str] = Field(default_factory=list)
    score: float = 0.0
    id: int = 0


class Ranking(Protocol):
    """Orders candidate matches for a query; returns them best first with their scores."""

    def rank(self, query: str, candidates: list[MemoryMatch], memory: Memory) -> list[MemoryMatch]: ...


class Bm25Ranking:
    """The default: FTS5's BM25 order, as SQLite computed it."""

    def rank(self, query: str, candidates: list[MemoryMatch], memory: Memory) -> list[MemoryMatch]:
        return candidates


class EmbeddingRanking:
    """Re-rank BM25's candidates by cosine similarity of embeddings from an ``llm`` embedding
    model (an id, or any object with ``embed(text)`` and ``embed_multi(texts)``).

    Each item's vector is computed once and kept in the memory's database."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def resolved(self) -> Any:
        if isinstance(self.model, str):
            import llm  # start-up laziness: 0.4 s of imports (memory/ may not import models/, where llm_package is)

            self.model = llm.get_embedding_model(self.model)
        return self.model

    @property
    def name(self) -> str:
        model = self.model
        return model if isinstance(model, str) else str(getattr(model, "model_id", type(model).__name__))

    def rank(self, query: str, candidates: list[MemoryMatch], memory: Memory) -> list[MemoryMatch]:
        model = self.resolved()
        vectors = memory.vectors(self.name, candidates, lambda texts: list(model.embed_multi(texts)))
        wanted = list(model.embed(query))
        scored = [m.model_copy(update={"score": cosine(wanted, vectors[m.id])}) for m in candidates]
        return sorted(scored, key=lambda m: -m.score)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return round(dot / norm, 6) if norm else 0.0


def memory_error(message: str) -> SchemeError:
    return task_failure("memory_error", message)


def fts_query(text: str) -> str:
    """An FTS5 query matching any word of ``text`` (each quoted, so no query syntax leaks in)."""
    words = list(dict.fromkeys(w.lower() for w in WORD.findall(text)))[:64]
    return " OR ".join(f'"{w}"' for w in words)


class Memory:
    """An FTS5 index of remembered texts; ``path`` None keeps it in memory."""

    #: The file's byte cap (disk.py; None: none), applied at each use of a memory file.
    max_bytes: int | None = None

    def __init__(self, path: str | os.PathLike[str] | None = None, ranking: Ranking | None = None) -> None:
        self.path = str(path) if path is not None else ":memory:"
        self.ranking: Ranking = ranking or Bm25Ranking()
        self.lock = threading.RLock()
        self._db: sqlite3.Connection | None = None

    # -- the database ----------------------------------------------------------------
    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        import sqlite3  # start-up laziness: sqlite3 loads when a memory is first opened (tests/test_startup_imports.py)

        try:
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise memory_error(f"memory: cannot open {self.path}: {exc}") from None
        try:
            if self.path != ":memory:":  # a write need not wait for the disk twice
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
            db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS memory USING fts5(text, source, tags, added UNINDEXED)")
            db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (id INTEGER, model TEXT, vector BLOB, PRIMARY KEY (id, model))"
            )
        except sqlite3.OperationalError as exc:
            db.close()
            if "fts5" in str(exc).lower():
                raise memory_error(
                    f"memory: the SQLite library of this Python ({sqlite3.sqlite_version}) has no FTS5 "
                    "full-text search; use a Python built with a standard SQLite"
                ) from None
            raise memory_error(f"memory: {self.path} is not a taskscheme memory: {exc}") from None
        except sqlite3.DatabaseError as exc:
            db.close()
            raise memory_error(f"memory: {self.path} is not a taskscheme memory: {exc}") from None
        return db

    @contextmanager
    def using(self) -> Iterator[sqlite3.Connection]:
        """The connection, held by one thread at a time; database errors become task errors."""
        import sqlite3  # start-up laziness, as in _open

        with self.lock:
            try:
                if self.path != ":memory:":
                    cap_sqlite(self.db, self.max_bytes)
                yield self.db
            except sqlite3.Error as exc:
                if self.max_bytes is not None and is_full(exc):
                    raise disk_limit(self.path, self.max_bytes) from None
                raise memory_error(f"memory: {exc}") from None

    def close(self) -> None:
        with self.lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # -- writing ---------------------------------------------------------------------
    def remember(self, text: str, source: str = "", tags: Sequence[str] = ()) -> int:
        """Store ``text``; its id."""
        if not text.strip():
            raise SchemeError("remember: the text is empty", kind="value-error")
        if len(text) > MAX_ITEM_CHARS:
            raise SchemeError(
                f"remember: the text has {len(text)} characters, more than {MAX_ITEM_CHARS}", kind="value-error"
            )
        with self.using() as db:
            cursor = db.execute(
                "INSERT INTO memory (text, source, tags, added) VALUES (?, ?, ?, ?)",
                (text, source, " ".join(tags), time.time()),
            )
            return int(cursor.lastrowid or 0)

    def forget_source(self, source_prefix: str) -> None:
        """Remove the items of a source (an indexed file's chunks before it is indexed again)."""
        with self.using() as db:
            chunk = source_prefix + "#"  # compared exactly: a LIKE pattern would treat _ and % as wildcards
            ids = [
                row[0]
                for row in db.execute(
                    "SELECT rowid FROM memory WHERE source = ? OR substr(source, 1, ?) = ?",
                    (source_prefix, len(chunk), chunk),
                )
            ]
            db.executemany("DELETE FROM memory WHERE rowid = ?", [(i,) for i in ids])
            db.executemany("DELETE FROM vectors WHERE id = ?", [(i,) for i in ids])

    def count(self) -> int:
        with self.using() as db:
            return int(db.execute("SELECT count(*) FROM memory").fetchone()[0])

    # -- reading ---------------------------------------------------------------------
    def recall(self, query: str, k: int = DEFAULT_K, tags: Sequence[str] = ()) -> list[MemoryMatch]:
        """The ``k`` items that best match ``query`` (any of its words), best first;
        with ``tags``, only items carrying all of them."""
        match = fts_query(query)
        if not match or (self._db is None and self.path == ":memory:"):
            return []
        if tags:
            quoted = [t.replace('"', '""') for t in tags]
            match = f"({match}) AND " + " AND ".join(f'tags : "{t}"' for t in quoted)
        limit = max(k, CANDIDATES) if not isinstance(self.ranking, Bm25Ranking) else k
        with self.using() as db:
            rows = db.execute(
                "SELECT rowid, text, source, tags, bm25(memory) FROM memory WHERE memory MATCH ? "
                "ORDER BY bm25(memory) LIMIT ?",
                (match, limit),
            ).fetchall()
        found = [MemoryMatch(id=row[0], text=row[1], source=row[2], tags=row[3].split(), score=-row[4]) for row in rows]
        return self.ranking.rank(query, found, self)[:k]

    def vectors(
        self, model: str, items: list[MemoryMatch], embed: Callable[[list[str]], list[Any]]
    ) -> dict[int, list[float]]:
        """The embedding of each item under ``model``, computing and storing the missing ones."""
        with self.using() as db:
            known = {
                row[0]: list(struct.unpack(f"{len(row[1]) // 8}d", row[1]))
                for row in db.execute(
                    f"SELECT id, vector FROM vectors WHERE model = ? AND id IN ({','.join('?' * len(items))})",
                    (model, *[m.id for m in items]),
                )
            }
        missing = [m for m in items if m.id not in known]
        if missing:
            computed = embed([m.text for m in missing])
            with self.using() as db:
                for item, vector in zip(missing, computed):
                    values = [float(x) for x in vector]
                    known[item.id] = values
                    db.execute(
                        "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                        (item.id, model, struct.pack(f"{len(values)}d", *values)),
                    )
        return known

    # -- files -----------------------------------------------------------------------
    def index_files(
        self, folder: Path, pattern: str, allowed: Callable[[Path], Path], check: Callable[[], None]
    ) -> int:
        """Index the files under ``folder`` whose names match ``pattern`` (in chunks of about
        :data:`CHUNK_CHARS`); ``allowed(path)`` resolves a path or refuses it (a symbolic link
        leading outside the allowed folders); ``check()`` is the program's limit check.
        Indexing a file again replaces its earlier chunks. Returns the number of files."""
        count = 0
        for path in sorted(folder.rglob("*")):
            check()
            real = allowed(path)  # every path, matching or not: a linked folder leading out is refused
            if not fnmatch.fnmatch(path.name, pattern):
                continue
            if not real.is_file():
                continue
            if real.stat().st_size > MAX_FILE_BYTES:
                raise SchemeError(
                    f"index-files: {path} is larger than {MAX_FILE_BYTES // 1_000_000} MB; narrow #:glob",
                    kind="file-error",
                )
            try:
                text = real.read_text(encoding="utf-8", errors="replace")
            except OSError as exc:
                raise SchemeError(
                    f"index-files: cannot read {path}: {exc.strerror or exc}", kind="file-error"
                ) from None
            source = str(path)
            with self.using() as db:  # one transaction a file: its old chunks go, its new ones come
                db.execute("BEGIN")
                try:
                    self.forget_source(source)
                    for index, chunk in enumerate(chunks(text)):
                        self.remember(chunk, f"{source}#{index + 1}", ("file",))
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            count += 1
        return count


def chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """``text`` in pieces of about ``size`` characters, cut between paragraphs where it can."""
    pieces: list[str] = []
    current = ""
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        while len(paragraph) > size:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(paragraph[:size])
            paragraph = paragraph[size:]
        if current and len(current) + len(paragraph) + 2 > size:
            pieces.append(current)
            current = ""
        current = f"{current}\n\n{paragraph}" if current else paragraph
    if current:
        pieces.append(current)
    return pieces


# -- fresh context in prompts ---------------------------------------------------------------
@contextmanager
def fresh_context(enabled: bool) -> Iterator[None]:
    """Mark the code run inside as being under a context with ``fresh`` ``enabled`` or not."""
    token = FRESH.set(enabled)
    try:
        yield
    finally:
        FRESH.reset(token)


def with_matches(prompt: str, matches: list[MemoryMatch]) -> str:
    """``prompt`` followed by the matches under the "Relevant context" heading."""
    if not matches:
        return prompt
    listed = "\n\n".join(f"[{m.source or m.id}] {m.text}" if m.source else m.text for m in matches)
    return f"{prompt}\n\n## {HEADING}\n\n{listed}"


def match_notes(matches: list[MemoryMatch]) -> list[dict[str, Any]]:
    return [json.loads(m.model_dump_json()) for m in matches]
