"""Where each branch of a run stands in its journal, and the one door every
nondeterministic source goes through (:class:`Source`).

A request is known by its branch and its number in that branch: the program's own
thread is branch ``""``; element ``i`` of the ``k``-th parallel form a branch starts
is ``"k.i"`` under it (``"2.0/1.3"``). A branch makes its requests in program order, so
(branch, n) names the same request in every run of the same program, whatever order
the threads of a ``parallel-map`` happen to run in.

While a journaled request runs (a DSL model, say), requests made inside it are part of
its result: they are neither journaled nor answered on their own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..polling import RUNTIME
from .divergence import divergence

if TYPE_CHECKING:
    from .entry import JournalEntry
from .journal import JournalFile, canonical, now_text

T = TypeVar("T")


@dataclass(eq=False)
class BranchJournal:
    """One branch's view of a journal: how many requests it has made and forms it has started."""

    file: JournalFile
    branch: str = ""
    count: int = 0
    forks: int = 0
    #: One of this branch's journaled requests is running: what it asks meanwhile is its own business.
    busy: bool = False

    def fork(self) -> Callable[[int], BranchJournal]:
        """The journal of each element of a parallel form this branch starts now."""
        if self.busy:  # a parallel form inside a journaled request: part of that request
            return lambda index: self
        self.forks += 1
        form = f"{self.branch}/{self.forks}" if self.branch else str(self.forks)
        return lambda index: BranchJournal(self.file, f"{form}.{index}")

    def answer(self, source: Source[T], request: dict[str, Any], run: Callable[[], T]) -> T:
        """The journaled result of this request, or ``run()``'s, journaled."""
        file = self.file
        if file.diverged is not None:  # once diverged, no answer from this journal fits any more
            raise file.diverged
        self.count += 1
        n = self.count
        found = file.lookup(self.branch, n)
        if found is not None:
            if found.entry.kind != source.kind or found.request != canonical(request):
                file.diverged = divergence(file, found, self.branch, n, source.kind, request)
                raise file.diverged
            file.used_entry(found)
            mark_replayed(source.kind)
            if found.entry.error is not None:
                raise source.revive(found.entry.error)
            return source.decode(found.entry)
        out = file.going_live()
        if source.slow:  # announced, so that a resumed run knows what was under way and what was printed
            file.append(self._entry(n, source, request, time.monotonic(), started=True, out=out))
            out = None
        start = time.monotonic()
        self.busy = True
        try:
            value = run()
        except Exception as err:
            kept = source.failure(err)
            if kept is not None:  # a failure the program sees: it is this request's result
                file.append(self._entry(n, source, request, start, error=kept, out=out))
            raise
        finally:
            self.busy = False
        file.append(self._entry(n, source, request, start, result=source.encode(value), out=out))
        return value

    def _entry(
        self, n: int, source: Source[Any], request: dict[str, Any], start: float, **outcome: Any
    ) -> JournalEntry:
        from .entry import JournalEntry  # reason: start-up laziness: pydantic's models (25-30 ms)

        return JournalEntry.model_construct(
            branch=self.branch,
            n=n,
            kind=source.kind,
            request=request,
            duration_s=round(time.monotonic() - start, 6),
            at=now_text(),
            **{"result": None, "error": None, "started": False, "out": None, **outcome},
        )


def _same(value: Any) -> Any:
    return value


def _result(entry: JournalEntry) -> Any:
    return entry.result


def _not_kept(err: BaseException) -> dict[str, Any] | None:
    return None


def _no_revival(error: dict[str, Any]) -> BaseException:
    raise AssertionError("this source journals no failures")


@dataclass(frozen=True)
class Source(Generic[T]):
    """A nondeterministic source: how its results go into a journal and come back out.

    ``failure(err)`` is what the journal keeps of an error the program sees as this
    request's outcome (a failed model call, a script that could not start), or None for
    one it must not keep (Ctrl-C, a limit of the run: the request was not finished);
    ``revive`` raises it again from what was kept."""

    kind: str
    #: Slow enough (model calls, scripts, reads from standard input) to announce with a started line.
    slow: bool = False
    encode: Callable[[T], Any] = _same
    decode: Callable[[JournalEntry], T] = _result
    failure: Callable[[Exception], dict[str, Any] | None] = _not_kept
    revive: Callable[[dict[str, Any]], BaseException] = _no_revival

    def __call__(self, request: dict[str, Any] | Callable[[], dict[str, Any]], run: Callable[[], T]) -> T:
        """``run()``'s value, journaled when the calling branch has a journal, or its
        journaled value on a resumed run. ``request`` may be a function that makes it:
        it is called only when there is a journal to key."""
        runtime = RUNTIME.get()
        journal = runtime.current().journal if runtime is not None else None
        if journal is None or journal.busy:
            return run()
        return journal.answer(self, request() if callable(request) else request, run)


def mark_replayed(kind: str) -> None:
    """Mark the calling branch's open ``model`` or ``script`` trace span as answered from the journal."""
    runtime = RUNTIME.get()
    span = runtime.current().trace_parent if runtime is not None else None
    if span is not None and getattr(span, "kind", None) == kind:
        span.info["replayed"] = True


def branch_journals(runtime: Any) -> Callable[[int], BranchJournal | None]:
    """For a parallel form the calling branch starts: each element's journal (None without one)."""
    journal = runtime.current().journal
    if journal is None:
        return lambda index: None
    return journal.fork()
