"""The journal file: every nondeterministic result of a run, one JSON line each.

A line is a :class:`~.entry.JournalEntry`: which branch asked (``branch``, ``""`` for the
program's own thread) and its how-many-th request it was (``n``), what it asked
(``kind`` and ``request``) and what came back (``result``, or ``error`` for a failure
the program saw). Lines are appended with one ``write`` each and fsynced, so a
``kill -9`` loses at most the request under way, and a power cut at most the last line.

A slow request (a model call, a script, a read from standard input) is announced by a
``started`` line first. Lines carry ``out``: how many characters the program had
written to each output port when the request began (flushed first, so they were out of
the process). A resumed run under ``--resume-quiet`` holds back exactly that much
output: what the stopped run printed is not printed twice, and nothing else is lost.

Opening a journal locks it (one writer at a time), drops a torn last line with a
warning, and indexes the entries by (branch, n) for :mod:`.branches` to answer from.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SchemeError

if TYPE_CHECKING:
    from .entry import JournalEntry

Warn = Callable[[str], None]


def canonical(request: dict[str, Any]) -> str:
    """``request`` as the text two requests are compared by (keys sorted, non-JSON values as text)."""
    return json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


@dataclass
class Loaded:
    """A journal line read back: its entry, its line number and its request's canonical text."""

    entry: JournalEntry
    line: int
    request: str
    taken: bool = False  # this run was answered from it


@dataclass
class Savings:
    """What answering from the journal saved this run: results, model calls, their time and tokens."""

    results: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, entry: JournalEntry) -> None:
        self.results += 1
        self.by_kind[entry.kind] = self.by_kind.get(entry.kind, 0) + 1
        self.seconds += entry.duration_s
        if entry.kind == "model" and isinstance(entry.result, dict):
            self.input_tokens += int(entry.result.get("input_tokens") or 0)
            self.output_tokens += int(entry.result.get("output_tokens") or 0)


def describe_kinds(counts: dict[str, int]) -> str:
    """``14 model calls, 1 script run`` from counts by kind."""
    nouns = {"model": "model call", "script": "script run", "clock": "clock reading", "random": "random number"}
    nouns["stdin"] = "line of input"
    parts = []
    for kind, count in counts.items():
        noun = nouns.get(kind, kind)
        plural = noun.replace("line of", "lines of") if noun.startswith("line") else noun + "s"
        parts.append(f"{count} {noun if count == 1 else plural}")
    return ", ".join(parts)


