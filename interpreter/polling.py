"""Time limits inside single primitives: how a primitive that walks or builds a long
structure in one call checks the run's limits as it goes.

The evaluator checks the limits (time, steps, memory, Ctrl-C) between steps; a
primitive such as ``length``, ``sort`` or ``make-list`` is one step however long it
works. Such primitives call :func:`poll_limits` every :data:`POLL_EVERY` elements, so
no call runs more than a few milliseconds past the deadline, and the hot path pays
nothing: the per-element loop stays as it was and the check runs between chunks.

Two ways to use it::

    for x in polled(items):         # a Python sequence, polled between chunks
        ...

    for _ in ticks(n):              # n rounds, polled between chunks
        ...

    while type(p) is Pair:          # a walk along pairs, polled between chunks
        for _ in POLL_CHUNK:
            if type(p) is not Pair:
                break
            ...
            p = p.cdr
        else:
            poll_limits()

    if count & POLL_MASK == 0:      # a loop that counts anyway (equal?, a sort's comparisons)
        poll_limits()

"""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, repeat
from typing import Protocol, TypeVar

T = TypeVar("T")


class Poller(Protocol):
    """What polling needs of a run's runtime (``evaluator.Runtime`` is one)."""

    def poll(self) -> None:
        """Check the limits now; raise the limit's error if one is passed."""

#: Elements a primitive may walk or build between two checks of the limits (about a
#: millisecond of plain Python work; a poll costs well under a microsecond).
POLL_EVERY = 1 << 14
POLL_MASK = POLL_EVERY - 1
#: One chunk of a walk whose length is not known in advance.
POLL_CHUNK = range(POLL_EVERY)

#: The runtime of the run under way, for primitives that work long inside one call
#: (set by :func:`interpreter.memory.run_limits`; threads the run starts copy it).
RUNTIME: contextvars.ContextVar[Poller | None] = contextvars.ContextVar("taskscheme_runtime", default=None)


def poll_limits() -> None:
    """Check the run's limits now (time, steps, memory, Ctrl-C); raise the limit's
    ``resource-exhaustion`` error if one is passed. Outside a run it does nothing."""
    runtime = RUNTIME.get()
    if runtime is not None:
        runtime.poll()


def polled(items: Sequence[T], reverse: bool = False) -> Iterable[T]:
    """The elements of ``items`` (last first when ``reverse``), polling the limits
    between chunks of :data:`POLL_EVERY`. Short sequences are returned as they are; a
    long one is iterated in C (``chain`` over slices), so an element costs nothing extra."""
    if _length(items) <= POLL_EVERY:
        return reversed(items) if reverse else items
    return chain.from_iterable(_slices(items, reverse))


def _length(items: Sequence[T]) -> int:
    """``len(items)``; a range too long for ``len`` counts as ``sys.maxsize`` (no walk
    gets that far: ``(list-tail lst (expt 10 30))`` fails at the end of the list)."""
    try:
        return len(items)
    except OverflowError:
        return sys.maxsize


def _slices(items: Sequence[T], reverse: bool) -> Iterator[Iterable[T]]:
    n = _length(items)
    for start in range(0, n, POLL_EVERY):
        if start:
            poll_limits()
        if reverse:
            yield reversed(items[max(0, n - start - POLL_EVERY) : n - start])
        else:
            yield items[start : start + POLL_EVERY]


def ticks(n: int) -> Iterable[None]:
    """``n`` Nones, the limits polled between chunks of :data:`POLL_EVERY` as
    ``polled(range(n))`` does; ``repeat`` hands out one object, where a range makes an
    integer per element past 256."""
    if n <= POLL_EVERY:
        return repeat(None, n)
    return chain.from_iterable(_tick_chunks(n))


def _tick_chunks(n: int) -> Iterator[Iterable[None]]:
    for start in range(0, n, POLL_EVERY):
        if start:
            poll_limits()
        yield repeat(None, min(POLL_EVERY, n - start))


#: The walks that check their list as they go, in one pass, instead of being handed its
#: length: an effect of the procedure may come before the error for an improper list, and a
#: circular one is found within about three rounds of it (``probing_rounds``, Brent's
#: method), so it ends with an error, never a hang. ``for-each``: its time is the calls'.
#: (``primitives/loops.py`` has their loops; ``compiler/inline_walks.py`` does the same rounds.)
ONE_PASS = frozenset({"for-each"})


def probing_rounds() -> Iterator[bool]:
    """Endless rounds of a walk that finds its list's end as it goes: True at rounds 0, 1,
    2, 4, 8 … (where the walk marks the pair it is at: coming back to the mark is a
    circular list, found within about three times its length: Brent's method), False
    elsewhere; the limits are polled between chunks of :data:`POLL_EVERY` rounds."""
    return chain.from_iterable(_probe_chunks())


_FIRST_CHUNK = tuple(i & (i - 1) == 0 for i in range(POLL_EVERY))


def _probe_chunks() -> Iterator[Iterable[bool]]:
    yield _FIRST_CHUNK
    chunk = 1
    while True:
        poll_limits()
        if chunk & (chunk - 1) == 0:  # a power of two: its first round is one too
            yield chain((True,), repeat(False, POLL_EVERY - 1))
        else:
            yield repeat(False, POLL_EVERY)
        chunk += 1
