"""Garbage-collector settings for a process that runs taskscheme programs.

Scheme data is made of many small container objects (pairs, frames, closures), so
CPython's cyclic collector runs often and, in its older generations, walks the whole
heap, the interpreter's own start-up objects included. Measured with ``gc.callbacks``
on bench/library.py's programs (share of run time spent collecting, default settings ->
tuned): merge sort 12% -> 2%, primes 14% -> 6%; map/filter/fold stays at 4% (list
building already pauses the collector, see ``primitives.lists.build_list``).

A run must also not pay for what is older than it. In a long-lived process (a host, the
fuzzer) earlier runs and dropped interpreters leave millions of objects, alive or cyclic
garbage; a full collection that falls due inside a later run walks and frees them all
at once, in one C call no deadline check can interrupt (seed 1 of the fuzzer, programs
0-49,999, loaded machine: all 18 programs that ended 0.5-2.0 s past a 0.5 s deadline
were inside one such pass, 0.7-2.4 s long, 17 of them freeing 1-2 million objects). So
each top-level run goes through :func:`run_heap`: the garbage earlier runs left is
collected first, if a full collection is due, before the run's deadline starts
(:func:`settle`; a host can call it itself between runs); then the heap older than the
run is frozen, so collections during the run walk only the run's own objects, and
unfrozen when it ends.

While runs are under way the youngest generation is also collected less often
(:data:`YOUNG_THRESHOLD` allocations, the command line's setting), unless the host set
thresholds of its own or the interpreter was made with ``tune_gc=False``; the host's
thresholds are put back when the last run ends. Embedded with CPython's default of 700,
idiomatic list code spent up to half its time in the collector (``bench/library.py``'s
idiomatic programs: map/filter/fold-left 17.8x -> 12.3x, ``apply string-append`` 19x -> 9.7x).
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: Objects CPython keeps frozen (in the permanent generation) from its own start-up, counted
#: when this module is imported: 375 on 3.12.1, none on 3.11 and 3.13. More frozen than
#: these means the host froze objects of its own.
STARTUP_FROZEN = gc.get_freeze_count()

#: Allocations (net of frees) between two collections of the youngest generation
#: (CPython's default is 700). Short-lived garbage is freed by reference counting and
#: does not count, so this bounds only what cycles can hold: tens of MB at most.
YOUNG_THRESHOLD = 50_000

#: A full collection is due at the start of a run once the process's allocated blocks have
#: grown by this share since the last one :func:`settle` made or saw (CPython's own rule
#: for full collections: 25% more long-lived objects) …
DUE_SHARE = 0.25
#: … and by at least this many blocks (about 6 MB): a small heap costs little to keep.
DUE_FROM = 200_000
#: Counting the blocks walks the allocator's pools (80 µs at 2 million objects, most of an
#: ``eval`` of a constant), so :func:`settle` counts them only once collections of the
#: youngest generation have seen about this many new container objects (cyclic garbage
#: is made of them), or while one is pending: evaluations that allocate little pay nothing.
COUNT_AFTER = 5_000

#: CPython's own thresholds, as a process starts: a host whose thresholds differ set its own.
CPYTHON_THRESHOLDS = (2000, 10, 10) if sys.version_info >= (3, 13) else (700, 10, 10)


class RunHeap:
    """Process-wide: the blocks at the last settled point, and the runs under way (the
    first to begin freezes the older heap, the last to end unfreezes it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.settled_blocks = sys.getallocatedblocks()
        self.young_seen = 0  # young-generation collections when the blocks were last counted
        self.runs = 0
        self.froze = False
        self.tuned = False  # what is frozen now, tune_collector froze: ours to unfreeze
        #: The thresholds the first run found and raised (put back when the last run ends), or None.
        self.host_thresholds: tuple[int, int, int] | None = None
        self.young_at_raise = 0  # young-generation collections when the threshold was raised
        #: New objects young collections saw beyond what the current threshold tells
        #: (the collections made while runs had the threshold raised), since the last count.
        self.young_credit = 0
        #: Whether the host had frozen objects of its own when last counted (see :func:`host_froze`).
        self.host_froze = False


HEAP = RunHeap()


def settle(force: bool = False) -> float:
    """Collect the garbage earlier runs left, all generations, if a full collection is due
    (or ``force``); the seconds it took (0.0 if none was due or the collector is off).

    Every top-level run calls it before its deadline starts; a long-lived host may call it
    between runs to pay the collection at a time of its choosing. Runs under way in other
    threads wait meanwhile (the collector holds the interpreter lock) and walk the whole
    heap until the last of them ends."""
    young, threshold = gc.get_stats()[0]["collections"], gc.get_threshold()[0]
    seen = (young - HEAP.young_seen) * threshold + HEAP.young_credit
    if not force and seen < COUNT_AFTER and gc.get_count()[0] < threshold:
        return 0.0
    blocks = sys.getallocatedblocks()
    with HEAP.lock:
        HEAP.young_seen, HEAP.young_credit = young, 0
        if blocks < HEAP.settled_blocks:  # freed since: count growth from the lowest point
            HEAP.settled_blocks = blocks
        due = blocks - HEAP.settled_blocks >= max(DUE_FROM, HEAP.settled_blocks * DUE_SHARE)
    if not gc.isenabled() or not (due or force):
        return 0.0
    began = time.perf_counter()
    with HEAP.lock:
        if HEAP.froze:  # runs under way (or abandoned) since the freeze: free its garbage too
            gc.unfreeze()
            HEAP.froze = HEAP.tuned = False
    gc.collect()
    with HEAP.lock:
        HEAP.settled_blocks = sys.getallocatedblocks()
        HEAP.host_froze = False  # counted again by the next run: a full collection costs far more
    return time.perf_counter() - began


def host_froze() -> bool:
    """Whether the permanent generation holds objects the host froze (``gc.freeze``).

    CPython counts frozen objects by walking them (``gc.get_freeze_count``: 8 ms at 400,000
    frozen objects, more than many whole runs), so a count that found some is kept until the
    next full collection :func:`settle` makes; a count that found none walks only CPython's own
    few hundred, and is made again at each run's start. A host that unfreezes meanwhile has its
    runs collect as a freezing host's do until then."""
    if not HEAP.host_froze:
        HEAP.host_froze = gc.get_freeze_count() > STARTUP_FROZEN
    return HEAP.host_froze


@contextmanager
def run_heap(tune: bool = True) -> Iterator[None]:
    """One top-level run: :func:`settle`, then the heap older than the run frozen (not
    walked by collections) and, if ``tune``, the youngest generation collected every
    :data:`YOUNG_THRESHOLD` allocations, until the last run under way in the process ends.

    Not if the host froze objects of its own (``gc.freeze``): unfreezing them is the
    host's call, so its runs collect as before. Nor the threshold if the host set its own
    (they differ from :data:`CPYTHON_THRESHOLDS`): the host's thresholds are kept. The
    first run to begin decides for all the runs that overlap it."""
    settle()
    with HEAP.lock:
        HEAP.runs += 1
        if HEAP.runs == 1:
            if HEAP.tuned or not host_froze():
                gc.freeze()
                HEAP.froze = True
            if tune and gc.get_threshold() == CPYTHON_THRESHOLDS:
                HEAP.host_thresholds = CPYTHON_THRESHOLDS
                HEAP.young_at_raise = gc.get_stats()[0]["collections"]
                gc.set_threshold(YOUNG_THRESHOLD, *CPYTHON_THRESHOLDS[1:])
    try:
        yield
    finally:
        with HEAP.lock:
            HEAP.runs -= 1
            if HEAP.runs == 0:
                if HEAP.froze:
                    gc.unfreeze()
                    HEAP.froze = HEAP.tuned = False  # what tune_collector froze is unfrozen too
                if HEAP.host_thresholds is not None:
                    raised = gc.get_stats()[0]["collections"] - HEAP.young_at_raise
                    HEAP.young_credit += raised * (YOUNG_THRESHOLD - HEAP.host_thresholds[0])
                    if gc.get_threshold()[0] == YOUNG_THRESHOLD:  # unless the host changed them meanwhile
                        gc.set_threshold(*HEAP.host_thresholds)
                    HEAP.host_thresholds = None


def tune_collector() -> None:
    """Freeze the objects made so far (the start-up heap: modules, the stdlib, the
    grammar) so that collections no longer scan them, and collect the youngest generation
    less often.

    Process-wide, so only the command line calls it, after start-up; an embedding host
    keeps its own settings and may call this itself (each ``Interpreter`` run raises the
    young threshold only for its own duration, see :func:`run_heap`)."""
    gc.freeze()
    HEAP.tuned = True
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(max(_young, YOUNG_THRESHOLD), middle, old)


@contextmanager
def paused() -> Iterator[None]:
    """Run the body with the cyclic collector off (if it was on), then turn it back on.

    For code that builds a large structure of new objects none of which can become
    cyclic garbage before it finishes (the reader, list builders): every collection in
    between would only walk live objects. Process-wide, like the collector itself."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