class JournalFile:
    """An open, locked journal: its entries by (branch, n), and new ones appended.

    ``resume_from=N`` keeps lines 1 … N-1 and moves the rest to a file beside it
    (``JOURNAL.dropped-from-N``) before anything is read, so a run that diverged, or
    a journal damaged past line N, resumes from there. ``quiet`` holds back the output
    that the runs before this one certainly printed. Safe to use from several threads.
    """

    def __init__(
        self, path: str | Path, *, resume_from: int | None = None, quiet: bool = False, warn: Warn | None = None
    ) -> None:
        self.path = Path(path)
        self.warn: Warn = warn or (lambda text: None)
        self.entries: dict[tuple[str, int], Loaded] = {}
        self.lines = 0  # lines in the file
        self.started: dict[tuple[str, int], Loaded] = {}  # requests announced by a started line
        #: Characters of each output port that a run before this one certainly printed.
        self.printed: dict[str, int] = {}
        #: Characters of each output port this run has written (held back or not).
        self.position: dict[str, int] = {}
        self.used = 0  # entries this run was answered from
        self.written = 0  # results this run appended
        self.saved = Savings()
        self.quiet = quiet
        #: The divergence that stopped the run; every later request raises it again.
        self.diverged: SchemeError | None = None
        #: Called before each live request: the interpreter flushes the program's output, so what
        #: it printed before a request is out of the process if the run is killed during it.
        self.flush_output: Callable[[], None] | None = None
        self.lock = threading.Lock()
        self.fd = self._open()
        try:
            lock_exclusively(self.fd, self.path)
            data = self._read()
            if resume_from is not None:
                data = self._keep_before(data, resume_from)
            self._load(data)
        except BaseException:
            self.close()
            raise

    # -- opening ---------------------------------------------------------------------
    def _open(self) -> int:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | getattr(os, "O_BINARY", 0), 0o644)
        except OSError as exc:
            raise self._error(f"cannot open the journal {self.path}: {exc.strerror or exc}") from None

    def _read(self) -> bytes:
        chunks = []
        os.lseek(self.fd, 0, os.SEEK_SET)
        while chunk := os.read(self.fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)

    def _keep_before(self, data: bytes, line: int) -> bytes:
        """Keep lines 1 … ``line``-1; the rest go to a file beside the journal (nothing is lost)."""
        if line < 1:
            raise self._error(f"--resume-from must be a line number of at least 1, got {line}")
        lines = data.split(b"\n")
        complete = len(lines) - 1 + (1 if lines[-1] else 0)
        if line > complete + 1:
            raise self._error(
                f"--resume-from {line}: the journal {self.path} has only {complete} line{'s' if complete != 1 else ''}"
            )
        keep = b"".join(part + b"\n" for part in lines[: line - 1])
        rest = data[len(keep) :]
        if rest:
            aside = self._aside(f"dropped-from-{line}")
            try:
                aside.write_bytes(rest)
            except OSError as exc:
                raise self._error(f"cannot write {aside}: {exc.strerror or exc}") from None
            os.ftruncate(self.fd, len(keep))
            os.fsync(self.fd)
            self.warn(f"journal {self.path}: lines {line} and after moved to {aside}; the run goes live from there")
        return keep

    def _aside(self, suffix: str) -> Path:
        candidate = self.path.with_name(f"{self.path.name}.{suffix}")
        number = 1
        while candidate.exists():
            number += 1
            candidate = self.path.with_name(f"{self.path.name}.{suffix}.{number}")
        return candidate

    def _load(self, data: bytes) -> None:
        """Index the entries; a torn or garbled last line is dropped (the file cut back) with a warning."""
        lines = data.split(b"\n")
        tail = lines.pop()  # after the last newline: empty unless the last write was cut short
        good = len(data) - len(tail)
        problem = "it was cut short" if tail else None
        for number, raw in enumerate(lines, 1):
            try:
                self._add(number, raw)
            except ValueError as exc:
                if number == len(lines) and not tail:  # the last line: garbled by a crash, not by a person
                    good -= len(raw) + 1
                    problem = str(exc)
                    break
                raise self._error(
                    f"the journal {self.path} is damaged at line {number}: {exc}; keep the lines before it "
                    f"with --resume-from {number} (Python: resume_from={number}), or start a new journal"
                ) from None
        if problem is not None:
            torn = len(data) - good
            os.ftruncate(self.fd, good)
            os.fsync(self.fd)
            self.warn(
                f"journal {self.path}: dropped its torn last line ({torn} bytes; {problem}): "
                "the request it was writing runs again"
            )

    def _add(self, number: int, raw: bytes) -> None:
        if not raw.strip():
            raise ValueError("an empty line")
        import pydantic  # reason: start-up laziness: the entry record loads pydantic's models (25-30 ms)

        from .entry import JournalEntry  # reason: start-up laziness, as above

        try:
            entry = JournalEntry.model_validate_json(raw)
        except pydantic.ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            raise ValueError(f"not a journal entry ({where + ': ' if where else ''}{error['msg']})") from None
        for port, count in (entry.out or {}).items():
            self.printed[port] = max(self.printed.get(port, 0), count)
        self.lines = number
        key = (entry.branch, entry.n)
        loaded = Loaded(entry, number, canonical(entry.request))
        if entry.started:  # announced again by each run that starts it: the first one counts
            self.started.setdefault(key, loaded)
            return
        if key in self.entries:
            first = self.entries[key].line
            raise ValueError(f"request {entry.n} of branch {entry.branch or 'main'} is also at line {first}")
        self.entries[key] = loaded

    # -- answering and appending -----------------------------------------------------
    def lookup(self, branch: str, n: int) -> Loaded | None:
        """The entry of the ``n``-th request of ``branch``, if the journal holds it."""
        return self.entries.get((branch, n))

    def used_entry(self, loaded: Loaded) -> None:
        """Count an entry the run was answered from."""
        with self.lock:
            loaded.taken = True
            self.used += 1
            self.saved.add(loaded.entry)

    def going_live(self) -> dict[str, int]:
        """A request the journal has no answer for is about to run: the program's output
        is flushed; how much of it there is, port by port."""
        if self.flush_output is not None:
            self.flush_output()
        return dict(self.position)

    def held_back(self, port: str, text: str) -> str:
        """What of ``text``, written to ``port`` now, to let through: under ``quiet``, none
        of what a run before this one certainly printed."""
        with self.lock:  # branches of a parallel form may write at once
            start = self.position.get(port, 0)
            self.position[port] = start + len(text)
        if not self.quiet:
            return text
        return text[max(0, self.printed.get(port, 0) - start) :]

    def in_flight(self) -> list[Loaded]:
        """Requests announced by a started line with no result after it: under way when the run stopped."""
        return sorted((s for key, s in self.started.items() if key not in self.entries), key=lambda s: s.line)

    def append(self, entry: JournalEntry) -> int:
        """Write ``entry`` as one line (one write, then fsync); its line number."""
        line = (entry.model_dump_json(fallback=str) + "\n").encode("utf-8")  # as canonical() shows such values
        with self.lock:
            try:
                written = os.write(self.fd, line)
                while written < len(line):  # a short write (a full disk): finish it or fail
                    written += os.write(self.fd, line[written:])
                os.fsync(self.fd)
            except OSError as exc:
                raise self._error(f"cannot write the journal {self.path}: {exc.strerror or exc}") from None
            self.lines += 1
            self.written += not entry.started
            return self.lines

    def unused(self) -> list[Loaded]:
        """Entries this run was not answered from (a run that took a shorter path), in line order."""
        return sorted((e for e in self.entries.values() if not e.taken), key=lambda e: e.line)

    def summary(self) -> str:
        """What resuming will do, for the start of a resumed run."""
        counts: dict[str, int] = {}
        for loaded in self.entries.values():
            counts[loaded.entry.kind] = counts.get(loaded.entry.kind, 0) + 1
        total = len(self.entries)
        text = (
            f"resuming from {self.path}: {total} journaled result{'s' if total != 1 else ''} "
            f"({describe_kinds(counts)}) answered from it, then the run goes on live"
        )
        for loaded in self.in_flight():
            noun = describe_kinds({loaded.entry.kind: 1}).removeprefix("1 ")
            text += f"; the {noun} under way when it stopped (line {loaded.line}) runs again"
        return text

    def savings(self) -> str:
        """What answering from the journal saved, for the end of a resumed run."""
        saved = self.saved
        text = f"journal {self.path}: {saved.results} result{'s' if saved.results != 1 else ''} answered from it"
        if saved.by_kind:
            text += f" ({describe_kinds(saved.by_kind)}; {saved.seconds:.2f} s"
            if saved.input_tokens or saved.output_tokens:
                text += f", {saved.input_tokens} input and {saved.output_tokens} output tokens"
            text += " not spent again)"
        return text + f", {self.written} new result{'s' if self.written != 1 else ''} appended"

    def close(self) -> None:
        """Release the lock and the file (the journal stays on disk)."""
        with self.lock:
            if self.fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(self.fd)
                self.fd = -1

    def __del__(self) -> None:  # an interpreter dropped without closing its journal lets go of it
        with contextlib.suppress(Exception):
            self.close()

    def _error(self, message: str) -> SchemeError:
        return SchemeError(message, kind="file-error")


def now_text() -> str:
    """The wall-clock time an entry was written (UTC, ISO 8601), for people reading a journal."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def lock_exclusively(fd: int, path: Path) -> None:
    """Lock the journal for this open file; a second writer (another process, or another
    interpreter in this one) gets a file-error naming the holder when it can be found."""
    try:
        import fcntl  # reason: platform module, POSIX only
    except ImportError:  # Windows: lock the first byte
        import msvcrt  # reason: platform module, Windows only

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError:
            raise _in_use(path, None) from None
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise _in_use(path, holder_pid(fd)) from None


def _in_use(path: Path, pid: int | None) -> SchemeError:
    who = f"process {pid}" if pid is not None else "another run"
    if pid == os.getpid():
        who = "another interpreter in this process"
    return SchemeError(
        f"the journal {path} is locked: {who} is writing it, and two runs cannot write one journal; "
        "wait for that run to end, or give this one another journal",
        kind="file-error",
    )


def holder_pid(fd: int) -> int | None:
    """The process holding a ``flock`` on the file ``fd`` (Linux's /proc/locks), or None."""
    try:
        info = os.fstat(fd)
        text = Path("/proc/locks").read_text()
    except OSError:
        return None
    wanted = f":{info.st_ino}"
    for row in text.splitlines():
        parts = row.split()
        # "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF"; a waiter's row starts "1: ->"
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5].endswith(wanted):
            with contextlib.suppress(ValueError):
                return int(parts[4])
    return None
